#!/usr/bin/env python3
"""ExecuTorch's Llama export against a GGUF of the same shape, in one run of
`wgrt bench` each (issue 32's "one linear family"): decode tokens/s and
dispatches per step of

  pte        the .pte as wgrt loads it (ExecuTorch's linears moved into the
             GGUF family and fused: ops/passes/)
  pte-nofuse the same .pte with --no-fuse (ExecuTorch's ops as exported)
  gguf       a random Llama of the same sizes as GGUF, Q4_0 linears

The .pte comes from `executorch.examples.models.llama.export_llama -V -kv
--use_sdpa_with_kv_cache -qmode 4w -G 32` (or --qmode 8da4w) on a random checkpoint (needs torch
and executorch: this machine, not the device); both files are cached in
--dir. The twin's embedding and head stay F32 (the export's are 4-bit), so
compare the layers' kernels, not the whole step, where they differ.

Usage: python3 bench/pte_vs_gguf.py [--qmode 4w|8da4w] [--dim 576 --layers 6 --heads 9 --kv-heads 3
           --ffn 1536 --vocab 49152] [--dir /tmp/pte_vs_gguf] [-n 32] [-r 3]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WGRT = Path(os.environ.get("WGRT_BIN", ROOT / "build" / "wgrt"))
sys.path.insert(0, str(ROOT / "tests" / "reference"))
CTX = 256


def export_pte(params: dict, qmode: str, out: Path) -> None:
    import torch
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    with tempfile.TemporaryDirectory() as tmp:
        params_path = Path(tmp) / "params.json"
        params_path.write_text(json.dumps(params))
        torch.manual_seed(0)
        model = construct_transformer(ModelArgs(max_seq_len=CTX, max_context_len=CTX, **params))
        state = {k: (1.0 + 0.1 * torch.randn_like(v) if "norm" in k else v).detach().clone().contiguous()
                 for k, v in model.state_dict().items() if k.endswith(".weight")}
        torch.save(state, Path(tmp) / "ckpt.pth")
        cmd = [sys.executable, "-m", "executorch.examples.models.llama.export_llama", "-V", "-kv",
               "--use_sdpa_with_kv_cache", "-qmode", qmode, "-G", "32", "-E", "4,32", "-d", "fp32",
               "--max_seq_length", str(CTX), "--max_context_length", str(CTX), "-p", str(params_path),
               "-c", str(Path(tmp) / "ckpt.pth"), "--output-dir", tmp, "-n", "model"]
        subprocess.run(cmd, check=True)
        os.replace(Path(tmp) / "model.pte", out)


def bench(args, *model_args):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        cmd = [str(WGRT), "bench", *model_args, "-p", "0", "-n", str(args.n), "-r", str(args.r), "--profile",
               "--top", "100", "--json", f.name]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(proc.stderr)
        doc = json.load(open(f.name))
    tg = doc["tests"][0]["tok_s"]["median"]
    decode = next(p for p in doc["profiles"] if p["what"].startswith("decode (1 token"))
    layer = sum(k["count"] for k in decode["kernels"]
                if any(m in k["label"] for m in ("+residual", "+rope", "+swiglu", "sdpa")))
    return tg, decode["dispatches"], layer, doc["memory"]["model_total_bytes"], doc["load_seconds"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qmode", choices=["4w", "8da4w"], default="4w")
    ap.add_argument("--dim", type=int, default=576)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--heads", type=int, default=9)
    ap.add_argument("--kv-heads", type=int, default=3)
    ap.add_argument("--ffn", type=int, default=1536)
    ap.add_argument("--vocab", type=int, default=49152)
    ap.add_argument("--dir", default="/tmp/pte_vs_gguf")
    ap.add_argument("-n", type=int, default=32)
    ap.add_argument("-r", type=int, default=3)
    args = ap.parse_args()
    params = {"dim": args.dim, "n_layers": args.layers, "n_heads": args.heads, "n_kv_heads": args.kv_heads,
              "vocab_size": args.vocab, "hidden_dim": args.ffn, "multiple_of": 32, "norm_eps": 1e-5,
              "rope_theta": 10000.0}
    tag = "_".join(str(params[k]) for k in ("dim", "n_layers", "n_heads", "n_kv_heads", "hidden_dim", "vocab_size"))
    d = Path(args.dir)
    d.mkdir(parents=True, exist_ok=True)
    pte, twin = d / f"llama_{tag}_{args.qmode}.pte", d / f"llama_{tag}.q4_0.gguf"
    tok = ROOT / "tests" / "fixtures" / "llama" / "byte_tokenizer.gguf"
    if not pte.exists():
        export_pte(params, args.qmode, pte)
    if not twin.exists():
        import hf_tiny_models
        hf_tiny_models.write_llama_like(params, twin, CTX)
    rows = [("pte", bench(args, "--model", str(pte), "--tokenizer", str(tok))),
            ("pte-nofuse", bench(args, "--model", str(pte), "--tokenizer", str(tok), "--no-fuse")),
            ("gguf", bench(args, "--model", str(twin)))]
    print(f"\n-qmode {args.qmode}, shape {tag} (dim, layers, heads, kv heads, ffn, vocab); tg{args.n}, median of {args.r}")
    print(f"{'form':<11} {'tok/s':>8} {'vs gguf':>8} {'dispatches':>10} {'per layer':>9} {'MiB':>7} {'load s':>7}")
    base = rows[2][1][0]
    for name, (tg, disp, layer, mem, load) in rows:
        print(f"{name:<11} {tg:8.2f} {tg / base:8.2f} {disp:10d} {layer / args.layers:9.1f} {mem / 2**20:7.1f} {load:7.2f}")


if __name__ == "__main__":
    main()
