#!/usr/bin/env bash
# Builds llama.cpp's llama-bench twice (Vulkan and CUDA) as the peer for
# `wgrt bench`, from the source distribution of llama-cpp-python on PyPI
# (its vendor/llama.cpp). Nothing of llama.cpp enters the repository: the
# download, the build trees and the stripped binaries live in .bench/peer/
# (ignored by git).
#
# Usage: bench/peer/build_llamacpp.sh [vulkan|cuda|all] (default all)
# Env:   LLAMA_CPP_PYTHON_VERSION (default 0.3.36), JOBS (default nproc)
#
# Results: .bench/peer/bin/llama-bench-vulkan, .bench/peer/bin/llama-bench-cuda
#   (static ggml/llama; the CUDA one needs libcudart.so.13, libcublas.so.13 and
#   libcublasLt.so.13 at run time: copied beside it is libcudart only, cuBLAS
#   is too big to carry and is found on the H200 machine, see bench/run_all.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD/.bench/peer
what=${1:-all}
ver=${LLAMA_CPP_PYTHON_VERSION:-0.3.36}
jobs=${JOBS:-$(nproc)}
mkdir -p "$root/bin"

need_apt=()
command -v glslc >/dev/null || need_apt+=(glslc)
dpkg -s libvulkan-dev >/dev/null 2>&1 || need_apt+=(libvulkan-dev)
dpkg -s spirv-headers >/dev/null 2>&1 || need_apt+=(spirv-headers)
if [ ${#need_apt[@]} -gt 0 ] && [ "$what" != cuda ]; then
  apt-get install -y "${need_apt[@]}"
fi

src=$root/src/llama_cpp_python-$ver/vendor/llama.cpp
if [ ! -f "$src/CMakeLists.txt" ]; then
  mkdir -p "$root/src"
  (cd "$root/src" && python3 -m pip download --no-binary :all: --no-deps "llama-cpp-python==$ver" -d . \
     && tar xzf "llama_cpp_python-$ver.tar.gz")
fi

common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF
        -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_APP=OFF)

if [ "$what" = all ] || [ "$what" = vulkan ]; then
  # Debian 12's Vulkan headers (1.3.239) predate VK_EXT_layer_settings (1.3.261),
  # which ggml-vulkan.cpp uses only to configure the validation layer: with older
  # headers, build the instance without that chained struct (a build fix only).
  if ! grep -q VK_EXT_layer_settings /usr/include/vulkan/vulkan_core.h; then
    python3 - "$src/ggml/src/ggml-vulkan/ggml-vulkan.cpp" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
if "WGRT_BENCH_OLD_VK_HEADERS" not in s:
    a = s.index("    std::vector<vk::LayerSettingEXT> settings = {")
    b = s.index("vk::InstanceCreateInfo instance_create_info(", a)
    e = s.index("\n", b) + 1
    s = (s[:a] + "#if defined(VK_EXT_layer_settings)  // WGRT_BENCH_OLD_VK_HEADERS\n" + s[a:e] + "#else\n"
         "    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers, extensions);\n"
         "    (void) enable_best_practice;\n#endif\n" + s[e:])
    open(p, "w").write(s)
PY
  fi
  cmake -S "$src" -B "$root/build-vulkan" "${common[@]}" -DGGML_VULKAN=ON
  cmake --build "$root/build-vulkan" --target llama-bench -j"$jobs"
  cp "$root/build-vulkan/bin/llama-bench" "$root/bin/llama-bench-vulkan"
  strip "$root/bin/llama-bench-vulkan"
fi

if [ "$what" = all ] || [ "$what" = cuda ]; then
  export PATH=/usr/local/cuda/bin:$PATH
  # GGML_STATIC would need libcublas_static.a, which the local toolkit lacks:
  # ggml and llama are static (BUILD_SHARED_LIBS=OFF), CUDA's libraries shared.
  # CUDA_FA=OFF (GGML_CUDA_FA, default OFF here) compiles FlashAttention's 37
  # template-instance files as empty stubs, the slowest part of the build on a
  # 2-core machine; llama-bench's default -fa auto then runs attention without it.
  cmake -S "$src" -B "$root/build-cuda" "${common[@]}" -DGGML_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_CUDA_NCCL=OFF -DGGML_CUDA_FA="${CUDA_FA:-OFF}"
  cmake --build "$root/build-cuda" --target llama-bench -j"$jobs"
  cp "$root/build-cuda/bin/llama-bench" "$root/bin/llama-bench-cuda"
  strip "$root/bin/llama-bench-cuda"
  cp -L /usr/local/cuda/lib64/libcudart.so.13 "$root/bin/"
fi
ls -la "$root/bin"
