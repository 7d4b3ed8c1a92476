#include "harness/delta_debugger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace locksmith {
namespace {

using Subset = std::vector<size_t>;

bool Contains(const Subset& set, size_t element) {
  return std::find(set.begin(), set.end(), element) != set.end();
}

// A fake replay: reproduces when `needed` is a subset of the candidate.
DeltaDebugger::Oracle Needs(std::set<size_t> needed, std::vector<Subset>* asked = nullptr) {
  return [needed, asked](const Subset& subset) {
    if (asked != nullptr) asked->push_back(subset);
    const bool all = std::all_of(needed.begin(), needed.end(),
                                 [&](size_t e) { return Contains(subset, e); });
    return all ? Trial::kReproduced : Trial::kNotReproduced;
  };
}

TEST(DeltaDebuggerTest, FindsTheOneFaultThatMatters) {
  std::vector<Subset> asked;
  DeltaDebugger dd(Needs({6}, &asked));
  const DeltaDebugger::Outcome out = dd.Minimize(9);
  EXPECT_EQ(out.kept, Subset({6}));
  EXPECT_TRUE(out.complete);
  EXPECT_EQ(out.tested, static_cast<int>(asked.size()));
  // Never the whole input (known) nor the empty set (taken not to reproduce).
  for (const auto& s : asked) {
    EXPECT_FALSE(s.empty());
    EXPECT_LT(s.size(), 9u);
  }
  // Logarithmic for one cause: halves down to the element.
  EXPECT_LE(out.tested, 8);
}

TEST(DeltaDebuggerTest, KeepsTwoFaultsThatOnlyFailTogether) {
  DeltaDebugger dd(Needs({1, 7}));
  const auto out = dd.Minimize(8);
  EXPECT_EQ(out.kept, Subset({1, 7}));
  EXPECT_TRUE(out.complete);
}

TEST(DeltaDebuggerTest, TheResultIsOneMinimal) {
  // Reproduces when it holds 2 and any of 4, 5: removing either kept one
  // must not reproduce any more.
  DeltaDebugger dd([](const Subset& s) {
    return Contains(s, 2) && (Contains(s, 4) || Contains(s, 5)) ? Trial::kReproduced
                                                                 : Trial::kNotReproduced;
  });
  const auto out = dd.Minimize(6);
  ASSERT_EQ(out.kept.size(), 2u);
  EXPECT_EQ(out.kept[0], 2u);
  EXPECT_TRUE(out.kept[1] == 4 || out.kept[1] == 5);
}

TEST(DeltaDebuggerTest, EveryFaultNeededKeepsThemAll) {
  DeltaDebugger dd(Needs({0, 1, 2}));
  const auto out = dd.Minimize(3);
  EXPECT_EQ(out.kept, Subset({0, 1, 2}));
  EXPECT_TRUE(out.complete);
}

TEST(DeltaDebuggerTest, OneFaultIsNeverAsked) {
  int asked = 0;
  DeltaDebugger dd([&](const Subset&) {
    ++asked;
    return Trial::kReproduced;
  });
  EXPECT_EQ(dd.Minimize(1).kept, Subset({0}));
  EXPECT_EQ(asked, 0);
}

TEST(DeltaDebuggerTest, AsksEachSubsetOnce) {
  std::vector<Subset> asked;
  DeltaDebugger dd(Needs({3, 4}, &asked));
  dd.Minimize(10);
  std::set<Subset> distinct(asked.begin(), asked.end());
  EXPECT_EQ(distinct.size(), asked.size());
}

TEST(DeltaDebuggerTest, OutOfBudgetStopsWithTheSmallestFoundSoFar) {
  int answered = 0;
  DeltaDebugger dd([&](const Subset& s) {
    if (answered == 1) return Trial::kOutOfBudget;
    ++answered;
    return Contains(s, 6) ? Trial::kReproduced : Trial::kNotReproduced;
  });
  const auto out = dd.Minimize(8);
  // The first half did not reproduce; the second, {4..7}, was not asked.
  EXPECT_FALSE(out.complete);
  EXPECT_EQ(out.kept, Subset({0, 1, 2, 3, 4, 5, 6, 7}));
  DeltaDebugger second([&, calls = 0](const Subset& s) mutable {
    if (++calls > 2) return Trial::kOutOfBudget;
    return Contains(s, 6) ? Trial::kReproduced : Trial::kNotReproduced;
  });
  const auto partial = second.Minimize(8);
  EXPECT_FALSE(partial.complete);
  EXPECT_EQ(partial.kept, Subset({4, 5, 6, 7}));
}

TEST(BisectShortestTest, FindsTheShortestValueToItsResolution) {
  std::vector<int64_t> asked;
  const Bisection b = BisectShortest(3000, 12000, 500, [&](int64_t v) {
    asked.push_back(v);
    return v >= 5200 ? Trial::kReproduced : Trial::kNotReproduced;
  });
  EXPECT_EQ(b.shortest, 5500);
  EXPECT_TRUE(b.complete);
  EXPECT_EQ(b.tested, static_cast<int>(asked.size()));
  for (int64_t v : asked) {
    EXPECT_EQ(v % 500, 0) << v;
    EXPECT_GT(v, 3000);
    EXPECT_LT(v, 12000);
  }
}

TEST(BisectShortestTest, NothingShorterKeepsTheUpperBound) {
  const Bisection b =
      BisectShortest(1000, 4000, 500, [](int64_t) { return Trial::kNotReproduced; });
  EXPECT_EQ(b.shortest, 4000);
  EXPECT_TRUE(b.complete);
}

TEST(BisectShortestTest, OutOfBudgetKeepsTheShortestReproducingSoFar) {
  int calls = 0;
  const Bisection b = BisectShortest(0, 16000, 1000, [&](int64_t) {
    return ++calls > 1 ? Trial::kOutOfBudget : Trial::kReproduced;
  });
  EXPECT_EQ(b.shortest, 8000);
  EXPECT_FALSE(b.complete);
}

}  // namespace
}  // namespace locksmith
