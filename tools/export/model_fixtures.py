"""torchvision models behind tests/fixtures/pte/models/ (and the benchmark's
224x224 exports, bench/export_vision_models.py).

Weights are random (torch.manual_seed) and every BatchNorm's running
statistics are recalibrated on random inputs (train-mode forward passes with
cumulative averaging) so activations stay O(1) instead of exploding or
vanishing through the depth; the models are then put in eval mode, which is
what the .pte runs, and the last layer is scaled so the outputs have unit
standard deviation (the tests' absolute tolerance is then meaningful). Test sizes are small (64x64 inputs,
reduced widths and 10 classes where torchvision allows it) to keep the
committed fixtures and the lavapipe run small.
"""

import torch
import torch.nn.functional as F
import torchvision

from fixture_models import Spec, randn


def recalibrate(model, size, batches=4, batch=4):
    """Sets BatchNorm running stats from random inputs; returns the model in eval mode."""
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None  # cumulative average over the calibration batches
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(randn(batch, 3, size, size))
    model.eval()
    # torchvision initialises classifiers tiny (MobileNet V3's outputs are
    # ~0.01), which would make an absolute tolerance meaningless: scale the
    # last layer so the outputs have unit standard deviation.
    last = [m for m in model.modules() if isinstance(m, (torch.nn.Linear, torch.nn.Conv2d))][-1]
    with torch.no_grad():
        std = model(randn(batch, 3, size, size)).std().item()
        last.weight.mul_(1.0 / std)
        if last.bias is not None:
            last.bias.mul_(1.0 / std)
    return model


class ConvBnRelu(torch.nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(torch.nn.Conv2d(cin, cout, 3, padding=1, bias=False), torch.nn.BatchNorm2d(cout),
                         torch.nn.ReLU())


class TinyUNet(torch.nn.Module):
    """Two-level U-Net: max-pool down, bilinear and nearest upsampling back, skip concatenations."""

    def __init__(self, c=8):
        super().__init__()
        self.enc1 = ConvBnRelu(3, c)
        self.enc2 = ConvBnRelu(c, 2 * c)
        self.mid = ConvBnRelu(2 * c, 2 * c)
        self.dec2 = ConvBnRelu(4 * c, c)
        self.dec1 = ConvBnRelu(2 * c, c)
        self.head = torch.nn.Conv2d(c, 2, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        m = self.mid(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([F.interpolate(m, scale_factor=2, mode="bilinear"), e2], 1))
        d1 = self.dec1(torch.cat([F.interpolate(d2, scale_factor=2, mode="nearest"), e1], 1))
        return self.head(d1)


class NarrowResNet18(torchvision.models.resnet.ResNet):
    """torchvision's ResNet-18 (its BasicBlock, _make_layer and forward) with
    every width divided by `div`: the same graph at a committable size."""

    def __init__(self, div=8, num_classes=10):
        torch.nn.Module.__init__(self)
        self._norm_layer = torch.nn.BatchNorm2d
        self.inplanes, self.dilation, self.groups, self.base_width = 64 // div, 1, 1, 64
        self.conv1 = torch.nn.Conv2d(3, self.inplanes, 7, 2, 3, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(self.inplanes)
        self.relu = torch.nn.ReLU(inplace=True)
        self.maxpool = torch.nn.MaxPool2d(3, 2, 1)
        block = torchvision.models.resnet.BasicBlock
        self.layer1 = self._make_layer(block, 64 // div, 2)
        self.layer2 = self._make_layer(block, 128 // div, 2, stride=2)
        self.layer3 = self._make_layer(block, 256 // div, 2, stride=2)
        self.layer4 = self._make_layer(block, 512 // div, 2, stride=2)
        self.avgpool = torch.nn.AdaptiveAvgPool2d((1, 1))
        self.fc = torch.nn.Linear(512 // div, num_classes)


def vision_models(size, small):
    """name -> () -> model, at test (small) or benchmark (full torchvision) scale."""
    kw = {"num_classes": 10} if small else {}
    return {
        "mobilenet_v2": lambda: torchvision.models.mobilenet_v2(width_mult=0.35 if small else 1.0, **kw),
        "mobilenet_v3_small": lambda: torchvision.models.mobilenet_v3_small(width_mult=0.5 if small else 1.0, **kw),
        "resnet18": lambda: torchvision.models.resnet18(**kw),
        "unet": lambda: TinyUNet(8 if small else 32),
    }


def model_spec(name, build, size, seed=0, atol=1e-3):
    def methods():
        model = recalibrate(build(), size)
        return {"forward": (model, (randn(1, 3, size, size),), None)}
    return Spec(name, f"torchvision-style {name}, random weights, recalibrated BatchNorm, input 1x3x{size}x{size}",
                methods, seed=seed, atol=atol, rtol=0)


# resnet18 is 45 MB of f32 weights even with 10 classes: too big to commit,
# so the committed set has it at an eighth of the width (resnet18_narrow,
# 0.7 MB; same layers, strides, max-pool and residual adds) and
# bench/export_vision_models.py and `--set models_local` export the real one.
MODELS = [model_spec(n, b, 64, seed=20 + i) for i, (n, b) in enumerate(vision_models(64, True).items())
          if n != "resnet18"] + [model_spec("resnet18_narrow", NarrowResNet18, 64, seed=24)]
MODELS_LOCAL = [model_spec("resnet18", vision_models(64, True)["resnet18"], 64, seed=22)]
