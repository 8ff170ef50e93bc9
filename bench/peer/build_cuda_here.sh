#!/usr/bin/env bash
# Builds llama.cpp's llama-bench with CUDA from a trimmed source tarball
# (bench/device/stage_bench.sh packs it as .device/bench/llama.cpp-src.tar.xz),
# for machines where the local build (bench/peer/build_llamacpp.sh cuda) did
# not finish: the H200 machine has nvcc, cmake and ninja, and 16 cores.
# Usage: bench/peer/build_cuda_here.sh SRC.tar.xz OUT_BINARY [JOBS]
# Env: CUDA_FA (default OFF, as build_llamacpp.sh), CUDA_ARCH (default 90),
# TARGETS (default llama-bench; e.g. "llama-bench llama-batched-bench": each
# is copied beside OUT_BINARY under its own name, OUT_BINARY being llama-bench's).
# With llama-server among TARGETS the server tools are configured too, without
# their web UI (no npm there, no network for the prebuilt one): the API only.
set -euo pipefail
src_tar=$1 out=$2 jobs=${3:-$(nproc)}
work=/tmp/llama-cuda-build
rm -rf "$work" && mkdir -p "$work"
python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$src_tar" "$work"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
targets=${TARGETS:-llama-bench}
server=OFF
case " $targets " in *" llama-server "*) server=ON ;; esac
cmake -S "$work/llama.cpp" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DLLAMA_BUILD_SERVER=$server -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_APP=OFF \
  -DGGML_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" \
  -DGGML_CUDA_NCCL=OFF -DGGML_CUDA_FA="${CUDA_FA:-OFF}" >"$work/configure.log" 2>&1 \
  || { tail -n 30 "$work/configure.log"; exit 1; }
t0=$SECONDS
# shellcheck disable=SC2086  # several targets
cmake --build "$work/build" --target $targets -j"$jobs" >"$work/build.log" 2>&1 \
  || { grep -m5 -B2 -A8 "error" "$work/build.log"; tail -n 5 "$work/build.log"; exit 1; }
echo "built in $((SECONDS - t0)) s"
for t in $targets; do
  dst=$(dirname "$out")/$t
  [ "$t" = llama-bench ] && dst=$out
  cp "$work/build/bin/$t" "$dst" && echo "built $dst"
done
