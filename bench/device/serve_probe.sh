#!/usr/bin/env bash
# Where wgrt serve's batched throughput went (session 25): on the H100 its
# aggregate tokens/s stayed at ~1,000 from 1 to 32 streams, and the mean time
# to a first token of 32 streams was ~1.9 s, while `wgrt bench --parallel`
# reached 2,900 tok/s at 8 rows and 6,780 at 32 with the same engine. The
# worker held the queue's lock through each step (fixed in 76814c2); this
# measures the server again, streamed and with whole answers, beside the
# engine alone and llama-server (built there meanwhile). About 5 minutes.
# Stage as owed_s25.sh; `bash .device/run.sh` (carry [".device"]).
set -u
source bench/device/common.sh
build_peer llama-server
S=/tmp/smollm2-135m-q4_1.gguf L1=/tmp/llama1b-q4_0.gguf
smollm2 $S
llama_gguf $L1
for m in S L1; do
  echo "bench ${m}: $(timeout 60 .device/wgrt bench --model ${!m} -p 0 -n 128 -r 3 --parallel 1,8,32 2>&1 | row)"
  for mode in "" "--no-stream"; do
    timeout 100 python3 bench/serve_load.py --wgrt .device/wgrt --model ${!m} --streams 1,8,32 --tokens 128 --requests 1 $mode 2>&1 | tail -3
  done
done
echo "t=$SECONDS"
wait
tail -1 /tmp/peer-build.log
peer_libs
for m in S L1; do
  [ -x $BIN/llama-server ] && timeout 80 python3 bench/serve_load.py --llama-server $BIN/llama-server --model ${!m} --streams 1,8,32 --tokens 128 --requests 1 2>&1 | tail -3
done
echo "t=$SECONDS end"
