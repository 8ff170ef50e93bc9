// A one-line progress bar on stderr (only when stderr is a terminal; plain
// milestones otherwise, so logs stay readable).
#pragma once

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
  std::string label_;
  std::string last_stage_;
  bool tty_;
  bool finished_ = false;
  int last_percent_ = -1;
};

}  // namespace wgrt::cli
