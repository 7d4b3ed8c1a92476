#include "checker/value_table.h"

#include <gtest/gtest.h>

#include <string>

namespace locksmith {
namespace {

// A Thue-Morse string over "ab" and its complement: of the same length and
// different at every byte, they have the same polynomial hash mod 2^64 for
// every odd base at this length (the hash's difference is a product of 11
// factors 1 - B^(2^j), each divisible by 2^(j+1): 2^66 in all).
std::pair<std::string, std::string> StringsOfOneTextHash() {
  std::string word = "a", complement = "b";
  for (int doubling = 0; doubling < 11; ++doubling) {
    const std::string next = word + complement;
    complement = complement + word;
    word = next;
  }
  return {word, complement};
}

TEST(ValueTableTest, AConcatenationIsTheStringOfItsBytes) {
  ValueTable values;
  const int64_t head = values.InternString("x 1 y");
  const int64_t tail = values.InternString("x 2 y");
  const int64_t joined = values.InternConcat(head, tail);
  EXPECT_EQ(values.StringAt(joined), "x 1 yx 2 y");
  EXPECT_EQ(values.InternString("x 1 yx 2 y"), joined);
  EXPECT_EQ(values.Intern(nlohmann::json("x 1 yx 2 y")), joined);
  EXPECT_EQ(values.InternConcat(head, tail), joined);
  EXPECT_NE(values.InternConcat(tail, head), joined);
  EXPECT_EQ(values.InternConcat(values.InternString(""), head), head);
}

TEST(ValueTableTest, StringsOfOneHashAreTwoValues) {
  const auto [word, complement] = StringsOfOneTextHash();
  ValueTable values;
  const int64_t a = values.InternString(word);
  const int64_t b = values.InternString(complement);
  EXPECT_NE(a, b);
  EXPECT_EQ(values.StringAt(a), word);
  EXPECT_EQ(values.StringAt(b), complement);
  // Built from halves, each finds its own string and not the other.
  const size_t half = word.size() / 2;
  const int64_t a_joined = values.InternConcat(values.InternString(word.substr(0, half)),
                                               values.InternString(word.substr(half)));
  const int64_t b_joined = values.InternConcat(values.InternString(complement.substr(0, half)),
                                               values.InternString(complement.substr(half)));
  EXPECT_EQ(a_joined, a);
  EXPECT_EQ(b_joined, b);
}

TEST(ValueTableTest, ALayeredTableFindsItsBasesStringsAndAddsItsOwn) {
  ValueTable base;
  const int64_t head = base.InternString("ab");
  const int64_t whole = base.InternString("abcd");
  ValueTable layered(&base);
  const int64_t tail = layered.InternString("cd");
  EXPECT_EQ(layered.InternConcat(head, tail), whole);
  const int64_t longer = layered.InternConcat(whole, tail);
  EXPECT_EQ(layered.StringAt(longer), "abcdcd");
  EXPECT_EQ(layered.InternString("abcdcd"), longer);
  // Enough strings to grow the table's index several times.
  for (int i = 0; i < 1000; ++i) layered.InternString("s" + std::to_string(i));
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(layered.StringAt(layered.InternString("s" + std::to_string(i))),
              "s" + std::to_string(i));
  }
  EXPECT_EQ(layered.InternString("abcdcd"), longer);
}

}  // namespace
}  // namespace locksmith
