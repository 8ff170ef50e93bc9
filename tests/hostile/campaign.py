#!/usr/bin/env python3
"""Runs small valid-but-hostile programs and models with the shader checks off
(wgrt's default) and on (WGRT_SHADER_CHECKS=all), and compares (issue 36,
item 5; ARCHITECTURE.md, "Threat model").

Cases:
  - every .pte fixture with a JSON description (tests/fixtures/pte/**), its
    inputs made hostile: integer inputs out of every table's range within
    int32 (they reach the kernels) and at their dtype's extremes, float
    inputs with NaN, +-inf and 3e38, or all NaN;
  - the tiny Llama GGUF fixture, mutated: NaN and inf weights (an f32 norm,
    the f16 scale of a Q4_0 block), metadata that disagrees with the tensors
    or is zero, NaN or huge; and prompts of out-of-range token ids; each
    generated greedily and sampled, on the GPU and on the CPU.

Each case runs twice, in its own process, with a 60 s limit. A case passes
when neither run crashed (a signal, a sanitizer-style abort) nor hung, and
the two agree: both ran with equal outputs (NaN where the other has NaN), or
both ended in an error. Anything else is a finding, printed with the command
that reproduces it. The summary line gives the counts; exit status 1 on any
finding.

Usage: tests/hostile/campaign.py [--wgrt build/wgrt] [--only pte|gguf]
       [--max-cases N] [--seed S] [--work DIR]
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
TIMEOUT_S = 60

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hostile_gguf  # noqa: E402


class Outcome:
    def __init__(self, kind, detail="", outputs=None):
        self.kind = kind  # "ok", "error", "crash", "hang"
        self.detail = detail
        self.outputs = outputs or []


def run_once(argv, env_extra, out_dir, keep_stdout):
    env = dict(os.environ)
    env.pop("WGRT_SHADER_CHECKS", None)
    env.update(env_extra)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    argv = [a.replace("{OUT}", str(out_dir)) for a in argv]
    try:
        p = subprocess.run(argv, env=env, capture_output=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return Outcome("hang", f"no answer in {TIMEOUT_S} s")
    err = p.stderr.decode(errors="replace").strip()
    if p.returncode < 0 or p.returncode >= 128:
        return Outcome("crash", f"exit status {p.returncode}: {err[-400:]}")
    if p.returncode != 0:
        # A clear error names what was wrong: one line at least.
        return Outcome("error" if err else "crash", err.splitlines()[-1] if err else "exit 1 with no message")
    outputs = [np.load(f, allow_pickle=False) for f in sorted(out_dir.glob("*.npy"))]
    if keep_stdout:  # generated text (a .pte run prints timings there)
        outputs.append(p.stdout.decode(errors="replace"))
    return Outcome("ok", outputs=outputs)


def same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def judge(off, on):
    for o, mode in ((off, "checks off"), (on, "checks on")):
        if o.kind in ("crash", "hang"):
            return f"{o.kind} with {mode}: {o.detail}"
    if off.kind != on.kind:
        return f"checks off {off.kind} ({off.detail}), checks on {on.kind} ({on.detail})"
    if off.kind == "ok":
        if len(off.outputs) != len(on.outputs):
            return "different numbers of outputs"
        for i, (a, b) in enumerate(zip(off.outputs, on.outputs)):
            if not same(a, b):
                return f"output {i} differs between checks off and on"
    return None


# ---- .pte cases -------------------------------------------------------------

def hostile_int(dtype, shape, rng, extremes):
    """Ids no table holds: with `extremes`, the dtype's own (an int64 past
    int32 is refused before the GPU); else within int32, so they reach the
    kernels: negative, just past a table, far past any."""
    info = np.iinfo(dtype)
    if extremes:
        picks = [info.max, info.min]
    else:
        picks = [-1, -7, 1 << 16, (1 << 16) + 1, 1 << 24, 2**31 - 1, -(2**31)]
    picks = np.clip(np.array(picks, dtype=np.int64), info.min, info.max)
    return rng.choice(picks, size=shape).astype(dtype)


def hostile_float(dtype, shape, rng, base):
    x = base.astype(dtype, copy=True) if base is not None else rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    if flat.size:
        for v in (np.nan, np.inf, -np.inf, 3e38):
            flat[rng.integers(0, flat.size)] = v
    return x


def pte_cases(rng):
    for desc in sorted(FIXTURES.glob("pte/**/*.json")):
        try:
            d = json.loads(desc.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if not isinstance(d, dict) or "pte" not in d or "methods" not in d:
            continue
        pte = desc.parent / d["pte"]
        ptd = [desc.parent / p for p in d.get("ptd", [])]
        for method, m in d["methods"].items():
            cases = m.get("cases") or []
            if not cases:
                continue
            inputs = cases[0].get("inputs", [])
            if not inputs or any("file" not in i for i in inputs):
                continue
            yield from pte_variants(desc.stem, pte, ptd, method, inputs, rng)


def pte_variants(name, pte, ptd, method, inputs, rng):
    base = [np.load(desc_dir_file(pte, i["file"]), allow_pickle=False) for i in inputs]
    ints = [k for k, a in enumerate(base) if a.dtype.kind in "iu"]
    floats = [k for k, a in enumerate(base) if a.dtype.kind == "f"]
    variants = []
    if ints:
        variants.append(("ids", {k: hostile_int(base[k].dtype, base[k].shape, rng, False) for k in ints}))
        variants.append(("id_extremes", {k: hostile_int(base[k].dtype, base[k].shape, rng, True) for k in ints}))
    if floats:
        variants.append(("nan_inf", {k: hostile_float(base[k].dtype, base[k].shape, rng, base[k]) for k in floats}))
        variants.append(("all_nan", {k: np.full(base[k].shape, np.nan, base[k].dtype) for k in floats}))
    for tag, repl in variants:
        arrays = [repl.get(k, a) for k, a in enumerate(base)]
        yield (f"pte/{name}/{method}/{tag}", "pte", (pte, ptd, method, arrays))


def desc_dir_file(pte, f):
    return pte.parent / f


def pte_argv(wgrt, work, spec):
    pte, ptd, method, arrays = spec
    argv = [str(wgrt), "run", str(pte), "--method", method, "--output-dir", "{OUT}"]
    for p in ptd:
        argv += ["--ptd", str(p)]
    for k, a in enumerate(arrays):
        path = work / f"in{k}.npy"
        np.save(path, a)
        argv += ["--input", str(path)]
    return argv


# ---- GGUF cases -------------------------------------------------------------

def gguf_cases(work):
    src = FIXTURES / "gguf" / "tiny_llama_q4_0.gguf"
    modes = (("greedy", ["--temp", "0"]), ("sampled", ["--temp", "0.8", "--seed", "3"]),
             ("cpu", ["--temp", "0.8", "--seed", "3", "--cpu-sampling"]))
    for tag, path in hostile_gguf.write_mutants(src, work / "gguf"):
        # Bad weights reach the kernels and the sampler in every mode; bad
        # metadata is met at load, the same in each.
        for mode, extra in modes if hostile_gguf.MUTANTS[tag][1] else modes[:1]:
            yield (f"gguf/{tag}/{mode}", "gguf", (path, ["--prompt-tokens", "1,2,3"] + extra))
    for ids in ("100000", "2147483647", "-1", "1,2,99999999999"):
        yield (f"gguf/prompt_ids[{ids}]", "gguf", (src, ["--prompt-tokens", ids, "--temp", "0"]))


def gguf_argv(wgrt, spec):
    path, extra = spec
    argv = [str(wgrt), "generate", "--model", str(path), "-n", "4", "--ignore-eos", "--quiet", "--ctx", "64"]
    # The logits are compared where they are read back anyway (reading them
    # would take the GPU-sampled modes off the GPU); the text everywhere.
    if "--cpu-sampling" in extra:
        argv += ["--dump-logits", "{OUT}/logits.npy"]
    return argv + extra


def warm_up(wgrt, work):
    """Compiles the kernels once per mode (with the checks on, lavapipe's
    first compile of a model's kernels can take longer than a case's limit;
    Mesa's shader cache keeps them for the cases)."""
    gguf = FIXTURES / "gguf" / "tiny_llama_q4_0.gguf"
    for checks in ("none", "all"):
        env = dict(os.environ, WGRT_SHADER_CHECKS=checks)
        for extra in (["--temp", "0"], ["--temp", "0.8", "--cpu-sampling"]):
            subprocess.run([str(wgrt), "generate", "--model", str(gguf), "-n", "2", "--ctx", "64", "--quiet",
                            "--prompt-tokens", "1,2"] + extra, env=env, capture_output=True, timeout=900)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wgrt", default=str(ROOT / "build" / "wgrt"))
    ap.add_argument("--only", choices=["pte", "gguf"])
    ap.add_argument("--max-cases", type=int, default=0, help="stop after N cases (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", help="keep inputs and outputs here (default: a temporary directory)")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    work = pathlib.Path(a.work or tempfile.mkdtemp(prefix="wgrt-hostile-"))
    work.mkdir(parents=True, exist_ok=True)
    gens = []
    if a.only in (None, "gguf"):
        gens.append(gguf_cases(work))
    if a.only in (None, "pte"):
        gens.append(pte_cases(rng))
    warm_up(a.wgrt, work)
    counts = {"ok": 0, "error": 0, "finding": 0}
    findings = []
    t0 = time.time()
    n = 0
    for gen in gens:
        for name, kind, spec in gen:
            if a.max_cases and n >= a.max_cases:
                break
            n += 1
            case_dir = work / f"case{n}"
            case_dir.mkdir(exist_ok=True)
            argv = pte_argv(a.wgrt, case_dir, spec) if kind == "pte" else gguf_argv(a.wgrt, spec)
            off = run_once(argv, {}, case_dir / "off", kind == "gguf")
            on = run_once(argv, {"WGRT_SHADER_CHECKS": "all"}, case_dir / "on", kind == "gguf")
            verdict = judge(off, on)
            if verdict:
                counts["finding"] += 1
                findings.append((name, verdict, argv))
                print(f"FINDING {name}: {verdict}\n  {' '.join(argv)}", flush=True)
            else:
                counts[off.kind] += 1
                print(f"{off.kind:5} {name}" + (f": {off.detail}" if off.kind == "error" else ""), flush=True)
    print(f"\n{n} cases in {time.time() - t0:.0f} s: {counts['ok']} ran alike with checks off and on, "
          f"{counts['error']} ended in a clear error both ways, {counts['finding']} findings")
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
