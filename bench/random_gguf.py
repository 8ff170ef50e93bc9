#!/usr/bin/env python3
"""Random-weight copies of GGUF models, for benchmarks on machines the model
file cannot travel to (the device tool carries 64 MiB a call).

  skeleton SRC.gguf OUT.skel.gguf
      Writes every key/value of SRC (tokenizer included) and, under the key
      'bench.tensors', the list of SRC's tensors (name, type, shape) as JSON,
      but no tensor data: a few MiB.
  fill OUT.skel.gguf OUT.gguf [--seed 0] [--weight-std 0.02]
      Writes a GGUF with the skeleton's keys and tensors of the same types and
      shapes holding random data: quantized blocks with random quants and small
      positive f16 scales (Q4_0, Q4_1, Q8_0, Q4_K, Q5_K, Q6_K), norms ('*norm*') as ones, other
      F32/F16 tensors as small normal values.

Kernel speed does not depend on the weights' values, so a filled copy times
like the original (its text is gibberish).
"""
import argparse
import json
import sys
import time

import numpy as np
import gguf

T = gguf.GGMLQuantizationType


def random_blocks(rng, qtype, rows, cols, std=0.02):
    """Random data for a [rows, cols] tensor of `qtype` as the array GGUFWriter
    takes: (rows, bytes per row) uint8 for quantized types, (rows, cols) else."""
    if qtype == T.F32:
        return (std * rng.standard_normal((rows, cols), dtype=np.float32)).astype(np.float32)
    if qtype == T.F16:
        return (std * rng.standard_normal((rows, cols), dtype=np.float32)).astype(np.float16)
    block, size = gguf.GGML_QUANT_SIZES[qtype]
    assert cols % block == 0, (qtype, cols)
    nb = cols // block
    data = rng.integers(0, 256, size=(rows, nb, size), dtype=np.uint8)
    u = 0.5 + rng.random((rows, nb), dtype=np.float32)  # scale jitter in [0.5, 1.5)
    if qtype == T.Q4_0:      # d, 16 bytes of nibbles: w = (q - 8) d, std ~ 4.6 d
        d = (std / 4.6 * u).astype(np.float16)
        data[:, :, 0:2] = d.view(np.uint8).reshape(rows, nb, 2)
    elif qtype == T.Q4_1:    # d, m, 16 bytes of nibbles: w = q d + m
        d = (std / 4.6 * u).astype(np.float16)
        m = (-7.5 * d.astype(np.float32)).astype(np.float16)
        data[:, :, 0:2] = d.view(np.uint8).reshape(rows, nb, 2)
        data[:, :, 2:4] = m.view(np.uint8).reshape(rows, nb, 2)
    elif qtype == T.Q8_0:    # d, 32 int8: std ~ 74 d
        d = (std / 74.0 * u).astype(np.float16)
        data[:, :, 0:2] = d.view(np.uint8).reshape(rows, nb, 2)
    elif qtype == T.Q4_K:    # d, dmin, 12 B of 6-bit scales and mins, 128 B of nibbles: w = d s q - dmin m
        d = (std / (4.6 * 32.0) * u).astype(np.float16)
        dmin = (std / (32.0 * 32.0) * u).astype(np.float16)
        data[:, :, 0:2] = d.view(np.uint8).reshape(rows, nb, 2)
        data[:, :, 2:4] = dmin.view(np.uint8).reshape(rows, nb, 2)
    elif qtype == T.Q5_K:    # d, dmin, 12 B of scales and mins, 32 B of fifth bits, 128 B of nibbles: q in 0..31
        d = (std / (9.2 * 32.0) * u).astype(np.float16)
        dmin = (std / (32.0 * 32.0) * u).astype(np.float16)
        data[:, :, 0:2] = d.view(np.uint8).reshape(rows, nb, 2)
        data[:, :, 2:4] = dmin.view(np.uint8).reshape(rows, nb, 2)
    elif qtype == T.Q6_K:    # 128 B low bits, 64 B high bits, 16 int8 scales, d: w = d s (q - 32), std ~ 18.5 d s
        s = rng.integers(8, 16, size=(rows, nb, 16), dtype=np.int8)
        data[:, :, 192:208] = s.view(np.uint8)
        d = (std / (18.5 * 12.0) * u).astype(np.float16)
        data[:, :, 208:210] = d.view(np.uint8).reshape(rows, nb, 2)
    else:
        raise SystemExit(f"random_gguf: no random blocks for {qtype.name} yet")
    return data.reshape(rows, nb * size)


def add_random_tensor(w, rng, name, qtype, ne, std=0.02):
    """Adds tensor `name` with GGUF dims `ne` (innermost first)."""
    cols = int(ne[0])
    rows = int(np.prod(ne[1:])) if len(ne) > 1 else 1
    shape = tuple(int(x) for x in reversed(ne))  # numpy order
    if "norm" in name and qtype == T.F32:
        arr = np.ones(shape, dtype=np.float32)
        w.add_tensor(name, arr)
        return
    arr = random_blocks(rng, qtype, rows, cols, std)
    if qtype in (T.F32, T.F16):
        w.add_tensor(name, arr.reshape(shape))
    else:
        w.add_tensor(name, arr.reshape(*shape[:-1], arr.shape[-1]), raw_dtype=qtype)


def copy_fields(reader, w):
    for key, f in reader.fields.items():
        if key.startswith("GGUF.") or key == "general.architecture" or key == "bench.tensors":
            continue
        vtype = gguf.GGUFValueType(f.types[0])
        sub = gguf.GGUFValueType(f.types[-1]) if vtype == gguf.GGUFValueType.ARRAY else None
        w.add_key_value(key, f.contents(), vtype, sub_type=sub)


def skeleton(src, out):
    r = gguf.GGUFReader(src)
    arch = r.fields["general.architecture"].contents()
    w = gguf.GGUFWriter(out, arch)
    copy_fields(r, w)
    tensors = [{"name": t.name, "type": t.tensor_type.name, "ne": [int(x) for x in t.shape]} for t in r.tensors]
    w.add_string("bench.tensors", json.dumps(tensors))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def fill(skel, out, seed, std):
    r = gguf.GGUFReader(skel)
    arch = r.fields["general.architecture"].contents()
    tensors = json.loads(r.fields["bench.tensors"].contents())
    w = gguf.GGUFWriter(out, arch)
    copy_fields(r, w)
    rng = np.random.default_rng(seed)
    for t in tensors:
        add_random_tensor(w, rng, t["name"], T[t["type"]], t["ne"], std)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("skeleton")
    s.add_argument("src")
    s.add_argument("out")
    f = sub.add_parser("fill")
    f.add_argument("skel")
    f.add_argument("out")
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--weight-std", type=float, default=0.02)
    a = ap.parse_args()
    t0 = time.time()
    if a.cmd == "skeleton":
        skeleton(a.src, a.out)
    else:
        fill(a.skel, a.out, a.seed, a.weight_std)
    print(f"wrote {a.out} in {time.time() - t0:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
