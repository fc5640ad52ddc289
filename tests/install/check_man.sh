#!/usr/bin/env bash
# check_man.sh TOOLGATE MAN1.gz MAN5.gz SCHEMA -- the generated man pages
# (packaging/man/gen_man.cmake) render without a single groff warning and
# hold what they are generated from: every command of `toolgate help` and
# every option of its `toolgate CMD --help` in toolgate(1), every top-level
# field of the manifest schema (and of its $defs) in toolgate-manifest(5).
set -euo pipefail
tg=$1 man1=$2 man5=$3 schema=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v groff >/dev/null || fail "groff is not installed: install groff-base (packaging/install-deps.sh)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for page in "$man1" "$man5"; do
  [ -s "$page" ] || fail "not built: $page"
  gzip -t "$page" || fail "$page is not a valid gzip file"
  zcat "$page" >"$work/page"
  # -ww: every warning; -k: preconv, as man(1) runs it.
  groff -k -man -Tutf8 -ww -z "$work/page" 2>"$work/warnings" || fail "groff failed on $page"
  if [ -s "$work/warnings" ]; then
    cat "$work/warnings" >&2
    fail "groff warns about $page (above)"
  fi
done

# Rendered as plain text (no overstriking), as a reader sees it.
render() { zcat "$1" | groff -k -man -Tascii -P-cbou 2>/dev/null; }
text1=$(render "$man1")
commands=$("$tg" help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\).*/\1/p')
[ -n "$commands" ] || fail "no commands in \`toolgate help\`"
for c in $commands; do
  grep -q "^\.SS $c\$" <(zcat "$man1") || fail "toolgate(1) has no section for the command $c"
  for opt in $("$tg" "$c" --help | sed -n 's/^  \(--*[a-z][a-z-]*\).*/\1/p'); do
    grep -Fq -- "$opt" <<<"$text1" || fail "toolgate(1) lacks $c's option $opt"
  done
done

text5=$(render "$man5")
# shellcheck disable=SC2016
fields=$(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
for k in s["properties"]: print(k)
for d in s.get("$defs", {}).values():
    for k in d.get("properties", {}): print(k)
' "$schema")
for f in $fields; do
  grep -Eq "^ +$f \(" <<<"$text5" || fail "toolgate-manifest(5) does not describe the field $f"
done
echo "man pages: ok ($(wc -w <<<"$commands") commands, $(wc -w <<<"$fields") fields)"
