#!/usr/bin/env bash
# cli_sdk_test.sh TOOLGATE SAMPLES_DIR TEST_PLUGINS_DIR -- the commands for
# plugin authors and deployers: `inspect` on good and deliberately bad
# builds, `new-plugin`'s validation, and the default manifest folders
# (system then user, fail closed).  Building scaffolds is in
# tests/install/install_test.sh.
set -uo pipefail
tg=$1
samples=$(cd "$2" && pwd)
test_plugins=$3
m=$samples/manifests
fails=0
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT

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

# ---- inspect ----------------------------------------------------------------------
expect "inspect: a good C plugin" 0 'registers +guard no-world \(tools greet.*ok: no problems found' \
  sh -c "'$tg' inspect '$samples/plugins/sample_no_world.so' | tr '\n' ' '"
expect "inspect: id, version, capabilities, flags" 0 \
  'id +sample.counter.*version +1.0.0.*capabilities +result-observer.*flags +serialized' \
  sh -c "'$tg' inspect '$samples/plugins/sample_counter.so' | tr '\n' ' '"
expect "inspect --json: a good C++ plugin" 0 '"exports":\["toolgate_plugin_entry"\].*"problems":\[\]' \
  "$tg" inspect "$samples/plugins/sample_shout.so" --json
expect "inspect: extra exports" 1 'extra_exports: exports [0-9]+ symbol\(s\) besides toolgate_plugin_entry: .*bad_build_extra_export' \
  "$tg" inspect "$test_plugins/bad_build_exports.so"
expect "inspect: gnu-unique symbols, demangled" 1 'gnu_unique: has 1 STB_GNU_UNIQUE symbol\(s\): bad_build::shared_counter\(\)::counter;' \
  "$tg" inspect "$test_plugins/bad_build_exports.so"
# A build without the SDK flags exports many symbols: a count, the first
# ten demangled, "(and N more)" -- never one line of every mangled name.
expect "inspect: many exports are summarised, demangled" 1 \
  'exports +[0-9]+: .*int bad_build_many<[0-9]+>\(\).*\(and [0-9]+ more\).*extra_exports: exports [0-9]+ symbol\(s\) besides toolgate_plugin_entry: .*\(and [0-9]+ more\); .*fix: build with toolgate_add_plugin\(\) \(CMake\) or the flags of pkg-config toolgate-sdk' \
  bash -o pipefail -c "'$tg' inspect '$test_plugins/bad_build_exports.so' | tr '\n' ' '"
out=$("$tg" inspect "$test_plugins/bad_build_exports.so")
if ! grep -q '_Z14bad_build_many' <<<"$out" && [ "$(wc -L <<<"$out")" -lt 600 ]; then
  echo "ok   inspect: no mangled names, no endless line"; else
  echo "FAIL inspect: mangled names or a long line:"; echo "$out" | sed 's/^/    /'; fails=$((fails + 1)); fi
expect "inspect: a symbol only the host defines" 1 \
  'host_symbols: has 1 undefined symbol\(s\) that no library it links defines: std::terminate\(\); .*without -z defs' \
  "$tg" inspect "$test_plugins/bad_build_host_symbol.so"
expect "inspect: a bad build still shows what it registers" 1 'registers +guard abstain' \
  "$tg" inspect "$test_plugins/bad_build_exports.so"
expect "inspect: a symbol nobody defines" 1 \
  'load_failed: cannot be loaded: .*undefined symbol: toolgate_test_symbol_nobody_defines.*fix: link every library the plugin uses \(-z defs' \
  bash -o pipefail -c "'$tg' inspect '$test_plugins/bad_build_undefined.so' | tr '\n' ' '"
expect "inspect: no entry" 1 'no_entry: the plugin does not export toolgate_plugin_entry' \
  "$tg" inspect "$test_plugins/variant_no_entry.so"
expect "inspect: init fails" 1 'load_failed: .*failed to initialise' \
  "$tg" inspect "$test_plugins/variant_init_fails.so"
expect "inspect: a crash in init does not take inspect down" 1 \
  'probe_failed: .*crashed in the probe process \((signal [0-9]+|it ended with exit status)' \
  "$tg" inspect "$test_plugins/reload_guard_crash_init.so"
printf 'not a plugin' >"$work/fake.so"
expect "inspect: not an ELF file" 1 'not_a_plugin_image: the file is not an ELF file \(12 bytes\)' \
  "$tg" inspect "$work/fake.so"
