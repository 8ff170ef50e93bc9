#!/usr/bin/env bash
# Builds the web target (the engine as WebAssembly, and its page) into
# build-web/site/: Debian's emscripten, incremental (objects kept in
# build-web/). Serve it with scripts/serve_web.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${WGRT_WEB_BUILD_DIR:-build-web}
# Debian's emscripten runs its JavaScript optimizer on Debian's node modules.
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
if ! command -v emcmake >/dev/null; then
  echo "build_web.sh: emscripten is missing (scripts/setup.sh installs Debian's package)" >&2
  exit 1
fi
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  # Not through ccache (scripts/ccache_env.sh): em++ is a wrapper it does not know.
  env -u CMAKE_CXX_COMPILER_LAUNCHER -u CMAKE_C_COMPILER_LAUNCHER emcmake cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$BUILD" -j"$(nproc)" --target wgrt_web
echo "built $BUILD/site (wgrt_engine.js, wgrt_engine.wasm, index.html): scripts/serve_web.sh serves it"
