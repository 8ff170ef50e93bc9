// GBNF grammars (llm/grammar.h): what the parser accepts and refuses (with
// line and column), and which texts the matcher lets through, byte by byte
// and across characters a token splits.
#include <gtest/gtest.h>

#include <string>

#include "llm/grammar.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

llm::GrammarMatcher matcher(const std::string& gbnf) { return llm::GrammarMatcher(llm::parse_gbnf(gbnf)); }

// Whether the whole text is a sentence: fed in one piece, then byte by byte.
bool sentence(const std::string& gbnf, const std::string& text) {
  llm::GrammarMatcher whole = matcher(gbnf);
  const bool one = whole.feed(text) && whole.complete();
  llm::GrammarMatcher bytes = matcher(gbnf);
  bool each = true;
  for (char c : text) each = each && bytes.feed(std::string(1, c));
  each = each && bytes.complete();
  EXPECT_EQ(one, each) << "fed whole vs byte by byte: " << text;
  return one;
}

// Whether the text can start a sentence (it may be incomplete).
bool prefix(const std::string& gbnf, const std::string& text) { return matcher(gbnf).accepts(text); }

std::string error_of(const std::string& gbnf) {
  try {
    llm::parse_gbnf(gbnf);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    return e.what();
  }
  return "";
}

TEST(Grammar, LiteralsAlternativesAndClasses) {
  const std::string g = "root ::= (\"yes\" | \"no\") \" \" [0-9] [a-fA-F]\n";
  EXPECT_TRUE(sentence(g, "yes 7b"));
  EXPECT_TRUE(sentence(g, "no 0F"));
  EXPECT_FALSE(sentence(g, "yes 7"));    // incomplete
  EXPECT_FALSE(sentence(g, "yes 7g"));   // g outside [a-fA-F]
  EXPECT_FALSE(sentence(g, "maybe 1a"));
  EXPECT_TRUE(prefix(g, "ye"));
  EXPECT_FALSE(prefix(g, "yo"));
}

TEST(Grammar, RulesReferEachOtherAndRecurseOnTheRight) {
  const std::string g =
      "# a list of numbers\n"
      "root ::= \"[\" ws (num (ws \",\" ws num)*)? ws \"]\"\n"
      "num  ::= \"-\"? [0-9]+\n"
      "ws   ::= [ \\t\\n]*\n";
  EXPECT_TRUE(sentence(g, "[]"));
  EXPECT_TRUE(sentence(g, "[ 1, -22 ,333 ]"));
  EXPECT_TRUE(sentence(g, "[\n\t4]"));
  EXPECT_FALSE(sentence(g, "[1,]"));
  EXPECT_FALSE(sentence(g, "[--1]"));
  // A long sentence: right recursion does not grow the stacks without bound.
  std::string many = "[0";
  for (int i = 0; i < 2000; ++i) many += ",1";
  EXPECT_TRUE(sentence(g, many + "]"));
}

TEST(Grammar, BoundedRepetitionsNegatedClassesAndAnyCharacter) {
  EXPECT_TRUE(sentence("root ::= [a-z]{2,3}", "ab"));
  EXPECT_TRUE(sentence("root ::= [a-z]{2,3}", "abc"));
  EXPECT_FALSE(sentence("root ::= [a-z]{2,3}", "a"));
  EXPECT_FALSE(sentence("root ::= [a-z]{2,3}", "abcd"));
  EXPECT_TRUE(sentence("root ::= \"ab\"{2}", "abab"));
  EXPECT_TRUE(sentence("root ::= \"x\"{1,} \"!\"", "xxxx!"));
  EXPECT_TRUE(sentence("root ::= \"\\\"\" [^\"]* \"\\\"\"", "\"any ] thing\""));
  EXPECT_FALSE(sentence("root ::= \"\\\"\" [^\"]* \"\\\"\"", "\"a\"b\""));
  EXPECT_TRUE(sentence("root ::= . . \"\\x41\" \"\\u00e9\"", "?!A\xC3\xA9"));
}

