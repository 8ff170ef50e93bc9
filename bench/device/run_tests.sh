#!/usr/bin/env bash
# On the H200 machine: `wgrt info` and the GPU test suite from .device/.
# Call through the device tool with carry [".device"] after bench/device/stage.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/device/env.sh .device
.device/wgrt info
# Fixtures travel with the tree; the SmolLM2 file does not (98 MB is over the
# carry limit): pass WGRT_DEFAULT_MODEL pointing at a copy there, if any.
WGRT_FIXTURES_DIR="$PWD/tests/fixtures" WGRT_REQUIRE_GPU=1 .device/wgrt_tests --gtest_brief=1 "$@"
