#include "gpu/shader_program.h"

#include <algorithm>

#include "gpu/shader_source.h"
#include "wgrt/error.h"

namespace wgrt::gpu {
namespace {

constexpr std::string_view kImport = "//! import ";

std::string fill_slots(const std::string& shader, const ShaderImport& imp, std::span<const ShaderSlot> slots,
                       std::span<const ShaderSlot> defaults, std::vector<bool>& used) {
  std::string out;
  for (size_t i = 0; i < imp.path.size();) {
    if (imp.path[i] != '{') {
      out.push_back(imp.path[i++]);
      continue;
    }
    const size_t close = imp.path.find('}', i);
    if (close == std::string::npos) {
      throw Error(ErrorCode::InvalidProgram, shader + " line " + std::to_string(imp.line) + ": unclosed '{' in import " +
                                                 imp.path);
    }
    const std::string_view name = std::string_view(imp.path).substr(i + 1, close - i - 1);
    const auto named = [&](const ShaderSlot& s) { return s.name == name; };
    const auto it = std::find_if(slots.begin(), slots.end(), named);
    const auto fallback = std::find_if(defaults.begin(), defaults.end(), named);
    if (it != slots.end()) {
      used[size_t(it - slots.begin())] = true;
      out.append(it->value);
    } else if (fallback != defaults.end()) {
      out.append(fallback->value);
    } else {
      throw Error(ErrorCode::InvalidArgument, shader + " line " + std::to_string(imp.line) + " imports " + imp.path +
                                                  ": slot {" + std::string(name) + "} was not given");
    }
    i = close + 1;
  }
  return out;
}

struct Builder {
  std::span<const ShaderSlot> slots, defaults;
  std::vector<bool> used;
  std::vector<std::string> order;  // program order
  std::vector<std::string> stack;  // imports being resolved (cycle check)

  void add(const std::string& path, const std::string& importer, int line) {
    if (std::find(order.begin(), order.end(), path) != order.end()) return;
    if (std::find(stack.begin(), stack.end(), path) != stack.end()) {
      std::string cycle;
      for (const auto& s : stack) cycle += s + " -> ";
      throw Error(ErrorCode::InvalidProgram, "shader import cycle: " + cycle + path);
    }
    std::string_view text;
    try {
      text = shader_source(path);
    } catch (const Error&) {
      if (importer.empty()) throw;
      throw Error(ErrorCode::NotFound, importer + " line " + std::to_string(line) + " imports " + path +
                                           ", which is not an embedded shader");
    }
    stack.push_back(path);
    for (const ShaderImport& imp : shader_imports(text)) add(fill_slots(path, imp, slots, defaults, used), path, imp.line);
    stack.pop_back();
    order.push_back(path);
  }
};

std::vector<std::string> resolve(std::string_view path, std::span<const ShaderSlot> slots,
                                 std::span<const ShaderSlot> defaults) {
  Builder b{slots, defaults, std::vector<bool>(slots.size(), false), {}, {}};
  b.add(std::string(path), "", 0);
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!b.used[i]) {
      throw Error(ErrorCode::InvalidArgument, "shader " + std::string(path) + " and its imports have no slot {" +
                                                  std::string(slots[i].name) + "}");
    }
  }
  return b.order;
}

bool is_enable(std::string_view line) { return line.substr(0, 7) == "enable " || line.substr(0, 9) == "requires "; }

}  // namespace

std::vector<ShaderImport> shader_imports(std::string_view text) {
  std::vector<ShaderImport> out;
  int line = 1;
  for (size_t at = 0; at < text.size(); ++line) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view l = text.substr(at, end - at);
    if (l.substr(0, kImport.size()) == kImport) {
      std::string_view p = l.substr(kImport.size());
      while (!p.empty() && (p.back() == ' ' || p.back() == '\r')) p.remove_suffix(1);
      out.push_back({line, std::string(p)});
    }
    at = end + 1;
  }
  return out;
}

std::vector<std::string> shader_program_files(std::string_view path, std::span<const ShaderSlot> slots,
                                              std::span<const ShaderSlot> defaults) {
  return resolve(path, slots, defaults);
}

std::string shader_program(std::string_view path, std::span<const ShaderSlot> slots,
                           std::span<const ShaderSlot> defaults) {
  const std::vector<std::string> files = resolve(path, slots, defaults);
  if (files.size() == 1) return std::string(shader_source(files.front()));
  std::string enables, body;
  for (const std::string& f : files) {
    const std::string_view text = shader_source(f);
    for (size_t at = 0; at < text.size();) {
      const size_t end = std::min(text.find('\n', at), text.size());
      const std::string_view l = text.substr(at, end - at);
      if (is_enable(l)) {
        if (enables.find(l) == std::string::npos) enables.append(l).push_back('\n');
      } else {
        body.append(l).push_back('\n');
      }
      at = end + 1;
    }
  }
  return enables + body;
}

}  // namespace wgrt::gpu
