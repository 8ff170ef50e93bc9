"""Tiny random Llama GGUFs for tests that need a model quickly (the server
tests, the CLI robustness tests, the soak), and a rewrite helper that changes
one tensor of a GGUF (to make malformed models).

One module shared by tests/e2e, tests/server and tests/soak: they put
tests/support on sys.path and import `tiny_gguf` (a name no test folder uses,
since pytest imports all test folders in one process).

The model: dim 64, F32 (or Q4_0) weights, a byte-level BPE vocabulary of
printable ASCII (so every generated token decodes to valid UTF-8 and text
compares exactly), a few merges and ChatML's special tokens (<|im_end|> is
its end of sequence). Its text is gibberish; tests check that wgrt passes it
through consistently. Deterministic for a given seed."""
from pathlib import Path

import gguf
import numpy as np

HIDDEN, HEADS, KV_HEADS, FFN = 64, 4, 2, 128


def _byte_symbol(b: int) -> str:
    # GPT-2's printable stand-in for a byte; printable ASCII maps to itself.
    assert 0x21 <= b <= 0x7E or b in (0x20, 0x0A)
    if 0x21 <= b <= 0x7E:
        return chr(b)
    return {0x20: "\u0120", 0x0A: "\u010a"}[b]  # space -> 'Ġ', newline -> 'Ċ'


def _vocab():
    tokens = [_byte_symbol(b) for b in [0x0A, 0x20] + list(range(0x21, 0x7F))]
    merges = []
    for a in "Ġetaoinsh":
        for b in "etaoinshrdl":
            tokens.append(a + b)
            merges.append(f"{a} {b}")
    specials = ["<|im_start|>", "<|im_end|>", "<|endoftext|>"]
    types = [gguf.TokenType.NORMAL] * len(tokens) + [gguf.TokenType.CONTROL] * len(specials)
    return tokens + specials, types, merges


def write_tiny_llama(path: Path, seed: int = 0, *, layers: int = 2, context: int = 4096,
                     qtype: gguf.GGMLQuantizationType = gguf.GGMLQuantizationType.F32,
                     chat_template: str | None = None) -> Path:
    """Writes the model to `path` (about 0.3 MiB at F32, 2 layers). `qtype`
    (F32, or a type `gguf.quants.quantize` writes, e.g. Q4_0) applies to the
    matrices; norms stay F32. `chat_template`: Jinja source stored as
    tokenizer.chat_template (none: wgrt's built-in ChatML)."""
    rng = np.random.default_rng(seed)
    tokens, types, merges = _vocab()
    vocab = len(tokens)
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("wgrt tiny random llama (tests)")
    w.add_context_length(context)
    w.add_embedding_length(HIDDEN)
    w.add_block_count(layers)
    w.add_feed_forward_length(FFN)
    w.add_head_count(HEADS)
    w.add_head_count_kv(KV_HEADS)
    w.add_rope_dimension_count(HIDDEN // HEADS)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(vocab)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_bos_token_id(tokens.index("<|endoftext|>"))
    w.add_eos_token_id(tokens.index("<|im_end|>"))
    w.add_add_bos_token(False)
    if chat_template is not None:
        w.add_chat_template(chat_template)

    def matrix(name, rows, cols, std):
        data = (std * rng.standard_normal((rows, cols))).astype(np.float32)
        if qtype == gguf.GGMLQuantizationType.F32:
            w.add_tensor(name, data)
        else:
            w.add_tensor(name, gguf.quants.quantize(data, qtype), raw_dtype=qtype)

    hd = HIDDEN // HEADS
    # Large-ish embeddings make the logits peaked enough for sampling to vary with the seed.
    matrix("token_embd.weight", vocab, HIDDEN, 1.0)
    w.add_tensor("output_norm.weight", np.ones(HIDDEN, dtype=np.float32))
    matrix("output.weight", vocab, HIDDEN, 0.5)
    for i in range(layers):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", np.ones(HIDDEN, dtype=np.float32))
        matrix(p + "attn_q.weight", HEADS * hd, HIDDEN, 0.2)
        matrix(p + "attn_k.weight", KV_HEADS * hd, HIDDEN, 0.2)
        matrix(p + "attn_v.weight", KV_HEADS * hd, HIDDEN, 0.2)
        matrix(p + "attn_output.weight", HIDDEN, HEADS * hd, 0.2)
        w.add_tensor(p + "ffn_norm.weight", np.ones(HIDDEN, dtype=np.float32))
        matrix(p + "ffn_gate.weight", FFN, HIDDEN, 0.2)
        matrix(p + "ffn_up.weight", FFN, HIDDEN, 0.2)
        matrix(p + "ffn_down.weight", HIDDEN, FFN, 0.2)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
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


if __name__ == "__main__":
    import sys
    print(write_tiny_llama(Path(sys.argv[1])))
