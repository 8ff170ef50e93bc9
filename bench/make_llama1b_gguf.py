#!/usr/bin/env python3
"""Writes a Llama-3.2-1B-shaped GGUF with random Q4_0 weights, for benchmarks.

Shapes follow Llama-3.2-1B: hidden 2048, 16 layers, 32 heads, 8 KV heads
(head_dim 64), FFN 8192, vocab 128256, output tied to token_embd, llama3 RoPE
(freq_base 500000, rope_freqs.weight). Weights are random Q4_0 blocks written
directly (random nibbles, small positive f16 scales), not quantized floats, so
the ~0.75 GB file takes seconds. Norms are F32 ones. The tokenizer is a dummy
gpt2-style BPE vocabulary (the 256 byte-level symbols, some two-letter merges,
filler tokens, then Llama 3's 256 special tokens) that both wgrt and llama.cpp
load; benchmarks feed token ids, so its quality does not matter.

Usage: python3 bench/make_llama1b_gguf.py OUT.gguf [--seed 0] [--layers 16] ...
Llama-3.1-8B's shapes: --hidden 4096 --ffn 14336 --output q6_k (32 heads, 8
KV heads and the vocabulary are the defaults already).
Smaller shapes (--hidden 256 --layers 2 --ffn 512 --heads 4 --kv-heads 2
--vocab 4096) make a quick file for testing the script.
"""
import argparse
import sys
import time

import numpy as np
import gguf

from random_gguf import random_blocks

def bytes_to_unicode():
    """GPT-2's byte-level alphabet: byte -> printable unicode character."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs)))


def build_vocab(n_vocab, n_special=256):
    b2u = bytes_to_unicode()
    tokens = [b2u[b] for b in range(256)]
    merges = []
    letters = "etaoinshrdlucmfwypvbgkjqxz"
    seen = set(tokens)
    n_regular = n_vocab - n_special
    # two-letter tokens with their merges, and 'Ġ'+letter (space-prefixed)
    for a in "Ġ" + letters:
        for b in letters:
            if len(tokens) >= min(n_regular, 256 + 27 * 26):
                break
            t = a + b
            if t not in seen:
                tokens.append(t)
                seen.add(t)
                merges.append(f"{a} {b}")
    i = 0
    while len(tokens) < n_regular:
        t = f"<filler{i}>"
        i += 1
        if t not in seen:
            tokens.append(t)
            seen.add(t)
    types = [gguf.TokenType.NORMAL] * len(tokens)
    special = ["<|begin_of_text|>", "<|end_of_text|>"] + \
              [f"<|reserved_special_token_{k}|>" for k in range(n_special - 2)]
    if n_special > 9:
        special[9] = "<|eot_id|>"
    tokens += special
    types += [gguf.TokenType.CONTROL] * n_special
    assert len(tokens) == n_vocab and len(set(tokens)) == n_vocab
    return tokens, types, merges


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--kv-heads", type=int, default=8)
    ap.add_argument("--ffn", type=int, default=8192)
    ap.add_argument("--vocab", type=int, default=128256)
    ap.add_argument("--context", type=int, default=131072)
    ap.add_argument("--weight-std", type=float, default=0.02)
    ap.add_argument("--output", choices=["tied", "q4_0", "q6_k"], default="tied",
                    help="the output head: tied to token_embd (Llama-3.2-1B), or its own matrix of this type "
                         "(Llama-3.1-8B Q4_0 files carry a Q6_K head)")
    ap.add_argument("--name", default="Llama-3.2-1B-shaped random Q4_0 (wgrt bench)")
    a = ap.parse_args()

    t0 = time.time()
    rng = np.random.default_rng(a.seed)
    hd = a.hidden // a.heads

    w = gguf.GGUFWriter(a.out, "llama")
    w.add_name(a.name)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_0)
    w.add_context_length(a.context)
    w.add_embedding_length(a.hidden)
    w.add_block_count(a.layers)
    w.add_feed_forward_length(a.ffn)
    w.add_head_count(a.heads)
    w.add_head_count_kv(a.kv_heads)
    w.add_rope_dimension_count(hd)
    w.add_rope_freq_base(500000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(a.vocab)

    tokens, types, merges = build_vocab(a.vocab)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("llama-bpe")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    n_reg = a.vocab - 256
    w.add_bos_token_id(n_reg)          # <|begin_of_text|>
    w.add_eos_token_id(n_reg + 1)      # <|end_of_text|>
    w.add_add_bos_token(True)

    Q = gguf.GGMLQuantizationType.Q4_0

    def q(name, rows, cols, qtype=Q):
        w.add_tensor(name, random_blocks(rng, qtype, rows, cols, a.weight_std), raw_dtype=qtype)

    ones = lambda n: np.ones(n, dtype=np.float32)
    q("token_embd.weight", a.vocab, a.hidden)   # tied (the default): also the output head
    if a.output != "tied":
        q("output.weight", a.vocab, a.hidden, Q if a.output == "q4_0" else gguf.GGMLQuantizationType.Q6_K)
    # llama3 RoPE frequency factors (Llama-3.2: factor 32, low 1, high 4, orig 8192)
    w.add_tensor("rope_freqs.weight", llama3_rope_factors(hd, 500000.0))
    w.add_tensor("output_norm.weight", ones(a.hidden))
    for i in range(a.layers):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", ones(a.hidden))
        q(p + "attn_q.weight", a.heads * hd, a.hidden)
        q(p + "attn_k.weight", a.kv_heads * hd, a.hidden)
        q(p + "attn_v.weight", a.kv_heads * hd, a.hidden)
        q(p + "attn_output.weight", a.hidden, a.heads * hd)
        w.add_tensor(p + "ffn_norm.weight", ones(a.hidden))
        q(p + "ffn_gate.weight", a.ffn, a.hidden)
        q(p + "ffn_up.weight", a.ffn, a.hidden)
        q(p + "ffn_down.weight", a.hidden, a.ffn)

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print(f"wrote {a.out} in {time.time() - t0:.1f} s", file=sys.stderr)


def llama3_rope_factors(head_dim, base, factor=32.0, low=1.0, high=4.0, orig=8192):
    freqs = 1.0 / (base ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim))
    out = []
    for f in freqs:
        wavelen = 2 * np.pi / f
        if wavelen < orig / high:
            out.append(1.0)
        elif wavelen > orig / low:
            out.append(factor)
        else:
            smooth = (orig / wavelen - low) / (high - low)
            out.append(1.0 / ((1 - smooth) / factor + smooth))
    return np.array(out, dtype=np.float32)


if __name__ == "__main__":
    main()
