"""The small models behind tests/fixtures/pte/. Each is tiny: the whole
folder stays well under 2 MB. Weights come from torch.manual_seed(spec.seed),
set just before the model is built."""

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F


def randn(*shape):
    return torch.randn(*shape, dtype=torch.float32)


@dataclass
class Spec:
    name: str
    description: str
    # () -> {method: (module, example inputs, dynamic_shapes or None)}
    build: Callable[[], Dict[str, tuple]]
    # extra input tuples per method beyond the example (dynamic shapes)
    extra_cases: Callable[[], Dict[str, List[tuple]]] = lambda: {}
    compile_options: Optional[dict] = None    # VulkanPartitioner options
    backend_config: Optional[dict] = None     # ExecutorchBackendConfig fields
    # bytes -> bytes applied to the serialized program before it is written
    # (e.g. renaming an op inside a delegate blob for a bad-input fixture)
    patch: Optional[Callable[[bytes], bytes]] = None
    # ATen ops kept out of to_edge's decomposition (EdgeCompileConfig.preserve_ops):
    # lowers with to_edge(...).to_backend(VulkanPartitioner) instead
    preserve_ops: Optional[list] = None
    # Further EdgeCompileConfig fields (e.g. _skip_dim_order=True, which makes
    # to_edge cast with aten._to_copy and clone with aten.clone instead of the
    # dim_order ops): lowers with to_edge(...).to_backend as preserve_ops does
    edge_config: Optional[dict] = None
    # Tag every operator for ExecuTorch's VulkanBackend instead of asking
    # VulkanPartitioner (hand_partition.py): for registry ops its dtype gate
    # never lets through (the training ops' uint8 weights and codes)
    hand_partition: bool = False
    seed: int = 0
    strict: bool = True                       # torch.export's strict mode (PT2E modules: False)
    atol: float = 1e-4
    rtol: float = 1e-4
    _methods: Optional[dict] = field(default=None, repr=False)
    _extra: Optional[dict] = field(default=None, repr=False)

    def methods(self):
        if self._methods is None:
            self._methods = self.build()
            self._extra = self.extra_cases()
        return self._methods

    def cases(self, method) -> List[Tuple[torch.Tensor, ...]]:
        return [self.methods()[method][1]] + self._extra.get(method, [])


# --- models ----------------------------------------------------------------------

class AddChain(torch.nn.Module):
    """Five adds in a row: intermediates with disjoint lifetimes share memory."""

    def forward(self, x, y):
        z = x + y
        for _ in range(4):
            z = z + y
        return z


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 32)
        self.fc3 = torch.nn.Linear(32, 8, bias=False)

    def forward(self, x):
        return self.fc3(F.gelu(self.fc2(torch.relu(self.fc1(x)))))


class SoftmaxLayerNorm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(16)

    def forward(self, x):
        return self.norm(torch.softmax(x, dim=-1))


class ShapeOps(torch.nn.Module):
    def forward(self, x, y):
        a = x.view(2, 3, 8)                  # view_copy
        b = a.permute(0, 2, 1)               # permute_copy
        c = b[:, 1:7, :]                     # slice_copy
        d = c.select(2, 1)                   # select_copy
        e = torch.cat([d, y], dim=1)         # cat
        f = e.unsqueeze(1)                   # unsqueeze_copy
        g = f.expand(2, 4, 10).clone()       # expand_copy, clone
        h = g.reshape(8, 10).squeeze()       # view_copy, squeeze_copy
        return h, a.reshape(6, 8)


