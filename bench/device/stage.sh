#!/usr/bin/env bash
# Gathers what the H200 machine needs into .device/ (ignored by git, carried by
# the device tool): wgrt's binaries, wgpu-native, and the Vulkan loader, which
# that machine lacks. Run after scripts/setup.sh; run again after each build.
# WGRT_BUILD_DIR names another build folder than build/ (its tests are copied
# when that folder has them); WGRT_BUILD_TARGET builds one target only (wgrt_cli: the wgrt binary).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.device
build=${WGRT_BUILD_DIR:-build}
rm -rf "$out" && mkdir -p "$out"

cmake --build "$build" ${WGRT_BUILD_TARGET:+--target "$WGRT_BUILD_TARGET"} -j"$(nproc)" >/dev/null
cp "$build"/wgrt "$out/"
if [ -f "$build"/tests/wgrt_tests ]; then cp "$build"/tests/wgrt_tests "$out/"; fi

wgpu_dir=$(python3 -c "import importlib.util, os; print(os.path.join(os.path.dirname(importlib.util.find_spec('wgpu').origin), 'resources'))")
cp "$wgpu_dir"/libwgpu_native-release.so "$out/"

tmp=$(mktemp -d)
(cd "$tmp" && apt-get download libvulkan1 >/dev/null && dpkg-deb -x libvulkan1_*.deb x)
cp -P "$tmp"/x/usr/lib/x86_64-linux-gnu/libvulkan.so.1* "$out/"
rm -rf "$tmp"

# Shared libraries from Debian that the H200 machine (Ubuntu 24.04) lacks:
# cpp-httplib (wgrt serve) and the brotli codecs it links.
for lib in $(ldd "$build"/wgrt | awk '/libcpp-httplib|libbrotli/ {print $3}'); do cp "$lib" "$out/"; done

strip "$out/wgrt" "$out/wgrt_tests" 2>/dev/null || true
du -sh "$out"
