"""Rules of the tree that review alone keeps breaking, checked on every run:

- the LLM layer is a client of the graph: src/llm/ records no dispatch (its
  sampler is the op at the graph's tail, ops/sampling/sample_tokens.cpp; llm/
  only names the rows a pass draws and copies results into readback rings);
- no source file of the library passes 600 lines, no C++ function 80.

Each scanner is also run on a snippet that breaks its rule, so a scanner
that stopped seeing anything fails too."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80

# Recording compute work: a dispatch, the sampler's own step recorders, or a
# sampler made outside the graph. Copies (record_copy, batch.copy) are allowed.
RECORDS_WORK = re.compile(
    r"\.dispatch\(|(\.|->)record(_batch|_penalty)?\(|\bGpuSampler\s+\w+\s*\(|make_(unique|shared)<ops::GpuSampler>")


def _code(line):
    return line.split("//", 1)[0]


def _sources(*folders, suffixes=(".cpp", ".h")):
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in suffixes:
                yield path


def dispatch_records(text):
    return [n for n, line in enumerate(text.splitlines(), 1) if RECORDS_WORK.search(_code(line))]


# A function body: a line at column 0 that ends in "{" and is not a
# namespace, type or initializer, closed by the next line starting with "}"
# (the tree's style: nothing inside a namespace is indented).
_BODY_START = re.compile(r"^(?!namespace\b|struct\b|class\b|enum\b|union\b|extern\b|#|//|\s).*\)[^;]*\{\s*$")


def long_functions(text, limit=MAX_FUNCTION_LINES):
    lines = text.splitlines()
    found, i = [], 0
    while i < len(lines):
        if _BODY_START.match(lines[i]) and not re.search(r"=\s*\{\s*$", lines[i]):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("}"):
                j += 1
            if j - i - 1 > limit:
                found.append((i + 1, j - i - 1, lines[i].strip()))
            i = j
        i += 1
    return found


def test_llm_records_no_dispatch():
    offenders = []
    for path in _sources("src/llm"):
        for n in dispatch_records(path.read_text()):
            offenders.append(f"{path.relative_to(ROOT)}:{n}")
    assert not offenders, "src/llm/ records GPU work itself (sampling is the graph's tail op):\n" + "\n".join(offenders)


def test_the_dispatch_scan_sees_recording():
    assert dispatch_records("  batch.dispatch(*p, g, {1, 1, 1});") == [1]
    assert dispatch_records("x;\n  sampler_.record(batch, rows);") == [2]
    assert dispatch_records("  ops::GpuSampler sampler(device, logits, tokens, vocab);") == [1]
    assert dispatch_records("  ring_.record_copy(batch, model_.token_buffer(), 0, slot);") == []
    assert len(list(_sources("src/llm"))) > 20


def test_no_file_passes_600_lines():
    long_files = []
    for path in _sources("src", "include", "python", suffixes=(".cpp", ".h", ".wgsl")):
        n = len(path.read_text().splitlines())
        if n > MAX_FILE_LINES:
            long_files.append(f"{path.relative_to(ROOT)}: {n} lines")
    assert not long_files, "\n".join(long_files)


def test_no_function_passes_80_lines():
    found = []
    for path in _sources("src", "python"):
        for line, length, head in long_functions(path.read_text()):
            found.append(f"{path.relative_to(ROOT)}:{line}: {length} lines: {head}")
    assert not found, "\n".join(found)


def test_the_function_scan_measures_bodies():
    body = "\n".join(f"  x += {i};" for i in range(81))
    text = f"namespace wgrt {{\n\nint f(int x) {{\n{body}\n  return x;\n}}\n\n}}  // namespace wgrt\n"
    assert [(n, length) for n, length, _ in long_functions(text)] == [(3, 82)]
    short = "int g(int x) {\n  return x;\n}\nconst int table[] = {\n" + body + "\n};\n"
    assert long_functions(short) == []
