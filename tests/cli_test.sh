#!/usr/bin/env bash
# cli_test.sh TOOLGATE SAMPLES_DIR TEST_PLUGINS_DIR -- the CLI's contract: exit codes (0 ok,
# 1 failure, 2 usage), errors on stderr, results on stdout, and what check,
# plan and call print for the layered sample manifests.
set -uo pipefail
tg=$1
m=$2/manifests
test_plugins=$3
fails=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

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

expect "check ok" 0 '^ok: 2 layers, 6 plugins, 6 hooks \(2 locked\)$' "$tg" check "$m/layers"
expect "check refuses weakening a locked guard" 1 \
  'at /overrides/sample.no-world~1no-world: hook sample.no-world/no-world is locked by layer "security"' \
  "$tg" check "$m/layers" "$m/broken/weaken-locked-guard.json"
expect "check without manifests and no default folders fails" 1 'no manifest given, and no default folder holds one' \
  env TOOLGATE_SYSTEM_MANIFEST_DIR="$work/none" TOOLGATE_USER_MANIFEST_DIR= "$tg" check
expect "unknown option is a usage error" 2 'unknown option --bogus' "$tg" plan "$m/layers" --bogus
expect "unknown command" 2 'unknown command' "$tg" frobnicate

# Every command explains itself: CMD --help and CMD -h print its own usage
# on stdout and exit 0 (issue 20 item 15), wherever an option may stand.
for cmd in demo check plan call watch audit mcp inspect new-plugin version help; do
  for flag in --help -h; do
    out=$("$tg" $cmd $flag 2>/dev/null); status=$?
    if [ $status = 0 ] && grep -q "^usage: toolgate $cmd" <<<"$out" && grep -q -- '-h, --help' <<<"$out"; then
      echo "ok   $cmd $flag"
    else
      echo "FAIL $cmd $flag: status $status, output:"; echo "$out" | sed 's/^/    /'; fails=$((fails + 1))
    fi
  done
done
expect "--help after other arguments" 0 '^usage: toolgate watch M\.\.\. \[--call TOOL' "$tg" watch "$m/layers" --every 5 --help
expect "audit verify --help" 0 '--key-file F +the key of a keyed chain' "$tg" audit verify --help
expect "call --help lists its options and the shared ones" 0 '--disable GLOB' "$tg" call --help
expect "-h as an option's value is that value" 1 '"code":"invalid_arguments"' \
  "$tg" call "$m/layers" --tool greet --args -h
expect "help lists CMD --help" 0 'toolgate COMMAND --help' "$tg" help
expect "a usage error points at CMD --help" 2 'see toolgate plan --help' "$tg" plan "$m/layers" --bogus

# Failures in words (issue 20 item 10): --trace shows why a hook failed,
# and an unknown verdict names the valid ones.
mkdir -p "$work/kit"
printf '{"toolgate":1,"plugins":[{"id":"test.kit","path":"%s","config":{"guard":"bad-verdict"}}]}' \
  "$test_plugins/testkit.so" > "$work/kit/m.json"
expect "--trace shows a failed hook's message" 1 \
  'trace: guard +test\.kit/guard +failed .*error="answered an unknown verdict 7 \(the valid ones are TG_GUARD_ABSTAIN \(0\), TG_GUARD_DENY \(1\)\)"' \
  "$tg" call "$work/kit/m.json" --tool greet --args '{"name":"Ada"}' --trace

# Contexts a post-execute hook queued: the user message to place after the
# results, as a second JSON line.
printf '{"toolgate":1,"plugins":[{"id":"test.kit","path":"%s","config":{"post":"context"}}]}' \
  "$test_plugins/testkit.so" > "$work/kit/context.json"
expect "call prints the context message after the result" 0 \
  '^\{"context_message":"testkit context"\}$' \
  "$tg" call "$work/kit/context.json" --tool greet --args '{"name":"Ada"}'

# ${NAME} in a manifest: refused without a value, loaded with --var.
printf '{"toolgate":1,"plugins":[{"id":"test.kit","path":"%s","config":{"guard":"${mode}"}}]}' \
  "$test_plugins/testkit.so" > "$work/vars.json"
expect "a variable without a value is a load error naming it" 1 \
  'at /plugins/0/config/guard: variable \$\{mode\} has no value' \
  "$tg" check "$work/vars.json"
