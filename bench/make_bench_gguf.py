#!/usr/bin/env python3
"""Writes a GGUF of a real model's shape with random quantized weights, for
benchmarks (issue 37: models at the size people run them).

Weights are random blocks written directly (random nibbles, small positive
f16 scales: bench/random_gguf.py), not quantized floats, and the file is
streamed tensor by tensor, so a 40 GB 70B-shaped file needs little memory and
takes about as long as the disk takes to write it. Norms are F32 ones. The
tokenizer is a dummy gpt2-style BPE vocabulary (the 256 byte-level symbols,
some two-letter merges, filler tokens, then 256 special tokens) that both
wgrt and llama.cpp load; benchmarks feed token ids, so its quality does not
matter.

Shapes (--shape; any of its numbers can be overridden by the flags below):
  llama1b   Llama-3.2-1B: hidden 2048, 16 layers, 32/8 heads, FFN 8192,
            vocab 128256, output tied to token_embd, llama3 RoPE (the default)
  llama8b   Llama-3.1-8B: hidden 4096, 32 layers, 32/8 heads, FFN 14336,
            vocab 128256, its own output head, llama3 RoPE
  qwen32b   Qwen2.5-32B: hidden 5120, 64 layers, 40/8 heads, FFN 27648,
            vocab 152064, Q/K/V biases, RoPE base 1e6, its own output head
  llama70b  Llama-3.1-70B: hidden 8192, 80 layers, 64/8 heads, FFN 28672,
            vocab 128256, its own output head, llama3 RoPE
Mixes (--mix), as llama.cpp's quantizer writes them:
  q4_0      every matrix Q4_0, an untied output head Q6_K
  q4_k_m    Q4_K, but attn_v and ffn_down Q6_K in the layers llama.cpp gives
            more bits (the first and last eighth, and every third between),
            output head Q6_K
  q5_k_m    the same with Q5_K for Q4_K

Usage: python3 bench/make_bench_gguf.py OUT.gguf [--shape llama8b] [--mix q4_k_m]
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


SHAPES = {
    #           hidden layers heads kv  ffn    vocab   arch     rope_base  output  context
    "llama1b": (2048, 16, 32, 8, 8192, 128256, "llama", 500000.0, "tied", 131072),
    "llama8b": (4096, 32, 32, 8, 14336, 128256, "llama", 500000.0, "own", 131072),
    "qwen32b": (5120, 64, 40, 8, 27648, 152064, "qwen2", 1000000.0, "own", 32768),
    "llama70b": (8192, 80, 64, 8, 28672, 128256, "llama", 500000.0, "own", 131072),
}
Q = gguf.GGMLQuantizationType
# Each mix's type for most matrices, and the file type it declares.
MIXES = {"q4_0": (Q.Q4_0, gguf.LlamaFileType.MOSTLY_Q4_0),
         "q4_k_m": (Q.Q4_K, gguf.LlamaFileType.MOSTLY_Q4_K_M),
         "q5_k_m": (Q.Q5_K, gguf.LlamaFileType.MOSTLY_Q5_K_M)}


def more_bits(i, n):
    """llama.cpp's use_more_bits: the layers a _M mix quantizes with more bits."""
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def tensor_plan(a, hd):
    """(name, type, rows, cols) for every tensor, in file order; (name, array)
    for the float ones."""
    base = MIXES[a.mix][0]
    plan = [("token_embd.weight", base, a.vocab, a.hidden)]
    if a.output != "tied":
        plan.append(("output.weight", Q.Q6_K if a.output == "q6_k" else Q.Q4_0, a.vocab, a.hidden))
    ones = lambda n: np.ones(n, dtype=np.float32)
    if a.arch == "llama":  # llama3 RoPE frequency factors (factor 32, low 1, high 4, orig 8192)
        plan.append(("rope_freqs.weight", llama3_rope_factors(hd, a.rope_base)))
    plan.append(("output_norm.weight", ones(a.hidden)))
    for i in range(a.layers):
        p = f"blk.{i}."
        wide = a.mix != "q4_0" and more_bits(i, a.layers)
        plan += [(p + "attn_norm.weight", ones(a.hidden)),
                 (p + "attn_q.weight", base, a.heads * hd, a.hidden),
                 (p + "attn_k.weight", base, a.kv_heads * hd, a.hidden),
                 (p + "attn_v.weight", Q.Q6_K if wide else base, a.kv_heads * hd, a.hidden)]
        if a.arch == "qwen2":
            plan += [(p + "attn_q.bias", np.zeros(a.heads * hd, np.float32)),
                     (p + "attn_k.bias", np.zeros(a.kv_heads * hd, np.float32)),
                     (p + "attn_v.bias", np.zeros(a.kv_heads * hd, np.float32))]
        plan += [(p + "attn_output.weight", base, a.hidden, a.heads * hd),
                 (p + "ffn_norm.weight", ones(a.hidden)),
                 (p + "ffn_gate.weight", base, a.ffn, a.hidden),
                 (p + "ffn_up.weight", base, a.ffn, a.hidden),
                 (p + "ffn_down.weight", Q.Q6_K if wide else base, a.hidden, a.ffn)]
    return plan


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--shape", choices=sorted(SHAPES), default="llama1b")
    ap.add_argument("--mix", choices=sorted(MIXES), default="q4_0")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hidden", type=int)
    ap.add_argument("--layers", type=int)
    ap.add_argument("--heads", type=int)
    ap.add_argument("--kv-heads", type=int)
    ap.add_argument("--ffn", type=int)
    ap.add_argument("--vocab", type=int)
    ap.add_argument("--context", type=int)
    ap.add_argument("--weight-std", type=float, default=0.02)
    ap.add_argument("--output", choices=["tied", "q4_0", "q6_k"],
                    help="the output head: tied to token_embd, or its own matrix of this type (default: the "
                         "shape's; an own head is Q6_K, as llama.cpp writes it)")
    ap.add_argument("--name", help="general.name (default: the shape and mix)")
    a = ap.parse_args()
    hidden, layers, heads, kv, ffn, vocab, arch, rope_base, output, context = SHAPES[a.shape]
    for key, default in (("hidden", hidden), ("layers", layers), ("heads", heads), ("kv_heads", kv), ("ffn", ffn),
                         ("vocab", vocab), ("context", context)):
        if getattr(a, key) is None:
            setattr(a, key, default)
    if a.output is None:
        a.output = "tied" if output == "tied" else "q6_k"
    a.arch, a.rope_base = arch, rope_base
    if a.name is None:
        a.name = f"{a.shape}-shaped random {a.mix.upper()} (wgrt bench)"
    return a


