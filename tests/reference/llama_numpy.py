#!/usr/bin/env python3
"""Independent fp32 numpy reference for Llama-family GGUF models.

Used to check wgrt's logits. Loads a GGUF file with the `gguf` package,
dequantizes every tensor to float32 (kept in memory only) and runs the
Llama forward pass (RMSNorm, GQA attention with RoPE and a KV cache,
SwiGLU FFN, tied or separate lm_head) in plain numpy.

RoPE convention
---------------
llama.cpp's converter permutes the rows of attn_q / attn_k for the `llama`
architecture so that, per head, the HF "rotate halves" pairing
(x[i], x[i + d/2]) becomes an *adjacent* pairing (x[2i], x[2i+1]). The
stored weights therefore need the adjacent-pair rotation (ggml's "normal"
rope mode). Architectures converted without that permutation (qwen2 and
other NEOX-style models) use the halves pairing. See ROPE_NEOX_ARCHS.

CLI:
  python3 tests/reference/llama_numpy.py --model M.gguf --tokens 1,2,3 \
      [--greedy N] [--all-positions] --out-logits F.npy [--out-tokens F.txt]

API:
  load_model(path) -> Model
  forward(model, tokens, cache, start_pos) -> logits [S, vocab] (float32)
  greedy(model, prompt_ids, n) -> list[int]
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field

import numpy as np

# Architectures whose GGUF Q/K rows are NOT permuted and use the halves
# pairing (ggml "neox" rope mode). Everything else (llama, mistral, ...)
# uses adjacent pairs.
ROPE_NEOX_ARCHS = {"qwen2", "qwen2moe", "qwen3", "qwen3moe", "phi2", "phi3",
                   "gemma", "gemma2", "gemma3", "stablelm", "gptneox",
                   "falcon", "starcoder2", "olmo2", "olmoe", "exaone"}


@dataclass
class Hparams:
    arch: str
    n_layer: int
    n_embd: int
    n_ff: int
    n_head: int
    n_head_kv: int
    head_dim: int
    n_rot: int
    eps: float
    rope_base: float
    n_ctx_train: int
    vocab: int
    rope_scaling_type: str = "none"
    rope_scaling_factor: float = 1.0
    rope_neox: bool = False


@dataclass
class Layer:
    attn_norm: np.ndarray
    wq: np.ndarray  # [n_head*head_dim, n_embd]  (out, in)
    wk: np.ndarray  # [n_head_kv*head_dim, n_embd]
    wv: np.ndarray
    wo: np.ndarray  # [n_embd, n_head*head_dim]
    bq: np.ndarray | None
    bk: np.ndarray | None
    bv: np.ndarray | None
    bo: np.ndarray | None
    ffn_norm: np.ndarray
    w_gate: np.ndarray  # [n_ff, n_embd]
    w_up: np.ndarray    # [n_ff, n_embd]
    w_down: np.ndarray  # [n_embd, n_ff]
    # Transposed copies (in, out) so activations @ W^T is a contiguous matmul.
    wqkv_t: np.ndarray = field(default=None)
    bqkv: np.ndarray | None = field(default=None)
    wo_t: np.ndarray = field(default=None)
    wgu_t: np.ndarray = field(default=None)
    w_down_t: np.ndarray = field(default=None)


@dataclass
class Model:
    hp: Hparams
    tok_embd: np.ndarray      # [vocab, n_embd]
    out_norm: np.ndarray      # [n_embd]
    output: np.ndarray        # [vocab, n_embd] (== tok_embd when tied)
    output_t: np.ndarray      # [n_embd, vocab]
    layers: list
    tied: bool
    rope_freq_factors: np.ndarray | None
    tokens: list | None = None  # vocab strings from metadata (for decoding)
    inv_freq: np.ndarray = field(default=None)


class KVCache:
    """Per-layer K/V buffers [n_ctx, n_head_kv, head_dim], float32."""

    def __init__(self, hp: Hparams, n_ctx: int):
        self.n_ctx = n_ctx
        self.k = [np.zeros((n_ctx, hp.n_head_kv, hp.head_dim), np.float32)
                  for _ in range(hp.n_layer)]
        self.v = [np.zeros((n_ctx, hp.n_head_kv, hp.head_dim), np.float32)
                  for _ in range(hp.n_layer)]


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------

def _field_value(reader, key, default=None):
    f = reader.fields.get(key)
    if f is None:
        return default
    return f.contents()


def load_model(path: str) -> Model:
    import gguf
    from gguf import quants

    reader = gguf.GGUFReader(path)
    arch = _field_value(reader, "general.architecture", "llama")

    def kv(name, default=None):
        return _field_value(reader, f"{arch}.{name}", default)

    n_embd = int(kv("embedding_length"))
    n_head = int(kv("attention.head_count"))
    n_head_kv = kv("attention.head_count_kv", n_head)
    n_head_kv = int(n_head_kv if not isinstance(n_head_kv, list) else n_head_kv[0])
    n_ff = kv("feed_forward_length")
    n_ff = int(n_ff if not isinstance(n_ff, list) else n_ff[0])
    head_dim = int(kv("attention.key_length", n_embd // n_head))

    tensors = {}
    for t in reader.tensors:
        a = quants.dequantize(t.data, t.tensor_type)
        # gguf stores ggml [ne1][ne0] row-major; dequantize gives shape
        # (ne1, ne0) i.e. (out_features, in_features) for matrices.
        ne = [int(x) for x in t.shape]
        a = np.ascontiguousarray(a, dtype=np.float32).reshape(list(reversed(ne)))
        tensors[t.name] = a

    tok_embd = tensors["token_embd.weight"]
    vocab_meta = kv("vocab_size")
    toks = _field_value(reader, "tokenizer.ggml.tokens")
    vocab = int(vocab_meta) if vocab_meta is not None else (
        len(toks) if toks is not None else tok_embd.shape[0])
    assert tok_embd.shape == (vocab, n_embd), tok_embd.shape

    scaling_type = kv("rope.scaling.type", "none") or "none"
    scaling_factor = float(kv("rope.scaling.factor", 1.0) or 1.0)
    if scaling_type not in ("none", "linear") and scaling_factor != 1.0:
        raise NotImplementedError(f"rope scaling type {scaling_type!r}")

    hp = Hparams(
        arch=arch,
        n_layer=int(kv("block_count")),
        n_embd=n_embd,
        n_ff=n_ff,
        n_head=n_head,
        n_head_kv=n_head_kv,
        head_dim=head_dim,
        n_rot=int(kv("rope.dimension_count", head_dim)),
        eps=float(kv("attention.layer_norm_rms_epsilon", 1e-5)),
        rope_base=float(kv("rope.freq_base", 10000.0)),
        n_ctx_train=int(kv("context_length", 2048)),
        vocab=vocab,
        rope_scaling_type=scaling_type,
        rope_scaling_factor=scaling_factor,
        rope_neox=arch in ROPE_NEOX_ARCHS,
    )

    layers = []
    for i in range(hp.n_layer):
        p = f"blk.{i}."
        g = tensors.get
        L = Layer(
            attn_norm=tensors[p + "attn_norm.weight"],
            wq=tensors[p + "attn_q.weight"],
            wk=tensors[p + "attn_k.weight"],
            wv=tensors[p + "attn_v.weight"],
            wo=tensors[p + "attn_output.weight"],
            bq=g(p + "attn_q.bias"), bk=g(p + "attn_k.bias"),
            bv=g(p + "attn_v.bias"), bo=g(p + "attn_output.bias"),
            ffn_norm=tensors[p + "ffn_norm.weight"],
            w_gate=tensors[p + "ffn_gate.weight"],
            w_up=tensors[p + "ffn_up.weight"],
            w_down=tensors[p + "ffn_down.weight"],
        )
        assert L.wq.shape == (n_head * head_dim, n_embd), L.wq.shape
        assert L.wk.shape == (n_head_kv * head_dim, n_embd), L.wk.shape
        assert L.wv.shape == (n_head_kv * head_dim, n_embd), L.wv.shape
        assert L.wo.shape == (n_embd, n_head * head_dim), L.wo.shape
        assert L.w_gate.shape == (n_ff, n_embd), L.w_gate.shape
        assert L.w_up.shape == (n_ff, n_embd), L.w_up.shape
        assert L.w_down.shape == (n_embd, n_ff), L.w_down.shape
        L.wqkv_t = np.ascontiguousarray(np.concatenate([L.wq, L.wk, L.wv], 0).T)
        if L.bq is not None or L.bk is not None or L.bv is not None:
            z = lambda b, n: b if b is not None else np.zeros(n, np.float32)
            L.bqkv = np.concatenate([z(L.bq, L.wq.shape[0]),
                                     z(L.bk, L.wk.shape[0]),
                                     z(L.bv, L.wv.shape[0])]).astype(np.float32)
        L.wo_t = np.ascontiguousarray(L.wo.T)
        L.wgu_t = np.ascontiguousarray(np.concatenate([L.w_gate, L.w_up], 0).T)
        L.w_down_t = np.ascontiguousarray(L.w_down.T)
        layers.append(L)

    tied = "output.weight" not in tensors
    output = tok_embd if tied else tensors["output.weight"]
    m = Model(hp=hp, tok_embd=tok_embd, out_norm=tensors["output_norm.weight"],
              output=output, output_t=np.ascontiguousarray(output.T),
              layers=layers, tied=tied,
              rope_freq_factors=tensors.get("rope_freqs.weight"),
              tokens=list(toks) if toks is not None else None)

    # theta_i = base^(-2i/n_rot), i in [0, n_rot/2)
    inv = hp.rope_base ** (-np.arange(0, hp.n_rot, 2, dtype=np.float64) / hp.n_rot)
    if m.rope_freq_factors is not None:  # llama3-style per-dim factors
        inv = inv / m.rope_freq_factors.astype(np.float64)
    m.inv_freq = inv
    return m


# --------------------------------------------------------------------------
# Forward
# --------------------------------------------------------------------------

def rms_norm(x: np.ndarray, w: np.ndarray, eps: float) -> np.ndarray:
    ms = np.mean(x * x, axis=-1, keepdims=True)
    return (x / np.sqrt(ms + np.float32(eps))) * w


def rope(x: np.ndarray, pos: np.ndarray, m: Model) -> np.ndarray:
    """x: [S, H, head_dim]; rotates the first n_rot dims of each head."""
    hp = m.hp
    p = pos.astype(np.float64)
    if hp.rope_scaling_type == "linear":
        p = p / hp.rope_scaling_factor
    ang = p[:, None] * m.inv_freq[None, :]          # [S, n_rot/2]
    cos = np.cos(ang).astype(np.float32)[:, None, :]  # [S, 1, n_rot/2]
    sin = np.sin(ang).astype(np.float32)[:, None, :]
    out = x.copy()
    r = hp.n_rot
    if hp.rope_neox:   # pairs (x[i], x[i + r/2])
        a = x[..., : r // 2]
        b = x[..., r // 2: r]
        out[..., : r // 2] = a * cos - b * sin
        out[..., r // 2: r] = a * sin + b * cos
    else:              # adjacent pairs (x[2i], x[2i+1])
        a = x[..., 0:r:2]
        b = x[..., 1:r:2]
        out[..., 0:r:2] = a * cos - b * sin
        out[..., 1:r:2] = a * sin + b * cos
    return out


def silu(x: np.ndarray) -> np.ndarray:
    return x / (np.float32(1.0) + np.exp(-x))


def forward(model: Model, tokens, cache: KVCache, start_pos: int,
            last_only: bool = False) -> np.ndarray:
    """Run `tokens` at positions start_pos.. and return logits [S, vocab]
    (or [1, vocab] for the last position when last_only)."""
    hp = model.hp
    tokens = np.asarray(tokens, dtype=np.int64)
    S = tokens.shape[0]
    T = start_pos + S
    if T > cache.n_ctx:
        raise ValueError(f"KV cache too small: need {T}, have {cache.n_ctx}")
    H, KV, D = hp.n_head, hp.n_head_kv, hp.head_dim
    G = H // KV
    nq, nk = H * D, KV * D
    scale = np.float32(1.0 / np.sqrt(D))
    pos = np.arange(start_pos, T)

    # causal mask: query at absolute pos start_pos+s sees keys t <= start_pos+s
    mask = np.where(np.arange(T)[None, :] <= pos[:, None], 0.0, -np.inf).astype(np.float32)

    x = model.tok_embd[tokens].astype(np.float32)   # [S, n_embd]
    for li, L in enumerate(model.layers):
        h = rms_norm(x, L.attn_norm, hp.eps)
        qkv = h @ L.wqkv_t
        if L.bqkv is not None:
            qkv = qkv + L.bqkv
        q = qkv[:, :nq].reshape(S, H, D)
        k = qkv[:, nq:nq + nk].reshape(S, KV, D)
        v = qkv[:, nq + nk:].reshape(S, KV, D)
        q = rope(q, pos, model)
        k = rope(k, pos, model)
        cache.k[li][start_pos:T] = k
        cache.v[li][start_pos:T] = v
        K = cache.k[li][:T].transpose(1, 2, 0)      # [KV, D, T]
        V = cache.v[li][:T].transpose(1, 0, 2)      # [KV, T, D]
        # q head h uses kv head h // G
        qg = q.reshape(S, KV, G, D).transpose(1, 2, 0, 3).reshape(KV, G * S, D)
        sc = (qg @ K) * scale                       # [KV, G*S, T]
        sc = sc.reshape(KV, G, S, T) + mask
        sc = sc - sc.max(axis=-1, keepdims=True)
        pr = np.exp(sc)
        pr /= pr.sum(axis=-1, keepdims=True)
        o = pr.reshape(KV, G * S, T) @ V            # [KV, G*S, D]
        o = o.reshape(KV, G, S, D).transpose(2, 0, 1, 3).reshape(S, H * D)
        o = o @ L.wo_t
        if L.bo is not None:
            o = o + L.bo
        x = x + o

        h = rms_norm(x, L.ffn_norm, hp.eps)
        gu = h @ L.wgu_t
        f = silu(gu[:, :hp.n_ff]) * gu[:, hp.n_ff:]
        x = x + f @ L.w_down_t

    if last_only:
        x = x[-1:]
    x = rms_norm(x, model.out_norm, hp.eps)
    return (x @ model.output_t).astype(np.float32)


def greedy(model: Model, prompt_ids, n: int, cache: KVCache | None = None,
           return_logits: bool = False):
    """Greedy decode n tokens after prompt_ids using the KV cache.
    Returns the generated ids (and the prompt's logits [S, vocab] if asked)."""
    prompt_ids = list(prompt_ids)
    if cache is None:
        cache = KVCache(model.hp, len(prompt_ids) + n)
    logits = forward(model, prompt_ids, cache, 0)
    out = []
    nxt = int(np.argmax(logits[-1]))
    pos = len(prompt_ids)
    for i in range(n):
        out.append(nxt)
        if i == n - 1:
            break
        lg = forward(model, [nxt], cache, pos)
        pos += 1
        nxt = int(np.argmax(lg[-1]))
    return (out, logits) if return_logits else out


# --------------------------------------------------------------------------
# Detokenization (GPT-2 byte-level BPE vocab, as stored in GGUF metadata)
# --------------------------------------------------------------------------

def _byte_decoder():
    # printable bytes map to themselves; the rest are shifted to 256+n
    keep = (list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) +
            list(range(0xAE, 0x100)))
    table = {}
    n = 0
    for b in range(256):
        if b in keep:
            table[chr(b)] = b
        else:
            table[chr(256 + n)] = b
            n += 1
    return table


