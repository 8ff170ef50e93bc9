"""The wgrt command line (CLI11, src/cli/command_line.h): every subcommand's
--help lists each of its options; bad values, unknown options and missing
arguments are clear InvalidArgument errors naming the option; --name=VALUE
works and a repeated option keeps its last value, except repeatable ones."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))  # not only when tests/server/conftest.py ran first
from tiny_gguf import write_tiny_llama  # noqa: E402

WGRT = Path(os.environ.get("WGRT_BIN", ROOT / "build" / "wgrt"))

# Every option each subcommand had before CLI11, spelled the same.
OPTIONS = {
    "generate": ["--model", "--tokenizer", "-n", "--temp", "--top-k", "--top-p", "--min-p", "--repeat-penalty",
                 "--presence-penalty", "--frequency-penalty", "--json", "--json-schema",
                 "--seed", "--stop", "--in-flight", "--cpu-sampling", "--ctx", "--chunk", "--chat", "--system",
                 "--file", "--quiet", "--prompt-tokens", "--dump-logits", "--print-token-ids", "--ignore-eos",
                 "--devices"],
    "run": ["--ptd", "--method", "--input", "--output-dir", "--repeat", "--profile", "--seed"],
    "inspect": ["--ptd"],
    "bench": ["--model", "-p", "-n", "-r", "--tg-prefill", "--max-seconds", "--warmup-seconds", "--ctx", "--seed", "--in-flight", "--ab",
              "--cpu-sampling", "--profile", "--top", "--json", "--devices"],
    "serve": ["--model", "--tokenizer", "--host", "--port", "--ctx", "--chunk", "--parallel", "--queue", "--quiet",
              "--api-key", "--max-body", "--timeout", "--max-connections", "--cors", "--devices"],
    "info": [],
    "ops": [],
}
for _options in OPTIONS.values():
    _options.append("--limits")  # every command (command_line.cpp)


def wgrt(*args, timeout=300):
    return subprocess.run([str(WGRT), *map(str, args)], capture_output=True, text=True, errors="replace",
                          timeout=timeout)


@pytest.mark.parametrize("command", sorted(OPTIONS))
def test_help_lists_every_option(command):
    proc = wgrt(command, "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith("\n")
    for option in OPTIONS[command]:
        assert f" {option}" in proc.stdout or f",{option}" in proc.stdout, (option, proc.stdout)


def test_top_level_help_lists_the_commands():
    proc = wgrt("--help")
    assert proc.returncode == 0
    for command in OPTIONS:
        assert command in proc.stdout
    bare = wgrt()
    assert bare.returncode == 2 and "generate" in bare.stderr
    unknown = wgrt("nosuch")
    assert unknown.returncode == 2 and "nosuch" in unknown.stderr


@pytest.mark.parametrize("args, option", [
    (["generate", "-n", "-1", "hi"], "-n"),
    (["generate", "--temp", "warm", "hi"], "--temp"),
    (["serve", "--port", "70000"], "--port"),
    (["serve", "--queue", "2000"], "--queue"),
    (["bench", "-r", "0"], "-r"),
    (["bench", "--warmup-seconds", "-1"], "--warmup-seconds"),
    (["run", "--repeat", "0", "x.pte"], "--repeat"),
    (["generate", "--no-such-flag", "hi"], "--no-such-flag"),
    (["generate", "hi", "--model"], "--model"),
    (["info", "--limits", "small"], "--limits"),
    (["generate", "--devices", "0,x", "hi"], "--devices"),
    (["generate", "--devices", "-1", "hi"], "--devices"),
])
def test_bad_options_are_named(args, option):
    proc = wgrt(*args)
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert f"wgrt {args[0]}: error (InvalidArgument)" in proc.stderr, proc.stderr
    assert option in proc.stderr, proc.stderr


def test_missing_program_and_extra_arguments_are_errors():
    proc = wgrt("run")
    assert proc.returncode == 1 and "model" in proc.stderr.lower(), proc.stderr
    proc = wgrt("ops", "extra")
    assert proc.returncode == 1 and "extra" in proc.stderr, proc.stderr


def test_equals_form_and_last_value_wins(tmp_path):
    model = write_tiny_llama(tmp_path / "tiny.gguf")
    proc = wgrt("generate", f"--model={model}", "--prompt-tokens=1,2,3", "-n", "7", "-n", "3", "--temp=0",
                "--ignore-eos", "--quiet", "--print-token-ids")
    assert proc.returncode == 0, proc.stderr
    line = [l for l in proc.stderr.splitlines() if l.startswith("token ids:")][0]
    assert len(line.split(":")[1].strip().split(",")) == 3, line


def test_devices_name_adapters_as_info_numbers_them(tmp_path):
    """`wgrt info` numbers the adapters; --devices takes those numbers: one
    puts the whole model there, a repeated or missing one is refused by name
    before anything loads. (Splitting across two devices of one adapter is
    tested in tests/llm/test_layer_split.cpp.)"""
    info = wgrt("info")
    assert info.returncode == 0, info.stderr
    listed = info.stdout.split("adapters (--devices numbers them):\n")[1].splitlines()
    assert listed and listed[0].startswith("  0  "), info.stdout
    model = write_tiny_llama(tmp_path / "tiny.gguf", layers=3)
    common = ["generate", "--model", model, "--prompt-tokens", "1,2,3", "-n", "3", "--temp", "0", "--ignore-eos"]
    one = wgrt(*common, "--devices", "0", "--print-token-ids")
    assert one.returncode == 0, one.stderr
    assert "on " + listed[0].split("  0  ")[1].split(" (")[0] in one.stderr, one.stderr
    plain = wgrt(*common, "--print-token-ids")
    ids = lambda p: [l for l in p.stderr.splitlines() if l.startswith("token ids:")]
    assert ids(one) == ids(plain) and ids(one), (one.stderr, plain.stderr)
    twice = wgrt(*common, "--devices", "0,0")
    assert twice.returncode == 1
    assert "adapter 0 is named twice (entries 0 and 1)" in twice.stderr, twice.stderr
    missing = wgrt(*common, "--devices", str(len(listed)))
    assert missing.returncode == 1
    assert f"no GPU adapter {len(listed)}: this machine has {len(listed)}" in missing.stderr, missing.stderr


def test_limits_mode_is_requested_and_shown_by_info():
    """--limits default asks for WebGPU's default limits and no optional
    feature; WGRT_LIMITS does the same when the option is absent, and the
    option wins over it. An unknown value in the variable is refused naming it."""
    env = {k: v for k, v in os.environ.items() if k != "WGRT_LIMITS"}
    run = lambda *a, **e: subprocess.run([str(WGRT), "info", *a], capture_output=True, text=True,
                                         env={**env, **e}, timeout=120)
    bare = run("--limits", "default")
    assert bare.returncode == 0, bare.stderr
    assert "requested:    --limits default" in bare.stdout
    assert "maxStorageBufferBindingSize:       134217728 (128 MiB)" in bare.stdout
    assert "maxStorageBuffersPerShaderStage:   8\n" in bare.stdout
    for feature in ("shader-f16", "timestamp-query", "subgroups"):
        line = next(l for l in bare.stdout.splitlines() if l.strip().startswith(feature + ":"))
        assert "yes" not in line, line  # offered at most, never enabled
    assert "requested:    --limits default" in run(WGRT_LIMITS="default").stdout
    assert "requested:    --limits adapter" in run().stdout
    assert "requested:    --limits adapter" in run("--limits", "adapter", WGRT_LIMITS="default").stdout
    bad = run(WGRT_LIMITS="small")
    assert bad.returncode == 1
    assert "WGRT_LIMITS: expected adapter or default, got 'small'" in bad.stderr, bad.stderr


def test_environment_maps_onto_the_tuning(tmp_path):
    """The CLI maps the WGRT_* variables onto the library's options
    (src/cli/environment.h): a bad value is refused naming the variable and what
    it accepts; WGRT_DEFAULT_MODEL names the model when --model is absent, and
    must be a file."""
    model = write_tiny_llama(tmp_path / "tiny.gguf")
    env = {k: v for k, v in os.environ.items() if not k.startswith("WGRT_") or k in ("WGRT_LIMITS", "WGRT_REQUIRE_GPU")}
    run = lambda *a, **e: subprocess.run([str(WGRT), *a], capture_output=True, text=True, env={**env, **e}, timeout=300)
    args = ("generate", "--prompt-tokens=1,2,3", "-n", "2", "--temp=0", "--ignore-eos", "--quiet", "--print-token-ids")
    bad = run(*args, "--model", str(model), WGRT_GEMV_ACT="q4")
    assert bad.returncode == 1
    assert "WGRT_GEMV_ACT=q4: expected auto, f32, q8 or q8x2" in bad.stderr, bad.stderr
    out_of_range = run(*args, "--model", str(model), WGRT_SDPA_SPLIT="8")
    assert out_of_range.returncode == 1
    assert "Tuning::sdpa_split: expected 16 or more positions, got 8" in out_of_range.stderr, out_of_range.stderr
    by_env = run(*args, WGRT_DEFAULT_MODEL=str(model))
    assert by_env.returncode == 0, by_env.stderr
    by_option = run(*args, "--model", str(model))
    assert by_env.stderr.splitlines()[-1] == by_option.stderr.splitlines()[-1]  # the same token ids
    missing = run(*args, WGRT_DEFAULT_MODEL=str(tmp_path / "none.gguf"))
    assert missing.returncode == 1
    assert "WGRT_DEFAULT_MODEL is '" in missing.stderr and "which is not a file" in missing.stderr, missing.stderr


def test_structured_output_from_the_command_line(tmp_path):
    """--json-schema FILE holds the reply to the schema (validated here with
    the independent jsonschema package); a keyword outside wgrt's subset is
    refused naming it and the file."""
    import json
    import jsonschema
    model = write_tiny_llama(tmp_path / "tiny.gguf")
    schema = {"type": "object", "properties": {"pick": {"enum": ["yes", "no"]}, "n": {"type": "integer"},
                                               "tag": {"type": "string", "maxLength": 4}},
              "required": ["pick", "n", "tag"], "additionalProperties": False}
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema))
    proc = wgrt("generate", "--model", str(model), "--json-schema", str(path), "-n", "400", "--temp", "0.9",
                "--seed", "4", "--quiet", "--", "Once")
    assert proc.returncode == 0, proc.stderr
    jsonschema.validate(json.loads(proc.stdout), schema)
    path.write_text(json.dumps({"type": "object", "properties": {"d": {"type": "string", "format": "date"}}}))
    proc = wgrt("generate", "--model", str(model), "--json-schema", str(path), "--", "Once")
    assert proc.returncode != 0 and "'format'" in proc.stderr and str(path) in proc.stderr, proc.stderr
