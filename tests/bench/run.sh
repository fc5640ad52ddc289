#!/usr/bin/env bash
# run.sh -- build the bench preset, run the suite (5 repetitions, medians),
# write build/bench/bench.json and print the README's table.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset bench >/dev/null
cmake --build --preset bench
./build/bench/tests/bench/toolgate_bench \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_out=build/bench/bench.json --benchmark_out_format=json "$@"
/usr/bin/python3 tests/bench/report.py build/bench/bench.json
