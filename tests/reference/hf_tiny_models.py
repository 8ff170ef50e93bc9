"""Tiny random models in their Hugging Face `transformers` form, written to
GGUF with the `gguf` package the way llama.cpp's converter lays them out, for
comparing wgrt's logits with transformers' (tests/e2e/test_hf_architectures.py).

The layout written here follows the public GGUF naming (token_embd,
blk.N.attn_q, ...) and one convention that matters for correctness: for the
`llama` (and `mistral`) architecture the converter permutes the rows of Q
and K within each head so that RoPE can rotate adjacent pairs (ggml's
"normal" RoPE); for `qwen2`, `qwen3`, `phi3` and `gemma3` it stores them as
they are and RoPE rotates halves (ggml's NEOX). Gemma's norm weights are
stored with Gemma's "1 +" folded in, as the converter does.

The vocabulary is 256 byte tokens (a GPT-2 byte-level BPE without merges), so
any token id sequence is valid text. Weights are stored as F32: the
comparison is of the math, not of quantization.
"""
from pathlib import Path
import sys

import gguf
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "fixtures"))
from make_byte_tokenizer import byte_symbols  # noqa: E402

VOCAB = 256
BOS, EOS = 1, 2

# arch -> (tokenizer.ggml.pre, whether Q/K rows are permuted for adjacent-pair RoPE)
ARCHS = {"llama": ("default", True), "mistral": ("default", True), "qwen2": ("qwen2", False),
         "qwen3": ("qwen2", False), "phi3": ("default", False), "gemma3": ("default", False)}


def build(arch: str, seed: int = 0, **config):
    """A random 2-layer model of `arch` in float32, eval mode; `config`
    overrides the HF config's sizes (e.g. intermediate_size)."""
    import torch
    import transformers

    common = dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128, rms_norm_eps=1e-5,
                  attn_implementation="eager")
    common.update(config)
    if arch == "llama":
        cfg = transformers.LlamaConfig(**common, tie_word_embeddings=False, rope_theta=10000.0)
        model = transformers.LlamaForCausalLM(cfg)
    elif arch == "mistral":
        cfg = transformers.MistralConfig(**common, tie_word_embeddings=False, rope_theta=1000000.0,
                                         sliding_window=None)
        model = transformers.MistralForCausalLM(cfg)
    elif arch == "qwen2":
        cfg = transformers.Qwen2Config(**common, tie_word_embeddings=True, rope_theta=1000000.0)
        model = transformers.Qwen2ForCausalLM(cfg)
    elif arch == "qwen3":
        # head_dim 32 with 4 heads: attention is wider than the 64-wide residual.
        cfg = transformers.Qwen3Config(**common, head_dim=32, tie_word_embeddings=True, rope_theta=1000000.0)
        model = transformers.Qwen3ForCausalLM(cfg)
    elif arch == "phi3":
        cfg = transformers.Phi3Config(**common, tie_word_embeddings=False, rope_theta=10000.0, pad_token_id=0,
                                      bos_token_id=BOS, eos_token_id=EOS)
        model = transformers.Phi3ForCausalLM(cfg)
    elif arch == "gemma3":
        # 6 layers: 5 sliding-window (window 4, shorter than the test's context) and 1 global.
        common.update(num_hidden_layers=6, rms_norm_eps=1e-6)
        cfg = transformers.Gemma3TextConfig(**common, head_dim=16, query_pre_attn_scalar=16, sliding_window=4,
                                            tie_word_embeddings=True, pad_token_id=0, bos_token_id=BOS,
                                            eos_token_id=EOS)
        model = transformers.Gemma3ForCausalLM(cfg)
    else:
        raise ValueError(arch)
    # Re-draw every parameter at a scale that gives well-separated logits
    # (the default init's are nearly flat, which makes greedy picks fragile).
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):  # Gemma's norms scale by (1 + w)
                p.copy_((0.0 if arch == "gemma3" else 1.0) + 0.2 * torch.randn(p.shape, generator=gen))
            elif p.dim() == 1:  # biases
                p.copy_(0.3 * torch.randn(p.shape, generator=gen))
            elif "embed_tokens" in name:  # Gemma multiplies them by sqrt(64) = 8
                p.copy_((0.3 if arch == "gemma3" else 1.0) * torch.randn(p.shape, generator=gen))
            elif "lm_head" in name:
                p.copy_(5.0 * torch.randn(p.shape, generator=gen) / p.shape[1] ** 0.5)
            else:
                p.copy_(1.5 * torch.randn(p.shape, generator=gen) / p.shape[1] ** 0.5)
    return model.float().eval()


