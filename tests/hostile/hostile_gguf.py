"""Hostile mutants of a small Llama GGUF for tests/hostile/campaign.py: each a
valid file (it parses) whose values are not: NaN and inf weights, metadata
that disagrees with the tensors, zero, NaN or huge hyperparameters."""
import pathlib

import gguf
import numpy as np

T = gguf.GGMLQuantizationType
V = gguf.GGUFValueType
F16_NAN = np.array([0x7E00], dtype=np.uint16).view(np.uint8)
F16_INF = np.array([0x7C00], dtype=np.uint16).view(np.uint8)


def poison_f32(name, value, index=0):
    def edit(tname, data):
        if tname != name:
            return data
        out = np.array(data, copy=True)
        out.reshape(-1)[index % out.size] = value
        return out
    return edit


def poison_block_scale(name, scale_bytes, block=0):
    """The f16 scale that opens a Q4_0 block (2 bytes of its 18)."""
    def edit(tname, data):
        if tname != name:
            return data
        out = np.array(data, copy=True)
        flat = out.reshape(-1)
        flat[block * 18:block * 18 + 2] = scale_bytes
        return out
    return edit


def every_f32(value):
    def edit(tname, data):
        if data.dtype != np.float32:
            return data
        return np.full_like(data, value)
    return edit


# tag -> (metadata overrides {key: (value, type)}, tensor edit or None)
MUTANTS = {
    "nan_output_norm": ({}, poison_f32("output_norm.weight", np.nan, 5)),
    "inf_attn_norm": ({}, poison_f32("blk.0.attn_norm.weight", np.inf, 0)),
    "all_norms_nan": ({}, every_f32(np.nan)),
    "nan_scale_embd": ({}, poison_block_scale("token_embd.weight", F16_NAN, 0)),
    "inf_scale_q": ({}, poison_block_scale("blk.0.attn_q.weight", F16_INF, 3)),
    "inf_scale_down": ({}, poison_block_scale("blk.0.ffn_down.weight", F16_INF, 1)),
    "nan_rope_freqs": ({}, poison_f32("rope_freqs.weight", np.nan, 2)),
    "huge_embedding_length": ({"llama.embedding_length": (2**31, V.UINT32)}, None),
    "zero_embedding_length": ({"llama.embedding_length": (0, V.UINT32)}, None),
    "zero_heads": ({"llama.attention.head_count": (0, V.UINT32)}, None),
    "zero_kv_heads": ({"llama.attention.head_count_kv": (0, V.UINT32)}, None),
    "kv_heads_3": ({"llama.attention.head_count_kv": (3, V.UINT32)}, None),
    "huge_heads": ({"llama.attention.head_count": (2**32 - 1, V.UINT32)}, None),
    "zero_context": ({"llama.context_length": (0, V.UINT32)}, None),
    "huge_context": ({"llama.context_length": (2**32 - 1, V.UINT32)}, None),
    "huge_blocks": ({"llama.block_count": (1_000_000_000, V.UINT32)}, None),
    "zero_blocks": ({"llama.block_count": (0, V.UINT32)}, None),
    "zero_ffn": ({"llama.feed_forward_length": (0, V.UINT32)}, None),
    "huge_rope_dims": ({"llama.rope.dimension_count": (2**31, V.UINT32)}, None),
    "odd_rope_dims": ({"llama.rope.dimension_count": (31, V.UINT32)}, None),
    "nan_rope_base": ({"llama.rope.freq_base": (float("nan"), V.FLOAT32)}, None),
    "zero_rope_base": ({"llama.rope.freq_base": (0.0, V.FLOAT32)}, None),
    "inf_rope_base": ({"llama.rope.freq_base": (float("inf"), V.FLOAT32)}, None),
    "nan_eps": ({"llama.attention.layer_norm_rms_epsilon": (float("nan"), V.FLOAT32)}, None),
    "negative_eps": ({"llama.attention.layer_norm_rms_epsilon": (-1.0, V.FLOAT32)}, None),
    "huge_vocab_size": ({"llama.vocab_size": (2**31, V.UINT32)}, None),
    "small_vocab_size": ({"llama.vocab_size": (3, V.UINT32)}, None),
    "bos_out_of_range": ({"tokenizer.ggml.bos_token_id": (2**31, V.UINT32)}, None),
    "eos_out_of_range": ({"tokenizer.ggml.eos_token_id": (999999, V.UINT32)}, None),
}


def write_mutant(src, out, overrides, edit):
    r = gguf.GGUFReader(src)
    w = gguf.GGUFWriter(str(out), r.fields["general.architecture"].contents())
    for key, f in r.fields.items():
        if key.startswith("GGUF.") or key == "general.architecture":
            continue
        if key in overrides:
            value, vtype = overrides[key]
            w.add_key_value(key, value, vtype)
            continue
        vtype = V(f.types[0])
        sub = V(f.types[-1]) if vtype == V.ARRAY else None
        w.add_key_value(key, f.contents(), vtype, sub_type=sub)
    for t in r.tensors:
        data = edit(t.name, t.data) if edit else t.data
        if t.tensor_type == T.F32:
            w.add_tensor(t.name, np.asarray(data, dtype=np.float32).reshape([int(x) for x in reversed(t.shape)]))
        else:
            w.add_tensor(t.name, np.asarray(data), raw_dtype=t.tensor_type)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def write_mutants(src, out_dir):
    """Yields (tag, path) for each mutant, written under out_dir."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for tag, (overrides, edit) in MUTANTS.items():
        path = out_dir / f"{tag}.gguf"
        write_mutant(src, path, overrides, edit)
        yield tag, path
