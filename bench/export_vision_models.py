#!/usr/bin/env python3
"""Exports the vision benchmark programs into bench/models/ (git-ignored):
torchvision MobileNet V2 and ResNet-18 (and MobileNet V3-small and the U-Net
of tools/export/model_fixtures.py), full width, 1000 classes, batch 1,
224x224, random weights with recalibrated BatchNorm statistics, lowered with
VulkanPartitioner (fp32) and asserted fully delegated. bench/run_all.sh times
each with `wgrt run --repeat --profile` (median latency, dispatch count).

Each program is also written xz-compressed (NAME.pte.xz), which is what the
H200 run carries (64 MiB in all: ResNet-18 alone is 45 MB of f32). To make
that small, every weight matrix is snapped to 16 levels after the BatchNorm
recalibration (still f32, still random; timing does not depend on values):
xz then stores about 4 bits a weight.

Usage: python3 bench/export_vision_models.py [--size 224] [--only NAME ...]
Needs torch, executorch and torchvision (tools/export/requirements.txt).
"""

import argparse
import lzma
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "export"))

import torch  # noqa: E402
from export_fixtures import lower  # noqa: E402
from fixture_models import Spec, randn  # noqa: E402
from inspect_pte import describe_pte  # noqa: E402
from model_fixtures import recalibrate, vision_models  # noqa: E402


def snap_weights(model, levels=16):
    """Rounds every weight of rank > 1 to `levels` values spread over its range."""
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() > 1:
                step = p.abs().max() / (levels / 2 - 0.5)
                p.copy_(torch.clamp(torch.round(p / step), -levels // 2, levels // 2 - 1) * step)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "models"))
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, build in vision_models(args.size, small=False).items():
        if args.only and name not in args.only:
            continue
        torch.manual_seed(0)
        model = snap_weights(recalibrate(build(), args.size, batches=2, batch=2))
        spec = Spec(name, name, lambda: {"forward": (model, (randn(1, 3, args.size, args.size),), None)})
        program, _ = lower(spec)
        path = os.path.join(args.out, f"{name}_{args.size}.pte")
        with open(path, "wb") as f:
            f.write(program.buffer)
        cpu = describe_pte(path)["forward"]["cpu_kernels"]
        if cpu:
            sys.exit(f"{name}: not fully delegated, CPU kernels {cpu}")
        with open(path, "rb") as f, lzma.open(path + ".xz", "wb", preset=6) as z:
            z.write(f.read())
        print(f"{path}: {os.path.getsize(path)} bytes ({os.path.getsize(path + '.xz')} as .xz), fully delegated")


if __name__ == "__main__":
    main()
