#!/usr/bin/env bash
# icount.sh BUILD_DIR -- instructions per call (callgrind), the figure that
# does not move with a shared VM's speed: the instructions executed inside
# Host::call_json (the whole pipeline of one call) per call made, each case
# in two valgrind runs of toolgate_bench of different lengths.  The figure
# is the difference of the two runs' instructions over the difference of
# their calls: the first calls' one-time work (lazy initialisation, symbol
# binding) cancels out.  (Divided by one run's calls instead, it came out
# 66 % high for the typical stack on a loaded machine, where the run made
# few calls.)
set -euo pipefail
build=${1:-build/bench}
bench="$build/tests/bench/toolgate_bench"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '\n| case (callgrind, inside Host::call_json) | instructions per call |\n|---|---|\n'
for case in BM_PipelineEmpty 'BM_TypicalStack_Small/real_time/threads:1' \
            'BM_HookSlope/guard/1' 'BM_HookSlope/guard/50' \
            'BM_HookSlope/execute_wrapper/1' 'BM_HookSlope/execute_wrapper/50'; do
  for time in 0.2 0.6; do
    valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$time" \
      --toggle-collect='toolgate::Host::call_json*' \
      "$bench" --benchmark_filter="^${case}\$" --benchmark_min_time=$time >/dev/null 2>&1
  done
  /usr/bin/python3 - "$out/callgrind.0.2" "$out/callgrind.0.6" "$case" <<'PY'
import re, sys
def totals(path):
    text = open(path).read()
    total = int(re.search(r"^summary: (\d+)", text, re.M).group(1))
    # The function's id (callgrind names a function once, then by id).
    fid = re.search(r"^c?fn=\((\d+)\) toolgate::Host::call_json", text, re.M).group(1)
    calls = sum(int(m.group(1))
                for m in re.finditer(r"^cfn=\(" + fid + r"\).*\ncalls=(\d+)", text, re.M))
    return total, calls
(t1, c1), (t2, c2) = totals(sys.argv[1]), totals(sys.argv[2])
if c2 <= c1:
    sys.exit(f"{sys.argv[3]}: the longer run made no more calls ({c1} and {c2})")
print(f"| {sys.argv[3]} | {(t2 - t1) // (c2 - c1):,} |")
PY
done
