// The .pte container: flatbuffer identifier, the eh00 extended header, the
// verified Program flatbuffer, its data segments, named data and delegates.
#include <algorithm>

#include "import/pte/file_bytes.h"
#include "import/pte/program.h"
#include "import/pte/ptd_file.h"
#include "import/pte/vk_blob.h"
#include "program_generated.h"
#include "wgrt/error.h"

namespace wgrt::pte {
namespace {

// A method's CPU kernels, each named once (in first-call order) however often
// the plan calls it.
void add_cpu_kernel(Method& m, std::string name) {
  if (std::find(m.cpu_kernels.begin(), m.cpu_kernels.end(), name) == m.cpu_kernels.end()) {
    m.cpu_kernels.push_back(std::move(name));
  }
}

// eh00 header at offset 8, after the flatbuffer root offset and identifier:
// magic, u32 length, u64 program_size, u64 segment_base_offset, then (when
// length >= 32) u64 segment_data_size, which wgrt does not need.
constexpr uint64_t kExtHeaderAt = 8;
constexpr uint32_t kExtHeaderMin = 24;
constexpr std::string_view kVulkanBackend = "VulkanBackend";

struct Container {
  const FileBytes& file;
  const fb::Program* program = nullptr;
  bool has_segments_header = false;
  uint64_t segment_base = 0;
};

DType scalar_dtype(int8_t t) {
  switch (t) {
    case 0: return DType::UInt8;
    case 1: return DType::Int8;
    case 2: return DType::Int16;
    case 3: return DType::Int32;
    case 4: return DType::Int64;
    case 5: return DType::Float16;
    case 6: return DType::Float32;
    case 7: return DType::Float64;
    case 11: return DType::Bool;
    case 15: return DType::BFloat16;
    default: return DType::Unknown;
  }
}

std::string_view kernel_type_name(fb::KernelTypes t) {
  const char* name = fb::EnumNameKernelTypes(t);
  return name && *name ? name : "unknown";
}

Container open_container(const FileBytes& file) {
  const auto bytes = file.bytes();
  file.slice(0, 8, "flatbuffer header");
  if (!flatbuffers::BufferHasIdentifier(bytes.data(), fb::ProgramIdentifier())) {
    file.fail("file identifier", 4, quote_magic(bytes, 4) + ", expected 'ET12'");
  }
  Container c{file};
  uint64_t program_size = bytes.size();
  if (bytes.size() >= kExtHeaderAt + kExtHeaderMin &&
      std::string_view(reinterpret_cast<const char*>(bytes.data()) + kExtHeaderAt, 4) == "eh00") {
    const uint32_t length = read_u32(bytes, 12);
    if (length < kExtHeaderMin) {
      file.fail("extended header", 12,
                "length " + std::to_string(length) + ", expected at least " +
                    std::to_string(kExtHeaderMin));
    }
    file.slice(kExtHeaderAt, length, "extended header");
    program_size = read_u64(bytes, 16);
    c.segment_base = read_u64(bytes, 24);
    c.has_segments_header = true;
    if (program_size > bytes.size() || program_size < kExtHeaderAt + length) {
      file.fail("extended header", 16,
                "program_size " + std::to_string(program_size) + ", file has " +
                    std::to_string(bytes.size()) + " bytes");
    }
    if (c.segment_base > bytes.size()) {
      file.fail("extended header", 24,
                "segment_base_offset " + std::to_string(c.segment_base) + " is past the end of the " +
                    std::to_string(bytes.size()) + "-byte file");
    }
  }
  if (program_size >= kMaxFlatbufferSize) {
    file.fail("extended header", 16,
              "program_size " + std::to_string(program_size) + " exceeds the 2 GiB flatbuffer limit");
  }
  flatbuffers::Verifier verifier(bytes.data(), program_size, 64, 1u << 24);
  if (!fb::VerifyProgramBuffer(verifier)) {
    file.fail("Program flatbuffer", 0,
              std::to_string(program_size) + " bytes fail flatbuffer verification");
  }
  c.program = fb::GetProgram(bytes.data());
  return c;
}

// Data segment `index` of the program, bounds-checked against the file.
std::pair<uint64_t, std::span<const uint8_t>> segment(const Container& c, uint64_t index,
                                                      const std::string& what) {
  const auto* segments = c.program->segments();
  const size_t count = segments ? segments->size() : 0;
  if (index >= count) {
    c.file.fail(what, 0,
                "uses data segment " + std::to_string(index) + ", the program has " +
                    std::to_string(count));
  }
  if (!c.has_segments_header) {
    c.file.fail(what, kExtHeaderAt,
                "lives in a data segment, but the file has no 'eh00' extended header (got " +
                    quote_magic(c.file.bytes(), kExtHeaderAt) + ")");
  }
  const fb::DataSegment* seg = segments->Get(static_cast<flatbuffers::uoffset_t>(index));
  const uint64_t size = c.file.bytes().size();
  if (!fits(c.segment_base, seg->offset(), size)) {
    c.file.fail(what, c.segment_base,
                "segment offset " + std::to_string(seg->offset()) + " is past the end of the " +
                    std::to_string(size) + "-byte file");
  }
  const uint64_t at = c.segment_base + seg->offset();
  return {at, c.file.slice(at, seg->size(), what)};
}

NamedDataMap read_named_data(const Container& c) {
  NamedDataMap named;
  if (const auto* nd = c.program->named_data()) {
    for (const fb::NamedData* entry : *nd) {
      const std::string key = entry->key() ? entry->key()->str() : std::string();
      named.emplace(key, segment(c, entry->segment_index(), "named data '" + key + "'").second);
    }
  }
  return named;
}

template <typename T>
void check_value_id(const Container& c, int64_t id, size_t count, const T& who) {
  if (id < 0 || static_cast<uint64_t>(id) >= count) {
    c.file.fail("Program flatbuffer", 0,
                std::string(who) + " refers to value " + std::to_string(id) + ", the plan has " +
                    std::to_string(count));
  }
}

IoValue read_io(const Container& c, const fb::ExecutionPlan* plan, int32_t id,
                const std::string& who) {
  const size_t n_values = plan->values() ? plan->values()->size() : 0;
  check_value_id(c, id, n_values, who);
  IoValue io;
  io.value_id = id;
  const fb::EValue* ev = plan->values()->Get(static_cast<flatbuffers::uoffset_t>(id));
  io.kind = std::string(kernel_type_name(ev->val_type()));
  if (const fb::Tensor* t = ev->val_as_Tensor()) {
    io.dtype = scalar_dtype(t->scalar_type());
    if (t->sizes()) io.sizes.assign(t->sizes()->begin(), t->sizes()->end());
    io.dynamic = t->shape_dynamism() != 0;
  } else if (const fb::Int* i = ev->val_as_Int()) {
    io.scalar = static_cast<int64_t>(i->int_val());
  } else if (const fb::Double* d = ev->val_as_Double()) {
    io.scalar = d->double_val();
  } else if (const fb::Bool* b = ev->val_as_Bool()) {
    io.scalar = b->bool_val();
  }
  return io;
}

Delegate read_delegate(const Container& c, const fb::ExecutionPlan* plan,
                       const fb::DelegateCall* call, const std::string& method,
                       const NamedDataMap& named, std::vector<std::string>* missing) {
  const std::string who = "method '" + method + "' delegate " +
                          std::to_string(call->delegate_index());
  const size_t n_delegates = plan->delegates() ? plan->delegates()->size() : 0;
  if (call->delegate_index() < 0 || static_cast<size_t>(call->delegate_index()) >= n_delegates) {
    c.file.fail("Program flatbuffer", 0,
                who + " does not exist, the plan has " + std::to_string(n_delegates));
  }
  const fb::BackendDelegate* d =
      plan->delegates()->Get(static_cast<flatbuffers::uoffset_t>(call->delegate_index()));
  Delegate out;
  out.backend_id = d->id() ? d->id()->str() : std::string();
  if (out.backend_id != kVulkanBackend) {
    throw Error(ErrorCode::NotSupported,
                c.file.name() + ": " + who + " is for backend '" + out.backend_id +
                    "'; wgrt runs only '" + std::string(kVulkanBackend) + "'");
  }
  if (call->args()) out.call_args.assign(call->args()->begin(), call->args()->end());
  const size_t n_values = plan->values() ? plan->values()->size() : 0;
  for (int32_t a : out.call_args) check_value_id(c, a, n_values, who);

  const fb::BackendDelegateDataReference* ref = d->processed();
  if (ref == nullptr) c.file.fail("Program flatbuffer", 0, who + " has no processed data");
  std::span<const uint8_t> blob;
  if (ref->location() == fb::DataLocation::SEGMENT) {
    std::tie(out.blob_offset, blob) = segment(c, ref->index(), who + " blob");
  } else if (ref->location() == fb::DataLocation::INLINE) {
    const auto* inline_data = c.program->backend_delegate_data();
    const size_t count = inline_data ? inline_data->size() : 0;
    if (ref->index() >= count) {
      c.file.fail("Program flatbuffer", 0,
                  who + " uses inline data " + std::to_string(ref->index()) +
                      ", the program has " + std::to_string(count));
    }
    const auto* data = inline_data->Get(ref->index())->data();
    if (data == nullptr) c.file.fail("Program flatbuffer", 0, who + " has empty inline data");
    blob = {data->data(), data->size()};
    out.blob_offset = static_cast<uint64_t>(blob.data() - c.file.bytes().data());
  } else {
    c.file.fail("Program flatbuffer", 0,
                who + " has data location " + std::to_string(static_cast<int>(ref->location())) +
                    ", expected INLINE (0) or SEGMENT (1)");
  }
  out.graph = parse_vk_blob(c.file, out.blob_offset, blob, named, missing);
  if (out.call_args.size() != out.graph.input_ids.size() + out.graph.output_ids.size()) {
    c.file.fail("Vulkan delegate blob", out.blob_offset,
                who + " is called with " + std::to_string(out.call_args.size()) +
                    " values, its graph has " + std::to_string(out.graph.input_ids.size()) +
                    " inputs + " + std::to_string(out.graph.output_ids.size()) + " outputs");
  }
  return out;
}

Method read_method(const Container& c, const fb::ExecutionPlan* plan, const NamedDataMap& named,
                   std::vector<std::string>* missing) {
  Method m;
  m.name = plan->name() ? plan->name()->str() : std::string();
  if (plan->inputs()) {
    for (int32_t id : *plan->inputs()) {
      m.inputs.push_back(read_io(c, plan, id, "method '" + m.name + "' input"));
    }
  }
  if (plan->outputs()) {
    for (int32_t id : *plan->outputs()) {
      m.outputs.push_back(read_io(c, plan, id, "method '" + m.name + "' output"));
    }
  }
  if (plan->chains() == nullptr) return m;
  for (const fb::Chain* chain : *plan->chains()) {
    if (chain->instructions() == nullptr) continue;
    for (const fb::Instruction* instr : *chain->instructions()) {
      switch (instr->instr_args_type()) {
        case fb::InstructionArguments::DelegateCall:
          m.delegates.push_back(
              read_delegate(c, plan, instr->instr_args_as_DelegateCall(), m.name, named, missing));
          break;
        case fb::InstructionArguments::KernelCall: {
          const int32_t index = instr->instr_args_as_KernelCall()->op_index();
          const auto* ops = plan->operators();
          const size_t count = ops ? ops->size() : 0;
          if (index < 0 || static_cast<size_t>(index) >= count) {
            c.file.fail("Program flatbuffer", 0,
                        "method '" + m.name + "' calls operator " + std::to_string(index) +
                            ", the plan has " + std::to_string(count));
          }
          const fb::Operator* op = ops->Get(static_cast<flatbuffers::uoffset_t>(index));
          std::string name = op->name() ? op->name()->str() : std::string("?");
          if (op->overload() && op->overload()->size() > 0) {
            name += '.';
            name += op->overload()->string_view();
          }
          add_cpu_kernel(m, std::move(name));
          break;
        }
        default:
        {
          std::string name = "(";
          name += fb::EnumNameInstructionArguments(instr->instr_args_type());
          name += ')';
          add_cpu_kernel(m, std::move(name));
        }
      }
    }
  }
  return m;
}

Program parse(std::shared_ptr<const FileBytes> pte, std::vector<std::shared_ptr<const FileBytes>> data_files,
              std::vector<std::string>* missing = nullptr) {
  Program program;
  const Container c = open_container(*pte);
  NamedDataMap named = read_named_data(c);
  for (const auto& f : data_files) read_ptd(*f, named);
  if (c.program->execution_plan()) {
    for (const fb::ExecutionPlan* plan : *c.program->execution_plan()) {
      program.methods.push_back(read_method(c, plan, named, missing));
    }
  }
  program.named_data = std::move(named);
  program.storage.push_back(std::move(pte));
  for (auto& f : data_files) program.storage.push_back(std::move(f));
  return program;
}

std::vector<std::shared_ptr<const FileBytes>> map_files(const std::vector<std::filesystem::path>& paths) {
  std::vector<std::shared_ptr<const FileBytes>> files;
  for (const auto& p : paths) files.push_back(FileBytes::map(p));
  return files;
}

}  // namespace

Program load_program(const std::filesystem::path& pte,
                     const std::vector<std::filesystem::path>& data_files) {
  return parse(FileBytes::map(pte), map_files(data_files));
}

Program describe_program(const std::filesystem::path& pte, const std::vector<std::filesystem::path>& data_files,
                         std::vector<std::string>& missing_named_data) {
  return parse(FileBytes::map(pte), map_files(data_files), &missing_named_data);
}

Program parse_program(NamedBytes pte, std::vector<NamedBytes> data_files) {
  std::vector<std::shared_ptr<const FileBytes>> data;
  for (auto& d : data_files) data.push_back(FileBytes::own(std::move(d.bytes), std::move(d.name)));
  return parse(FileBytes::own(std::move(pte.bytes), std::move(pte.name)), std::move(data));
}

}  // namespace wgrt::pte