head -c 2000 "$samples/plugins/sample_no_world.so" >"$work/truncated.so"
expect "inspect: truncated" 1 'not_a_plugin_image: the file is truncated' "$tg" inspect "$work/truncated.so"
expect "inspect: --config reaches init" 1 'load_failed: .*rejected its config at /timeout_ms' \
  "$tg" inspect "$samples/plugins/sample_timeout_wrapper.so" --config '{"timeout_ms":-1}'
expect "inspect: --config must be an object" 2 'usage error: --config takes a JSON object' \
  "$tg" inspect "$samples/plugins/sample_shout.so" --config '[1]'
expect "inspect: missing file" 1 'is not a file' "$tg" inspect "$work/missing.so"
expect "inspect: no plugin" 2 'usage error: inspect takes one plugin file, or manifests' "$tg" inspect
# The config init gets (issue 20 item 8): --config @FILE, or a manifest's
# entries with their own "config".
printf '{"timeout_ms":-1}' >"$work/config.json"
expect "inspect: --config @FILE reaches init" 1 'load_failed: .*rejected its config at /timeout_ms' \
  "$tg" inspect "$samples/plugins/sample_timeout_wrapper.so" --config "@$work/config.json"
expect "inspect: --config @FILE that cannot be read" 2 'usage error: --config @.*/nothing.json: cannot read' \
  "$tg" inspect "$samples/plugins/sample_timeout_wrapper.so" --config "@$work/nothing.json"
mkdir -p "$work/im"
printf '{"toolgate":1,"plugins":[{"id":"sample.timeout","path":"%s","config":{"timeout_ms":-1}},
  {"id":"sample.shout","path":"%s","enabled":false}]}' \
  "$samples/plugins/sample_timeout_wrapper.so" "$samples/plugins/sample_shout.so" >"$work/im/bad.json"
printf '{"toolgate":1,"plugins":[{"id":"sample.timeout","path":"%s","config":{"timeout_ms":250}},
  {"id":"sample.no-world","path":"%s"}]}' \
  "$samples/plugins/sample_timeout_wrapper.so" "$samples/plugins/sample_no_world.so" >"$work/im/good.json"
expect "inspect M.json: each plugin with its entry's config" 1 \
  'manifest +.*/im/bad.json at /plugins/0 \(config from there\).*load_failed: .*rejected its config at /timeout_ms' \
  bash -o pipefail -c "'$tg' inspect '$work/im/bad.json' | tr '\n' ' '"
if [ "$("$tg" inspect "$work/im/bad.json" | grep -c '^plugin ')" = 1 ]; then
  echo "ok   inspect M.json: a disabled entry is skipped"; else
  echo "FAIL inspect M.json: a disabled entry is skipped"; fails=$((fails + 1)); fi
expect "inspect M.json: a good manifest" 0 \
  'plugin +.*sample_timeout_wrapper.so.*ok: no problems found.*plugin +.*sample_no_world.so.*ok: no problems found' \
  sh -c "'$tg' inspect '$work/im/good.json' | tr '\n' ' '"
expect "inspect M.json --json: an array" 0 '^\[\{.*"id":"sample.timeout".*\},\{.*"id":"sample.no-world".*\}\]$' \
  "$tg" inspect "$work/im/good.json" --json
printf '{"toolgate":1,"plugins":[{"id":"other.id","path":"%s"}]}' "$samples/plugins/sample_no_world.so" >"$work/im/id.json"
expect "inspect M.json: an id the plugin does not declare" 1 \
  'id_mismatch: the manifest says "other.id" but the plugin declares "sample.no-world"' \
  "$tg" inspect "$work/im/id.json"
expect "inspect: --config is for a plugin file" 2 'usage error: --config is for a plugin file' \
  "$tg" inspect "$work/im/good.json" --config '{}'
# Permissions (issue 20 item 8): inspect reports what the loaders refuse.
mkdir -p "$work/perm"
cp "$samples/plugins/sample_no_world.so" "$work/perm/p.so"
chmod g+w "$work/perm/p.so"
expect "inspect: a group-writable plugin is a problem" 1 \
  'insecure_permissions: the loaders refuse it: .*/perm/p\.so is writable by group or others.*fix: chmod g-w,o-w .*/perm/p\.so .*or pass --allow-insecure-plugin-permissions' \
  bash -o pipefail -c "'$tg' inspect '$work/perm/p.so' | tr '\n' ' '"
expect "inspect: ... and call refuses it the same way" 1 'p\.so is writable by group or others.*fix: chmod g-w,o-w' \
  bash -o pipefail -c "printf '{\"toolgate\":1,\"plugins\":[{\"id\":\"sample.no-world\",\"path\":\"p.so\"}]}' >'$work/perm/m.json'; '$tg' call '$work/perm/m.json' --tool greet 2>&1 | tr '\n' ' '"
