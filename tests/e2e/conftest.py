"""Shared setup of the end-to-end tests."""
import os

# They compare logits with fp32 references (numpy, transformers, torch) at f32
# tolerances: prefill GEMMs in f32 (the default is f16 where the device offers
# shader-f16, lavapipe included). test_smollm2_reference.py and test_kv_f16.py
# set WGRT_MATMUL per run, and measure the f16 GEMMs against their own bound.
os.environ.setdefault("WGRT_MATMUL", "f32")