expect "--var gives it one" 1 'denied' \
  "$tg" call "$work/vars.json" --var mode=deny --tool greet --args '{"name":"Ada"}'

# check reports errors in every file, not just the first.
printf '{ "toolgate": 1, "plugins": [ }' > "$work/a.json"
printf '{ "toolgate": 1, "colour": 1 }' > "$work/b.json"
out=$("$tg" check "$work/a.json" "$work/b.json" 2>&1)
if [ $? = 1 ] && grep -q 'a.json: not valid JSON at line 1' <<<"$out" && grep -q 'b.json at /colour: unknown key' <<<"$out"; then
  echo "ok   check reports every file's error"
else
  echo "FAIL check reports every file's error:"; echo "$out"; fails=$((fails + 1))
fi

# plan prints the resolved order the tests assert.
plan=$("$tg" plan "$m/layers" | sed -E 's/ +/ /g')
want='plan (layers: security deployer)

tools/pre-execute
 (none: default path)

guard (all run; any deny denies)
 1. example.no-root/no-root layer=deployer priority=0 tools=greet mode=shadow
 2. sample.no-world/no-world layer=security priority=0 tools=greet mode=enforce LOCKED

tools/execute
 1. sample.timeout/deadline layer=security priority=0 tools=* LOCKED

tools/post-execute
 1. sample.shout/shout layer=deployer priority=10 tools=*
 2. sample.note/note layer=deployer priority=50 tools=*

tools/result
 1. sample.counter/count layer=deployer priority=0 tools=*'
if [ "$plan" = "$want" ]; then echo "ok   plan order"; else
  echo "FAIL plan order:"; diff <(echo "$want") <(echo "$plan"); fails=$((fails + 1)); fi
expect "plan --json for one tool" 0 '"tool":"slow"' "$tg" plan "$m/layers" --tool slow --json

# call: the locked guard denies, even with every override the operator has.
expect "call denied by the locked guard" 1 '"code":"denied","message":"greeting the whole World is not allowed"' \
  "$tg" call "$m/layers" --tool greet --args '{"name":"World"}'
expect "--disable all keeps the locked guard" 1 '"code":"denied"' \
  "$tg" call "$m/layers" --disable all --tool greet --args '{"name":"World"}'
expect "TOOLGATE_DISABLE=all keeps the locked guard" 1 'kept despite --disable all' \
  env TOOLGATE_DISABLE=all "$tg" call "$m/layers" --tool greet --args '{"name":"World"}'
expect "call succeeds through the stack" 0 '"text":"HELLO, ADA!"' \
  "$tg" call "$m/layers" --tool greet --args '{"name":"Ada"}'

# Code Mode: a script's calls go through the same locked guard.
expect "call --code-mode: a script's refused call is ToolDenied and listed" 0 \
  '"value":\{"a":"Hello, Ada!","b":"ToolDenied: greeting the whole World is not allowed"\}' \
  "$tg" call "$m/layers" --code-mode --tool run_code --args \
  '{"code":"const a = await tools.greet({name: \"Ada\"}); let b; try { b = await tools.greet({name: \"World\"}); } catch (e) { b = e.name + \": \" + e.message; } return {a, b};"}'
expect "run_code without --code-mode is an unknown tool" 1 '"code":"unknown_tool"' \
  "$tg" call "$m/layers" --tool run_code --args '{"code":"return 1"}'
expect "--code-sandbox without --code-mode is a usage error" 2 '\-\-code-sandbox needs \-\-code-mode' \
  "$tg" call "$m/layers" --code-sandbox none --tool greet --args '{}'
expect "tools --typescript declares the tools" 0 'greet\(args: \{' "$tg" tools "$m/layers" --typescript
expect "tools --code-mode lists run_code" 0 'run_code +Runs a JavaScript program' "$tg" tools "$m/layers" --code-mode

# The file tools, with guard-paths' fs guard holding its write roots.
mkdir -p "$work/ws/out"
printf '{"toolgate":1,"plugins":[{"id":"toolgate.guard-paths","path":"%s","config":{"read_roots":["%s"],"write_roots":["%s"],"base":"%s"}}]}' \
  "$2/../plugins/toolgate_guard-paths.so" "$work/ws" "$work/ws/out" "$work/ws" > "$work/ws-policy.json"
expect "fs.write inside the write roots" 0 '"created":true' \
  "$tg" call "$work/ws-policy.json" --tools fs --workspace "$work/ws" --tool fs.write --args '{"path":"out/a.txt","content":"hi"}'