TEST(Grammar, AWholeSentenceMayGoOnWhereTheGrammarAllows) {
  llm::GrammarMatcher m = matcher("root ::= [a-z]+");
  EXPECT_FALSE(m.complete());
  ASSERT_TRUE(m.feed("ab"));
  EXPECT_TRUE(m.complete());
  EXPECT_TRUE(m.accepts("c"));
  EXPECT_FALSE(m.accepts("1"));
  EXPECT_FALSE(m.feed("1"));  // refused: the state is as before
  EXPECT_TRUE(m.complete());
}

TEST(Grammar, ACharacterSplitAcrossTokensIsFollowed) {
  // U+00E9 is C3 A9; U+4E2D is E4 B8 AD.
  const std::string g = "root ::= [\\u00e0-\\u00ff] [\\u4e00-\\u9fff]";
  llm::GrammarMatcher m = matcher(g);
  EXPECT_TRUE(m.accepts("\xC3"));
  EXPECT_FALSE(m.accepts("\xE4"));  // no character from E4 fits [U+00E0, U+00FF]
  EXPECT_FALSE(matcher("root ::= [a-z]").accepts("\xC1"));  // C1 would be an overlong 'a'..'\x7f'
  EXPECT_FALSE(matcher("root ::= [a-z]").accepts("\xE0\x81\xA1"));  // overlong 'a'
  ASSERT_TRUE(m.feed("\xC3"));
  EXPECT_FALSE(m.complete());
  ASSERT_TRUE(m.feed("\xA9\xE4"));
  ASSERT_TRUE(m.feed("\xB8"));
  EXPECT_FALSE(m.feed("\x41"));  // not a continuation byte
  ASSERT_TRUE(m.feed("\xAD"));
  EXPECT_TRUE(m.complete());
}

TEST(Grammar, NestingIsBounded) {
  // Brackets inside brackets: a reading deeper than kMaxDepth positions is
  // dropped, so each byte costs a bounded time.
  const std::string g = "root ::= \"(\" root \")\" | \"x\"";
  EXPECT_TRUE(sentence(g, std::string(100, '(') + "x" + std::string(100, ')')));
  EXPECT_FALSE(prefix(g, std::string(llm::GrammarMatcher::kMaxDepth + 8, '(')));
  EXPECT_NE(error_of("root ::= " + std::string(65, '(') + "\"a\"" + std::string(65, ')')).find("nest deeper than 64"),
            std::string::npos);
}

TEST(Grammar, BadGrammarsAreRefusedNamingWhereAndWhat) {
  EXPECT_NE(error_of("root ::= item\n").find("rule 'item' is used but not defined"), std::string::npos);
  EXPECT_NE(error_of("start ::= \"a\"\n").find("no 'root' rule"), std::string::npos);
  EXPECT_NE(error_of("root ::= \"a\"\nroot ::= \"b\"\n").find("line 2, column 1: rule 'root' is defined twice"),
            std::string::npos);
  EXPECT_NE(error_of("root ::= \"abc\n").find("line 1, column 10: unterminated string literal"), std::string::npos);
  EXPECT_NE(error_of("root ::= [ab\n").find("unterminated character class"), std::string::npos);
  EXPECT_NE(error_of("root ::= \"\\q\"").find("unknown escape '\\q'"), std::string::npos);
  EXPECT_NE(error_of("root ::= ( \"a\" ").find("expected ')'"), std::string::npos);
  EXPECT_NE(error_of("root ::= \"a\"{3,2}").find("most is below its least"), std::string::npos);
  EXPECT_NE(error_of("root ::= expr\nexpr ::= expr \"+\" \"1\" | \"1\"\n").find("'expr' is left-recursive"),
            std::string::npos);
  EXPECT_NE(error_of("root ::= ws root \"x\" | \"y\"\nws ::= \" \"*\n").find("'root' is left-recursive"),
            std::string::npos);
  EXPECT_NE(error_of("root = \"a\"").find("expected '::='"), std::string::npos);
  EXPECT_NE(error_of("").find("no 'root' rule"), std::string::npos);
}

}  // namespace
}  // namespace wgrt
