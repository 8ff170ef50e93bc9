#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

namespace wgrt::cli {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
constexpr double kMiB = 1024.0 * 1024.0;

std::string format_seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof(text), s < 10 ? "%.2f s" : "%.1f s", s < 0 ? 0.0 : s);
  return text;
}

}  // namespace

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)), tty_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()),
      stage_start_(start_) {}

ProgressBar::~ProgressBar() { close(false); }

void ProgressBar::end_stage() {
  if (last_stage_.empty()) return;
  const double s = seconds_since(stage_start_);
  stage_seconds_.emplace_back(last_stage_, s);
  if (!in_bytes(last_stage_) || last_done_ == 0) return;
  std::fprintf(stderr, "%s%s: %s %.0f MiB in %.1f s (%.0f MiB/s)\n", tty_ && last_percent_ >= 0 ? "\n" : "",
               label_.c_str(), last_stage_.c_str(), last_done_ / kMiB, s, s > 0 ? last_done_ / kMiB / s : 0.0);
  last_percent_ = -1;
}

void ProgressBar::update(uint64_t done, uint64_t total, const char* stage) {
  const int percent = total ? int(100 * done / total) : 100;
  const bool new_stage = last_stage_ != stage;
  if (new_stage) {
    end_stage();
    stage_start_ = std::chrono::steady_clock::now();
  }
  last_done_ = done;
  if (!new_stage && percent == last_percent_) return;
  last_percent_ = percent;
  last_stage_ = stage;
  if (tty_) {
    constexpr int kWidth = 30;
    const int filled = percent * kWidth / 100;
    std::fprintf(stderr, "\r%s: %-18s [%.*s%*s] %3d%%", label_.c_str(), stage, filled,
                 "==============================", kWidth - filled, "", percent);
    if (in_bytes(last_stage_)) {
      const double s = seconds_since(stage_start_);
      std::fprintf(stderr, " %.0f/%.0f MiB, %.0f MiB/s  ", done / kMiB, total / kMiB, s > 0 ? done / kMiB / s : 0.0);
    }
    std::fflush(stderr);
  } else if (new_stage) {
    std::fprintf(stderr, "%s: %s...\n", label_.c_str(), stage);
  }
}

void ProgressBar::finish() { close(true); }

void ProgressBar::close(bool summary) {
  if (finished_) return;
  finished_ = true;
  end_stage();
  if (tty_ && last_percent_ >= 0) std::fprintf(stderr, "\n");
  if (!summary || stage_seconds_.empty()) return;
  double staged = 0;
  std::string parts;
  for (const auto& [stage, s] : stage_seconds_) {
    parts += (parts.empty() ? "" : ", ") + stage + " " + format_seconds(s);
    staged += s;
  }
  const double total = seconds_since(start_);
  // Before the first stage: opening the file and reading its header.
  std::fprintf(stderr, "%s: done in %s (before the first stage %s, %s)\n", label_.c_str(),
               format_seconds(total).c_str(), format_seconds(total - staged).c_str(), parts.c_str());
}

}  // namespace wgrt::cli
