#!/usr/bin/env bash
# install-deps.sh -- install exactly the Debian 12 packages toolgate needs to
# build, test and run.  Idempotent: a no-op when everything is present.
# Run as root, or as a user with sudo.
set -euo pipefail

packages=(
  build-essential     # gcc/g++ 12, make
  cmake               # >= 3.25 (Debian 12 ships 3.25.1)
  ninja-build
  ccache
  pkg-config
  binutils            # readelf, used by the plugin export test
  clang-format        # the style check (ctest style.clang_format)
  clang               # the fuzz preset: libFuzzer harnesses (tests/fuzz) need clang
  libclang-rt-14-dev  # ...and its runtime (libclang_rt.fuzzer, asan, ubsan): only Recommended by clang
  llvm                # /usr/bin/llvm-symbolizer: file:line in the fuzzers' sanitizer reports
  libboost1.81-dev    # Boost.DLL (header-only) -- 1.74 has no Boost.JSON
  libboost-json1.81-dev
  libspdlog-dev
  libssl-dev          # libcrypto: SHA-256 pins; libssl: HTTPS to remote MCP servers
  openssl             # tests: the HTTPS upstream test makes its own CA and certificate
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  python3-jsonschema  # tests: sample manifests validate against the schema
  libre2-dev          # RE2: linear-time regexes for plugins/ (policy, secret detectors)
  libseccomp-dev      # Code Mode's sandbox: the filter that stops a script starting processes
  libhiredis-dev      # rate-limit's buckets shared by replicas in Redis
  redis-server        # tests: the rate limit across replicas, against a real store
  bubblewrap          # Code Mode's sandbox (tests run scripts under it)
  dpkg-dev            # cpack .deb: dpkg-shlibdeps computes the runtime Depends
  file                # cpack .deb: finds the ELF files to run dpkg-shlibdeps on
  rustc               # the Rust sample and the SDK's Rust bindings test, with Debian 12's
                      # rustc 1.63: the oldest version sdk/README promises
  groff-base          # tests: the generated man pages render without warnings (groff -ww)
)

# The MCP gateway's end-to-end tests run the official MCP SDK on Node.js
# (>= 18; Debian 12 ships 18).  A machine that already has node and npm
# (from anywhere) keeps them.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages are present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root (or install sudo)" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
