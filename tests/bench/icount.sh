#!/usr/bin/env bash
# icount.sh BUILD_DIR -- instructions per call (callgrind), the figure that
# does not move with a shared VM's speed: the instructions executed inside
# Host::call_json (the whole pipeline of one call) divided by the number of
# calls made, each case in its own valgrind run of toolgate_bench.  The
# first call's one-time work (lazy initialisation) is spread over the
# ~5,000 calls a run makes.
set -euo pipefail
build=${1:-build/bench}
bench="$build/tests/bench/toolgate_bench"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '\n| case (callgrind, inside Host::call_json) | instructions per call |\n|---|---|\n'
for case in BM_PipelineEmpty 'BM_TypicalStack_Small/real_time/threads:1' \
            'BM_HookSlope/guard/1' 'BM_HookSlope/guard/50' \
            'BM_HookSlope/execute_wrapper/1' 'BM_HookSlope/execute_wrapper/50'; do
  file="$out/callgrind.out"; rm -f "$file"
  valgrind --tool=callgrind --callgrind-out-file="$file" --toggle-collect='toolgate::Host::call_json*' \
    "$bench" --benchmark_filter="^${case}\$" --benchmark_min_time=0.5 >/dev/null 2>&1
  /usr/bin/python3 - "$file" "$case" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
total = int(re.search(r"^summary: (\d+)", text, re.M).group(1))
# The function's id (callgrind names a function once, then by id).
fid = re.search(r"^c?fn=\((\d+)\) toolgate::Host::call_json", text, re.M).group(1)
calls = sum(int(m.group(1)) for m in re.finditer(r"^cfn=\(" + fid + r"\).*\ncalls=(\d+)", text, re.M))
print(f"| {sys.argv[2]} | {total // calls:,} |")
PY
done
