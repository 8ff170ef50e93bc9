"""One-op programs behind tests/fixtures/pte/ops/: each is a tiny torch module
exercising one operator (or one variant of it) as VulkanPartitioner lowers it,
with odd shapes (not multiples of 4 or of a workgroup) and, where the op
supports it, a dynamic dim exported once and run at two sizes."""

import torch
import torch.nn.functional as F
import executorch.backends.vulkan.custom_ops_lib  # noqa: F401  (registers torch.ops.et_vk.*)

from fixture_models import Spec, randn


class Fn(torch.nn.Module):
    """Wraps a function of the inputs (no weights)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


class Conv(torch.nn.Module):
    def __init__(self, cin, cout, k, dims=2, transposed=False, clamp=None, **kw):
        super().__init__()
        cls = {(2, False): torch.nn.Conv2d, (1, False): torch.nn.Conv1d,
               (2, True): torch.nn.ConvTranspose2d}[(dims, transposed)]
        self.conv = cls(cin, cout, k, **kw)
        self.clamp = clamp

    def forward(self, x):
        y = self.conv(x)
        # hardtanh (ReLU6-style) is what the partitioner fuses into conv_with_clamp
        return F.hardtanh(y, *self.clamp) if self.clamp else y


class Norm(torch.nn.Module):
    """BatchNorm2d (eval, non-trivial running stats) or GroupNorm."""

    def __init__(self, kind, c, groups=1):
        super().__init__()
        if kind == "batch":
            self.norm = torch.nn.BatchNorm2d(c)
            self.norm.running_mean.uniform_(-0.5, 0.5)
            self.norm.running_var.uniform_(0.5, 2.0)
        else:
            self.norm = torch.nn.GroupNorm(groups, c)
        self.norm.weight.data.uniform_(0.5, 1.5)
        self.norm.bias.data.uniform_(-0.5, 0.5)

    def forward(self, x):
        return self.norm(x)


class Addmm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Parameter(randn(7))

    def forward(self, a, b):
        return torch.addmm(self.bias, a, b)


def _case(name, module, inputs, *, dynamic=None, extra=(), description=None, seed=0, atol=1e-4, rtol=1e-4,
          preserve=None, edge_config=None):
    """A Spec for one method; `dynamic` maps input index -> {dim: (name, min, max)};
    `extra` lists further input tuples run on the same program."""
    def build():
        ds = None
        if dynamic:
            ds = tuple({d: torch.export.Dim(n, min=lo, max=hi) for d, (n, lo, hi) in dynamic.get(i, {}).items()}
                       or None for i in range(len(inputs())))
        m = module()
        if ds is not None and isinstance(m, Fn):
            ds = (ds,)  # Fn's inputs are one *xs group
        return {"forward": (m, inputs(), ds)}
    return Spec(name, description or name, build,
                extra_cases=lambda: {"forward": [e() for e in extra]} if extra else {},
                seed=seed, atol=atol, rtol=rtol, preserve_ops=preserve, edge_config=edge_config)


def _unary(name, fn, *, lo=-3.0, hi=3.0):
    return _case(name, lambda: Fn(fn), lambda: (lo + (hi - lo) * torch.rand(3, 5, 7),),
                 dynamic={0: {0: ("rows", 1, 6)}}, extra=[lambda: (lo + (hi - lo) * torch.rand(5, 5, 7),)])


def _spatial(h, w, c=3):
    return lambda: (randn(1, c, h, w),)


HW = {0: {2: ("h", 5, 20), 3: ("w", 5, 20)}}

OPS = [
    # --- convolution ---------------------------------------------------------------
    _case("conv2d", lambda: Conv(3, 5, 3, padding=1), _spatial(9, 11), dynamic=HW, extra=[_spatial(13, 7)]),
    _case("conv2d_strided", lambda: Conv(6, 10, 3, stride=2), _spatial(11, 9, 6)),
    _case("conv2d_dilated", lambda: Conv(4, 6, 3, dilation=2, padding=(2, 1), bias=False), _spatial(10, 13, 4)),
    _case("conv2d_pointwise", lambda: Conv(17, 70, 1), _spatial(7, 9, 17), dynamic=HW, extra=[_spatial(5, 6, 17)]),
    _case("conv2d_grouped", lambda: Conv(6, 9, (3, 2), groups=3, padding=1), _spatial(8, 7, 6)),
    # Many groups (one workgroup grid layer each); 196 pixels (a partial last 64-pixel tile),
    # 18-deep K (a partial second slice), 5 channels per group.
    _case("conv2d_wide_grouped", lambda: Conv(132, 330, 3, groups=66, padding=1), _spatial(14, 14, 132)),
    _case("conv2d_wide_grouped_pointwise", lambda: Conv(132, 330, 1, groups=66), _spatial(14, 14, 132)),
    _case("conv2d_depthwise", lambda: Conv(7, 7, 3, groups=7, padding=1, stride=2), _spatial(13, 10, 7),
          dynamic=HW, extra=[_spatial(9, 18, 7)]),
    # 3-wide stride-1 depthwise (main_depthwise's ROW3 form) at odd widths, both borders.
    _case("conv2d_depthwise_s1", lambda: Conv(10, 10, 3, groups=10, padding=1), _spatial(11, 13, 10),
          dynamic=HW, extra=[_spatial(6, 9, 10)]),
    # Deep and small (conv_igemm's split-K: 35 pixels, one tile, 45 slices of 16 channels, the
    # last chunk partial; 38 output channels, a partial vec4); the second size changes the split.
    _case("conv2d_split_k", lambda: Conv(72, 38, 3, stride=2, padding=1), _spatial(9, 13, 72),
          dynamic=HW, extra=[_spatial(20, 17, 72)], atol=2e-4),
    # Grouped with 16 input channels a group (conv_igemm; the groups above are too narrow for
    # it and run main_gemm), 10 output channels a group (a partial vec4).
    _case("conv2d_grouped_deep", lambda: Conv(32, 20, 3, groups=2, padding=1), _spatial(9, 11, 32)),
    _case("conv2d_depthwise_multiplier", lambda: Conv(3, 6, 5, groups=3, padding=2), _spatial(9, 9, 3)),
    _case("conv2d_large_k", lambda: Conv(40, 24, 3, padding=1), _spatial(6, 5, 40), atol=2e-4),
    _case("conv_with_clamp", lambda: Conv(3, 8, 3, padding=1, clamp=(0.0, 6.0)), _spatial(7, 6)),
    _case("conv1d", lambda: Conv(4, 6, 3, dims=1, padding=1), lambda: (randn(1, 4, 11),)),
    _case("conv_transpose2d", lambda: Conv(4, 3, 3, transposed=True, stride=2, padding=1, output_padding=1),
          _spatial(5, 6, 4)),
    # --- pooling ---------------------------------------------------------------------
    _case("max_pool2d", lambda: Fn(lambda x: F.max_pool2d(x, 3, 1, 1)), _spatial(9, 11),
          dynamic=HW, extra=[_spatial(6, 15)]),
    _case("max_pool2d_strided", lambda: Fn(lambda x: F.max_pool2d(x, 3, 2, 1)), _spatial(9, 11)),
    _case("max_pool2d_ceil", lambda: Fn(lambda x: F.max_pool2d(x, 2, 2, ceil_mode=True)), _spatial(7, 9)),
    _case("max_pool2d_with_indices", lambda: Fn(lambda x: F.max_pool2d(x, 2, return_indices=True)),
          _spatial(7, 8)),
    _case("avg_pool2d", lambda: Fn(lambda x: F.avg_pool2d(x, 3, 1, 1)), _spatial(9, 11),
          dynamic=HW, extra=[_spatial(12, 5)]),
    _case("avg_pool2d_strided", lambda: Fn(lambda x: F.avg_pool2d(x, 3, 2, 1)), _spatial(9, 11)),
    _case("avg_pool2d_exclude_pad", lambda: Fn(lambda x: F.avg_pool2d(x, 3, 1, 1, count_include_pad=False)),
          _spatial(6, 7)),
    _case("avg_pool2d_divisor", lambda: Fn(lambda x: F.avg_pool2d(x, 2, divisor_override=3)), _spatial(6, 7)),
    _case("adaptive_avg_pool2d", lambda: Fn(lambda x: F.adaptive_avg_pool2d(x, 1)), _spatial(7, 5, 9)),
    # --- reductions --------------------------------------------------------------------
    _case("sum_last", lambda: Fn(lambda x: x.sum(-1)), lambda: (randn(3, 5, 37),),
          dynamic={0: {0: ("rows", 1, 6)}}, extra=[lambda: (randn(6, 5, 37),)]),
    _case("sum_keepdim", lambda: Fn(lambda x: x.sum((1, 2), keepdim=True)), lambda: (randn(2, 5, 7, 3),)),
    _case("mean_dims", lambda: Fn(lambda x: x.mean((2, 3), keepdim=True)), lambda: (randn(1, 6, 9, 5),)),
    _case("mean_last", lambda: Fn(lambda x: x.mean(-1)), lambda: (randn(4, 300),), atol=2e-4),
    _case("amax", lambda: Fn(lambda x: x.amax(-1)), lambda: (randn(3, 7, 5),),
          dynamic={0: {0: ("rows", 1, 6)}}, extra=[lambda: (randn(2, 7, 5),)]),
    _case("amin_keepdim", lambda: Fn(lambda x: x.amin(1, keepdim=True)), lambda: (randn(3, 7, 5),)),
    _case("argmax", lambda: Fn(lambda x: x.argmax(-1)), lambda: (randn(4, 9),)),
    _case("argmin_keepdim", lambda: Fn(lambda x: x.argmin(1, keepdim=True)), lambda: (randn(3, 6, 5),)),
    # --- unary ---------------------------------------------------------------------------
    _unary("hardswish", F.hardswish, lo=-5, hi=5),
    _unary("leaky_relu", lambda x: F.leaky_relu(x, 0.2)),
    _unary("cos", torch.cos),
    _unary("sin", torch.sin),
    _unary("round", lambda x: torch.round(x * 2.0)),
    _unary("log10", torch.log10, lo=0.1, hi=5.0),
    _unary("hardtanh", lambda x: F.hardtanh(x, -0.5, 1.5)),
    _unary("relu6", F.relu6),
    _unary("silu", F.silu),
    _unary("sqrt", torch.sqrt, lo=0.0, hi=4.0),
    # --- comparisons, logic, where, pow, minimum, div modes ------------------------------
    _case("gt_tensor", lambda: Fn(lambda a, b: (a > b).float()), lambda: (randn(3, 5), randn(5))),
    _case("compare_tensor", lambda: Fn(lambda a, b: torch.where(a <= b, a, b) + (a == b) + (a > b) * 2.0
                                        + (a < b) * 4.0 + (a >= b) * 8.0),
          lambda: (torch.randint(-2, 3, (3, 7)).float(), torch.randint(-2, 3, (3, 7)).float()),
          dynamic={0: {0: ("rows", 1, 6)}, 1: {0: ("rows", 1, 6)}},
          extra=[lambda: (torch.randint(-2, 3, (5, 7)).float(), torch.randint(-2, 3, (5, 7)).float())]),
    _case("compare_scalar", lambda: Fn(lambda a: torch.where(a > 0.5, a, -a) * (a != 0.0) + (a >= 1.0) * 2.0
                                        + (a <= -1.0) * 3.0 + (a < 0.25) * 4.0 + (a == 1.0) * 5.0),
          lambda: (torch.randint(-4, 5, (3, 7)).float() / 2.0,)),
    _case("logical", lambda: Fn(lambda a, b: torch.where(torch.logical_and(a > 0, b > 0) | torch.logical_not(a < b),
                                                         torch.logical_or(a > 1, b > 1).float(), a)),
          lambda: (randn(5, 9), randn(5, 9))),
    _case("bitwise_bool", lambda: Fn(lambda a, b: (((a > 0) & (b > 0)) | ~(a > b)).float()),
          lambda: (randn(4, 7), randn(4, 7))),
    _case("clone", lambda: Fn(lambda x: (x * 2.0).clone() + 1.0), lambda: (randn(3, 5),)),
    _case("where", lambda: Fn(lambda c, a, b: torch.where(c > 0, a, b)), lambda: (randn(3, 1, 5), randn(4, 5), randn(3, 4, 1))),
    _case("pow_scalar", lambda: Fn(lambda x: x ** 3 + x.abs() ** 0.5), lambda: (randn(3, 7),)),
    _case("pow_tensor", lambda: Fn(lambda a, b: torch.pow(a.abs() + 0.1, b)), lambda: (randn(3, 7), randn(7))),
    _case("minimum", lambda: Fn(torch.minimum), lambda: (randn(3, 7), randn(3, 1))),
    _case("div_trunc", lambda: Fn(lambda a, b: torch.div(a, b, rounding_mode="trunc")), lambda: (randn(3, 7) * 5, randn(3, 7) + 3)),
    _case("div_floor", lambda: Fn(lambda a, b: torch.div(a, b, rounding_mode="floor")), lambda: (randn(3, 7) * 5, randn(3, 7) + 3)),
    # int32 operands: VulkanPartitioner takes the binary ops for ints too (FP_INT_T)
    _case("int_arith", lambda: Fn(lambda a, b, e: (torch.add(a, b, alpha=3), a - b, a * b, torch.minimum(a, b),
                                                torch.div(a, b, rounding_mode="floor"),
                                                torch.div(a, b, rounding_mode="trunc"), a / b, torch.pow(a, e))),
          lambda: (torch.randint(-20, 21, (3, 7), dtype=torch.int32),
                   torch.randint(1, 6, (3, 7), dtype=torch.int32) * (torch.randint(0, 2, (3, 7), dtype=torch.int32) * 2 - 1),
                   torch.randint(0, 4, (7,), dtype=torch.int32)),
          dynamic={0: {0: ("rows", 1, 6)}, 1: {0: ("rows", 1, 6)}},
          extra=[lambda: (torch.randint(-20, 21, (5, 7), dtype=torch.int32),
                          -torch.randint(1, 6, (5, 7), dtype=torch.int32), torch.randint(0, 4, (7,), dtype=torch.int32))]),
    # bool tensors through the data-movement ops (one-byte elements)
    _case("bool_layout", lambda: Fn(lambda x, y: (
              (x > 0).permute(1, 0, 2), (x > 0)[:, 1:6:2], (x > 0).unsqueeze(0).expand(2, -1, 5, 7),
              torch.flip(x > 0.5, (1,)), (x < 0).repeat(1, 2, 1),
              (x > 0).select(1, 3), F.pad((x > 0).float(), (1, 2)).bool() | F.pad(y > 0, (2, 1)),
              torch.where((x > 0).transpose(1, 2)[:, 2:5], y.transpose(1, 2)[:, 2:5], x.transpose(1, 2)[:, 2:5]))),
          lambda: (randn(3, 5, 7), randn(3, 5, 7)),
          dynamic={0: {0: ("rows", 1, 6)}, 1: {0: ("rows", 1, 6)}},
          extra=[lambda: (randn(5, 5, 7), randn(5, 5, 7))]),
    _case("int_float_mixed", lambda: Fn(lambda a, x: a * x + a - torch.minimum(x, a.float())),
          lambda: (torch.randint(-5, 6, (3, 7), dtype=torch.int32), randn(3, 7))),
    # --- normalization, linear, layout ---------------------------------------------------
    _case("batch_norm", lambda: Norm("batch", 5), _spatial(7, 9, 5), dynamic=HW, extra=[_spatial(6, 5, 5)]),
    _case("group_norm", lambda: Norm("group", 6, groups=3), _spatial(5, 7, 6), atol=2e-4),
    _case("log_softmax", lambda: Fn(lambda x: F.log_softmax(x, -1)), lambda: (randn(3, 5, 7),),
          dynamic={0: {0: ("rows", 1, 6)}}, extra=[lambda: (randn(6, 5, 7),)]),
    _case("mm", lambda: Fn(lambda a, b: a @ b), lambda: (randn(5, 9), randn(9, 7))),
    _case("addmm", Addmm, lambda: (randn(5, 9), randn(9, 7))),
    _case("t_copy", lambda: Fn(lambda x: x.t() + 1.0), lambda: (randn(5, 7),)),
    _case("flip", lambda: Fn(lambda x: torch.flip(x, (0, 2))), lambda: (randn(3, 4, 5),)),
    _case("repeat", lambda: Fn(lambda x: x.repeat(2, 1, 3)), lambda: (randn(3, 5),)),
    _case("to_dtype", lambda: Fn(lambda x: (x * 3).to(torch.int32).to(torch.float32)), lambda: (randn(4, 7),)),
    _case("constant_pad", lambda: Fn(lambda x: F.pad(x, (1, 2, 3, 0), value=0.5)), lambda: (randn(2, 3, 5),),
          dynamic={0: {0: ("rows", 1, 6)}}, extra=[lambda: (randn(5, 3, 5),)]),
    _case("constant_pad_crop", lambda: Fn(lambda x: F.pad(x, (-1, 2, 0, -2))), lambda: (randn(3, 6, 7),)),
    # --- creation ---------------------------------------------------------------------------
    _case("full_like", lambda: Fn(lambda x: x + torch.full_like(x, 2.5)), lambda: (randn(3, 5),)),
    _case("zeros_ones_like", lambda: Fn(lambda x: torch.ones_like(x) * x + torch.zeros_like(x)), lambda: (randn(3, 5),),
          dynamic={0: {0: ("rows", 1, 6)}}, extra=[lambda: (randn(6, 5),)]),
    _case("full", lambda: Fn(lambda x: x * torch.full((3, 5), 1.5)), lambda: (randn(3, 5),)),
    _case("zeros_ones", lambda: Fn(lambda x: x * torch.ones(3, 5) + torch.zeros(3, 5)), lambda: (randn(3, 5),)),
    _case("arange", lambda: Fn(lambda x: x + torch.arange(1.0, 6.0, 0.5)), lambda: (randn(2, 10),)),
    _case("scalar_tensor", lambda: Fn(lambda x: x * torch.scalar_tensor(3.0)), lambda: (randn(2, 7),)),
    # --- sampling ---------------------------------------------------------------------------
    _case("upsample_nearest2d", lambda: Fn(lambda x: F.interpolate(x, scale_factor=2, mode="nearest")),
          _spatial(5, 7), dynamic=HW, extra=[_spatial(9, 6)]),
    _case("upsample_nearest2d_size", lambda: Fn(lambda x: F.interpolate(x, size=(7, 10), mode="nearest")),
          _spatial(5, 4)),
    _case("upsample_bilinear2d", lambda: Fn(lambda x: F.interpolate(x, scale_factor=2, mode="bilinear")),
          _spatial(5, 7), dynamic=HW, extra=[_spatial(9, 6)]),
    _case("upsample_bilinear2d_align", lambda: Fn(lambda x: F.interpolate(x, size=(9, 11), mode="bilinear",
                                                                           align_corners=True)), _spatial(5, 4)),
    # grid_sample: the one configuration VulkanPartitioner 1.5.1 delegates (bilinear, border
    # padding, align_corners); the grid reaches past [-1, 1] so the border clamp matters.
    _case("grid_sampler_2d", lambda: Fn(lambda x, g: F.grid_sample(x, g, mode="bilinear", padding_mode="border",
                                                                   align_corners=True)),
          lambda: (randn(2, 3, 7, 9), 1.2 * (2 * torch.rand(2, 5, 6, 2) - 1)),
          dynamic={1: {1: ("gh", 2, 9), 2: ("gw", 2, 9)}},
          extra=[lambda: (randn(2, 3, 7, 9), 1.2 * (2 * torch.rand(2, 8, 3, 2) - 1))]),
    _case("pixel_shuffle", lambda: Fn(lambda x: F.pixel_shuffle(x, 2)), lambda: (randn(1, 12, 3, 5),)),
    # --- indexing -----------------------------------------------------------------------------
    _case("index_select", lambda: Fn(lambda x, i: torch.index_select(x, 1, i)),
          lambda: (randn(3, 7, 5), torch.tensor([6, 0, 2, 2, 5]))),
    # index.Tensor with one 1-D index (the form the partitioner takes), negative entries
    # included; on a middle dim (x[:, i]) and on dim 0 with a dynamic index length.
    _case("index_tensor", lambda: Fn(lambda x, i: x[:, i]),
          lambda: (randn(3, 7, 5), torch.tensor([6, -1, 2, 2, 0]))),
    _case("index_tensor_dim0", lambda: Fn(lambda x, i: x[i] * 2.0),
          lambda: (randn(9, 6), torch.tensor([8, 0, 3, -2, 3, 1, 7])),
          dynamic={1: {0: ("k", 1, 12)}}, extra=[lambda: (randn(9, 6), torch.tensor([4, 4, -9]))]),
    _case("gather", lambda: Fn(lambda x, i: torch.gather(x, 1, i)),
          lambda: (randn(3, 5), torch.randint(0, 5, (3, 4)))),
    _case("unfold", lambda: Fn(lambda x: x.unfold(1, 3, 2) * 2.0), lambda: (randn(2, 9, 3),)),
    _case("rope_hf", lambda: Fn(lambda q, k, c, s: torch.ops.et_vk.apply_rotary_emb_hf(q, k, c, s, 2)),
          lambda: (randn(1, 3, 2, 10), randn(1, 3, 1, 10), randn(8, 6), randn(8, 6))),
    _case("rope_interleaved", lambda: Fn(lambda x, f: torch.ops.et_vk.apply_rotary_emb_interleaved(x, f)),
          lambda: (randn(2, 5, 6), randn(1, 5, 3, 2))),
    _case("grid_priors", lambda: Fn(lambda x: torch.ops.et_vk.grid_priors(x, 8, 0.5)), lambda: (randn(1, 2, 5, 7),)),
]

# Programs whose arguments wgrt must refuse at load (tests/runtime/test_pte_refused.cpp
# names the op, argument and value it expects in the error).
# Ops only the to_edge(preserve_ops=...) + to_backend flow delegates (to_edge_transform_and_lower
# decomposes them: max_pool2d into max_pool2d_with_indices, zeros into full, t into permute_copy, ...).
A = torch.ops.aten
PRESERVED = [
    _case("max_pool2d_preserved", lambda: Fn(lambda x: F.max_pool2d(x, 3, 2, 1)), _spatial(9, 11),
          preserve=[A.max_pool2d.default]),
    _case("t_copy_preserved", lambda: Fn(lambda x: x.t() * 2.0), lambda: (randn(3, 5),), preserve=[A.t.default]),
    _case("zeros_ones_preserved", lambda: Fn(lambda x: x * torch.ones(3, 5) + torch.zeros(3, 5)), lambda: (randn(3, 5),),
          preserve=[A.zeros.default, A.ones.default]),
    _case("zeros_ones_like_preserved", lambda: Fn(lambda x: torch.ones_like(x) * x + torch.zeros_like(x)),
          lambda: (randn(3, 5),), preserve=[A.zeros_like.default, A.ones_like.default]),
]
OPS += PRESERVED

# EdgeCompileConfig(_skip_dim_order=True): to_edge casts with aten._to_copy
# (f32 -> i32 truncates toward zero, i32 -> f32) instead of _to_dim_order_copy.
NO_DIM_ORDER = [
    _case("to_copy_no_dim_order", lambda: Fn(lambda x: x.to(torch.int32).to(torch.float32) * 0.5 + x),
          lambda: (4 * randn(3, 7),), edge_config={"_skip_dim_order": True}),
]
OPS += NO_DIM_ORDER

# A channels_last clone: to_edge makes it a _to_dim_order_copy with dim order
# (0, 2, 3, 1), not the _clone_dim_order the partitioner also lists (that one
# remove_redundant_ops drops). wgrt keeps tensors contiguous: the values must not move.
OPS += [_case("clone_channels_last", lambda: Fn(lambda x: (x * 2).clone(memory_format=torch.channels_last) + 1),
              _spatial(5, 6, 3))]

REFUSED = [
    _case("addmm_beta", lambda: Fn(lambda bias, a, b: torch.addmm(bias, a, b, beta=0.5)),
          lambda: (randn(7), randn(5, 9), randn(9, 7)), description="addmm with beta 0.5"),
]
