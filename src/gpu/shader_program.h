// A shader program: an embedded shader (gpu/shader_source.h) with the shaders
// it imports. A shader names what it needs on lines of its own,
//   //! import common/prelude.wgsl
//   //! import attention/cache_{cache}.wgsl
// so no caller lists shader files. A `{slot}` is the one choice a caller
// makes between alternatives of one role (the f16 or f32 KV cache, a GEMM
// tile), by name and value (ShaderSlot); every slot an import holds must be
// given, and every slot given must be used. `defaults` fill slots the caller
// did not give and may go unused: the device's choices (its reduction), which
// OpContext::pipeline passes for every op.
//
// The program is each imported shader once, depth first in the order first
// named, before the shaders that import it, then the shader itself; WGSL's
// `enable` directives of any of them go first (WGSL wants them before any
// declaration). An import naming no embedded shader, a slot not given and an
// import cycle are refused naming the shader and line.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wgrt::gpu {

struct ShaderSlot {
  std::string_view name;
  std::string_view value;
};

std::string shader_program(std::string_view path, std::span<const ShaderSlot> slots = {},
                           std::span<const ShaderSlot> defaults = {});

// The shaders a program is made of, in program order (its label, tests).
std::vector<std::string> shader_program_files(std::string_view path, std::span<const ShaderSlot> slots = {},
                                              std::span<const ShaderSlot> defaults = {});

// The import lines of one shader's text: (line number, the path as written, slots unfilled).
struct ShaderImport {
  int line = 0;
  std::string path;
};
std::vector<ShaderImport> shader_imports(std::string_view text);

}  // namespace wgrt::gpu