class DynamicMlp(torch.nn.Module):
    """Batch dimension dynamic up to 8; the view makes the exporter emit
    symbolic sizes (sym_size.int and a ValueList shape)."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(12, 6)

    def forward(self, x, y):
        h = torch.sigmoid(self.fc(x)) * y
        return h, h.view(x.shape[0], 2, 3).permute(0, 2, 1)


class ExternalWeights(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class RmsNorm(torch.nn.Module):
    """Written out by hand: torch.nn.RMSNorm decomposes to aten.add.Scalar for
    the epsilon, which VulkanPartitioner 1.5.1 leaves on the CPU."""

    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(1.0 + 0.1 * torch.randn(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class TransformerBlock(torch.nn.Module):
    """Pre-norm attention (2 heads) and a SwiGLU MLP, rms_norm and layer_norm."""

    def __init__(self, dim=16, heads=2, hidden=32):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.norm1 = RmsNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim, bias=False)
        self.proj = torch.nn.Linear(dim, dim, bias=False)
        self.norm2 = torch.nn.LayerNorm(dim)
        self.gate = torch.nn.Linear(dim, hidden, bias=False)
        self.up = torch.nn.Linear(dim, hidden, bias=False)
        self.down = torch.nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        s, d = x.shape[1], x.shape[2]
        q, k, v = self.qkv(self.norm1(x)).split(d, dim=-1)
        q = q.view(s, self.heads, self.head_dim).transpose(0, 1)
        k = k.view(s, self.heads, self.head_dim).transpose(0, 1)
        v = v.view(s, self.heads, self.head_dim).transpose(0, 1)
        att = torch.bmm(q, k.transpose(1, 2)) * (self.head_dim ** -0.5)
        att = torch.softmax(att, dim=-1)
        o = torch.bmm(att, v).transpose(0, 1).reshape(1, s, d)
        x = x + self.proj(o)
        h = self.norm2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Elementwise(torch.nn.Module):
    def forward(self, a, b, c):
        x = (a - b) * c / (b.abs() + 1.0)    # broadcast [2,3,4] with [3,4] and [2,1,4]
        y = torch.sigmoid(x) + torch.tanh(x) - torch.exp(-x.abs())
        z = torch.rsqrt(b * b + 0.5)
        return torch.clamp(y, -0.75, 0.75) + z


class Embedding(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.nn.Embedding(20, 8)

    def forward(self, ids):
        return self.table(ids)


class Bmm(torch.nn.Module):
    def forward(self, a, b):
        return torch.bmm(a, b)


class PartialCpu(torch.nn.Module):
    """cumsum has no Vulkan kernel, so it stays on the CPU between two delegates."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        return torch.cumsum(self.fc(x), dim=-1) * 2.0


class Scale(torch.nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return x * self.factor


# --- the fixture list --------------------------------------------------------------

def _dynamic():
    batch = torch.export.Dim("batch", min=1, max=8)
    return {"forward": (DynamicMlp(), (randn(4, 12), randn(4, 6)),
                        ({0: batch}, {0: batch}))}


class ReturnsInput(torch.nn.Module):
    """Returns its second input unchanged beside a computed output: ExecuTorch
    passes y straight from the method's inputs to its outputs, past the
    delegate (which never sees it)."""

    def forward(self, x, y):
        return torch.sigmoid(x) * 2.0, y


class SameOutputTwice(torch.nn.Module):
    """One value returned twice."""

    def forward(self, x):
        y = torch.sigmoid(x) * x
        return y, y


class ZeroDimOutput(torch.nn.Module):
    """0-d outputs (elements picked by two selects, scaled and multiplied)
    beside a 2-d one."""

    def forward(self, x):
        e = x.select(0, 1).select(0, 2)
        return e * 3.0, x * 2.0, e * x.select(0, 0).select(0, 1)


class CausalAttention(torch.nn.Module):
    """scaled_dot_product_attention(is_causal=True): the export builds the
    causal mask with aten.full and a bool fill value."""

    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, 3 * dim, bias=False)
        self.proj = torch.nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(o.transpose(1, 2).reshape(b, s, d))


class MaskedEncoder(torch.nn.Module):
    """Attention with a padding mask given as a bool input (True: attend),
    as encoders such as BERT take one."""

    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, 3 * dim, bias=False)
        self.norm = torch.nn.LayerNorm(dim)

    def forward(self, x, keep):
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=keep[:, None, None, :])
        return self.norm(x + o.transpose(1, 2).reshape(b, s, d))


class DynamicPositions(torch.nn.Module):
    """A sequence of dynamic length whose positions come from arange over
    the live length (a symbolic int) and index a position table."""

    def __init__(self, dim=8, max_len=16):
        super().__init__()
        self.pos = torch.nn.Embedding(max_len, dim)
        self.lin = torch.nn.Linear(dim, dim)

    def forward(self, x):
        positions = torch.arange(x.shape[1])
        return self.lin(x + self.pos(positions))


def _dynamic_positions():
    seq = torch.export.Dim("seq", min=2, max=16)
    return {"forward": (DynamicPositions(), (randn(1, 6, 8),), {"x": {1: seq}})}


class Float32Reference(torch.nn.Module):
    """Eager float32 on a float32 copy of an fp16 module's weights, the result
    rounded to fp16: the reference for programs exported in fp16, which wgrt
    computes in f32 (tools/export checks that eager fp16 lies within the
    fixture's tolerance of it too)."""

    def __init__(self, half_module):
        super().__init__()
        import copy
        self.module = copy.deepcopy(half_module).float()

    def forward(self, *inputs):
        out = self.module(*[t.float() if t.is_floating_point() else t for t in inputs])
        return out.half() if isinstance(out, torch.Tensor) else tuple(o.half() for o in out)