def main():
    a = parse_args()
    t0 = time.time()
    rng = np.random.default_rng(a.seed)
    hd = a.hidden // a.heads

    w = gguf.GGUFWriter(a.out, a.arch)
    w.add_name(a.name)
    w.add_file_type(MIXES[a.mix][1])
    w.add_context_length(a.context)
    w.add_embedding_length(a.hidden)
    w.add_block_count(a.layers)
    w.add_feed_forward_length(a.ffn)
    w.add_head_count(a.heads)
    w.add_head_count_kv(a.kv_heads)
    w.add_rope_dimension_count(hd)
    w.add_rope_freq_base(a.rope_base)
    w.add_layer_norm_rms_eps(1e-5 if a.arch == "llama" else 1e-6)
    w.add_vocab_size(a.vocab)

    tokens, types, merges = build_vocab(a.vocab)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("llama-bpe" if a.arch == "llama" else "qwen2")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    n_reg = a.vocab - 256
    w.add_bos_token_id(n_reg)          # <|begin_of_text|>
    w.add_eos_token_id(n_reg + 1)      # <|end_of_text|>
    w.add_add_bos_token(a.arch == "llama")

    # Tensor infos first, then each tensor's data made and written in turn:
    # only one tensor is ever in memory.
    plan = tensor_plan(a, hd)
    for t in plan:
        if len(t) == 2:
            w.add_tensor_info(t[0], t[1].shape, t[1].dtype, t[1].nbytes)
        else:
            name, qtype, rows, cols = t
            block, size = gguf.GGML_QUANT_SIZES[qtype]
            nbytes = rows * (cols // block) * size
            w.add_tensor_info(name, (rows, nbytes // rows), np.dtype(np.uint8), nbytes, raw_dtype=qtype)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    written = 0
    for k, t in enumerate(plan):
        data = t[1] if len(t) == 2 else random_blocks(rng, t[1], t[2], t[3], a.weight_std)
        w.write_tensor_data(data)
        written += data.nbytes
        if sys.stderr.isatty() or k % 50 == 0 or k == len(plan) - 1:
            print(f"\r{k + 1}/{len(plan)} tensors, {written / 2**30:.2f} GiB, {time.time() - t0:.0f} s",
                  end="", file=sys.stderr, flush=True)
    w.close()
    print(f"\nwrote {a.out} ({written / 2**30:.2f} GiB of tensors) in {time.time() - t0:.1f} s", file=sys.stderr)


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