expect "fs.write outside them is denied by guard-paths" 1 '"source":"toolgate.guard-paths/' \
  "$tg" call "$work/ws-policy.json" --tools fs --workspace "$work/ws" --tool fs.write --args '{"path":"b.txt","content":"hi"}'
if [ -e "$work/ws/b.txt" ]; then echo "FAIL fs.write: the denied file exists"; fails=$((fails + 1)); fi
expect "fs.edit of a file this session did not read is refused" 1 '"source":"host/read-before-edit"' \
  "$tg" call "$work/ws-policy.json" --tools fs --workspace "$work/ws" --tool fs.edit --args '{"path":"out/a.txt","old":"hi","new":"ho"}'
expect "--workspace without --tools is a usage error" 2 'needs --tools fs' \
  "$tg" call "$m/layers" --workspace /tmp --tool greet --args '{}'
expect "--trace shows every verdict" 0 'trace: guard example.no-root/no-root would-deny' \
  sh -c "'$tg' call '$m/layers' --tool greet --args '{\"name\":\"root\"}' --trace 2>&1 | sed -E 's/ +/ /g'"
expect "--approve yes" 0 '"text":"Hello, Ada!"' "$tg" call "$m/2-ask.json" --tool greet --args '{"name":"Ada"}' --approve yes
expect "--approve no" 1 '"code":"approval_rejected"' "$tg" call "$m/2-ask.json" --tool greet --args '{"name":"Ada"}' --approve no
expect "--approve prompt without a terminal" 1 '"code":"approval_unavailable"' \
  sh -c "'$tg' call '$m/2-ask.json' --tool greet --args '{\"name\":\"Ada\"}' --approve prompt </dev/null"
"$tg" call "$m/layers" --tool greet --args '{"name":"Ada"}' --events "$work/events.jsonl" >/dev/null
if grep -q '"type":"tool/result"' "$work/events.jsonl" 2>/dev/null; then echo "ok   --events writes JSON lines"; else
  echo "FAIL --events"; fails=$((fails + 1)); fi
expect "bad --args is invalid_arguments" 1 '"code":"invalid_arguments"' "$tg" call "$m/layers" --tool greet --args '{oops'

# The test bench (issue 20 item 4): --stub registers a tool of any name that
# echoes its arguments, so a guard is exercised without writing a tool; an
# unknown tool's error lists the tools there are.
expect "--stub echoes its arguments" 0 '"value":\{"tool":"shell.exec","arguments":\{"command":"ls -l"\}\}' \
  "$tg" call "$m/1-baseline.json" --stub shell.exec --tool shell.exec --args '{"command":"ls -l"}'
printf '{"toolgate":1,"plugins":[{"id":"toolgate.guard-commands","path":"%s","config":{"tools":["shell.*"],"deny_programs":["reboot"]}}]}' \
  "$2/../plugins/toolgate_guard-commands.so" > "$work/cmds.json"
expect "--stub puts a real guard to work" 1 '"code":"denied".*reboot' \
  "$tg" call "$work/cmds.json" --stub shell.exec --tool shell.exec --args '{"command":"reboot now"}'
expect "--stub with a schema" 0 '"arguments":\{\}' \
  "$tg" call "$m/1-baseline.json" --stub 'fs.read:{"type":"object","properties":{"path":{"type":"string"}}}' --tool fs.read
expect "--stub with a bad schema is a usage error" 2 '--stub x:\[1\]: the schema must be a JSON object' \
  "$tg" call "$m/1-baseline.json" --stub 'x:[1]' --tool x
expect "--stub cannot replace a sample tool" 2 '--stub: tool "greet" is already registered' \
  "$tg" call "$m/1-baseline.json" --stub greet --tool greet
expect "unknown tool lists the tools" 1 'unknown tool \\"shell.exec\\"; the tools are: greet, slow"' \
  "$tg" call "$m/1-baseline.json" --tool shell.exec

