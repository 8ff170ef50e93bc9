"""ExecuTorch programs in the page: fixtures (an MLP, a convolution net, a
transformer block, external weights in a .ptd, and the Llama export with its
KV cache over several steps) against their torch goldens, at each fixture's
own tolerance (the native tests' tolerances), and a damaged .pte."""
import base64
import io
import json
from pathlib import Path

import numpy as np
import pytest

from web_site import ROOT, serve

PTE = ROOT / "tests" / "fixtures" / "pte"
LLAMA = ROOT / "tests" / "fixtures" / "llama"


def run_in_page(page, pte, ptd, method, inputs):
    """Loads (once per page) and runs; returns the outputs as arrays."""
    outs = page.evaluate("""async ([pte, ptd, method, inputs]) => {
        window.programs ??= {};
        programs[pte] ??= await wgrt.loadProgram(pte, ptd);
        const bytes = await Promise.all(inputs.map(async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer())));
        const outputs = await programs[pte].method(method).execute(bytes);
        return outputs.map((o) => btoa(Array.from(o, (c) => String.fromCharCode(c)).join('')));
    }""", [pte, ptd, method, inputs])
    return [np.load(io.BytesIO(base64.b64decode(o))) for o in outs]


def test_page_device_has_subgroups(page):
    # SwiftShader offers subgroups, so these programs run the subgroup
    # reductions in their uniform form (common/reduce_subgroup_uniform.wgsl).
    assert page.evaluate("wgrt.init()")["subgroups"] is True


@pytest.mark.parametrize("name", ["mlp", "fp16_cnn", "transformer_block", "external_weights"])
def test_fixture_matches_its_golden(page, web_root, name):
    spec = json.loads((PTE / f"{name}.json").read_text())
    pte = serve(web_root, PTE / spec["pte"])
    ptd = serve(web_root, PTE / spec["ptd"][0]) if spec["ptd"] else None
    tol = spec["tolerance"]
    for method, body in spec["methods"].items():
        for case in body["cases"]:
            inputs = [serve(web_root, PTE / i["file"]) for i in case["inputs"]]
            got = run_in_page(page, pte, ptd, method, inputs)
            assert len(got) == len(case["outputs"])
            for g, o in zip(got, case["outputs"]):
                want = np.load(PTE / o["file"])
                assert g.shape == want.shape, (name, method, g.shape, want.shape)
                np.testing.assert_allclose(g.astype(np.float64), want.astype(np.float64), atol=tol["atol"],
                                           rtol=tol["rtol"], err_msg=f"{name}.{method}")


def test_llama_export_over_several_steps(page, web_root):
    spec = json.loads((LLAMA / "tiny_llama.json").read_text())
    pte = serve(web_root, LLAMA / spec["pte"])
    tol = spec["tolerance"]
    for step in spec["steps"]:
        inputs = [serve(web_root, LLAMA / i["file"]) for i in step["inputs"]]
        (logits,) = run_in_page(page, pte, None, "forward", inputs)  # the KV cache carries over
        want = np.load(LLAMA / step["logits"]["file"])
        np.testing.assert_allclose(logits.reshape(want.shape), want, atol=tol["atol"], rtol=tol["rtol"],
                                   err_msg=f"step at {step['input_pos']}")


def test_damaged_pte_is_an_error_and_the_page_keeps_working(page, web_root, tmp_path):
    broken = tmp_path / "broken.pte"
    data = bytearray((PTE / "mlp.pte").read_bytes())
    broken.write_bytes(bytes(data[: len(data) // 3]))
    message = page.evaluate("""async (url) => {
        try { await wgrt.loadProgram(url); return 'loaded'; } catch (e) { return `${e.name}: ${e.message}`; }
    }""", serve(web_root, broken))
    assert message.startswith("WgrtError:"), message
    test_fixture_matches_its_golden(page, web_root, "mlp")