def detokenize(model: Model, ids) -> str:
    if model.tokens is None:
        return ""
    dec = _byte_decoder()
    bs = bytearray()
    for i in ids:
        tok = model.tokens[i]
        for ch in tok:
            if ch in dec:
                bs.append(dec[ch])
            else:
                bs.extend(ch.encode("utf-8"))
    return bs.decode("utf-8", errors="replace")


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--tokens", required=True, help="comma-separated prompt ids")
    ap.add_argument("--greedy", type=int, default=0, help="generate N tokens")
    ap.add_argument("--all-positions", action="store_true",
                    help="write logits of every prompt position [S, vocab] "
                         "instead of only the last [vocab]")
    ap.add_argument("--out-logits", help=".npy file for the prompt logits")
    ap.add_argument("--out-tokens", help="text file for generated ids (one line, comma-separated)")
    args = ap.parse_args(argv)

    ids = [int(t) for t in args.tokens.replace(" ", "").split(",") if t != ""]
    t0 = time.time()
    m = load_model(args.model)
    t1 = time.time()
    hp = m.hp
    print(f"loaded {args.model}: arch={hp.arch} layers={hp.n_layer} dim={hp.n_embd} "
          f"heads={hp.n_head}/{hp.n_head_kv} head_dim={hp.head_dim} ff={hp.n_ff} "
          f"vocab={hp.vocab} rope={'neox' if hp.rope_neox else 'normal'} "
          f"base={hp.rope_base} tied={m.tied} ({t1 - t0:.2f}s)", file=sys.stderr)

    gen, logits = greedy(m, ids, args.greedy, return_logits=True)
    t2 = time.time()
    last = logits[-1]
    top = np.argsort(-last)[:5]
    print(f"prompt {len(ids)} tokens, logits[-1] top5: " +
          ", ".join(f"{int(i)}:{last[i]:.4f}" for i in top))
    if args.out_logits:
        np.save(args.out_logits, logits if args.all_positions else last)
    if args.greedy > 0:
        print("generated ids:", ",".join(str(i) for i in gen))
        print("generated text:", repr(detokenize(m, gen)))
        if args.out_tokens:
            with open(args.out_tokens, "w") as f:
                f.write(",".join(str(i) for i in gen) + "\n")
    print(f"forward+greedy {t2 - t1:.2f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
