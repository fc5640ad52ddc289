#!/usr/bin/env bash
# install_test.sh SOURCE_DIR BUILD_DIR -- the packaged SDK works from the
# outside, as a third party would use it:
#   1. install the build into a staging root (DESTDIR), nothing from the tree,
#      at the prefix the build was configured with (CMakeCache.txt);
#   2. build samples/out-of-tree against the installed package with CMake,
#      and again with plain c++ (and clang++) + pkg-config;
#   3. scaffold a plugin of every kind in C and C++ with the installed
#      `toolgate new-plugin`, build them all, run their generated tests;
#   4. load everything with the installed toolgate and run calls;
#   5. the installed docs: every relative link resolves, man pages,
#      copyright and changelogs are there;
#   6. a relocated install (cmake --install --prefix DIR, no DESTDIR): a
#      C-only plugin project finds the package there and finds no Boost,
#      spdlog, fmt or OpenSSL; COMPONENTS host finds the engine, and says
#      which package to install where it is missing;
#   7. build the three .debs and the .tar.gz with cpack and check what each
#      holds and depends on;
#   8. install the .debs with dpkg into a private root (and ask apt's
#      resolver, simulated) -- dependencies as apt and dpkg see them.
set -euo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() { echo "== $* ($SECONDS s)"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {  # expect REGEX OUTPUT -- the output must match
  grep -Eq -- "$1" <<<"$2" || { echo "$2" >&2; fail "expected /$1/"; }
}
cache() {  # cache VAR -- a value from the build's CMakeCache.txt
  sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"
}

step "install into a staging root"
# Wherever the build was configured to install (the presets say /usr; a
# plain configure says /usr/local), and with the library folder it chose
# (lib/<triplet> under /usr on Debian, lib elsewhere).
configured_prefix=$(cache CMAKE_INSTALL_PREFIX)
libdir_rel=$(cache CMAKE_INSTALL_LIBDIR)
if [ -z "$configured_prefix" ] || [ -z "$libdir_rel" ]; then
  fail "no CMAKE_INSTALL_PREFIX / CMAKE_INSTALL_LIBDIR in $build/CMakeCache.txt"
fi
case $libdir_rel in /*) fail "CMAKE_INSTALL_LIBDIR=$libdir_rel is absolute: the package would not relocate";; esac
stage=$work/stage
DESTDIR=$stage cmake --install "$build" >/dev/null
prefix=$stage$configured_prefix
libdir=$prefix/$libdir_rel
tg=$prefix/bin/toolgate
for f in "$tg" "$libdir/cmake/toolgate/toolgateConfig.cmake" "$libdir/cmake/toolgate/toolgateSdkTargets.cmake" \
         "$libdir/cmake/toolgate/toolgateHostTargets.cmake" "$libdir/pkgconfig/toolgate-sdk.pc" \
         "$libdir/toolgate/plugins/toolgate_policy.so" "$prefix/include/toolgate/toolgate.h" \
         "$prefix/include/toolgate/host.hpp" "$prefix/share/doc/toolgate-sdk/plugin-guide.md" \
         "$prefix/share/man/man1/toolgate.1.gz" "$prefix/share/man/man5/toolgate-manifest.5.gz"; do
  [ -e "$f" ] || fail "not installed: ${f#"$stage"}"
done
# The system manifest folder (an absolute destination: /etc under /usr).
sysdir=$(cd "$stage" && find . -type d -path '*/toolgate/manifest.d' | head -1)
[ -n "$sysdir" ] || fail "the system manifest folder is not installed"
sysdir=${sysdir#.}
cmake_args=(-G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
# The samples come from the installed examples (toolgate-sdk's doc folder,
# where the guide links to them), not from the source tree.
examples=$prefix/share/doc/toolgate-sdk/examples
for d in minimal plugins out-of-tree; do
  diff -r "$src/samples/$d" "$examples/$d" >&2 || fail "the installed examples/$d differ from samples/$d (above)"
done

step "out-of-tree plugin with CMake (find_package(toolgate CONFIG))"
cmake -S "$examples/out-of-tree" -B "$work/oot" "${cmake_args[@]}" >/dev/null
grep -qx "toolgate_DIR:PATH=$libdir/cmake/toolgate" "$work/oot/CMakeCache.txt" ||
  fail "the sample did not find the installed package: $(grep toolgate_DIR "$work/oot/CMakeCache.txt")"
cmake --build "$work/oot" -j1 >/dev/null
ctest --test-dir "$work/oot" --output-on-failure -j1 >/dev/null || fail "the out-of-tree sample's tests"
out=$("$tg" call "$work/oot/name_length.json" --tool greet --args '{"name":"Ada"}')
expect '"text":"Hello, Ada!"' "$out"

step "out-of-tree plugin with c++ and pkg-config"
export PKG_CONFIG_LIBDIR=$libdir/pkgconfig  # the staged SDK only
cflags=$(pkg-config --cflags toolgate-sdk)
expect "^-I$stage/" "$cflags"
cxxflags=$(pkg-config --variable=plugin_cxxflags toolgate-sdk)
cxxflags_gcc=$(pkg-config --variable=plugin_cxxflags_gcc toolgate-sdk)
[ -n "$cxxflags_gcc" ] || fail "toolgate-sdk.pc has no plugin_cxxflags_gcc"
mkdir -p "$work/pc"
# g++: both variables, as the guide documents.
# shellcheck disable=SC2046,SC2086
c++ -std=c++17 -Wall -Wextra -Werror $cflags $cxxflags $cxxflags_gcc \
    -o "$work/pc/name_length.so" "$examples/out-of-tree/name_length.cpp" \
    $(pkg-config --libs toolgate-sdk) -lboost_json
cp "$examples/out-of-tree/name_length.json" "$work/pc/"
out=$("$tg" call "$work/pc/name_length.json" --tool greet --args '{"name":"Bartholomew"}' || true)
expect '"code":"denied","message":"names longer than 8 characters are not greeted"' "$out"
"$tg" inspect "$work/pc/name_length.so" >/dev/null || fail "inspect finds problems in the pkg-config build"
# clang++: plugin_cxxflags alone (clang rejects -fno-gnu-unique, and emits
# no STB_GNU_UNIQUE symbols: inspect checks).  CI installs clang.
if command -v clang++ >/dev/null; then
  mkdir -p "$work/pc-clang"
  # shellcheck disable=SC2046,SC2086
  clang++ -std=c++17 -Wall -Wextra -Werror $cflags $cxxflags \
    -o "$work/pc-clang/name_length.so" "$examples/out-of-tree/name_length.cpp" \
    $(pkg-config --libs toolgate-sdk) -lboost_json ||
    fail "clang++ with the documented pkg-config line (plugin_cxxflags: $cxxflags)"
  cp "$examples/out-of-tree/name_length.json" "$work/pc-clang/"
  out=$("$tg" call "$work/pc-clang/name_length.json" --tool greet --args '{"name":"Bartholomew"}' || true)
  expect '"message":"names longer than 8 characters are not greeted"' "$out"
  "$tg" inspect "$work/pc-clang/name_length.so" >/dev/null || fail "inspect finds problems in the clang++ build"
else
  echo "SKIP the clang++ pkg-config build: clang++ is not installed"
fi
# The C flags alone make a correct C plugin too.
# shellcheck disable=SC2046,SC2086
cc -std=c99 -Wall -Wextra -Werror $cflags -o "$work/pc/no_root.so" "$examples/minimal/no_root.c" \
   $(pkg-config --libs toolgate-sdk)
cp "$examples/minimal/no_root.json" "$work/pc/"
out=$("$tg" call "$work/pc/no_root.json" --tool greet --args '{"name":"root"}' || true)
expect '"message":"greeting root is not allowed"' "$out"
unset PKG_CONFIG_LIBDIR

step "a Rust plugin on the installed bindings (share/toolgate/rust/toolgate-sys)"
# Debian's rustc first: 1.63 is the oldest version the guide promises.
rustc=$(command -v /usr/bin/rustc || command -v rustc || true)
if [ -n "$rustc" ]; then
  mkdir -p "$work/rs"
  "$rustc" --edition 2018 -C panic=abort --crate-type rlib --crate-name toolgate_sys \
      -o "$work/rs/libtoolgate_sys.rlib" "$prefix/share/toolgate/rust/toolgate-sys/src/lib.rs"
  "$rustc" --edition 2018 -C panic=abort --crate-type cdylib \
      --extern toolgate_sys="$work/rs/libtoolgate_sys.rlib" -o "$work/rs/no_world.so" \
      "$examples/plugins/rust/no_world.rs"
  printf '{"toolgate":1,"plugins":[{"id":"sample.rust-no-world","path":"no_world.so"}]}' > "$work/rs/m.json"
  out=$("$tg" call "$work/rs/m.json" --strict --tool greet --args '{"name":"World"}' || true)
  expect '"code":"denied","message":"greeting the whole World is not allowed \(said in Rust\)"' "$out"
else
  echo "SKIP the Rust plugin: rustc is not installed"
fi

step "new-plugin: every kind in C and C++, built and tested as generated"
mkdir -p "$work/new"
echo 'cmake_minimum_required(VERSION 3.25)
project(scaffolds NONE)
enable_testing()' >"$work/new/CMakeLists.txt"
for lang in c cpp; do
  for kind in guard pre wrapper post observer; do
    name=my-$kind-$lang
    "$tg" new-plugin "$name" --lang $lang --kind $kind --dir "$work/new/$name" >/dev/null
    echo "add_subdirectory($name)" >>"$work/new/CMakeLists.txt"
  done
done
set +e
out=$("$tg" new-plugin my-guard-c --lang c --dir "$work/new/my-guard-c" 2>&1); status=$?
set -e
[ $status = 1 ] || fail "new-plugin over an existing project: status $status, want 1"
expect 'refusing to overwrite existing files \(nothing was written\)' "$out"
cmake -S "$work/new" -B "$work/new/build" "${cmake_args[@]}" >/dev/null
cmake --build "$work/new/build" -j1 >/dev/null
ctest --test-dir "$work/new/build" --output-on-failure -j1 | tail -3
out=$("$tg" call "$work/new/build/my-guard-c/my-guard-c.json" --tool greet --args '{"name":"root"}' || true)
expect '"source":"my-guard-c/no-root"' "$out"

step "the installed sample manifests load the installed plugins"
for m in secure-agent mcp-filesystem agent-hooks; do
  sed "s|\"$configured_prefix/|\"$prefix/|" "$prefix/share/toolgate/manifests/$m.json" >"$work/$m.json"
  out=$("$tg" check "$work/$m.json")
  expect '^ok' "$out"
done

step "the installed demo runs from the installed samples"
out=$("$tg" demo)
expect '"text":"Hello, World!"' "$out"
expect 'sample.no-world' "$out"

step "installed docs: every relative link resolves; man pages, copyright, changelogs"
# Every Markdown page installed (README, design, engine, plugins, the
# guide): each relative link must name an installed file (absolute ones,
# into another package, a file of the staged install), and its #fragment,
# if any, a heading of that page.  Code spans and
# fenced blocks are not links ("](const Call& c)" in a C++ sample).
python3 - "$stage" "$prefix/share/doc" <<'PY' ||
import os, re, sys
stage, docroot = sys.argv[1], sys.argv[2]
bad = checked = 0
anchors = {}
def anchors_of(page):
    """The #fragments a Markdown page offers: its headings, slugged as
    GitHub does (lowercase, punctuation dropped, spaces to hyphens,
    repeats numbered)."""
    if page not in anchors:
        seen, fenced = {}, False
        for line in open(page, encoding="utf-8"):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
                n = seen.get(slug, 0)
                seen[slug] = n + 1
                seen.setdefault(f"{slug}-{n}" if n else slug, 1)
        anchors[page] = set(seen)
    return anchors[page]
for d, _, files in os.walk(docroot):
    for f in files:
        if not f.endswith(".md"):
            continue
        page = os.path.join(d, f)
        fenced = False
        for n, line in enumerate(open(page, encoding="utf-8"), 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if fenced:
                continue
            line = re.sub(r"`[^`]*`", "", line)
            for target in re.findall(r"\]\(([^)\s]+)\)", line):
                if re.match(r"^[a-z]+:", target):
                    continue
                path = target.split("#", 1)[0]
                full = page if not path else stage + path if path.startswith("/") else os.path.join(d, path)
                checked += 1
                if not os.path.exists(full):
                    bad += 1
                    print(f"{page[len(stage):]}:{n}: dangling link {target}", file=sys.stderr)
                elif "#" in target and full.endswith(".md") and target.split("#", 1)[1] not in anchors_of(full):
                    bad += 1
                    print(f"{page[len(stage):]}:{n}: no heading for the anchor of {target}", file=sys.stderr)
print(f"{checked} relative links checked")
sys.exit(1 if bad else 0)
PY
  fail "dangling links in the installed docs (above): install the target (TOOLGATE_DOC_MAP in packaging/CMakeLists.txt) or fix the link"
# Nothing installed cites sections of a document no package installs
# (the bracket keeps this line from matching itself).
if grep -rnE '[S]PEC §' "$libdir/cmake/toolgate" "$prefix/include/toolgate"; then
  fail "installed files cite a section of a document no package installs (point at the installed guide instead)"
fi
for page in man1/toolgate.1.gz man5/toolgate-manifest.5.gz; do
  gzip -t "$prefix/share/man/$page" || fail "$page is not a valid gzip file"
done
out=$(zcat "$prefix/share/man/man1/toolgate.1.gz")
expect '^\.TH TOOLGATE 1 ' "$out"
expect '^\.SS new-plugin$' "$out"
for pkgdoc in toolgate toolgate-sdk toolgate-dev; do
  d=$prefix/share/doc/$pkgdoc
  grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' "$d/copyright" ||
    fail "$d/copyright is missing or not in Debian's machine-readable format"
  zcat "$d/changelog.Debian.gz" | dpkg-parsechangelog -l- -S Version >"$work/clversion" 2>&1 ||
    { cat "$work/clversion" >&2; fail "$d/changelog.Debian.gz does not parse"; }
  gzip -t "$d/changelog.gz" || fail "$d/changelog.gz is not a valid gzip file"
done

step "relocated install (--prefix, no DESTDIR): a C plugin's find_package finds only the SDK"
reloc=$work/reloc/usr
out=$(cmake --install "$build" --prefix "$reloc")
# The system manifest folder is outside the prefix: a relocated install
# must not write to this machine's /etc.
expect "Skipping: $sysdir \(outside the prefix" "$out"
[ -x "$reloc/bin/toolgate" ] || fail "the relocated install has no bin/toolgate"
mkdir -p "$work/conly"
cp "$examples/minimal/no_root.c" "$examples/minimal/no_root.json" "$work/conly/"
cat >"$work/conly/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(conly LANGUAGES C)
find_package(toolgate 0.1 CONFIG REQUIRED)
toolgate_add_plugin(no_root SOURCES no_root.c)
target_compile_options(no_root PRIVATE -Wall -Wextra -Werror)
configure_file(no_root.json ${CMAKE_CURRENT_BINARY_DIR}/no_root.json COPYONLY)
enable_testing()
add_test(NAME no_root.inspect COMMAND toolgate::toolgate inspect $<TARGET_FILE:no_root>)
add_test(NAME no_root.denies COMMAND toolgate::toolgate call ${CMAKE_CURRENT_BINARY_DIR}/no_root.json
         --tool greet --args "{\"name\":\"root\"}")
set_tests_properties(no_root.denies PROPERTIES PASS_REGULAR_EXPRESSION "greeting root is not allowed")
message(STATUS "toolgate_PLUGIN_DIR=${toolgate_PLUGIN_DIR}")
CMAKE
reloc_args=(-G Ninja -DCMAKE_PREFIX_PATH="$reloc" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
out=$(cmake -S "$work/conly" -B "$work/conly/build" "${reloc_args[@]}") ||
  { echo "$out" >&2; fail "find_package(toolgate) in the relocated install"; }
expect "toolgate_PLUGIN_DIR=$reloc/$libdir_rel/toolgate/plugins" "$out"
grep -qx "toolgate_DIR:PATH=$reloc/$libdir_rel/cmake/toolgate" "$work/conly/build/CMakeCache.txt" ||
  fail "the C project did not find the relocated package: $(grep toolgate_DIR "$work/conly/build/CMakeCache.txt")"
if grep -Ei '^(Boost[A-Za-z_]*_DIR|spdlog_DIR|fmt_DIR|OPENSSL_[A-Z_]*):' "$work/conly/build/CMakeCache.txt"; then
  fail "a C plugin's find_package(toolgate) searched for the host's dependencies (above)"
fi
cmake --build "$work/conly/build" >/dev/null
ctest --test-dir "$work/conly/build" --output-on-failure -j1 >/dev/null || fail "the C-only project's tests"
# The engine, asked for explicitly, is found (and brings its dependencies).
mkdir -p "$work/embed"
cat >"$work/embed/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(embed LANGUAGES CXX)
find_package(toolgate 0.1 CONFIG REQUIRED COMPONENTS host)
if(NOT TARGET toolgate::host OR NOT TARGET toolgate::sdk)
  message(FATAL_ERROR "COMPONENTS host did not give toolgate::host and toolgate::sdk")
endif()
CMAKE
cmake -S "$work/embed" -B "$work/embed/build" "${reloc_args[@]}" >/dev/null ||
  fail "find_package(toolgate COMPONENTS host) in the relocated install"
# Only the runtime and the SDK (what toolgate + toolgate-sdk install):
# COMPONENTS host fails, naming the package to install.
sdkonly=$work/sdkonly/usr
for c in runtime sdk; do
  cmake --install "$build" --prefix "$sdkonly" --component $c >/dev/null
done
[ ! -e "$sdkonly/include/toolgate/host.hpp" ] || fail "component sdk installs the host's headers"
cmake -S "$work/conly" -B "$work/conly/build-sdkonly" -G Ninja -DCMAKE_PREFIX_PATH="$sdkonly" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >/dev/null || fail "find_package(toolgate) with the SDK alone"
set +e
out=$(cmake -S "$work/embed" -B "$work/embed/build-sdkonly" -G Ninja -DCMAKE_PREFIX_PATH="$sdkonly" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF 2>&1)
status=$?
set -e
[ $status != 0 ] || fail "find_package(toolgate COMPONENTS host) succeeded without the host installed"
out=$(tr -s '\n ' '  ' <<<"$out")  # CMake wraps the message
expect 'toolgate component "host" .*is not installed .*Install the toolgate-dev package' "$out"

step "cpack: three .debs and a .tar.gz"
(cd "$work" && cpack --config "$build/CPackConfig.cmake" -B "$work/packages" >/dev/null)
deb=$(ls "$work"/packages/toolgate_*.deb)
sdkdeb=$(ls "$work"/packages/toolgate-sdk_*.deb)
devdeb=$(ls "$work"/packages/toolgate-dev_*.deb)
L=./usr/$libdir_rel
contents=$(dpkg-deb -c "$deb")
sdkcontents=$(dpkg-deb -c "$sdkdeb")
devcontents=$(dpkg-deb -c "$devdeb")
has() {  # has PACKAGE CONTENTS PATH... -- each path is in the package
  local name=$1 listing=$2
  shift 2
  for p in "$@"; do grep -q " $p\$" <<<"$listing" || fail "$name lacks $p"; done
}
lacks() {  # lacks PACKAGE CONTENTS REGEX... -- no path matches
  local name=$1 listing=$2
  shift 2
  for r in "$@"; do
    if grep -E " $r\$" <<<"$listing"; then fail "$name holds what belongs elsewhere: /$r/ (above)"; fi
  done
}
has toolgate "$contents" ./usr/bin/toolgate ./usr/bin/toolgate-hook "$L/toolgate/plugins/toolgate_guard-paths.so" \
  ".$sysdir/" ./usr/share/toolgate/manifests/secure-agent.json \
  ./usr/share/toolgate/manifests/agent-hooks.json ./usr/lib/systemd/system/toolgate.service \
  ./usr/lib/systemd/user/toolgate.service \
  "$L/toolgate/samples/manifests/4-guard.json" "$L/toolgate/samples/plugins/sample_no_world.so" \
  ./usr/share/doc/toolgate/README.md ./usr/share/doc/toolgate/docs/design.md ./usr/share/doc/toolgate/engine.md \
  ./usr/share/man/man1/toolgate.1.gz ./usr/share/man/man5/toolgate-manifest.5.gz
has toolgate-sdk "$sdkcontents" ./usr/include/toolgate/toolgate.h ./usr/include/toolgate/plugin.hpp \
  ./usr/include/toolgate/glob.hpp "$L/cmake/toolgate/toolgateConfig.cmake" \
  "$L/cmake/toolgate/toolgateConfigVersion.cmake" "$L/cmake/toolgate/toolgateSdkTargets.cmake" \
  "$L/cmake/toolgate/ToolgatePlugin.cmake" "$L/cmake/toolgate/toolgate_plugin.map" \
  "$L/pkgconfig/toolgate-sdk.pc" ./usr/share/toolgate/schema/toolgate-manifest.schema.json \
  ./usr/share/doc/toolgate-sdk/plugin-guide.md ./usr/share/doc/toolgate-sdk/examples/minimal/no_root.c \
  ./usr/share/doc/toolgate-sdk/examples/out-of-tree/CMakeLists.txt \
  ./usr/share/toolgate/rust/toolgate-sys/src/lib.rs ./usr/share/toolgate/rust/toolgate-sys/Cargo.toml
has toolgate-dev "$devcontents" ./usr/include/toolgate/host.hpp ./usr/include/toolgate/json.hpp \
  "$L/libtoolgate_host.a" "$L/cmake/toolgate/toolgateHostTargets.cmake"
for p in toolgate toolgate-sdk toolgate-dev; do
  listing=$(dpkg-deb -c "$work"/packages/${p}_*.deb)
  has $p "$listing" ./usr/share/doc/$p/copyright ./usr/share/doc/$p/changelog.Debian.gz ./usr/share/doc/$p/changelog.gz
done
# The light package holds nothing of the engine; the engine's package
# nothing of the SDK; the runtime no headers or CMake files.
lacks toolgate-sdk "$sdkcontents" '\./usr/include/toolgate/(host|hooks|call|result|events|signal|json)\.hpp' \
  '.*libtoolgate_host\.a' '.*toolgateHostTargets.*\.cmake' '\./usr/bin/.*'
lacks toolgate-dev "$devcontents" '\./usr/include/toolgate/(toolgate\.h|plugin\.hpp|glob\.hpp)' \
  '.*toolgateConfig\.cmake' '.*toolgateSdkTargets.*\.cmake' '.*\.pc' '\./usr/bin/.*'
lacks toolgate "$contents" '\./usr/include/.*' '.*\.cmake' '.*\.pc' '.*\.a'
# No file is in two packages (dpkg would refuse the second).
dupes=$( (grep -v '/$' <<<"$contents"; grep -v '/$' <<<"$sdkcontents"; grep -v '/$' <<<"$devcontents") |
         awk '{print $NF}' | sort | uniq -d)
[ -z "$dupes" ] || fail "files in more than one package: $dupes"

depends=$(dpkg-deb -f "$deb" Depends)
echo "toolgate Depends: $depends"
for lib in libc6 libstdc++6 libspdlog1 libboost-json1.81.0 libssl3 libre2-9 libseccomp2; do
  grep -q "$lib" <<<"$depends" || fail "toolgate's Depends lacks $lib"
done
# Code Mode's runtime: Recommended (run_code says what to install without).
recommends=$(dpkg-deb -f "$deb" Recommends)
for p in nodejs bubblewrap; do
  grep -q "$p" <<<"$recommends" || fail "toolgate's Recommends lacks $p (got: $recommends)"
done
# Each package depends on the one below it of the *full* version, Debian
# revision included: "toolgate (= 0.1.0)" is not satisfied by 0.1.0-1, and
# the README's `apt install ./toolgate_*.deb ./toolgate-dev_*.deb` failed
# with exactly that (issue 20 item 1).
version=$(dpkg-deb -f "$deb" Version)
sdkdepends=$(dpkg-deb -f "$sdkdeb" Depends)
devdepends=$(dpkg-deb -f "$devdeb" Depends)
echo "toolgate Version: $version; toolgate-sdk Depends: $sdkdepends; toolgate-dev Depends: $devdepends"
for d in "$sdkdeb" "$devdeb"; do
  [ "$(dpkg-deb -f "$d" Version)" = "$version" ] || fail "$d is not version $version"
done
[ "$sdkdepends" = "toolgate (= $version)" ] ||
  fail "toolgate-sdk must depend on toolgate (= $version) alone, not: $sdkdepends"
grep -Fq "toolgate-sdk (= $version)" <<<"$devdepends" ||
  fail "toolgate-dev's Depends does not name toolgate-sdk (= $version): $devdepends"
# The heavy -dev packages (150+ MB) only for embedding: never pulled by the
# SDK, even as a Recommends (apt installs those by default).
heavy='boost|spdlog|fmt|ssl'
if grep -Eq "$heavy" <<<"$sdkdepends, $(dpkg-deb -f "$sdkdeb" Recommends)"; then
  fail "toolgate-sdk depends on or recommends a heavy package: $sdkdepends"
fi
grep -q libboost-json1.81-dev <<<"$(dpkg-deb -f "$sdkdeb" Suggests)" ||
  fail "toolgate-sdk should suggest libboost-json1.81-dev (plugin.hpp includes Boost.JSON)"
for d in "$deb" "$sdkdeb" "$devdeb"; do
  cl=$(dpkg-deb --fsys-tarfile "$d" | tar -xOf - "./usr/share/doc/$(dpkg-deb -f "$d" Package)/changelog.Debian.gz" |
       zcat | dpkg-parsechangelog -l- -S Version)
  [ "$cl" = "$version" ] || fail "$d: changelog.Debian.gz is for $cl, the package is $version"
done

tgz=$(ls "$work"/packages/toolgate-*.tar.gz)
listing=$(tar tzf "$tgz")
for p in /bin/toolgate "/$libdir_rel/cmake/toolgate/toolgateConfig.cmake" /include/toolgate/toolgate.h \
         /include/toolgate/host.hpp; do
  grep -q "$p\$" <<<"$listing" || fail "$tgz lacks $p"
done

step "the .debs install: dpkg into a private root, apt's resolver"
# A real dpkg install of the built files, dependencies checked by dpkg
# itself, into a private root whose package database is a copy of this
# machine's (so the libraries installed here count as installed) -- the
# machine's own packages are not touched.  A dependency dpkg cannot satisfy
# leaves the package unconfigured and fails this step.  Twice: what a
# plugin author installs (toolgate, toolgate-sdk), and all three.
# Unpacking sets owners: as root, or under fakeroot.
as_root=()
[ "$(id -u)" = 0 ] || as_root=(fakeroot)
dpkg_install() {  # dpkg_install ROOT DEB... -- then each is installed and configured
  local root=$1
  shift
  mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
  cp /var/lib/dpkg/status "$root/var/lib/dpkg/status"
  touch "$root/var/lib/dpkg/available"
  "${as_root[@]}" dpkg --root="$root" --log=/dev/null --force-not-root --force-script-chrootless \
    -i "$@" >"$work/dpkg.out" 2>&1 ||
    { grep -v 'files list file' "$work/dpkg.out" >&2; fail "dpkg -i of $*"; }
  for d in "$@"; do
    p=$(dpkg-deb -f "$d" Package)
    [ "$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${Status} ${Version}' "$p")" = "install ok installed $version" ] ||
      fail "$p is not installed and configured in the private root"
  done
}
if [ ${#as_root[@]} = 0 ] || command -v fakeroot >/dev/null; then
  dpkg_install "$work/dpkg-sdk" "$deb" "$sdkdeb"
  dpkg_install "$work/dpkg-all" "$deb" "$sdkdeb" "$devdeb"
  out=$("$work/dpkg-all/usr/bin/toolgate" version)
  expect "^toolgate ${version%-*} " "$out"
else
  echo "SKIP dpkg -i into a private root: not root and no fakeroot"
fi
# apt's resolver, as `apt install ./a.deb ./b.deb` runs it (a simulation: no
# root needed, nothing installed).
if command -v apt-get >/dev/null; then
  apt-get install --simulate -o Debug::NoLocking=1 "$deb" "$sdkdeb" >"$work/apt.out" 2>&1 ||
    { cat "$work/apt.out" >&2; fail "apt-get install --simulate ./toolgate_*.deb ./toolgate-sdk_*.deb"; }
  grep -q "^Conf toolgate-sdk ($version " "$work/apt.out" ||
    { cat "$work/apt.out" >&2; fail "apt would not configure toolgate-sdk"; }
  if grep -E "^Inst [^ ]*($heavy)" "$work/apt.out"; then
    fail "installing toolgate and toolgate-sdk would pull a heavy package (above)"
  fi
  apt-get install --simulate -o Debug::NoLocking=1 "$deb" "$sdkdeb" "$devdeb" >"$work/apt.out" 2>&1 ||
    { cat "$work/apt.out" >&2; fail "apt-get install --simulate of the three .debs"; }
  grep -q "^Conf toolgate-dev ($version " "$work/apt.out" ||
    { cat "$work/apt.out" >&2; fail "apt would not configure toolgate-dev"; }
fi

echo "install test: ok ($SECONDS s)"
