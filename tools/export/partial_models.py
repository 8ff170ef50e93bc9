"""The partially delegated programs behind tests/fixtures/executorch/: each
keeps some operators on ExecuTorch's CPU kernels and hands the rest to
VulkanPartitioner, so only ExecuTorch's own runtime (with wgrt registered as
its VulkanBackend) can run them. Tiny, like fixture_models.py."""

from typing import List

import torch
import torch.nn.functional as F

from fixture_models import CausalAttention, MaskedEncoder, Spec, randn


class Encoder(torch.nn.Module):
    """A stock nn.TransformerEncoder (2 layers, batch_first): the partitioner
    leaves aten.mul.Scalar and aten.any on the CPU."""

    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0,
                                                 batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


class CpuReductions(torch.nn.Module):
    """erf, var and any have no Vulkan kernel in the partitioner's list. The
    mask is an input: a comparison would be delegated, and wgrt has none."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 8)
        self.fc2 = torch.nn.Linear(8, 4)

    def forward(self, x, mask):
        h = self.fc1(x)
        e = torch.erf(h)
        v = torch.var(h, dim=-1, keepdim=True)
        keep = torch.any(mask, dim=-1, keepdim=True)
        return self.fc2(e / (v + 1.0)), keep


class DelegatedIndex(torch.nn.Module):
    """A delegated aten.index.Tensor, renamed inside the Vulkan blob to an op
    no runtime has (UNKNOWN_OP; rename_index_op): loading the program must
    fail in the backend's init, naming the op. (Renamed because every real op
    the partitioner delegates is one wgrt means to run.)"""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x, idx):
        return self.fc(x)[idx]


UNKNOWN_OP = b"test.unknown_op.X"  # as long as b"aten.index.Tensor": offsets stay valid


def rename_index_op(pte: bytes) -> bytes:
    assert len(UNKNOWN_OP) == len(b"aten.index.Tensor") and pte.count(b"aten.index.Tensor") == 1
    return pte.replace(b"aten.index.Tensor", UNKNOWN_OP)


class TwoBlobs(torch.nn.Module):
    """linear -> cumsum (CPU) -> linear + relu: two delegate blobs."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 8)
        self.fc2 = torch.nn.Linear(8, 6)

    def forward(self, x):
        return torch.relu(self.fc2(torch.cumsum(self.fc1(x), dim=-1)))


class PtdCpu(torch.nn.Module):
    """Weights in the .ptd, a cumsum on the CPU after the one blob (each blob
    gets a .ptd of its own, and ExecuTorch's Python runtime takes one)."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 4)

    def forward(self, x):
        return torch.cumsum(self.fc2(torch.relu(self.fc1(x))), dim=-1)


class DynamicCpu(torch.nn.Module):
    """Batch dynamic in [1, 8], a cumsum on the CPU: each delegate sees the live
    batch and resizes its output."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(12, 6)
        self.fc2 = torch.nn.Linear(6, 3)

    def forward(self, x):
        h = torch.cumsum(torch.sigmoid(self.fc1(x)), dim=-1)
        return self.fc2(h) * 2.0


class ScaleCumsum(torch.nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return torch.cumsum(x * self.factor, dim=-1) + x


def _dynamic():
    batch = torch.export.Dim("batch", min=1, max=8)
    return {"forward": (DynamicCpu(), (randn(4, 12),), ({0: batch},))}


PARTIAL_MODELS: List[Spec] = [
    Spec("causal_attention", "scaled_dot_product_attention(is_causal=True): a bool-filled mask; the partitioner leaves mul.Scalar, any and scalar_tensor on the CPU",
         lambda: {"forward": (CausalAttention(), (randn(1, 6, 16),), None)}, seed=15),
    Spec("masked_encoder", "attention under a padding mask given as a bool input, then layer_norm",
         lambda: {"forward": (MaskedEncoder(), (randn(1, 5, 16),
                                                torch.tensor([[True, True, True, False, False]])), None)},
         seed=16),
    Spec("encoder", "stock nn.TransformerEncoder, 2 layers: mul.Scalar and any stay on the CPU",
         lambda: {"forward": (Encoder(), (randn(2, 5, 16),), None)}, seed=20, atol=2e-4),
    Spec("cpu_reductions", "linear, then erf, var and any on the CPU, then linear",
         lambda: {"forward": (CpuReductions(), (randn(3, 8), randn(3, 8) > 0.8), None)}, seed=21),
    Spec("unsupported_op", "a delegated aten.index.Tensor renamed test.unknown_op.X in the blob (init must fail naming it)",
         lambda: {"forward": (DelegatedIndex(), (randn(4, 8), torch.tensor([2, 0, 3])), None)}, seed=26,
         patch=rename_index_op),
    Spec("two_blobs", "two delegate blobs with a cumsum on the CPU between them",
         lambda: {"forward": (TwoBlobs(), (randn(2, 8),), None)}, seed=22),
    Spec("ptd_cpu", "weights in NAME.ptd, a cumsum on the CPU after the blob",
         lambda: {"forward": (PtdCpu(), (randn(3, 8),), None)},
         compile_options={"external_constants_max_data_bytes": 1 << 20}, seed=23),
    Spec("dynamic_cpu", "batch dynamic in [1, 8], a cumsum on the CPU between two blobs",
         _dynamic,
         extra_cases=lambda: {"forward": [(randn(1, 12),), (randn(8, 12),), (randn(3, 12),)]},
         seed=24),
    Spec("two_methods_cpu", "two methods, each a blob and a cumsum on the CPU",
         lambda: {"forward": (ScaleCumsum(2.0), (randn(4),), None),
                  "triple": (ScaleCumsum(3.0), (randn(2, 3),), None)}, seed=25),
]
