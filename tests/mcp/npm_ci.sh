#!/usr/bin/env bash
# The MCP end-to-end tests' fixture: copy the test files and the lock file
# into the build tree and install exactly what package-lock.json says
# (`npm ci`), unless that install is already there.  Fails -- never skips --
# when Node.js is missing: .ci/run installs Debian's nodejs and npm.
# usage: npm_ci.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
dest=$2
for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "error: $tool is not installed; the MCP end-to-end tests need Node.js (apt-get install -y nodejs npm)" >&2
    exit 1
  fi
done
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
cp "$src/package.json" "$src/package-lock.json" "$src"/*.mjs "$dest/"
want=$(sha256sum "$src/package-lock.json" | cut -d' ' -f1)
stamp="$dest/node_modules/.toolgate-lock.sha256"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "node_modules matches package-lock.json ($want)"
  exit 0
fi
cd "$dest"
npm ci --no-audit --no-fund
echo "$want" > "$stamp"
