#!/usr/bin/env bash
# install_test.sh SOURCE_DIR BUILD_DIR -- the packaged SDK works from the
# outside, as a third party would use it:
#   1. install the build into a staging root (DESTDIR), nothing from the tree;
#   2. build samples/out-of-tree against the installed package with CMake,
#      and again with plain c++ + pkg-config;
#   3. scaffold a plugin of every kind in C and C++ with the installed
#      `toolgate new-plugin`, build them all, run their generated tests;
#   4. load everything with the installed toolgate and run calls;
#   5. build the .deb and .tar.gz with cpack and check what they contain;
#   6. install the two .debs with dpkg into a private root (and ask apt's
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

step "install into a staging root"
stage=$work/stage
DESTDIR=$stage cmake --install "$build" >/dev/null
prefix=$stage/usr
multiarch=$(gcc -print-multiarch)
libdir=$prefix/lib/$multiarch
tg=$prefix/bin/toolgate
for f in "$tg" "$libdir/cmake/toolgate/toolgateConfig.cmake" "$libdir/pkgconfig/toolgate-sdk.pc" \
         "$libdir/toolgate/plugins/toolgate_policy.so" "$prefix/include/toolgate/toolgate.h" \
         "$prefix/include/toolgate/host.hpp" "$prefix/share/doc/toolgate/plugin-guide.md"; do
  [ -e "$f" ] || fail "not installed: ${f#$stage}"
done
[ -d "$stage/etc/toolgate/manifest.d" ] || fail "the system manifest folder is not installed"
cmake_args=(-G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)

step "out-of-tree plugin with CMake (find_package(toolgate CONFIG))"
cmake -S "$src/samples/out-of-tree" -B "$work/oot" "${cmake_args[@]}" >/dev/null
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
mkdir -p "$work/pc"
# shellcheck disable=SC2046
c++ -std=c++17 -Wall -Wextra -Werror $cflags $(pkg-config --variable=plugin_cxxflags toolgate-sdk) \
    -o "$work/pc/name_length.so" "$src/samples/out-of-tree/name_length.cpp" \
    $(pkg-config --libs toolgate-sdk) -lboost_json
cp "$src/samples/out-of-tree/name_length.json" "$work/pc/"
out=$("$tg" call "$work/pc/name_length.json" --tool greet --args '{"name":"Bartholomew"}' || true)
expect '"code":"denied","message":"names longer than 8 characters are not greeted"' "$out"
"$tg" inspect "$work/pc/name_length.so" >/dev/null || fail "inspect finds problems in the pkg-config build"
# The C flags alone make a correct C plugin too.
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -Werror $cflags -o "$work/pc/no_root.so" "$src/samples/minimal/no_root.c" \
   $(pkg-config --libs toolgate-sdk)
cp "$src/samples/minimal/no_root.json" "$work/pc/"
out=$("$tg" call "$work/pc/no_root.json" --tool greet --args '{"name":"root"}' || true)
expect '"message":"greeting root is not allowed"' "$out"
unset PKG_CONFIG_LIBDIR

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
for m in secure-agent mcp-filesystem; do
  sed "s|\"/usr/|\"$stage/usr/|" "$prefix/share/toolgate/manifests/$m.json" >"$work/$m.json"
  out=$("$tg" check "$work/$m.json")
  expect '^ok' "$out"
done

step "the installed demo runs from the installed samples"
out=$("$tg" demo)
expect '"text":"Hello, World!"' "$out"
expect 'sample.no-world' "$out"

step "cpack: .deb and .tar.gz"
(cd "$work" && cpack --config "$build/CPackConfig.cmake" -B "$work/packages" >/dev/null)
deb=$(ls "$work"/packages/toolgate_*.deb)
devdeb=$(ls "$work"/packages/toolgate-dev_*.deb)
contents=$(dpkg-deb -c "$deb")
for p in ./usr/bin/toolgate "./usr/lib/$multiarch/toolgate/plugins/toolgate_guard-paths.so" \
         ./etc/toolgate/manifest.d/ ./usr/share/toolgate/manifests/secure-agent.json \
         "./usr/lib/$multiarch/toolgate/samples/manifests/4-guard.json" \
         "./usr/lib/$multiarch/toolgate/samples/plugins/sample_no_world.so" \
         ./usr/share/doc/toolgate/README.md; do
  grep -q " $p\$" <<<"$contents" || fail "$deb lacks $p"
