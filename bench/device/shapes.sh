# Sourced by the one-call device scripts (ab_binaries.sh, split_and_load.sh):
# the staged libraries and Python path, $OUT made, and /tmp/<shape>.gguf
# written for each shape named (bench/make_bench_gguf.py, in parallel).
#   source bench/device/shapes.sh llama1b llama8b
source bench/device/env.sh .device
export PYTHONPATH=$PWD/.device/py
mkdir -p "$OUT"
for _shape in "$@"; do
  python3 bench/make_bench_gguf.py "/tmp/$_shape.gguf" --seed 0 --shape "$_shape" >/dev/null 2>&1 &
done
wait
unset _shape
