#!/usr/bin/env bash
# Issue 12's convolution kernels, A/B on the vision programs, in one device call
# (under 3 minutes on the H200). From the repo root, after
# `source bench/device/env.sh .device`:
#   WGRT=path/to/wgrt bash bench/variants_ops.sh
# Variants (WGRT_CONV, read by src/ops/conv/conv2d.cpp):
#   direct   conv2d.wgsl's main_gemm for every non-depthwise convolution and the
#            depthwise loop (the old kernels; residual adds still fused)
#   nosplit  conv_igemm.wgsl (prepacked weights, window-major slices), no split-K
#   igemm    conv_igemm.wgsl with split-K where the tiles leave the GPU idle
#            (aiming at 512 workgroups, splits >= 4 slices deep), and
#            main_depthwise's ROW3 form for 3-wide depthwise windows (the default)
#   dwloop   as igemm, but depthwise convolutions keep the loop over the window
#   fill1k   as igemm, split-K aiming at 1024 workgroups (WGRT_CONV_SPLIT=1024,4)
#   fill256  as igemm, split-K aiming at 256 workgroups, splits >= 8 slices deep
#            (WGRT_CONV_SPLIT=256,8: the default until the second H200 round)
#   nofuse   as igemm, without the fusion passes (WGRT_NO_FUSE=1: residual
#            adds and the relu after them stay separate dispatches)
# Per variant and program: median wall time of REPEAT runs without profiling
# (`wgrt run --repeat`), then GPU time and the wall time of a profiled run
# (`--profile-each`: one timed pass per dispatch, so its wall is higher).
# Programs: $VISION_DIR/NAME.pte.xz or NAME.pte (default bench/models, both
# 224x224 programs from bench/export_vision_models.py). Logs in $LOGS.
set -uo pipefail
W=${WGRT:-build/wgrt}
VISION_DIR=${VISION_DIR:-bench/models}
REPEAT=${REPEAT:-200}
PROFILE_REPEAT=${PROFILE_REPEAT:-20}
VARIANTS=${VARIANTS:-direct nosplit dwloop fill256 fill1k nofuse igemm}
LOGS=${LOGS:-/tmp/variants-ops}
rm -rf "$LOGS" && mkdir -p "$LOGS"

models=()
for f in "$VISION_DIR"/*.pte.xz "$VISION_DIR"/*.pte; do
  [ -f "$f" ] || continue
  name=$(basename "${f%.xz}")
  name=${name%.pte}
  [ -f "$LOGS/$name.pte" ] && continue
  case "$f" in
    *.xz) python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
            "$f" "$LOGS/$name.pte" ;;
    *) cp "$f" "$LOGS/$name.pte" ;;
  esac
  models+=("$name")
done
[ ${#models[@]} -gt 0 ] || { echo "no programs in $VISION_DIR"; exit 1; }

field() {  # field FILE: "wall_ms gpu_ms dispatches_run" of one `wgrt run` log
  awk '/^time:/ {t=$2} /^profile:/ {g=$2; d=$(NF-1)}
       END {printf "%s %s %s", (t==""?"-":t), (g==""?"-":g), (d==""?"-":d)}' "$1"
}

variant_env() {  # the environment of one variant, as NAME=VALUE words
  case "$1" in
    fill1k) echo "WGRT_CONV=igemm WGRT_CONV_SPLIT=1024,4" ;;
    fill256) echo "WGRT_CONV=igemm WGRT_CONV_SPLIT=256,8" ;;
    nofuse) echo "WGRT_CONV=igemm WGRT_NO_FUSE=1" ;;
    *) echo "WGRT_CONV=$1" ;;
  esac
}

rows=()
for v in $VARIANTS; do
  read -ra venv <<<"$(variant_env "$v")"
  for m in "${models[@]}"; do
    wall_log=$LOGS/$v-$m.wall.log prof_log=$LOGS/$v-$m.profile.log
    env "${venv[@]}" timeout 60 "$W" run "$LOGS/$m.pte" --repeat "$REPEAT" >"$wall_log" 2>&1 || echo "FAILED: $v $m (rc $?)"
    env "${venv[@]}" timeout 60 "$W" run "$LOGS/$m.pte" --repeat "$PROFILE_REPEAT" --profile-each >"$prof_log" 2>&1 ||
      echo "FAILED: $v $m --profile-each (rc $?)"
    read -r wall _ _ <<<"$(field "$wall_log")"
    read -r pwall gpu disp <<<"$(field "$prof_log")"
    rows+=("$(printf '| %-8s | %-18s | %9s | %9s | %13s | %10s |' "$v" "$m" "$wall" "$gpu" "$pwall" "$disp")")
  done
done

# Where the GPU time goes: the kernel table of each profiled run, and every
# dispatch of ResNet-18 (the 3x3 layers) for the first and last variant.
for f in "$LOGS"/*.profile.log; do
  echo "== $(basename "$f" .profile.log)"
  sed -n '/^profile:/,/^  #0 /p' "$f" | grep -v '^  #' | head -14
done
first=${VARIANTS%% *} last=${VARIANTS##* }
for v in $first $last; do
  f=$LOGS/$v-resnet18_224.profile.log
  [ -f "$f" ] && { echo "== $v resnet18_224, every dispatch"; grep '^  #' "$f" | paste -sd '\n' | cut -c1-70; }
done

echo
echo "== conv variants (wall: median of $REPEAT runs, ms; GPU: sum of dispatch times, ms; profiled wall: median of $PROFILE_REPEAT; dispatches: those run, with work)"
echo "| variant  | program            | wall ms   | GPU ms    | profiled wall | dispatches |"
echo "| ---      | ---                | ---:      | ---:      | ---:          | ---:       |"
printf '%s\n' "${rows[@]}"
