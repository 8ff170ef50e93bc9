#!/usr/bin/env bash
# Builds a quantizer over llama.cpp's own quantization code, CPU only, from
# the source distribution of llama-cpp-python on PyPI (its vendor/llama.cpp),
# for the test that checks wgrt on GGUF files quantized the way people
# download them (scripts/make_smollm2_quants.sh). The binary is
# tools/llama_quantize/quantize_gguf.cpp: llama_model_quantize() with
# llama-quantize's defaults, linked against libllama and ggml only (the
# llama-quantize tool also needs llama.cpp's `common` library, nearly half of
# the build). Nothing of llama.cpp enters the repository: download, build
# tree and binary live in the cache folder, and a second run with the binary
# present does nothing. The sdist also carries the vocabulary-only GGUFs and
# chat templates that tests/llm/test_tokenizer_real_vocabs.cpp reads.
#
# Usage: scripts/build_llama_quantize.sh      (prints the binary's path last)
# Env:   WGRT_CACHE_DIR (default ~/.cache/wgrt), LLAMA_CPP_PYTHON_VERSION
#        (default 0.3.36, as bench/peer/), JOBS (default 2)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ver=${LLAMA_CPP_PYTHON_VERSION:-0.3.36}
root=${WGRT_CACHE_DIR:-$HOME/.cache/wgrt}/llama-quantize-$ver
bin=$root/bin/quantize_gguf
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi

src=$root/src/llama_cpp_python-$ver/vendor/llama.cpp
if [ ! -f "$src/CMakeLists.txt" ]; then
  mkdir -p "$root/src"
  (cd "$root/src" && python3 -m pip download -q --no-binary :all: --no-deps "llama-cpp-python==$ver" -d . \
     && tar xzf "llama_cpp_python-$ver.tar.gz")
fi

# CPU backend only, portable code (GGML_NATIVE=OFF), -O1 (the binary only
# quantizes a small model: compile time matters more than its speed), static
# libraries, no HTTPS, no tests/examples.
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$src" -B "$root/build" "${gen[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
      -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF -DGGML_OPENMP=OFF \
      -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF \
      -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_TOOLS=ON -DLLAMA_OPENSSL=OFF >/dev/null
nice -n 19 cmake --build "$root/build" --target llama -j"${JOBS:-2}"
mkdir -p "$root/bin"
b=$root/build
nice -n 19 c++ -std=c++17 -O1 -I"$src/include" -I"$src/ggml/include" \
    "$here/tools/llama_quantize/quantize_gguf.cpp" -o "$bin.tmp" \
    "$b/src/libllama.a" "$b/ggml/src/libggml.a" "$b/ggml/src/libggml-cpu.a" "$b/ggml/src/libggml-base.a" \
    -lpthread -ldl -lm
strip "$bin.tmp"
mv "$bin.tmp" "$bin"
echo "$bin"
