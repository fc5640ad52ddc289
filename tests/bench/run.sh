#!/usr/bin/env bash
# run.sh -- build the bench preset, run the suite (5 repetitions, medians),
# write build/bench/bench.json and print the README's tables: the suite's
# medians and ratios (report.py), the typical stack against the same stack
# in-process in Node.js and Python and against spawned hooks, interleaved
# (anchors.py), and instructions per call under callgrind (icount.sh), the
# figure a noisy machine does not move.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset bench >/dev/null
cmake --build --preset bench
./build/bench/tests/bench/toolgate_bench \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_out=build/bench/bench.json --benchmark_out_format=json "$@"
/usr/bin/python3 tests/bench/report.py build/bench/bench.json
/usr/bin/python3 tests/bench/anchors.py build/bench 7
if command -v valgrind >/dev/null; then
  tests/bench/icount.sh build/bench
else
  echo "valgrind is not installed: no instruction counts (apt-get install valgrind)"
fi
