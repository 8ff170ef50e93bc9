"""Quantized programs behind tests/fixtures/pte/quant/: one-op programs for
ExecuTorch's quantize/dequantize family (quantized_decomposed.*) and the
Vulkan backend's fused quantized ops, as the real export flows produce them
(PT2E with XNNPACKQuantizer or VulkanQuantizer, then VulkanPartitioner's
pattern fusion). Expected outputs are torch eager: the quantized_decomposed
reference ops, or the prepared-and-converted PT2E module. Integer outputs
are compared bit-exactly by tests/runtime/test_pte_programs.cpp."""

import torch

import executorch.backends.vulkan.custom_ops_lib  # noqa: F401  (torch.ops.et_vk.*)
import torch.ao.quantization.fx._decomposed  # noqa: F401  (torch.ops.quantized_decomposed.*)

from fixture_models import Spec
from op_models import Fn, _case

qd = torch.ops.quantized_decomposed
I8 = (-128, 127, torch.int8)
U8 = (0, 255, torch.uint8)


def _ties(scale, n=64):
    """Values on exact half steps of `scale` (scale a power of two, so x/scale
    is exact): they test round-half-to-even, and the ends test clamping."""
    def make():
        k = torch.arange(n, dtype=torch.float32) - n / 2
        return ((k + 0.5) * scale * 9.0).reshape(4, n // 4).contiguous(),
    return make


class PerChannel(torch.nn.Module):
    """quantize_per_channel then dequantize_per_channel along `axis`, with
    per-channel scales and zero points as constants."""

    def __init__(self, channels, axis, quant, dequant_only=False):
        super().__init__()
        self.axis, self.q, self.dequant_only = axis, quant, dequant_only
        # quantize -> dequantize would be folded away (the Vulkan preprocess
        # replaces such a pair by its float input), so each op gets its own program.
        self.register_buffer("scales", 0.01 + 0.05 * torch.rand(channels))
        self.register_buffer("zps", torch.randint(-20, 20, (channels,), dtype=torch.int64))

    def forward(self, x):
        qmin, qmax, dt = self.q
        if self.dequant_only:
            return qd.dequantize_per_channel(x, self.scales, self.zps, self.axis, qmin, qmax, dt)
        return qd.quantize_per_channel(x, self.scales, self.zps, self.axis, qmin, qmax, dt)


def _pt(scale, zp, q):
    return lambda x: qd.quantize_per_tensor(x, scale, zp, *q)


QUANT_OPS = [
    _case("quantize_per_tensor", lambda: Fn(_pt(0.0371, 3, I8)), lambda: (4 * torch.randn(5, 13),),
          dynamic={0: {0: ("rows", 1, 8)}}, extra=[lambda: (4 * torch.randn(7, 13),)]),
    _case("quantize_per_tensor_ties", lambda: Fn(_pt(0.25, 3, I8)), _ties(0.25)),
    _case("quantize_per_tensor_u8", lambda: Fn(_pt(0.0213, 128, U8)), lambda: (3 * torch.randn(3, 5, 7),)),
    # Dequantized outputs are exact in f32 too: tolerance 0.
    _case("dequantize_per_tensor", lambda: Fn(lambda q: qd.dequantize_per_tensor(q, 0.0291, 5, *I8)),
          lambda: (torch.randint(-128, 128, (3, 11), dtype=torch.int8),), atol=0, rtol=0),
    _case("quantize_per_channel", lambda: PerChannel(5, 1, I8), lambda: (torch.randn(3, 5, 7),), atol=0, rtol=0),
    _case("dequantize_per_channel", lambda: PerChannel(6, 0, I8, dequant_only=True),
          lambda: (torch.randint(-128, 128, (6, 9), dtype=torch.int8),), atol=0, rtol=0),
]


# --- PT2E flows: a float module quantized, then lowered -----------------------------

def _pt2e(make_module, make_inputs, quantizer):
    """The module as convert_pt2e leaves it: quantize/dequantize nodes around
    each annotated op, which VulkanPartitioner's passes fuse into the Vulkan
    backend's quantized ops. Its eager outputs are the reference."""
    def build():
        from torchao.quantization.pt2e import allow_exported_model_train_eval
        from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
        inputs = make_inputs()
        m = torch.export.export(make_module().eval(), inputs, strict=True).module()
        m = prepare_pt2e(m, quantizer())
        m(*inputs)  # calibrate on the example
        m = convert_pt2e(m)
        allow_exported_model_train_eval(m)  # export_fixtures calls .eval()
        return {"forward": (m, inputs, None)}
    return build


def _xnnpack_static():
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    q = XNNPACKQuantizer()
    q.set_global(get_symmetric_quantization_config(is_per_channel=True, is_dynamic=False))
    return q


def _vulkan_weight_only(bits):
    def make():
        from executorch.backends.vulkan.quantizer.vulkan_quantizer import (
            VulkanQuantizer, get_symmetric_quantization_config)
        q = VulkanQuantizer()
        q.set_global(get_symmetric_quantization_config(is_dynamic=False, weight_bits=bits))
        return q
    return make


class LinearStack(torch.nn.Module):
    def __init__(self, sizes, relu=True):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(sizes, sizes[1:]))
        self.relu = relu

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if self.relu and i + 1 < len(self.layers):
                x = torch.relu(x)
        return x


