#!/usr/bin/env bash
# Every measurement owed as of session 23, in one device call (about 9
# minutes): the constrained-decoding A/B (issue 35), batched constrained
# requests (issue 33), the 8B load with mapped staging and its stages, and the
# 8B decode variants (issue 37). Stage first:
#   WGRT_BUILD_DIR=build bench/device/stage_bench.sh
#   cp OLD_BUILD/wgrt .device/wgrt-old; cp build/wgrt_mask_probe .device/
# then run `bash bench/device/owed.sh` there (carry [".device"]); files in $OUT.
set -u
source bench/device/env.sh .device; export PYTHONPATH=$PWD/.device/py
S=/tmp/smollm2-135m-q4_1.gguf
nvidia-smi --query-gpu=name --format=csv,noheader; nproc; cat .device/COMMIT
python3 bench/random_gguf.py fill .device/bench/smollm2-135m-q4_1.skel.gguf $S --seed 0 >/dev/null
(python3 bench/make_bench_gguf.py /tmp/llama8b.gguf --seed 0 --shape llama8b > $OUT/gen8b.log 2>&1; echo gen-done-$SECONDS >> $OUT/gen8b.log) &
timeout 40 .device/wgrt_mask_probe $S > $OUT/probe.txt 2>&1
for w in wgrt-old wgrt; do WGRT=.device/$w N=128 REPS=2 timeout 110 bash bench/constrained_decoding.sh $S > $OUT/cd-$w.txt 2>&1; done
echo "t=$SECONDS after constrained"
{ for c in 0 2 4; do timeout 40 python3 bench/serve_load.py --wgrt .device/wgrt --model $S --streams 4 --constrained $c --tokens 128 --requests 1; done
  timeout 60 python3 bench/serve_load.py --wgrt .device/wgrt-old --model $S --streams 4 --constrained 2 --tokens 128 --requests 1; } > $OUT/serve.txt 2>&1
echo "t=$SECONDS after serve"
wait; echo "t=$SECONDS 8B ready"
for w in wgrt-old wgrt wgrt-old wgrt; do echo "== $w"; WGRT=.device/$w timeout 60 bash bench/load_memory.sh /tmp/llama8b.gguf 2>&1 | tail -2; done > $OUT/load.txt
echo "t=$SECONDS after load"
MODELS=llama8b VARIANTS="planar act-q8x2 act-q8 probe-no-math probe-no-weights probe-no-x" REPS=1 STEP_S=30 WGRT=.device/wgrt RUN=/tmp/v timeout $((575-SECONDS)) bash bench/variants_decode.sh > $OUT/vd.txt 2>&1
echo "t=$SECONDS end"
tail -4 $OUT/probe.txt; tail -9 $OUT/cd-wgrt-old.txt; tail -9 $OUT/cd-wgrt.txt; cat $OUT/serve.txt; cat $OUT/load.txt; tail -12 $OUT/vd.txt
