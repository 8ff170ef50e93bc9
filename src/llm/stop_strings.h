// Stop strings for streamed text: generation ends where the output first
// contains one of them, and the stop string itself is never emitted. Text
// that could be the start of a stop string is held back until the next
// piece shows whether it is one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wgrt::llm {

class StopStrings {
 public:
  // Empty strings are ignored.
  explicit StopStrings(std::vector<std::string> stops);

  // Appends `text`; returns what is safe to emit now. After a match it
  // returns the text before the stop string, and matched() is true.
  std::string push(std::string_view text);
  // The held-back tail at the end of the stream ("" after a match).
  std::string flush();
  bool matched() const { return matched_; }
  bool empty() const { return stops_.empty(); }

 private:
  std::vector<std::string> stops_;
  std::string pending_;  // emitted to nobody yet: may begin a stop string
  bool matched_ = false;
};

}  // namespace wgrt::llm