def _pt2e_case(name, module, inputs, quantizer, atol, description):
    return Spec(name, description, _pt2e(module, inputs, quantizer), strict=False, atol=atol, rtol=0)


QUANT_OPS += [
    # Static int8 (XNNPACK's symmetric config): quantize_per_tensor, q8ta_linear
    # (one with fused relu), dequantize_per_tensor. Outputs within one output
    # quantization step of the reference (integer accumulation vs torch's float
    # sums may round a value across a step).
    _pt2e_case("pt2e_q8ta_linear", lambda: LinearStack([37, 20, 9]), lambda: (torch.randn(5, 37),),
               _xnnpack_static, 0.05, "PT2E static int8 linear -> relu -> linear (q8ta_linear)"),
    _pt2e_case("pt2e_q8ta_linear_gemv", lambda: LinearStack([24, 10], relu=False), lambda: (torch.randn(1, 24),),
               _xnnpack_static, 0.05, "PT2E static int8 linear, one row (q8ta_linear_gemv)"),
    # VulkanQuantizer weight-only: _weight_int8pack_mm and linear_qcs4w (+ add for the bias).
    _pt2e_case("pt2e_weight_int8", lambda: LinearStack([33, 12], relu=False), lambda: (torch.randn(3, 33),),
               _vulkan_weight_only(8), 1e-4, "VulkanQuantizer weight-only int8 linear (_weight_int8pack_mm)"),
    _pt2e_case("pt2e_weight_int4", lambda: LinearStack([32, 12], relu=False), lambda: (torch.randn(3, 32),),
               _vulkan_weight_only(4), 1e-4, "VulkanQuantizer weight-only 4-bit linear (linear_qcs4w)"),
]


def _int8_dynamic_int4_weight(make_module, group_size):
    """The 8da4w flow (export_llama -qmode 8da4w): torchao's
    Int8DynamicActivationIntxWeightConfig, per-token int8 activations
    (choose_qparams_affine) and 4-bit group-wise weights; VulkanPartitioner
    fuses it into et_vk.linear_dq8ca_q4gsw."""
    def make():
        from torchao.quantization import Int8DynamicActivationIntxWeightConfig, quantize_
        from torchao.quantization.granularity import PerGroup
        from torchao.utils import unwrap_tensor_subclass
        m = make_module().eval()
        quantize_(m, Int8DynamicActivationIntxWeightConfig(
            weight_dtype=torch.int4, weight_granularity=PerGroup(group_size),
            intx_choose_qparams_algorithm="affine"))
        unwrap_tensor_subclass(m)
        return m
    return make


