#!/usr/bin/env bash
# audit_cli_test.sh TOOLGATE PLUGIN_DIR -- `toolgate audit verify`: records
# written by the audit plugin through `toolgate call` verify (exit 0); an
# altered, removed or cut record is reported with its file and line (exit
# 1); bad command lines are usage errors (exit 2).
set -uo pipefail
tg=$1
plugins=$2
fails=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 700 "$work"

expect() {  # expect NAME WANT_STATUS REGEX -- command...
  local name=$1 want=$2 regex=$3
  shift 3
  local out status
  out=$("$@" 2>&1)
  status=$?
  if [ "$status" != "$want" ] || ! grep -Eq -- "$regex" <<<"$out"; then
    echo "FAIL $name: status $status (want $want), output:"
    echo "$out" | sed 's/^/    /'
    fails=$((fails + 1))
  else
    echo "ok   $name"
  fi
}

cat > "$work/m.json" <<JSON
{ "toolgate": 1,
  "plugins": [ { "id": "toolgate.audit", "path": "$plugins/toolgate_audit.so",
                 "config": { "path": "$work/log/audit.jsonl", "max_bytes": 1 } } ] }
JSON
for name in Ada Grace Linus Barbara; do
  "$tg" call --manifest "$work/m.json" greet "{\"name\":\"$name\"}" >/dev/null 2>&1 || { echo "FAIL call $name"; fails=$((fails + 1)); }
done
log=$work/log/audit.jsonl
files=("$log".0* "$log")   # rotated files in order, the active one last
expect "four records in four files verify" 0 '^ok: 4 records in 4 files; head seq 4 hash [0-9a-f]{64}$' \
  "$tg" audit verify "${files[@]}"
expect "a missing first file is found" 1 "audit.jsonl.000002:1: missing record\(s\): expected seq 1, found 2" \
  "$tg" audit verify "${files[@]:1}"
expect "--no-genesis verifies a suffix" 0 '^ok: 3 records' "$tg" audit verify --no-genesis "${files[@]:1}"

cat "${files[@]}" > "$work/all.jsonl"
expect "one file with every record" 0 '^ok: 4 records in 1 file;' "$tg" audit verify "$work/all.jsonl"
sed '2s/"greet"/"gReet"/' "$work/all.jsonl" > "$work/altered.jsonl"
expect "an altered record" 1 'altered.jsonl:2: altered: its content does not match its own hash' \
  "$tg" audit verify "$work/altered.jsonl"
expect "records before it are counted" 1 '^1 record verified before it$' "$tg" audit verify "$work/altered.jsonl"
sed '3d' "$work/all.jsonl" > "$work/removed.jsonl"
expect "a removed record" 1 'removed.jsonl:3: missing record\(s\): expected seq 3, found 4' \
  "$tg" audit verify "$work/removed.jsonl"
head -c -20 "$work/all.jsonl" > "$work/cut.jsonl"
expect "a cut record" 1 'cut.jsonl:4: incomplete record' "$tg" audit verify "$work/cut.jsonl"
expect "a missing file" 1 'nope.jsonl: cannot be read' "$tg" audit verify "$work/nope.jsonl"

expect "no subcommand" 2 'usage error: audit needs a subcommand' "$tg" audit
expect "unknown subcommand" 2 'unknown audit subcommand "check"' "$tg" audit check "$log"
expect "no files" 2 'at least one file' "$tg" audit verify
expect "unknown option" 2 'unknown option --fast' "$tg" audit verify --fast "$log"

exit $((fails > 0))
