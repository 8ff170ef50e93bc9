#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

namespace wgrt::cli {

ProgressBar::ProgressBar(std::string label) : label_(std::move(label)), tty_(isatty(STDERR_FILENO) != 0) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(uint64_t done, uint64_t total, const char* stage) {
  const int percent = total ? int(100 * done / total) : 100;
  const bool new_stage = last_stage_ != stage;
  if (!new_stage && percent == last_percent_) return;
  last_percent_ = percent;
  if (tty_) {
    constexpr int kWidth = 30;
    const int filled = percent * kWidth / 100;
    std::fprintf(stderr, "\r%s: %-18s [%.*s%*s] %3d%%", label_.c_str(), stage, filled,
                 "==============================", kWidth - filled, "", percent);
    std::fflush(stderr);
  } else if (new_stage) {
    std::fprintf(stderr, "%s: %s...\n", label_.c_str(), stage);
  }
  last_stage_ = stage;
}

void ProgressBar::finish() {
  if (finished_) return;
  finished_ = true;
  if (tty_ && last_percent_ >= 0) std::fprintf(stderr, "\n");
}

}  // namespace wgrt::cli
