#!/usr/bin/env bash
# What the one-call device scripts share (owed.sh, serve_probe.sh, ...):
# source it from the repository root on the device machine, after staging
# (bench/device/stage_bench.sh). Sets B (the staged bench folder) and BIN
# (where llama.cpp's binaries go), and defines:
#   build_peer TARGETS   llama.cpp CUDA targets built in the background
#                        (bench/peer/build_cuda_here.sh; log /tmp/peer-build.log)
#   peer_libs            puts libcudart and libcublas on the library path
#   row                  a `wgrt bench` table as "test=tok/s ..." on one line
#   smollm2 PATH         SmolLM2-135M Q4_1 with random weights at PATH
#   llama_gguf PATH ARGS a make_bench_gguf.py file at PATH (unless it exists)
source bench/device/env.sh .device
export PYTHONPATH=$PWD/.device/py
nvidia-smi --query-gpu=name --format=csv,noheader
cat .device/COMMIT
B=.device/bench BIN=/tmp/peer-bin
mkdir -p $BIN
unxz() { python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" "$1" "$2"; }
[ -f $BIN/libcudart.so.13 ] || unxz $B/libcudart.so.13.xz $BIN/libcudart.so.13
build_peer() {
  local want=$BIN/${1%% *}
  [ "${1%% *}" = llama-bench ] && want=$BIN/llama-bench-cuda
  [ -x "$want" ] && return
  ( TARGETS="$1" nice -n 19 timeout 480 \
      bash bench/peer/build_cuda_here.sh $B/llama.cpp-src.tar.xz $BIN/llama-bench-cuda 16 > /tmp/peer-build.log 2>&1 ) &
}
peer_libs() {
  local cublas
  cublas=$(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name 'libcublas.so.13' -print 2>/dev/null | head -1)
  export LD_LIBRARY_PATH="$BIN:$(dirname "${cublas:-/x/y}"):${LD_LIBRARY_PATH:-}"
}
row() { grep -E "^(pp|tg)[0-9]+(/x[0-9]+)? " | awk '{printf "%s=%s ", $1, $3} END {print ""}'; }
smollm2() { [ -s "$1" ] || python3 bench/random_gguf.py fill $B/smollm2-135m-q4_1.skel.gguf "$1" --seed 0 > /dev/null; }
llama_gguf() { local out=$1; shift; [ -s "$out" ] || python3 bench/make_bench_gguf.py "$out" --seed 0 "$@" > /dev/null 2>&1; }
