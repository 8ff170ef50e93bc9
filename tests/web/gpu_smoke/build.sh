#!/bin/sh
# Builds the WebGPU smoke page (smoke.cpp on src/gpu/web/) into a folder
# that tests/web/test_gpu_smoke.py serves: build-web/gpu_smoke/ in the
# repository, or the folder given as $1.
#   tests/web/gpu_smoke/build.sh [out_dir]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-"$root/build-web/gpu_smoke"}
mkdir -p "$out"

# Debian's emscripten: its JS optimizer needs Debian's node-acorn.
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
# webgpu.h: the `wgpu` wheel's copy (wgpu-native's), found as cmake/FindWgpuNative.cmake does.
webgpu_h=${WGPU_NATIVE_DIR:-$(python3 -c 'import importlib.util, os
print(os.path.join(os.path.dirname(importlib.util.find_spec("wgpu").origin), "resources"))')}

libs=""
for lib in "$root"/src/gpu/web/*.js; do libs="$libs --js-library $lib"; done

# The suspending imports of webgpu_library.js (see its header).
imports="['wgpuInstanceProcessEvents','wgrt_web_poll','wgrt_web_poll_until']"

# shellcheck disable=SC2086  # $libs is a list of flags
em++ -std=c++20 -O2 -Wall -Wextra -fexceptions \
  -I"$webgpu_h" -I"$root/src" \
  "$here/smoke.cpp" "$root/src/gpu/web/web_native.cpp" "$root/src/gpu/web/layout_check.cpp" \
  $libs \
  -sASYNCIFY "-sASYNCIFY_IMPORTS=$imports" -sASYNCIFY_STACK_SIZE=65536 \
  -sWASM_BIGINT -sALLOW_MEMORY_GROWTH -sENVIRONMENT=web \
  -o "$out/smoke.js"
# 3.1.6's minifier can silently mangle newer syntax: check what it wrote.
node --check "$out/smoke.js"
cp "$here/index.html" "$out/index.html"
echo "built $out/smoke.js"
