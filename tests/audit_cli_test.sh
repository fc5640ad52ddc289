#!/usr/bin/env bash
# audit_cli_test.sh TOOLGATE PLUGIN_DIR -- `toolgate audit verify`: records
# written by the audit plugin through `toolgate call` verify (exit 0); an
# altered, removed or cut record is reported with its file and line (exit
# 1); bad command lines are usage errors (exit 2).  Devices, FIFOs and
# over-long lines are refused without reading them whole; keyed chains
# verify with --key-file (exit 3 without it), anchors find a cut log; the
# plugin refuses a symbolic link at its log path; `toolgate call --events`
# to a full disk says so once and exits 1.
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

# ---- issue 13: no devices, no unbounded lines, no symlinks, event log errors --------------
expect "/dev/zero is refused at once" 1 '^FAIL /dev/zero: is a character device, not a regular file' \
  timeout 10 "$tg" audit verify /dev/zero
mkfifo "$work/fifo"
expect "a FIFO is refused without waiting for a writer" 1 'fifo: is a FIFO, not a regular file' \
  timeout 10 "$tg" audit verify "$work/fifo"
{ head -n 1 "$work/all.jsonl"; head -c 5000 /dev/zero | tr '\0' x; echo; } > "$work/long.jsonl"
expect "a line over --max-line-bytes" 1 'long.jsonl:2: a line longer than the 2048-byte limit of a record' \
  "$tg" audit verify --max-line-bytes 2048 "$work/long.jsonl"
truncate -s 70M "$work/zeros"
expect "70 MB without a newline: the 64 MiB cap" 1 'zeros:1: a line longer than the 67108864-byte limit' \
  timeout 20 "$tg" audit verify "$work/zeros"
expect "--max-line-bytes takes a number" 2 'usage error: --max-line-bytes' "$tg" audit verify --max-line-bytes lots "$log"

echo precious > "$work/victim"
ln -s "$work/victim" "$work/link.jsonl"
sed "s|$work/log/audit.jsonl|$work/link.jsonl|" "$work/m.json" > "$work/link.json"
expect "a symlink at the log path is refused" 1 'link.jsonl is a symbolic link; refusing to follow it' \
  "$tg" call --manifest "$work/link.json" greet '{"name":"Ada"}'
[ "$(cat "$work/victim")" = precious ] || { echo "FAIL the symlink's target was written"; fails=$((fails + 1)); }

out=$("$tg" call --manifest "$work/m.json" greet '{"name":"Ada"}' --events /dev/full 2>"$work/err")
status=$?
if [ "$status" != 1 ] || [ "$(grep -c 'cannot write the event log /dev/full: No space left on device' "$work/err")" != 1 ] ||
   ! grep -q '"isError":false' <<<"$out"; then
  echo "FAIL --events /dev/full: status $status (want 1), one report on stderr, the result on stdout:"
  sed 's/^/    /' "$work/err"; echo "    $out"
  fails=$((fails + 1))
else
  echo "ok   --events /dev/full: reported once, exit 1"
fi

# ---- issue 14: keyed chains and anchors ----------------------------------------------------
(umask 077; head -c 32 /dev/urandom > "$work/audit.key")
cat > "$work/keyed.json" <<JSON
{ "toolgate": 1,
  "plugins": [ { "id": "toolgate.audit", "path": "$plugins/toolgate_audit.so",
                 "config": { "path": "$work/klog/audit.jsonl", "hmac_key_file": "$work/audit.key",
                             "anchor_file": "$work/anchor/audit.anchor" } } ] }
JSON
for name in Ada Grace Linus Barbara; do
  "$tg" call --manifest "$work/keyed.json" greet "{\"name\":\"$name\"}" >/dev/null 2>&1 || { echo "FAIL keyed call $name"; fails=$((fails + 1)); }
done
klog=$work/klog/audit.jsonl
anchor=$work/anchor/audit.anchor
expect "a keyed chain with its key" 0 '^keyed: every record.s HMAC-SHA256 checks' \
  "$tg" audit verify --key-file "$work/audit.key" "$klog"
expect "a keyed chain with its key and anchor" 0 '^anchored: 4 anchors in .* match their records; the last anchors seq 4$' \
  "$tg" audit verify --key-file "$work/audit.key" --anchor "$anchor" "$klog"
expect "a keyed chain without its key is not ok" 3 '^UNVERIFIED: 4 records in 1 file form a keyed chain .* cannot be checked without its key' \
  "$tg" audit verify "$klog"
expect "an unkeyed chain says what it cannot show" 0 '^unkeyed: plain SHA-256 links' "$tg" audit verify "$work/all.jsonl"
expect "an unkeyed chain checked with a key" 1 'all.jsonl:1: not keyed' \
  "$tg" audit verify --key-file "$work/audit.key" "$work/all.jsonl"
head -n 2 "$klog" > "$work/kcut.jsonl"
expect "records cut off the end: the anchor sees it" 1 "^FAIL .*kcut.jsonl: truncated: .*audit.anchor line 3 anchors seq 3, but the log ends at seq 2" \
  "$tg" audit verify --key-file "$work/audit.key" --anchor "$anchor" "$work/kcut.jsonl"
expect "records cut off the end: the key alone does not" 0 '^ok: 2 records' \
  "$tg" audit verify --key-file "$work/audit.key" "$work/kcut.jsonl"
sed '3s/"greet"/"gReet"/' "$klog" > "$work/kaltered.jsonl"
expect "an altered keyed record" 1 'kaltered.jsonl:3: altered or forged: its HMAC-SHA256 does not match' \
  "$tg" audit verify --key-file "$work/audit.key" "$work/kaltered.jsonl"
expect "a deleted anchor" 1 'nope.anchor: \(the anchor file\) cannot be read' \
  "$tg" audit verify --key-file "$work/audit.key" --anchor "$work/nope.anchor" "$klog"
cp "$work/audit.key" "$work/open.key"; chmod 644 "$work/open.key"
expect "a key file others can read" 1 'open.key has mode 0644; .* fix: chmod 600' \
  "$tg" audit verify --key-file "$work/open.key" "$klog"
expect "--key-file needs a value" 2 'usage error: --key-file needs a value' "$tg" audit verify "$klog" --key-file

exit $((fails > 0))
