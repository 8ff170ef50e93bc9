// StopStrings: text split into arbitrary pieces (as tokens split it) comes
// out cut exactly before the first stop string, and text that only looks
// like the start of one is released once the next piece rules it out.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "llm/stop_strings.h"

namespace wgrt::llm {
namespace {

// Feeds `pieces`; returns everything emitted (flushed at the end unless matched).
std::string run(StopStrings& stops, const std::vector<std::string>& pieces) {
  std::string out;
  for (const auto& p : pieces) {
    out += stops.push(p);
    if (stops.matched()) return out;
  }
  return out + stops.flush();
}

TEST(StopStrings, CutsBeforeTheStopStringAcrossPieces) {
  StopStrings stops({"\n\nUser:"});
  EXPECT_EQ(run(stops, {"Hello", " there", "\n", "\nUs", "er:", " more"}), "Hello there");
  EXPECT_TRUE(stops.matched());
  EXPECT_EQ(stops.push("anything"), "");
}

TEST(StopStrings, HoldsBackOnlyAPossiblePrefix) {
  StopStrings stops({"END"});
  EXPECT_EQ(stops.push("abcE"), "abc");  // "E" may start "END"
  EXPECT_EQ(stops.push("Nx"), "ENx");    // "ENx" cannot
  EXPECT_FALSE(stops.matched());
  EXPECT_EQ(stops.push("EN"), "");
  EXPECT_EQ(stops.flush(), "EN");  // the stream ended: held text is released
}

TEST(StopStrings, EarliestOfSeveralWins) {
  StopStrings stops({"cd", "b", ""});
  EXPECT_EQ(run(stops, {"abcd"}), "a");
  StopStrings none({});
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(run(none, {"a", "b"}), "ab");
}

TEST(StopStrings, MatchInsideOnePiece) {
  StopStrings stops({"</s>"});
  EXPECT_EQ(run(stops, {"x</s>y"}), "x");
}

}  // namespace
}  // namespace wgrt::llm