done
devcontents=$(dpkg-deb -c "$devdeb")
for p in ./usr/include/toolgate/toolgate.h ./usr/include/toolgate/plugin.hpp ./usr/include/toolgate/host.hpp \
         "./usr/lib/$multiarch/libtoolgate_host.a" "./usr/lib/$multiarch/cmake/toolgate/toolgateConfig.cmake" \
         "./usr/lib/$multiarch/cmake/toolgate/ToolgatePlugin.cmake" "./usr/lib/$multiarch/pkgconfig/toolgate-sdk.pc"; do
  grep -q " $p\$" <<<"$devcontents" || fail "$devdeb lacks $p"
done
depends=$(dpkg-deb -f "$deb" Depends)
echo "toolgate Depends: $depends"
for lib in libc6 libstdc++6 libspdlog1 libboost-json1.81.0 libssl3 libre2-9; do
  grep -q "$lib" <<<"$depends" || fail "toolgate's Depends lacks $lib"
done
# toolgate-dev depends on the runtime package's *full* version, Debian
# revision included: "toolgate (= 0.1.0)" is not satisfied by 0.1.0-1, and
# the README's `apt install ./toolgate_*.deb ./toolgate-dev_*.deb` failed
# with exactly that (issue 20 item 1).
version=$(dpkg-deb -f "$deb" Version)
devdepends=$(dpkg-deb -f "$devdeb" Depends)
echo "toolgate Version: $version; toolgate-dev Depends: $devdepends"
[ "$(dpkg-deb -f "$devdeb" Version)" = "$version" ] || fail "toolgate-dev is not version $version"
grep -Fq "toolgate (= $version)" <<<"$devdepends" ||
  fail "toolgate-dev's Depends does not name toolgate (= $version): $devdepends"

tgz=$(ls "$work"/packages/toolgate-*.tar.gz)
listing=$(tar tzf "$tgz")
for p in /bin/toolgate "/lib/$multiarch/cmake/toolgate/toolgateConfig.cmake" /include/toolgate/toolgate.h; do
  grep -q "$p\$" <<<"$listing" || fail "$tgz lacks $p"
done
step "the two .debs install together: dpkg into a private root, apt's resolver"
# A real dpkg install of the built files, dependencies checked by dpkg
# itself, into a private root whose package database is a copy of this
# machine's (so the libraries installed here count as installed) -- the
# machine's own packages are not touched.  A dependency dpkg cannot satisfy
# leaves the package unconfigured and fails this step.
# Unpacking sets owners: as root, or under fakeroot.
as_root=()
[ "$(id -u)" = 0 ] || as_root=(fakeroot)
if [ ${#as_root[@]} = 0 ] || command -v fakeroot >/dev/null; then
  root=$work/dpkg-root
  mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
  cp /var/lib/dpkg/status "$root/var/lib/dpkg/status"
  touch "$root/var/lib/dpkg/available"
  "${as_root[@]}" dpkg --root="$root" --log=/dev/null --force-not-root --force-script-chrootless \
    -i "$deb" "$devdeb" >"$work/dpkg.out" 2>&1 ||
    { grep -v 'files list file' "$work/dpkg.out" >&2; fail "dpkg -i of the two .debs"; }
  for p in toolgate toolgate-dev; do
    [ "$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${Status} ${Version}' $p)" = "install ok installed $version" ] ||
      fail "$p is not installed and configured in the private root"
  done
  out=$("$root/usr/bin/toolgate" version)
  expect "^toolgate ${version%-*} " "$out"
else
  echo "SKIP dpkg -i into a private root: not root and no fakeroot"
fi
# apt's resolver, as `apt install ./a.deb ./b.deb` runs it (a simulation: no
# root needed, nothing installed).
if command -v apt-get >/dev/null; then
  apt-get install --simulate -o Debug::NoLocking=1 "$deb" "$devdeb" >"$work/apt.out" 2>&1 ||
    { cat "$work/apt.out" >&2; fail "apt-get install --simulate of the two .debs"; }
  grep -q "^Conf toolgate-dev ($version " "$work/apt.out" || { cat "$work/apt.out" >&2; fail "apt would not configure toolgate-dev"; }
fi

echo "install test: ok ($SECONDS s)"
