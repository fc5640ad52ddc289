#!/usr/bin/env bash
# readme_plugin_test.sh SOURCE_DIR TOOLGATE_BINARY -- runs the README's
# "a plugin in C" commands as written (with the binary path substituted) and
# checks what they print.
set -euo pipefail
src=$1
toolgate=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$src"

cc -std=c99 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden -Wl,-z,defs \
   -Wl,--version-script=sdk/cmake/toolgate_plugin.map -Isdk/include \
   -o "$work/no_root.so" samples/minimal/no_root.c
cp samples/minimal/no_root.json "$work/"

out=$("$toolgate" call "$work/no_root.json" --tool greet --args '{"name":"root"}' || true)
echo "$out"
grep -q '"code":"denied","message":"greeting root is not allowed","stage":"guard","source":"example.no-root/no-root"' <<<"$out"

out=$("$toolgate" call "$work/no_root.json" --tool greet --args '{"name":"Ada"}')
echo "$out"
grep -q '"text":"Hello, Ada!"' <<<"$out"
echo "README plugin example: ok"
