#!/usr/bin/env bash
# run.sh -- run every libFuzzer harness (or the ones named) for a bounded
# time each, starting from its committed seed corpus (tests/fuzz/corpus/NAME,
# copied to a temporary folder so the committed one is never modified).
#
#   cmake --preset fuzz && cmake --build --preset fuzz
#   tests/fuzz/run.sh                  # every harness, 20 s each
#   FUZZ_SECONDS=60 tests/fuzz/run.sh strict_json shell_parse
#
# Prints one line per harness and exits 1 if any harness found something
# (a crash, a sanitizer report, a failed invariant, a leak, a timeout or an
# out-of-memory): its input is saved as build/fuzz/findings/NAME-crash-*
# (or -leak-, -timeout-, -oom-) and the end of its log is printed.  Rerun
# one input with: build/fuzz/tests/fuzz/fuzz_NAME FILE
#
# Environment: FUZZ_SECONDS (per harness, default 20), FUZZ_BUILD_DIR
# (default build/fuzz), FUZZ_ARGS (extra libFuzzer flags).
set -uo pipefail
cd "$(dirname "$0")/../.."

seconds=${FUZZ_SECONDS:-20}
build=${FUZZ_BUILD_DIR:-build/fuzz}
findings=$build/findings
logs=$build/logs
all=(manifest call_json mcp_framing jsonrpc strict_json config_schema shell_parse path_resolve glob secrets)
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=("${all[@]}")

mkdir -p "$findings" "$logs"
work=$(mktemp -d "${TMPDIR:-/tmp}/toolgate-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=0
for name in "${harnesses[@]}"; do
  bin=$build/tests/fuzz/fuzz_$name
  seeds=tests/fuzz/corpus/$name
  if [ ! -x "$bin" ] || [ ! -d "$seeds" ]; then
    echo "$name: FAILED: no $bin or no $seeds (build the fuzz preset first)"
    failed=1
    continue
  fi
  corpus=$work/$name
  mkdir -p "$corpus"
  cp "$seeds"/* "$corpus"/
  log=$logs/$name.log
  start=$(date +%s)
  # shellcheck disable=SC2086  # FUZZ_ARGS is a list of flags
  "$bin" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$findings/$name-" ${FUZZ_ARGS:-} >"$log" 2>&1
  rc=$?
  took=$(($(date +%s) - start))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  seeds_n=$(find "$seeds" -type f | wc -l)
  corpus_n=$(find "$corpus" -type f | wc -l)
  if [ $rc -eq 0 ]; then
    echo "$name: ok, ${runs:-?} runs in ${took} s, ${cov:-?} edges, corpus ${seeds_n} -> ${corpus_n}, peak ${rss:-?} MB"
  else
    failed=1
    saved=$(sed -n 's/.*Test unit written to //p' "$log" | tail -1)
    echo "$name: FAILED (exit $rc) after ${took} s; input: ${saved:-none saved}; log: $log"
    grep -E 'ERROR: |fuzz check failed|runtime error|SUMMARY' "$log" | head -5 | sed 's/^/    /'
  fi
done
exit $failed
