"""A tiny random Llama GGUF for fast server tests: 2 layers, dim 64, F32
weights, a byte-level BPE vocabulary of printable ASCII (so every generated
token decodes to valid UTF-8 and text compares exactly), a few merges and
ChatML's special tokens (<|im_end|> is its end of sequence). Its text is
gibberish; what the tests check is that the server passes it through exactly
as `wgrt generate` produces it. Deterministic for a given seed."""
from pathlib import Path

import gguf
import numpy as np

HIDDEN, LAYERS, HEADS, KV_HEADS, FFN = 64, 2, 4, 2, 128
CONTEXT = 4096


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


def write_tiny_gguf(path: Path, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    tokens, types, merges = _vocab()
    vocab = len(tokens)
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("wgrt tiny random llama (server tests)")
    w.add_context_length(CONTEXT)
    w.add_embedding_length(HIDDEN)
    w.add_block_count(LAYERS)
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

    def weight(rows, cols, std):
        w_ = (std * rng.standard_normal((rows, cols))).astype(np.float32)
        return w_

    hd = HIDDEN // HEADS
    # Large-ish embeddings make the logits peaked enough for sampling to vary with the seed.
    w.add_tensor("token_embd.weight", weight(vocab, HIDDEN, 1.0))
    w.add_tensor("output_norm.weight", np.ones(HIDDEN, dtype=np.float32))
    w.add_tensor("output.weight", weight(vocab, HIDDEN, 0.5))
    for i in range(LAYERS):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", np.ones(HIDDEN, dtype=np.float32))
        w.add_tensor(p + "attn_q.weight", weight(HEADS * hd, HIDDEN, 0.2))
        w.add_tensor(p + "attn_k.weight", weight(KV_HEADS * hd, HIDDEN, 0.2))
        w.add_tensor(p + "attn_v.weight", weight(KV_HEADS * hd, HIDDEN, 0.2))
        w.add_tensor(p + "attn_output.weight", weight(HIDDEN, HEADS * hd, 0.2))
        w.add_tensor(p + "ffn_norm.weight", np.ones(HIDDEN, dtype=np.float32))
        w.add_tensor(p + "ffn_gate.weight", weight(FFN, HIDDEN, 0.2))
        w.add_tensor(p + "ffn_up.weight", weight(FFN, HIDDEN, 0.2))
        w.add_tensor(p + "ffn_down.weight", weight(HIDDEN, FFN, 0.2))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


if __name__ == "__main__":
    import sys
    print(write_tiny_gguf(Path(sys.argv[1])))
