#!/usr/bin/env bash
# Every measurement owed as of session 24, in one device call (about 9
# minutes; issue 37): 8B Q4_0 and Q4_K_M and 70B Q4_0 beside llama.cpp's CUDA
# llama-bench (bench/peer_models.sh: the peer is built there while the files
# are written; nothing is timed during the build), then the 70B's load time
# and peak memory. Stage first:
#   WGRT_BUILD_DIR=build bench/device/stage_bench.sh; cp bench/device/owed.sh .device/run.sh
# then run `bash .device/run.sh` there (carry [".device"]). Few files come
# back from $OUT, so the raw files return as one tarball and the tables go to
# stdout.
set -u
source bench/device/env.sh .device; export PYTHONPATH=$PWD/.device/py
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; nproc; cat .device/COMMIT; df -h /tmp | tail -1
RAW=/tmp/owed-raw; rm -rf $RAW; mkdir -p $RAW
MODELS="llama8b llama8b_km llama70b" OUT=$RAW timeout 500 bash bench/peer_models.sh 2>&1 | tee $RAW/peer.txt
echo "t=$SECONDS after peers"
[ -s /tmp/llama70b.gguf ] && WGRT=.device/wgrt OUT=$RAW/load timeout $((585 - SECONDS)) bash bench/load_memory.sh /tmp/llama70b.gguf 2>&1 | tail -3
echo "t=$SECONDS end"
[ -f $RAW/llama-bench-cuda.xz ] && mv $RAW/llama-bench-cuda.xz $OUT/
tar czf $OUT/raw.tgz -C /tmp owed-raw
grep -h "loading: done\|uploading" $RAW/wgrt-*.out | head -6