class ConvBlock(torch.nn.Module):
    """conv 3x3 + relu, depthwise 3x3 with a residual add, pointwise 1x1:
    q8ta_conv2d (relu fused), q8ta_conv2d_dw, q8ta_add, q8ta_conv2d_pw."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.dw = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pw = torch.nn.Conv2d(8, 12, 1)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return self.pw(self.dw(y) + y)


class ConvTransposeBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 8, 3, stride=2, padding=1)
        self.up = torch.nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        return self.up(self.conv(x))


QUANT_OPS += [
    _pt2e_case("pt2e_q8ta_conv", ConvBlock, lambda: (torch.randn(1, 3, 9, 7),), _xnnpack_static, 0.05,
               "PT2E static int8 conv+relu, depthwise conv, residual add, pointwise conv"),
    _pt2e_case("pt2e_q8ta_conv_transposed", ConvTransposeBlock, lambda: (torch.randn(1, 4, 8, 6),),
               _xnnpack_static, 0.05, "PT2E static int8 strided conv then transposed conv"),
    Spec("linear_8da4w", "8da4w linear (choose_qparams_affine + linear_dq8ca_q4gsw)",
         lambda: {"forward": (_int8_dynamic_int4_weight(lambda: LinearStack([64, 24], relu=False), 32)(),
                              (torch.randn(3, 64),), None)}, atol=1e-4, rtol=1e-4),
]


# --- dequantize -> op -> quantize chains that VulkanPartitioner's patterns
# fuse into q8ta_relu / q8ta_add / q8ta_pixel_shuffle. The reference is the
# same chain in torch; every step is exact in f32, so the outputs must match
# bit for bit (tolerance 0).

def _dq(q, scale, zp):
    return qd.dequantize_per_tensor(q, scale, zp, *I8)


def _q(x, scale, zp):
    return qd.quantize_per_tensor(x, scale, zp, *I8)


def _q8_relu(x):
    y = torch.relu(_dq(_q(x, 0.021, -5), 0.021, -5))
    return _dq(_q(y, 0.013, -128), 0.013, -128)


def _q8_add(a, b):
    y = _dq(_q(a, 0.017, 3), 0.017, 3) + _dq(_q(b, 0.023, -9), 0.023, -9)
    return _dq(_q(y, 0.031, 1), 0.031, 1)


def _q8_pixel_shuffle(x):
    y = torch.nn.functional.pixel_shuffle(_dq(_q(x, 0.019, 4), 0.019, 4), 2)
    return _dq(_q(y, 0.019, 4), 0.019, 4)


class PerToken(torch.nn.Module):
    """quantize_per_token or dequantize_per_token with constant per-row parameters."""

    def __init__(self, rows, dequant):
        super().__init__()
        self.dequant = dequant
        self.register_buffer("scales", 0.01 + 0.04 * torch.rand(rows, 1))
        self.register_buffer("zps", torch.randint(-20, 20, (rows, 1), dtype=torch.int32))

    def forward(self, x):
        if self.dequant:
            return qd.dequantize_per_token(x, self.scales, self.zps, *I8, torch.float32)
        return qd.quantize_per_token(x, self.scales, self.zps, *I8)


class PerTensorTensorArgs(torch.nn.Module):
    """The .tensor overloads: scale and zero point as one-element tensors."""

    def __init__(self, dequant):
        super().__init__()
        self.dequant = dequant
        self.register_buffer("scale", torch.tensor([0.0427]))
        self.register_buffer("zp", torch.tensor([-3], dtype=torch.int32))

    def forward(self, x):
        if self.dequant:
            return qd.dequantize_per_tensor.tensor(x, self.scale, self.zp, *I8)
        return qd.quantize_per_tensor.tensor(x, self.scale, self.zp, *I8)


QUANT_OPS += [
    _case("q8ta_relu", lambda: Fn(_q8_relu), lambda: (torch.randn(2, 4, 5, 3),), atol=0, rtol=0),
    _case("q8ta_add", lambda: Fn(_q8_add), lambda: (torch.randn(1, 8, 5, 3), torch.randn(1, 8, 5, 3)), atol=0, rtol=0),
    _case("q8ta_pixel_shuffle", lambda: Fn(_q8_pixel_shuffle), lambda: (torch.randn(1, 8, 3, 5),), atol=0, rtol=0),
    _case("quantize_per_token", lambda: PerToken(6, False), lambda: (torch.randn(6, 13),)),
    _case("dequantize_per_token", lambda: PerToken(6, True),
          lambda: (torch.randint(-128, 128, (6, 13), dtype=torch.int8),), atol=0, rtol=0),
    _case("quantize_per_tensor_tensor_args", lambda: PerTensorTensorArgs(False), lambda: (2 * torch.randn(3, 7),)),
    _case("dequantize_per_tensor_tensor_args", lambda: PerTensorTensorArgs(True),
          lambda: (torch.randint(-128, 128, (3, 7), dtype=torch.int8),), atol=0, rtol=0),
]


class StaticInputInt8Linear(torch.nn.Module):
    """x quantized per tensor (static), int8 per-channel weights, float output
    (no output quantization): VulkanPartitioner fuses it into
    et_vk.linear_q8ta_q8csw."""

    def __init__(self, k, n):
        super().__init__()
        self.register_buffer("w", torch.randint(-127, 128, (n, k), dtype=torch.int8))
        self.register_buffer("w_scales", 0.002 + 0.01 * torch.rand(n))
        self.register_buffer("w_zps", torch.zeros(n, dtype=torch.int64))
        self.bias = torch.nn.Parameter(torch.randn(n))

    def forward(self, x):
        xd = _dq(_q(x, 0.02, 3), 0.02, 3)
        w = qd.dequantize_per_channel(self.w, self.w_scales, self.w_zps, 0, -127, 127, torch.int8)
        return torch.nn.functional.linear(xd, w, self.bias)


QUANT_OPS += [
    # N = 16: with N = 10, VulkanPartitioner 1.5.1's FusePatternsPass fails
    # (it pads the weight scales to 12 and then broadcasts them against N).
    _case("linear_q8ta_q8csw", lambda: StaticInputInt8Linear(24, 16), lambda: (torch.randn(3, 24),), atol=1e-4),
]


class Affine(torch.nn.Module):
    """torchao.quantize_affine or dequantize_affine with groups of 8 along the
    last dim (block_size [1, 8]) and constant scales / int32 zero points."""

    def __init__(self, rows, cols, dequant):
        super().__init__()
        import torchao.quantization.quant_primitives  # noqa: F401  (torch.ops.torchao.*)
        self.dequant = dequant
        self.register_buffer("scales", 0.01 + 0.04 * torch.rand(rows, cols // 8))
        self.register_buffer("zps", torch.randint(-20, 20, (rows, cols // 8), dtype=torch.int32))

    def forward(self, x):
        if self.dequant:
            return torch.ops.torchao.dequantize_affine(x, [1, 8], self.scales, self.zps, torch.int8, -128, 127)
        return torch.ops.torchao.quantize_affine(x, [1, 8], self.scales, self.zps, torch.int8, -128, 127)


QUANT_OPS += [
    _case("quantize_affine", lambda: Affine(3, 24, False), lambda: (torch.randn(3, 24),)),
    _case("dequantize_affine", lambda: Affine(3, 24, True),
          lambda: (torch.randint(-128, 128, (3, 24), dtype=torch.int8),), atol=0, rtol=0),
]


# --- embedding_4bit: what remains of it after VulkanPartitioner's pattern
# (which turns it into et_vk.embedding_q4gsw when D % 32 == 0 and there are
# no zero points; with zero points its pattern fails on the zero-point
# tensor and the export aborts). Dequantized values are one f32 multiply:
# tolerance 0.

class Embedding4bit(torch.nn.Module):
    """quantized_decomposed.embedding_4bit.dtype over a random packed table
    (two codes a byte, even column in the high nibble, +8, as
    examples/models/llama's embedding quantizer packs them)."""

    def __init__(self, vocab, dim, groups):
        super().__init__()
        from executorch.exir.passes import _quant_patterns_and_replacements  # noqa: F401  (embedding_4bit)
        scale_shape = (vocab, groups) if groups > 1 else (vocab,)
        self.register_buffer("w", torch.randint(0, 256, (vocab, dim // 2), dtype=torch.uint8))
        self.register_buffer("s", 0.005 + 0.05 * torch.rand(scale_shape))

    def forward(self, indices):
        return qd.embedding_4bit.dtype(self.w, self.s, None, -8, 7, indices, dtype=torch.float32)


QUANT_OPS += [
    _case("embedding_4bit", lambda: Embedding4bit(10, 16, 2), lambda: (torch.tensor([[1, 3, 9], [0, 9, 2]]),),
          atol=0, rtol=0),
    _case("embedding_4bit_row_scales", lambda: Embedding4bit(7, 24, 1), lambda: (torch.tensor([6, 0, 3, 3]),),
          dynamic={0: {0: ("tokens", 1, 8)}}, extra=[lambda: (torch.tensor([2, 5]),)], atol=0, rtol=0),
]


# --- choose_qparams: the dynamic per-tensor / per-token parameters. Scales
# come back as float64 in the reference, float32 in the Vulkan graph
# (export_fixtures.as_graph_dtype checks that this is exact); zero points
# int64. All outputs bit-exact (tolerance 0).

class ChooseQparamsTensor(torch.nn.Module):
    """choose_qparams.tensor, then quantize_per_tensor.tensor with its result
    (XNNPACKQuantizer's dynamic flow quantizes activations this way)."""

    def forward(self, x):
        scale, zp = qd.choose_qparams.tensor(x, -128, 127, 1e-5, torch.int8)
        return qd.quantize_per_tensor.tensor(x, scale, zp, -128, 127, torch.int8), scale, zp


class ChooseQparamsPerToken(torch.nn.Module):
    def forward(self, x):
        return qd.choose_qparams_per_token_asymmetric(x, torch.int8)


def _per_token_rows():
    """Rows that reach both of the zero point's branches: mixed signs, all
    positive, all negative, all zero (scale clamped to eps), one tiny range."""
    x = torch.randn(6, 20)
    x[1] = x[1].abs() + 0.3
    x[2] = -x[2].abs() * 5
    x[3] = 0
    x[4] = 1e-9 * torch.randn(20)
    return x,


QUANT_OPS += [
    _case("choose_qparams_tensor", ChooseQparamsTensor, lambda: (3 * torch.randn(5, 12) + 1.5,), atol=0, rtol=0),
    _case("choose_qparams_per_token", ChooseQparamsPerToken, _per_token_rows, dynamic={0: {0: ("rows", 1, 8)}},
          extra=[lambda: (torch.randn(3, 20) * 4,)], atol=0, rtol=0),
]


# --- End to end: a PT2E 8-bit MobileNet V2 (XNNPACKQuantizer's static
# per-channel config; VulkanQuantizer annotates linears only). Random
# weights with recalibrated BatchNorm (model_fixtures.recalibrate), the
# committed fixtures' width 0.35, 10 classes, 64x64 input.

def _mobilenet_v2():
    import torchvision
    from model_fixtures import recalibrate
    return recalibrate(torchvision.models.mobilenet_v2(width_mult=0.35, num_classes=10), 64)


QUANT_OPS += [
    # Integer accumulation vs torch's float sums can move a requantized value
    # by one step in any of its 52 quantized layers; measured: 4 output steps
    # (0.065, output scale 0.0161, outputs up to 2.8). Tolerance 0.1 (~6 steps).
    _pt2e_case("pt2e_mobilenet_v2", _mobilenet_v2, lambda: (torch.randn(1, 3, 64, 64),), _xnnpack_static, 0.1,
               "PT2E static int8 MobileNet V2 (XNNPACKQuantizer, width 0.35, 64x64)"),
]


# --- Training operators (et_vk.linear_dW, fused_ce, linear_q4gsw_backward,
# q4gsw_requant): one-op programs against ExecuTorch's reference
# implementations (custom_ops_lib.py), and one training step through all of
# them against torch autograd. linear_q4gsw_backward, q4gsw_requant and
# linear_q4gsw on its own are hand-partitioned (hand_partition.py says why).

vk = torch.ops.et_vk


def _pack_q4gsw(codes):
    """int codes [N, K] in [-8, 7] -> u8 [N, K/2], even k in the low nibble
    (linear_q4gsw's layout, backends/vulkan/patterns/weight_packing_utils.py)."""
    u = (codes + 8).to(torch.uint8)
    return (u[:, 0::2] | (u[:, 1::2] << 4)).contiguous()


class LinearDw(torch.nn.Module):
    def forward(self, d_out, x):
        return vk.linear_dW(d_out, x)


class FusedCe(torch.nn.Module):
    def forward(self, logits, labels):
        return vk.fused_ce(logits, labels, 3.0)


class Q4gswBackward(torch.nn.Module):
    def __init__(self, n, k, group_size):
        super().__init__()
        self.gs = group_size
        self.register_buffer("w", _pack_q4gsw(torch.randint(-8, 8, (n, k))))
        self.register_buffer("s", 0.01 + 0.05 * torch.rand(k // group_size, n))

    def forward(self, d_out):
        return vk.linear_q4gsw_backward(d_out, self.w, self.s, self.gs)


class Q4gswRequant(torch.nn.Module):
    """Power-of-two scales (one of them 0, which the reference maps to code 8)
    and latents on exact half steps: round half to even, clamping, the zero
    scale and bytes straddling u32 words (K/2 = 15) are all exercised."""

    def __init__(self, n, k, group_size):
        super().__init__()
        self.gs = group_size
        s = 2.0 ** torch.randint(-6, -2, (k // group_size, n)).float()
        s[0, 1] = 0
        self.register_buffer("s", s)

    def forward(self, latent):
        return vk.q4gsw_requant(latent, self.s, self.gs)


def _requant_latent(n, k):
    steps = torch.randint(-21, 21, (n, k)).float() * 0.5  # half steps of a scale...
    return (steps * 2.0 ** -4,)                           # ...of 2^-4 (others: other ratios)


QUANT_OPS += [
    _case("linear_dw", LinearDw, lambda: (torch.randn(5, 6), torch.randn(5, 7)), atol=1e-5, rtol=1e-5),
    _case("fused_ce", FusedCe, lambda: (3 * torch.randn(4, 70), torch.tensor([1, -100, 69, 0])), atol=1e-6, rtol=1e-5),
    Spec("linear_q4gsw_backward", "et_vk.linear_q4gsw_backward (hand-partitioned)",
         lambda: {"forward": (Q4gswBackward(12, 32, 8), (torch.randn(3, 12),), None)},
         hand_partition=True, atol=1e-5, rtol=1e-5),
    Spec("q4gsw_requant", "et_vk.q4gsw_requant (hand-partitioned)",
         lambda: {"forward": (Q4gswRequant(6, 30, 10), _requant_latent(6, 30), None)},
         hand_partition=True, atol=0, rtol=0),
]


class Q4gswTrainStep(torch.nn.Module):
    """One SGD step of a frozen 4-bit base (linear_q4gsw, straight-through
    latent weights) under a float head, through ExecuTorch's training ops:
    loss and dlogits (fused_ce), the head's and the latent's weight gradients
    (linear_dW), the input gradient (linear_q4gsw_backward), and the base's
    new codes (q4gsw_requant). Returns loss, the stepped head, d_x and the
    new codes. `reference` computes the same step with torch autograd
    (cross_entropy, matmuls and a straight-through estimator); only the
    final re-quantization uses ExecuTorch's definition."""

    def __init__(self, n=16, k=32, vocab=10, group_size=16, n_valid=3.0, lr=0.5):
        super().__init__()
        self.gs, self.n_valid, self.lr = group_size, n_valid, lr
        codes = torch.randint(-8, 8, (n, k))
        scales = 0.02 + 0.05 * torch.rand(k // group_size, n)
        self.register_buffer("w", _pack_q4gsw(codes))
        self.register_buffer("s", scales)
        dequant = codes.float() * scales.t().repeat_interleave(group_size, dim=1)
        self.register_buffer("w_float", dequant)
        self.register_buffer("latent", dequant + 0.01 * torch.randn(n, k))
        self.register_buffer("head", torch.randn(vocab, n) / n ** 0.5)

    def forward(self, x, labels):
        h = vk.linear_q4gsw(x, self.w, self.s, self.gs)
        logits = torch.nn.functional.linear(h, self.head)
        loss, dlogits = vk.fused_ce(logits, labels, self.n_valid)
        d_head = vk.linear_dW(dlogits, h)
        dh = dlogits @ self.head
        dx = vk.linear_q4gsw_backward(dh, self.w, self.s, self.gs)
        d_latent = vk.linear_dW(dh, x)
        codes = vk.q4gsw_requant(self.latent - self.lr * d_latent, self.s, self.gs)
        return loss, self.head - self.lr * d_head, dx, codes

    def reference(self, x, labels):
        with torch.enable_grad():
            x = x.clone().requires_grad_()
            head = self.head.clone().requires_grad_()
            latent = self.latent.clone().requires_grad_()
            w = self.w_float + (latent - latent.detach())  # straight-through
            logits = (x @ w.t()) @ head.t()
            loss = torch.nn.functional.cross_entropy(logits, labels, ignore_index=-100,
                                                     reduction="sum") / self.n_valid
            loss.backward()
        codes = vk.q4gsw_requant(latent.detach() - self.lr * latent.grad, self.s, self.gs)
        return loss.detach(), (head - self.lr * head.grad).detach(), x.grad, codes


QUANT_OPS += [
    Spec("train_step_q4gsw", "one SGD step through the training ops vs torch autograd (hand-partitioned)",
         lambda: {"forward": (Q4gswTrainStep(), (torch.randn(4, 32), torch.tensor([3, -100, 9, 0])), None)},
         hand_partition=True, strict=False, atol=2e-5, rtol=1e-4),
]


def _xnnpack_dynamic():
    """XNNPACK's dynamic config: activations quantized per tensor at run time
    (choose_qparams.tensor -> quantize_per_tensor.tensor), int8 per-channel weights."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    q = XNNPACKQuantizer()
    q.set_global(get_symmetric_quantization_config(is_per_channel=True, is_dynamic=True))
    return q


class WithoutActivationQdq(torch.nn.Module):
    """The converted PT2E module as VulkanPartitioner's preprocess leaves it:
    it folds each quantize -> dequantize pair on a float path into its float
    input (so the dynamic flow's choose_qparams.tensor never reaches the
    Vulkan graph, and activations stay f32 while weights are int8). `reference`
    runs that folded graph in torch; the module itself is what is exported."""

    def __init__(self, converted):
        super().__init__()
        import copy
        self.converted = converted
        folded = copy.deepcopy(converted)
        graph = folded.graph
        for node in list(graph.nodes):
            if node.op == "call_function" and "dequantize_per_tensor" in str(node.target):
                q = node.args[0]
                if isinstance(q, torch.fx.Node) and "quantize_per_tensor" in str(q.target):
                    node.replace_all_uses_with(q.args[0])
        graph.eliminate_dead_code()
        folded.recompile()
        self.folded = folded

    def forward(self, x):
        return self.converted(x)

    def reference(self, x):
        return self.folded(x)


def _pt2e_folded(make_module, make_inputs, quantizer):
    def build():
        methods = _pt2e(make_module, make_inputs, quantizer)()
        m, inputs, ds = methods["forward"]
        return {"forward": (WithoutActivationQdq(m), inputs, ds)}
    return build


QUANT_OPS += [
    Spec("pt2e_dynamic_linear", "PT2E dynamic int8 activations, int8 per-channel weights (XNNPACKQuantizer); "
         "the activation quantization is folded away by VulkanPartitioner's preprocess",
         _pt2e_folded(lambda: LinearStack([32, 24, 8]), lambda: (torch.randn(4, 32),), _xnnpack_dynamic),
         strict=False, atol=1e-5, rtol=1e-5),
]
