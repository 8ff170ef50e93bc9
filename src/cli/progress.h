// A one-line progress bar on stderr (only when stderr is a terminal; plain
// milestones otherwise, so logs stay readable). A stage counted in bytes
// (an LLM's "uploading") shows MiB and MiB/s, and says how fast it went
// when it ends, terminal or not.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace wgrt::cli {

class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ~ProgressBar();
  void update(uint64_t done, uint64_t total, const char* stage);
  void finish();

 private:
  // The stages whose counts are bytes.
  static bool in_bytes(const std::string& stage) { return stage == "uploading"; }
  void end_stage();

  std::string label_;
  std::string last_stage_;
  bool tty_;
  bool finished_ = false;
  int last_percent_ = -1;
  uint64_t last_done_ = 0;
  std::chrono::steady_clock::time_point stage_start_;
};

}  // namespace wgrt::cli