class SmallCnn(torch.nn.Module):
    """conv + batch norm + relu, a strided conv, average pool, linear."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.bn(self.conv1(x)))
        x = F.relu(self.conv2(x))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def _fp16(module, *inputs):
    """An fp16 copy of `module` (eval mode, with its fp32 reference) and its inputs in fp16."""
    module = module.eval().half()
    module.reference = Float32Reference(module)
    return module, tuple(t.half() if t.is_floating_point() else t for t in inputs)


MODELS: List[Spec] = [
    Spec("add_chain", "five chained aten.add.Tensor; mem_obj_ids alias",
         lambda: {"forward": (AddChain(), (randn(2, 3), randn(2, 3)), None)}),
    Spec("mlp", "linear + relu + linear + gelu + linear (no bias)",
         lambda: {"forward": (Mlp(), (randn(4, 16),), None)}, seed=1),
    Spec("softmax_layer_norm", "softmax then layer_norm over the last dim",
         lambda: {"forward": (SoftmaxLayerNorm(), (randn(3, 5, 16),), None)}, seed=2),
    Spec("shape_ops", "view, permute, slice, select, cat, unsqueeze, expand, clone, squeeze",
         lambda: {"forward": (ShapeOps(), (randn(6, 8), randn(2, 4)), None)}, seed=3),
    Spec("dynamic_batch", "linear, sigmoid, mul, view, permute with dim 0 dynamic in [1, 8]",
         _dynamic,
         extra_cases=lambda: {"forward": [(randn(1, 12), randn(1, 6)),
                                          (randn(8, 12), randn(8, 6)),
                                          (randn(5, 12), randn(5, 6))]},
         seed=4),
    Spec("external_weights", "an MLP whose weights live in NAME.ptd (external constants)",
         lambda: {"forward": (ExternalWeights(), (randn(3, 8),), None)},
         compile_options={"external_constants_max_data_bytes": 1 << 20}, seed=5),
    Spec("transformer_block", "rms_norm, attention with softmax, layer_norm, SwiGLU MLP",
         lambda: {"forward": (TransformerBlock(), (randn(1, 8, 16),), None)}, seed=6,
         atol=2e-4),
    Spec("elementwise", "broadcast sub/mul/div, sigmoid, tanh, exp, neg, abs, rsqrt, clamp",
         lambda: {"forward": (Elementwise(), (randn(2, 3, 4), randn(3, 4), randn(2, 1, 4)),
                              None)}, seed=7),
    Spec("embedding", "embedding lookup of int64 ids",
         lambda: {"forward": (Embedding(), (torch.tensor([[0, 3, 19, 7], [5, 5, 1, 12]]),),
                              None)}, seed=8),
    Spec("bmm", "batched matmul",
         lambda: {"forward": (Bmm(), (randn(3, 4, 5), randn(3, 5, 6)), None)}, seed=9),
    Spec("inline_delegate", "bmm with the delegate blob stored inline: no segments, no eh00",
         lambda: {"forward": (Bmm(), (randn(2, 3, 4), randn(2, 4, 2)), None)},
         backend_config={"extract_delegate_segments": False}, seed=12),
    Spec("partial_cpu", "cumsum is left on the CPU between two Vulkan delegates",
         lambda: {"forward": (PartialCpu(), (randn(2, 8),), None)}, seed=10),
    Spec("returns_input", "an output that is one of the method's inputs, returned unchanged past the delegate",
         lambda: {"forward": (ReturnsInput(), (randn(2, 3), randn(4)), None)}, seed=13),
    Spec("same_output_twice", "one value returned twice",
         lambda: {"forward": (SameOutputTwice(), (randn(3, 4),), None)}, seed=14),
    Spec("zero_dim_output", "0-d outputs (selects of selects, scaled, multiplied) beside a 2-d one",
         lambda: {"forward": (ZeroDimOutput(), (randn(3, 4),), None)}, seed=21),
    Spec("dynamic_positions", "positions from arange over a dynamic sequence length (a symbolic int)",
         _dynamic_positions,
         extra_cases=lambda: {"forward": [(randn(1, 2, 8),), (randn(1, 16, 8),), (randn(1, 11, 8),)]},
         seed=17),
    Spec("fp16_cnn", "an fp16 CNN (conv, batch norm, relu, pool, linear) against float32 eager",
         lambda: {"forward": (*_fp16(SmallCnn(), randn(1, 3, 16, 16)), None)}, seed=18,
         atol=2e-3, rtol=2e-3),
    Spec("fp16_transformer_block", "the transformer block in fp16 against float32 eager",
         lambda: {"forward": (*_fp16(TransformerBlock(), randn(1, 8, 16)), None)}, seed=19,
         atol=4e-3, rtol=4e-3),
    Spec("two_methods", "two methods in one program: 'forward' and 'triple'",
         lambda: {"forward": (Scale(2.0), (randn(4),), None),
                  "triple": (Scale(3.0), (randn(2, 2),), None)}, seed=11),
]
