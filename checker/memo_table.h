// MemoTable: Lowe's memoization for the linearizability search, with
// subsumption. A search node is (model state, the set of linearized
// completed ops, how many pending ops of each class were linearized). The
// caller encodes the first two as a word key; the pending part is a sparse
// list of (class, count). A node is covered when a stored node has the same
// key and, for every class, linearized no more pending ops: that node had
// every option this one has (pending ops are optional), so exploring this
// one cannot succeed where that one failed. With SetCoverers, a class may
// also pay for another: when every op of class W can stand in for one of
// class C (a write of v for a cas to v), a stored node that used k more C
// ops but at least k fewer W ops than this one still covers it — its
// unused W ops, all invoked already (this node used them), can replace the
// C ops this node still has. Arena-backed open addressing, so
// a million nodes stay in one allocation each for keys, slots and counts.
// Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace locksmith {

class MemoTable {
 public:
  MemoTable();

  // coverer[c]: the class whose ops can stand in for any op of class c, or
  // -1. Optional; call before the first insert.
  void SetCoverers(std::vector<int32_t> coverer) {
    debt_.assign(coverer.size(), 0);
    coverer_ = std::move(coverer);
  }

  // `nonzero` lists the classes with consumed[c] > 0. Returns true when the
  // node is covered; otherwise records it and returns false.
  bool CoveredOrInsert(std::span<const uint32_t> key, std::span<const uint32_t> nonzero,
                       const std::vector<uint32_t>& consumed);

  size_t size() const { return size_; }
  size_t MemoryBytes() const;

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t key_offset = 0;
    uint32_t key_length = 0;
    uint32_t first_counts = kNone;  // index into counts_, kNone when empty slot
  };
  struct Counts {
    uint32_t next;  // next Counts of the same key, or kNone
    uint32_t offset;  // into count_words_: pairs (class, count)
    uint32_t pairs;
  };
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  uint32_t AddCounts(uint32_t next, std::span<const uint32_t> nonzero,
                     const std::vector<uint32_t>& consumed);
  bool Subsumes(const Counts& stored, const std::vector<uint32_t>& consumed);
  void Grow();

  std::vector<Slot> slots_;
  std::vector<uint32_t> key_words_;
  std::vector<Counts> counts_;
  std::vector<uint32_t> count_words_;
  size_t size_ = 0;
  std::vector<int32_t> coverer_;
  // Scratch for Subsumes: what each coverer class owes, indexed by class.
  std::vector<uint32_t> debt_;
  std::vector<uint32_t> debtors_;
};

}  // namespace locksmith