# watch: one line per reload, failures keep the old generation, SIGTERM ends it.
mkdir -p "$work/w"
cp "$test_plugins/reload_guard_a.so" "$work/w/guard.so"
printf '{"toolgate":1,"plugins":[{"id":"reload.guard","path":"guard.so"}]}' > "$work/w/m.json"
"$tg" watch "$work/w/m.json" --call greet --args '{"name":"B"}' --every 50 > "$work/watch.out" 2>&1 &
wpid=$!
wait_for() {  # wait_for REGEX: up to 10 s for a line in watch.out
  for _ in $(seq 200); do grep -Eq -- "$1" "$work/watch.out" && return 0; sleep 0.05; done
  return 1
}
step() {
  if wait_for "$2"; then echo "ok   watch: $1"; else
    echo "FAIL watch: $1"; sed 's/^/    /' "$work/watch.out"; fails=$((fails + 1)); fi
}
ts='^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} '  # every line starts with the time
step "the first load is a load, timestamped" "${ts}loaded reload.guard in [0-9]+ ms, generation [0-9]+\$"
step "calls run, one summary line" "${ts}call greet: ok: Hello, B!\$"
cp "$test_plugins/reload_guard_b.so" "$work/w/.g" && mv "$work/w/.g" "$work/w/guard.so"
step "a rebuilt plugin is reloaded" "${ts}call greet: denied at guard \(reload.guard/guard\): variant B denies B"
# An in-place rebuild, as a linker does it: the file is truncated, stays
# empty while the linker works, then is written.  One reload, no failure.
mark=$(wc -l < "$work/watch.out")
: > "$work/w/guard.so"
sleep 0.4
cat "$test_plugins/reload_guard_a.so" > "$work/w/guard.so"
for _ in $(seq 200); do tail -n +"$((mark + 1))" "$work/watch.out" | grep -q 'call greet: ok: Hello, B!$' && break; sleep 0.05; done
sleep 0.3
after=$(tail -n +"$((mark + 1))" "$work/watch.out")
if ! grep -q 'failed' <<<"$after" && [ "$(grep -c ' reloaded reload.guard ' <<<"$after")" = 1 ]; then
  echo "ok   watch: an in-place rebuild prints one reload and no failure"; else
  echo "FAIL watch: in-place rebuild"; sed 's/^/    /' <<<"$after"; fails=$((fails + 1)); fi
if [ "$(grep -c 'call greet: ok: Hello, B!$' "$work/watch.out")" -le 3 ]; then
  echo "ok   watch: an unchanged outcome is not printed again"; else
  echo "FAIL watch: repeated outcomes printed"; fails=$((fails + 1)); fi
cp "$test_plugins/variant_no_entry.so" "$work/w/.g" && mv "$work/w/.g" "$work/w/guard.so"
step "a broken build changes nothing" "${ts}reload failed, generation [0-9]+ keeps serving: .*does not export the entry symbol"
if [ "$(grep -c 'does not export the entry symbol' "$work/watch.out")" = 1 ]; then
  echo "ok   watch: a failure is printed once"; else
  echo "FAIL watch: a failure printed more than once"; sed 's/^/    /' "$work/watch.out"; fails=$((fails + 1)); fi
kill -HUP $wpid
sleep 0.2
kill -TERM $wpid
wait $wpid
status=$?
# The last call before the stop was served by the old generation (the
# SIGHUP reload's failure line may come after it on a loaded machine).
if [ $status = 0 ] && grep ' call greet: ' "$work/watch.out" | tail -1 | grep -q 'Hello, B!'; then echo "ok   watch ends cleanly, old generation still serving"; else
  echo "FAIL watch end (status $status)"; tail -3 "$work/watch.out"; fails=$((fails + 1)); fi

# Bad builds (issue 20 item 9): by default a plugin built wrong loads with
# one warning per problem naming plugin, path, problem and fix; --strict
# refuses it; mcp is strict unless --no-strict.
mkdir -p "$work/bad"
printf '{"toolgate":1,"plugins":[{"id":"test.bad-build","path":"%s"}]}' \
  "$test_plugins/bad_build_exports.so" > "$work/bad/m.json"
printf '{"toolgate":1,"plugins":[{"id":"test.host-symbol","path":"%s"}]}' \
  "$test_plugins/bad_build_host_symbol.so" > "$work/bad/host.json"
bad_so=$(sed 's/[.]/[.]/g' <<<"$test_plugins/bad_build_exports.so")
expect "check: a bad build warns, naming plugin, path, problem, fix" 0 \
  "^toolgate: warning: plugin \"test\.bad-build\" \($bad_so\) is built wrong, loaded anyway \(extra_exports\): exports [0-9]+ symbol\(s\) besides toolgate_plugin_entry: .*int bad_build_many<[0-9]+>\(\).*\(and [0-9]+ more\); .*; fix: build with toolgate_add_plugin\(\)" \
  "$tg" check "$work/bad/m.json"
