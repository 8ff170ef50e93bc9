#!/usr/bin/env python3
"""Check llama_numpy.py against HF transformers on the same GGUF file.

Needs `torch` and `transformers` (pip). transformers dequantizes the GGUF
tensors itself and un-permutes Q/K back to the HF "rotate halves" layout,
so it is an independent implementation of the same math.

  python3 tests/reference/validate_vs_transformers.py --model M.gguf \
      [--prompt "The capital of France is"] [--n 32]
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_numpy as ln  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--prompt", default="The capital of France is")
    ap.add_argument("--n", type=int, default=32)
    args = ap.parse_args()

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    d, name = os.path.split(os.path.abspath(args.model))
    tok = AutoTokenizer.from_pretrained(d, gguf_file=name)
    ids = tok(args.prompt, add_special_tokens=False)["input_ids"]
    print("prompt:", repr(args.prompt), "ids:", ids)

    t0 = time.time()
    m = ln.load_model(args.model)
    t1 = time.time()
    gen, ref_logits = ln.greedy(m, ids, args.n, return_logits=True)
    t2 = time.time()
    print(f"numpy: load {t1 - t0:.2f}s, prompt+{args.n} greedy {t2 - t1:.2f}s")

    hf = AutoModelForCausalLM.from_pretrained(d, gguf_file=name, dtype=torch.float32)
    hf.eval()
    with torch.no_grad():
        hf_logits = hf(torch.tensor([ids])).logits[0].float().numpy()
        # plain argmax loop (hf.generate with min_new_tokens would mask EOS)
        hf_gen, past = [], None
        step = torch.tensor([ids])
        for _ in range(args.n):
            o = hf(step, past_key_values=past, use_cache=True)
            past = o.past_key_values
            nxt = int(o.logits[0, -1].argmax())
            hf_gen.append(nxt)
            step = torch.tensor([[nxt]])

    diff = np.abs(ref_logits - hf_logits)
    print(f"prompt logits [S={len(ids)}, V={ref_logits.shape[1]}]: max abs diff {diff.max():.3e} "
          f"(last pos {diff[-1].max():.3e}), logit range "
          f"[{hf_logits.min():.2f}, {hf_logits.max():.2f}]")
    print("argmax per position equal:",
          bool((ref_logits.argmax(-1) == hf_logits.argmax(-1)).all()))

    # teacher-forced logits over prompt+generated sequence (exercises KV cache
    # on the numpy side: incremental decode vs HF full-sequence pass)
    seq = ids + gen
    cache = ln.KVCache(m.hp, len(seq))
    inc = [ln.forward(m, ids, cache, 0)]
    for i, t in enumerate(gen[:-1]):
        inc.append(ln.forward(m, [t], cache, len(ids) + i))
    inc = np.concatenate(inc, 0)
    with torch.no_grad():
        hf_full = hf(torch.tensor([seq[:-1]])).logits[0].float().numpy()
    print(f"all {len(seq) - 1} positions (numpy incremental w/ KV cache vs HF): "
          f"max abs diff {np.abs(inc - hf_full).max():.3e}")

    same = gen == hf_gen
    agree = next((i for i, (a, b) in enumerate(zip(gen, hf_gen)) if a != b), len(gen))
    print(f"greedy {args.n}: identical={same} (first {agree} tokens agree)")
    print("numpy ids:", gen)
    print("hf    ids:", hf_gen)
    print("numpy text:", repr(tok.decode(gen)))
    print("hf    text:", repr(tok.decode(hf_gen)))
    print("own detokenizer matches:", ln.detokenize(m, gen) == tok.decode(gen))


if __name__ == "__main__":
    main()