def quantize_weights(model, types: dict) -> dict:
    """Rounds the HF parameters named in `types` (HF name -> ggml type) to
    what the type can hold, in place, and returns the GGUF `raw` entries
    holding them as gguf.quants.quantize lays them out (blocks lie within
    rows, so the converter's row permutation commutes with quantization)."""
    import torch

    raw = {}
    params = dict(model.named_parameters())
    for hf_name, qtype in types.items():
        p = params[hf_name]
        data = gguf.quants.quantize(p.detach().numpy().astype(np.float32), qtype)
        with torch.no_grad():
            p.copy_(torch.from_numpy(gguf.quants.dequantize(data, qtype).reshape(p.shape)))
        raw[hf_name] = qtype
    return raw


def rope_theta(cfg) -> float:
    """The (global layers') RoPE base."""
    theta = getattr(cfg, "rope_theta", None)
    if theta is None:
        params = cfg.rope_parameters
        theta = params["full_attention" if "full_attention" in params else "rope_theta"]
        if isinstance(theta, dict):
            theta = theta["rope_theta"]
    return float(theta)


def interleave_heads(w: np.ndarray, n_heads: int) -> np.ndarray:
    """Rows of each head reordered from halves (i, i + d/2) to adjacent pairs (2i, 2i+1)."""
    rows = w.shape[0]
    return w.reshape(n_heads, 2, rows // n_heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def write_gguf(model, arch: str, path: Path, meta: dict | None = None, raw: dict | None = None,
               quant: dict | None = None) -> None:
    """`meta` overrides metadata values by key suffix after "{arch}." (or a full
    key such as "general.architecture"); `raw` maps a tensor name to
    (uint8 array, ggml type) stored instead of its F32 value. Both are for
    tests of bad input."""
    pre, permute = ARCHS[arch]
    cfg = model.config
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    values = {"general.architecture": arch, "context_length": cfg.max_position_embeddings,
              "embedding_length": cfg.hidden_size, "block_count": cfg.num_hidden_layers,
              "feed_forward_length": cfg.intermediate_size, "attention.head_count": cfg.num_attention_heads,
              "attention.head_count_kv": cfg.num_key_value_heads, "rope.dimension_count": head_dim,
              "attention.key_length": head_dim, "attention.value_length": head_dim,
              "attention.layer_norm_rms_epsilon": float(cfg.rms_norm_eps), "rope.freq_base": rope_theta(cfg)}
    if arch == "gemma3":
        values["attention.sliding_window"] = cfg.sliding_window
    values.update(meta or {})
    w = gguf.GGUFWriter(str(path), values.pop("general.architecture"))
    w.add_name(f"tiny random {arch}")
    for key, value in values.items():
        full = f"{w.arch}.{key}"
        if isinstance(value, float):
            w.add_float32(full, value)
        else:
            w.add_uint32(full, int(value))
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(pre)
    w.add_token_list(byte_symbols())
    w.add_token_types([gguf.TokenType.NORMAL] * VOCAB)
    w.add_token_merges([])
    w.add_bos_token_id(BOS)
    w.add_eos_token_id(EOS)
    w.add_add_bos_token(False)

    sd = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    tensors = {"token_embd.weight": sd["model.embed_tokens.weight"]}
    names = {"self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
             "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
             "mlp.down_proj": "ffn_down", "input_layernorm": "attn_norm", "post_attention_layernorm": "ffn_norm",
             "self_attn.q_norm": "attn_q_norm", "self_attn.k_norm": "attn_k_norm",  # qwen3
             "self_attn.qkv_proj": "attn_qkv", "mlp.gate_up_proj": "ffn_up"}  # phi3
    if arch == "gemma3":  # sandwich norms around attention and the FFN
        names.update({"post_attention_layernorm": "post_attention_norm", "pre_feedforward_layernorm": "ffn_norm",
                      "post_feedforward_layernorm": "post_ffw_norm"})
    for layer in range(cfg.num_hidden_layers):
        for hf, ours in names.items():
            for kind in ("weight", "bias"):
                key = f"model.layers.{layer}.{hf}.{kind}"
                if key not in sd:
                    continue
                t = sd[key]
                if permute and ours in ("attn_q", "attn_k"):
                    heads = cfg.num_attention_heads if ours == "attn_q" else cfg.num_key_value_heads
                    t = interleave_heads(t, heads)
                tensors[f"blk.{layer}.{ours}.{kind}"] = t
                if quant and key in quant:
                    raw = dict(raw or {})
                    raw[f"blk.{layer}.{ours}.{kind}"] = (gguf.quants.quantize(np.ascontiguousarray(t), quant[key]),
                                                         quant[key])
    tensors["output_norm.weight"] = sd["model.norm.weight"]
    if not cfg.tie_word_embeddings:
        tensors["output.weight"] = sd["lm_head.weight"]
    for name, t in tensors.items():
        if arch == "gemma3" and name.endswith("norm.weight"):
            t = t + np.float32(1.0)  # stored with Gemma's (1 + w) folded in, as llama.cpp's converter does
        if raw and name in raw:
            data, qtype = raw[name]
            if qtype is None:
                w.add_tensor(name, data)
            else:
                w.add_tensor(name, data, raw_dtype=qtype)
        else:
            w.add_tensor(name, np.ascontiguousarray(t))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def write_llama_like(params: dict, path: Path, context: int, seed: int = 0) -> None:
    """A random HF Llama with the sizes of an ExecuTorch Llama params.json
    (dim, n_layers, n_heads, n_kv_heads, hidden_dim, vocab_size) written as
    GGUF, every matrix Q4_0 (layers, embedding, head): the GGUF twin of an
    `export_llama -qmode 4w -E 4,32` program, for comparing the two forms'
    kernels."""
    model = build("llama", seed=seed, hidden_size=params["dim"], intermediate_size=params["hidden_dim"],
                  num_hidden_layers=params["n_layers"], num_attention_heads=params["n_heads"],
                  num_key_value_heads=params["n_kv_heads"], vocab_size=params["vocab_size"],
                  max_position_embeddings=context)
    linears = ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj",
               "mlp.up_proj", "mlp.down_proj")
    q4_0 = gguf.GGMLQuantizationType.Q4_0
    quant = {f"model.layers.{l}.{n}.weight": q4_0 for l in range(params["n_layers"]) for n in linears}
    sd = model.state_dict()
    raw = {name: (gguf.quants.quantize(sd[hf].detach().numpy().astype(np.float32), q4_0), q4_0)
           for name, hf in (("token_embd.weight", "model.embed_tokens.weight"), ("output.weight", "lm_head.weight"))}
    write_gguf(model, "llama", path, raw=raw, quant=quant)


def greedy_logits(model, prompt: list[int], steps: int):
    """transformers' logits for the prompt's last position and `steps - 1`
    greedy decode steps through its KV cache: (ids [steps], logits [steps, vocab])."""
    import torch

    ids, rows, past = [], [], None
    step = torch.tensor([prompt])
    with torch.no_grad():
        for _ in range(steps):
            out = model(step, past_key_values=past, use_cache=True)
            past = out.past_key_values
            logits = out.logits[0, -1].double().numpy()
            rows.append(logits)
            ids.append(int(logits.argmax()))
            step = torch.tensor([[ids[-1]]])
    return ids, np.stack(rows)