expect "check: the ok line counts the warnings" 0 \
  '^ok: 1 layer, 1 plugin, 1 hook \(0 locked\), with 2 build warnings \(on stderr; --strict refuses such plugins\)$' \
  "$tg" check "$work/bad/m.json"
out=$("$tg" check "$work/bad/m.json" 2>&1 >/dev/null)
if [ "$(grep -c 'is built wrong' <<<"$out")" = 2 ] && [ "$(wc -l <<<"$out")" = 2 ]; then
  echo "ok   check: one line per problem"; else
  echo "FAIL check: one line per problem:"; echo "$out" | sed 's/^/    /'; fails=$((fails + 1)); fi
expect "check --strict refuses a bad build" 1 \
  'refused in strict mode: its build is wrong: extra_exports: .*; gnu_unique: has 1 STB_GNU_UNIQUE symbol\(s\): bad_build::shared_counter\(\)::counter' \
  "$tg" check "$work/bad/m.json" --strict
expect "call: a bad build serves, with the warning" 0 \
  'warning: plugin "test\.bad-build" .*\(gnu_unique\): .*"text":"Hello, Ada!"' \
  sh -c "'$tg' call '$work/bad/m.json' --tool greet --args '{\"name\":\"Ada\"}' 2>&1 | tr '\n' ' '"
expect "call --strict refuses a bad build" 1 'refused in strict mode' \
  "$tg" call "$work/bad/m.json" --strict --tool greet --args '{"name":"Ada"}'
expect "call: a symbol only the host defines is a warning" 0 \
  'warning: plugin "test\.host-symbol" .*\(host_symbols\): has 1 undefined symbol\(s\) that no library it links defines: std::terminate\(\)' \
  "$tg" call "$work/bad/host.json" --tool greet --args '{"name":"Ada"}'
expect "call --strict refuses a symbol only the host defines" 1 \
  'refused in strict mode: its build is wrong: host_symbols: ' \
  "$tg" call "$work/bad/host.json" --strict --tool greet --args '{"name":"Ada"}'
expect "check --help documents --strict" 0 '--strict +refuse a plugin built wrong' "$tg" check --help
expect "mcp --help says it is strict and how to turn it off" 0 'Strict:.*--no-strict loads it' \
  sh -c "'$tg' mcp --help | tr '\n' ' '"
expect "mcp is strict by default" 1 'toolgate mcp: error: .*refused in strict mode' \
  "$tg" mcp "$work/bad/m.json" -- cat
expect "mcp --no-strict loads it with the warning" 0 'is built wrong, loaded anyway \(extra_exports\)' \
  sh -c "'$tg' mcp '$work/bad/m.json' --no-strict -- cat </dev/null"

# watch: a bad build loads with the warning; once replaced, its image stays
# (STB_GNU_UNIQUE), and the log says which plugin, why, the cost and the fix.
mkdir -p "$work/p"
cp "$test_plugins/reload_guard_bad_build.so" "$work/p/guard.so"
printf '{"toolgate":1,"plugins":[{"id":"reload.guard","path":"guard.so"}]}' > "$work/p/m.json"
"$tg" watch "$work/p/m.json" --no-probe > "$work/pin.out" 2>&1 &
ppid=$!
pin_step() {
  for _ in $(seq 200); do grep -Eq -- "$2" "$work/pin.out" && break; sleep 0.05; done
  if grep -Eq -- "$2" "$work/pin.out"; then echo "ok   watch: $1"; else
    echo "FAIL watch: $1"; sed 's/^/    /' "$work/pin.out"; fails=$((fails + 1)); fi
}
pin_step "a bad build warns" 'warning: plugin "reload\.guard" \(.*/p/guard\.so\) is built wrong, loaded anyway \(gnu_unique\)'
pin_step "loads" "${ts}loaded reload.guard in"
cp "$test_plugins/reload_guard_a.so" "$work/p/.g" && mv "$work/p/.g" "$work/p/guard.so"
pin_step "a pinned image names plugin, reason, cost and fix" \
  'toolgate: warning: plugin "reload\.guard" \(.*/p/guard\.so\) stays loaded after it was replaced: .*STB_GNU_UNIQUE.*until it exits.*; fix: compile C\+\+ with -fno-gnu-unique'