expect "inspect --allow-insecure-plugin-permissions" 0 'ok: no problems found' \
  "$tg" inspect "$work/perm/p.so" --allow-insecure-plugin-permissions
chmod g-w "$work/perm/p.so"
expect "inspect: after chmod g-w it is fine" 0 'ok: no problems found' "$tg" inspect "$work/perm/p.so"

# ---- new-plugin: validation (the scaffolds are built by the install test) -----------
expect "new-plugin: invalid name" 2 'plugin name "My Guard" is not valid' \
  "$tg" new-plugin "My Guard" --lang c --dir "$work/x"
expect "new-plugin: reserved name" 2 'is reserved' "$tg" new-plugin tool --lang c --dir "$work/x"
expect "new-plugin: --lang required" 2 '--lang takes c or cpp' "$tg" new-plugin ok --dir "$work/x"
expect "new-plugin: unknown kind" 2 '--kind takes guard, pre, wrapper, post or observer' \
  "$tg" new-plugin ok --lang c --kind allow --dir "$work/x"
expect "new-plugin: writes the project" 0 'created .*/p/src/p.c' "$tg" new-plugin p --lang c --dir "$work/p"
expect "new-plugin: never overwrites" 1 'refusing to overwrite existing files \(nothing was written\)' \
  "$tg" new-plugin p --lang cpp --dir "$work/p"
[ ! -e "$work/p/src/p.cpp" ] || { echo "FAIL new-plugin wrote a file while refusing"; fails=$((fails + 1)); }

# ---- default manifest folders ---------------------------------------------------------
sys=$work/etc/manifest.d
usr=$work/config/manifest.d
mkdir -p "$sys" "$usr"
chmod 755 "$work"
run() { env TOOLGATE_SYSTEM_MANIFEST_DIR="$sys" TOOLGATE_USER_MANIFEST_DIR="$usr" "$tg" "$@"; }
expect "defaults: both folders empty fails closed" 1 \
  'no manifest given, and no default folder holds one \(looked in: system folder .*etc/manifest.d \(from TOOLGATE_SYSTEM_MANIFEST_DIR\), user folder' \
  run call --tool greet --args '{"name":"Ada"}'
expect "defaults: both turned off" 1 'none, both are turned off' \
  env TOOLGATE_SYSTEM_MANIFEST_DIR= TOOLGATE_USER_MANIFEST_DIR= "$tg" check
sed 's|\.\./\.\./plugins/|'"$samples"'/plugins/|' "$m/layers/10-security.json" >"$sys/10-security.json"
sed 's|\.\./\.\./plugins/|'"$samples"'/plugins/|' "$m/layers/20-deployer.json" >"$usr/20-deployer.json"
expect "defaults: system then user layer" 0 '^ok: 2 layers, 6 plugins, 6 hooks \(2 locked\)' run check
expect "defaults: call through them" 1 '"message":"greeting the whole World is not allowed"' \
  run call --tool greet --args '{"name":"World"}'
expect "defaults: a manifest given explicitly replaces them" 0 '"text":"Hello, World!"' \
  run call "$m/1-baseline.json" --tool greet --args '{"name":"World"}'
chmod o+w "$usr"
expect "defaults: a user folder writable by others is refused" 1 \
  'refusing the user folder .*config/manifest.d.* is writable by group or others' run check
chmod o-w "$usr"
chmod g+w "$sys/10-security.json"
expect "defaults: a manifest writable by others is refused" 1 \
  'refusing the system folder .*10-security.json is writable by group or others' run check
chmod g-w "$sys/10-security.json"
mkdir -p "$work/user2"
printf '{"toolgate": 1, "plugins": [{"id": "example.no-root", "path": "%s"}]}' \
  "$samples/plugins/sample_no_root.so" >"$work/user2/no-root.json"
expect "defaults: a missing system folder leaves the user layer" 1 '"message":"greeting root is not allowed"' \
  env TOOLGATE_SYSTEM_MANIFEST_DIR="$work/nowhere" TOOLGATE_USER_MANIFEST_DIR="$work/user2" \
  "$tg" call --tool greet --args '{"name":"root"}'
printf 'x' >"$work/file"
expect "defaults: a folder that is a file" 1 'is not a folder' \
  env TOOLGATE_SYSTEM_MANIFEST_DIR="$work/file" TOOLGATE_USER_MANIFEST_DIR= "$tg" check

echo "$fails failure(s)"
[ "$fails" = 0 ]
