"""The engine reads no environment variable: every tuning switch is a field
of wgrt::Tuning (include/wgrt/tuning.h) carried by LoadOptions, and the
WGRT_* variables are mapped onto it in one place (src/cli/environment.cpp),
which only the entry points compile in: the CLI, the Python module, the
ExecuTorch backend and the test harness. This scans every C++ source of the
library (src/ but the CLI, include/) for a read of the environment."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
READS = re.compile(r"\b(getenv|secure_getenv|environ)\b")
ENTRY_POINTS = [ROOT / "src" / "cli"]


def _library_sources():
    for folder in (ROOT / "src", ROOT / "include"):
        for path in sorted(folder.rglob("*")):
            if path.suffix not in (".cpp", ".h", ".hpp", ".cc"):
                continue
            if any(e in path.parents for e in ENTRY_POINTS):
                continue
            yield path


def test_the_library_reads_no_environment():
    offenders = []
    for path in _library_sources():
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("//", 1)[0]
            if READS.search(code):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, "environment read inside the library:\n" + "\n".join(offenders)


def test_the_scan_sees_the_library():
    files = list(_library_sources())
    assert len(files) > 200, len(files)
    assert ROOT / "src" / "ops" / "linear" / "gemm.cpp" in files
