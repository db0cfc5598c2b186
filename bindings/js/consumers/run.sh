#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the packed package (scripts/pack_js's tarball) into a fresh temporary project, as its users would, and
# runs each consumer: (a) a node ES module; (b) TypeScript under --strict, compiled with tsc (NodeNext, then the
# browser recipe under moduleResolution "bundler"); (c) esbuild bundles for node, one self-contained (run from a
# folder with no node_modules) and one with --packages=external; then, in Debian's chromium, headless, driven by
# playwright-core: (d) an esbuild bundle for the browser, (e) a vite build (and vite's dev server), a webpack build
# and a page with no bundler (an import map), each with (f) a Web Worker. Each checks its answers against a brute-force count and
# prints OK, or fails. The browser bundles must hold no node: import. The development packages are those
# package-lock.json pins (npm ci; npm's cache, ~/.npm or $npm_config_cache, is what CI should keep between runs).
#
#   bash bindings/js/consumers/run.sh build/js/quadrant-wasm-<version>.tgz
#
# Screenshots: build/js/screenshots (SCREENSHOTS=dir). KEEP=1 keeps the temporary project and prints its path.
set -euo pipefail
if [ $# -ne 1 ] || [ ! -f "$1" ]; then
  echo "usage: bash bindings/js/consumers/run.sh path/to/quadrant-wasm-<version>.tgz" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
export SCREENSHOTS=${SCREENSHOTS:-$repo/build/js/screenshots}
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
if [ -z "${CHROMIUM:-}" ]; then
  bash "$repo/scripts/deps" chromium
  [ -x /usr/bin/chromium ] || { echo "quadrant: install chromium (or set CHROMIUM to a Chromium binary)" >&2; exit 1; }
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/quadrant-consumers.XXXXXX")
apart=$(mktemp -d "${TMPDIR:-/tmp}/quadrant-bundle.XXXXXX") # no node_modules on its way up
if [ "${KEEP:-0}" = 1 ]; then
  echo "consumers: keeping $work and $apart" >&2
else
  trap 'rm -rf "$work" "$apart"' EXIT
fi
tar -C "$here" --exclude=./node_modules --exclude=./out -cf - . | tar -C "$work" -xf -
cd "$work"

started=$(date +%s%N)
last=$started
lap() { # prints what passed and how long it took
  local now
  now=$(date +%s%N)
  printf 'consumers: %s (%d.%d s)\n' "$1" $(((now - last) / 1000000000)) $(((now - last) / 100000000 % 10))
  last=$now
}
npm=(--prefer-offline --no-audit --no-fund --loglevel=error)
npm ci "${npm[@]}"
npm install --no-save "${npm[@]}" "$tarball"
version() { node -p "require('$1/package.json').version"; }
lap "installed $(basename "$tarball") and the pinned tools (esbuild $(version esbuild), vite $(version vite), \
webpack $(version webpack), typescript $(version typescript), playwright-core $(version playwright-core))"

node node/main.js
lap "(a) node $(node --version) ES module"

npx tsc -p ts/tsconfig.json
node out/ts/main.js
npx tsc -p ts/tsconfig.bundler.json
lap "(b) TypeScript --strict (NodeNext, compiled and run; Bundler, type-checked)"

npx esbuild esbuild/node.js --bundle --platform=node --format=esm --loader:.wasm=file --outdir=out/esbuild-node \
  --log-level=warning
cp -r out/esbuild-node/. "$apart"/
listing() { echo "  $1: $(cd "$1" && find . -type f | sed 's|^\./||' | sort | paste -sd' ')"; }
listing "$apart"
(cd "$apart" && node node.js)
npx esbuild esbuild/node-external.js --bundle --platform=node --format=esm --packages=external \
  --outdir=out/esbuild-node-external --log-level=warning
node out/esbuild-node-external/node-external.js
lap "(c) esbuild bundles for node"

npx esbuild esbuild/main.js esbuild/worker.js --bundle --platform=browser --format=esm --loader:.wasm=file \
  --outdir=out/esbuild-web --log-level=warning
cp index.html out/esbuild-web/
listing out/esbuild-web
cp index.html vite/
npx vite build vite
listing out/vite
npx webpack -c webpack/webpack.config.js --no-stats
cp index.html out/webpack/
listing out/webpack
map='{ "imports": { "quadrant-wasm": "../node_modules/quadrant-wasm/quadrant.mjs" } }'
sed "s|<script type=\"module\"|<script type=\"importmap\">$map</script>\n&|" index.html >plain/index.html
lap "(d, e) built the esbuild, vite and webpack bundles for the browser"
# The browser must never see Node's modules: quadrant.mjs names none, and quadrant.node.mjs (whose error message is
# matched) is not reached.
if grep -rlE 'node:|fs/promises|cannot read the WebAssembly module' out/esbuild-web out/vite out/webpack; then
  echo "consumers: FAIL: a browser bundle above names a Node.js module" >&2
  exit 1
fi
echo "consumers: the browser bundles name no Node.js module"

node browser.js out/esbuild-web/ out/vite/ vite-dev out/webpack/ plain/
lap "(d, e, f) esbuild, vite (build and dev server), webpack and no bundler in chromium, each with a Web Worker"
now=$(date +%s%N)
printf 'consumers: all passed in %d s\n' $(((now - started) / 1000000000))
