"""Tiny random Llama GGUFs for robustness tests, written in seconds by
bench/make_llama1b_gguf.py at small shapes, and a rewrite helper that changes
one tensor of a GGUF (to make malformed models)."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import gguf

ROOT = Path(__file__).resolve().parents[2]
SHAPE = ["--hidden", "64", "--layers", "1", "--heads", "2", "--kv-heads", "1", "--ffn", "128",
         "--vocab", "512", "--context", "256"]


def write_tiny_llama(path, seed=0):
    """A 1-layer, hidden-64, vocab-512 random Q4_0 Llama (about 60 KiB)."""
    subprocess.run([sys.executable, str(ROOT / "bench" / "make_llama1b_gguf.py"), str(path), "--seed", str(seed),
                    *SHAPE], check=True, capture_output=True)
    return path


def rewrite(src, dst, tensor_name, change):
    """Copies GGUF `src` to `dst` with every key and tensor, except that
    `change(raw_bytes, numpy_shape, qtype)` returns (bytes, numpy_shape) for
    tensor `tensor_name`."""
    r = gguf.GGUFReader(str(src))
    w = gguf.GGUFWriter(str(dst), r.fields["general.architecture"].contents())
    for name, field in r.fields.items():
        if name.startswith("GGUF.") or name == "general.architecture":
            continue
        vtype = field.types[0]
        if vtype == gguf.GGUFValueType.ARRAY:
            w.add_key_value(name, field.contents(), vtype, sub_type=field.types[-1])
        else:
            w.add_key_value(name, field.contents(), vtype)
    for t in r.tensors:
        data = np.asarray(t.data)
        shape = tuple(int(d) for d in reversed(t.shape))  # numpy order: rows first
        raw = data.tobytes()
        if t.name == tensor_name:
            raw, shape = change(raw, shape, t.tensor_type)
        byte_shape = gguf.quants.quant_shape_to_byte_shape(shape, t.tensor_type)
        w.add_tensor(t.name, np.frombuffer(raw, dtype=np.uint8).reshape(byte_shape), raw_shape=byte_shape,
                     raw_dtype=t.tensor_type)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return dst
