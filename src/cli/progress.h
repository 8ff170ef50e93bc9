// A one-line progress bar on stderr (only when stderr is a terminal; plain
// milestones otherwise, so logs stay readable). A stage counted in bytes
// (an LLM's "uploading") shows MiB and MiB/s, and says how fast it went
// when it ends, terminal or not. At the end one line says how long the
// whole took and each stage of it, so a slow load says where it is slow.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace wgrt::cli {

class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ~ProgressBar();
  void update(uint64_t done, uint64_t total, const char* stage);
  // Ends the bar and prints the summary line (the work succeeded); the
  // destructor ends it without one (an error ended the work).
  void finish();

 private:
  // The stages whose counts are bytes.
  static bool in_bytes(const std::string& stage) { return stage == "uploading"; }
  void end_stage();
  void close(bool summary);

  std::string label_;
  std::string last_stage_;
  bool tty_;
  bool finished_ = false;
  int last_percent_ = -1;
  uint64_t last_done_ = 0;
  std::chrono::steady_clock::time_point start_, stage_start_;
  std::vector<std::pair<std::string, double>> stage_seconds_;  // ended stages, in order
};

}  // namespace wgrt::cli