if grep -q 'plugin/pinned: {}' "$work/pin.out"; then
  echo "FAIL watch: an empty pinned line"; fails=$((fails + 1)); fi
kill -TERM $ppid; wait $ppid
# --strict: a reload to a bad build is refused, the old generation serves.
cp "$test_plugins/reload_guard_a.so" "$work/p/guard.so"
"$tg" watch "$work/p/m.json" --no-probe --strict > "$work/pin.out" 2>&1 &
ppid=$!
pin_step "--strict loads a good build" "${ts}loaded reload.guard in"
cp "$test_plugins/reload_guard_host_symbol.so" "$work/p/.g" && mv "$work/p/.g" "$work/p/guard.so"
pin_step "--strict refuses a reload to a bad build" \
  "${ts}reload failed, generation [0-9]+ keeps serving: .*refused in strict mode: its build is wrong: host_symbols"
kill -TERM $ppid; wait $ppid

# Hardening (issue 13): the call is built as a document, numeric options
# are validated, a failed first load does not claim a generation serves,
# and a plugin whose init never returns cannot make SIGTERM useless.
expect "--args cannot rename the tool" 1 '"code":"invalid_arguments","message":"--args: invalid JSON at line 1, column [0-9]+' \
  "$tg" call "$m/layers" --tool greet --args '{"name":"x"},"tool":"slow"'
expect "--args with a duplicate key is refused" 1 'duplicate key \\"name\\" in the object at the top level' \
  "$tg" call "$m/layers" --tool greet --args '{"name":"Ada","name":"root"}'
expect "--every abc is a usage error" 2 '--every takes a whole number of ms from 1 to 3600000, not "abc"' \
  "$tg" watch "$work/w/m.json" --every abc
expect "--max-message-bytes -1 is a usage error" 2 '--max-message-bytes takes a whole number of bytes from 1024' \
  "$tg" mcp "$m/1-baseline.json" --max-message-bytes -1 -- /bin/true
expect "--question-timeout-ms without --listen is a usage error" 2 '--question-timeout-ms goes with --listen' \
  "$tg" mcp "$m/1-baseline.json" --question-timeout-ms 500 -- /bin/true
expect "--question-timeout-ms 5 is a usage error" 2 '--question-timeout-ms takes a whole number of milliseconds from 100' \
  "$tg" mcp "$m/1-baseline.json" --listen 0 --question-timeout-ms 5 -- /bin/true
mkdir -p "$work/f"
printf '{"toolgate":1,"plugins":[{"id":"test.kit","path":"%s","config":{"fail_init":"no"}}]}' \
  "$test_plugins/testkit.so" > "$work/f/m.json"
timeout 10 "$tg" watch "$work/f/m.json" > "$work/fail.out" 2>&1 &
fpid=$!
for _ in $(seq 100); do grep -q 'every call is denied' "$work/fail.out" && break; sleep 0.05; done
kill -TERM $fpid; wait $fpid
if grep -Eq "${ts}load failed, no manifest stack has loaded yet, so every call is denied: " "$work/fail.out" &&
   ! grep -q 'keeps serving' "$work/fail.out"; then echo "ok   watch: a failed first load says calls are denied"; else
  echo "FAIL watch: failed first load message"; sed 's/^/    /' "$work/fail.out"; fails=$((fails + 1)); fi
printf '{"toolgate":1,"plugins":[{"id":"test.kit","path":"%s","config":{"init":"loop"}}]}' \
  "$test_plugins/testkit.so" > "$work/f/loop.json"
timeout 30 "$tg" watch "$work/f/loop.json" --no-probe > "$work/loop.out" 2>&1 &
lpid=$!
sleep 1
start=$(date +%s)
kill -TERM $lpid
wait $lpid
status=$?
took=$(( $(date +%s) - start ))
if [ $status = 143 ] && [ $took -le 8 ] && grep -q "a plugin's init, hook or shutdown has not returned in 5000 ms" "$work/loop.out"; then
  echo "ok   watch: SIGTERM ends it while an init loops (${took} s)"; else
  echo "FAIL watch: SIGTERM with a looping init (status $status after ${took} s)"; sed 's/^/    /' "$work/loop.out"; fails=$((fails + 1)); fi

echo "$fails failure(s)"
[ "$fails" = 0 ]
