#include "checker/memo_table.h"

#include <algorithm>

namespace locksmith {
namespace {

constexpr size_t kInitialSlots = 1024;

uint64_t Mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return h;
}

uint64_t HashWords(std::span<const uint32_t> words) {
  uint64_t h = 0x243F6A8885A308D3ull ^ words.size();
  for (uint32_t w : words) h = Mix(h ^ w) + 0x9E3779B97F4A7C15ull;
  return h;
}

}  // namespace

MemoTable::MemoTable() : slots_(kInitialSlots) {}

size_t MemoTable::MemoryBytes() const {
  return slots_.capacity() * sizeof(Slot) + key_words_.capacity() * sizeof(uint32_t) +
         counts_.capacity() * sizeof(Counts) + count_words_.capacity() * sizeof(uint32_t);
}

uint32_t MemoTable::AddCounts(uint32_t next, std::span<const uint32_t> nonzero,
                              const std::vector<uint32_t>& consumed) {
  Counts c{next, static_cast<uint32_t>(count_words_.size()),
           static_cast<uint32_t>(nonzero.size())};
  for (uint32_t cls : nonzero) {
    count_words_.push_back(cls);
    count_words_.push_back(consumed[cls]);
  }
  counts_.push_back(c);
  return static_cast<uint32_t>(counts_.size() - 1);
}

bool MemoTable::Subsumes(const Counts& stored, const std::vector<uint32_t>& consumed) {
  // First pass: plain classes must not exceed; covered classes run up a
  // debt on their coverer.
  bool covered = true;
  for (uint32_t i = 0; i < stored.pairs && covered; ++i) {
    const uint32_t cls = count_words_[stored.offset + 2 * i];
    const uint32_t count = count_words_[stored.offset + 2 * i + 1];
    if (consumed[cls] >= count) continue;
    const int32_t payer = cls < coverer_.size() ? coverer_[cls] : -1;
    if (payer < 0) {
      covered = false;
      break;
    }
    if (debt_[payer] == 0) debtors_.push_back(static_cast<uint32_t>(payer));
    debt_[payer] += count - consumed[cls];
  }
  if (debtors_.empty()) return covered;
  // Second pass: each coverer pays from the ops this node used beyond the
  // stored node (a coverer the stored node never used has no pair).
  for (uint32_t i = 0; i < stored.pairs && covered; ++i) {
    const uint32_t cls = count_words_[stored.offset + 2 * i];
    if (debt_[cls] == 0) continue;
    const uint32_t count = count_words_[stored.offset + 2 * i + 1];
    if (consumed[cls] < count + debt_[cls]) covered = false;
    debt_[cls] = 0;
  }
  for (uint32_t payer : debtors_) {
    if (debt_[payer] != 0 && consumed[payer] < debt_[payer]) covered = false;
    debt_[payer] = 0;
  }
  debtors_.clear();
  return covered;
}

bool MemoTable::CoveredOrInsert(std::span<const uint32_t> key, std::span<const uint32_t> nonzero,
                                const std::vector<uint32_t>& consumed) {
  const uint64_t hash = HashWords(key);
  const size_t mask = slots_.size() - 1;
  size_t i = static_cast<size_t>(hash) & mask;
  while (slots_[i].first_counts != kNone) {
    Slot& slot = slots_[i];
    if (slot.hash == hash && slot.key_length == key.size() &&
        std::equal(key.begin(), key.end(), key_words_.begin() + slot.key_offset)) {
      for (uint32_t c = slot.first_counts; c != kNone; c = counts_[c].next) {
        if (Subsumes(counts_[c], consumed)) return true;
      }
      slot.first_counts = AddCounts(slot.first_counts, nonzero, consumed);
      return false;
    }
    i = (i + 1) & mask;
  }
  Slot& slot = slots_[i];
  slot.hash = hash;
  slot.key_offset = static_cast<uint32_t>(key_words_.size());
  slot.key_length = static_cast<uint32_t>(key.size());
  key_words_.insert(key_words_.end(), key.begin(), key.end());
  slot.first_counts = AddCounts(kNone, nonzero, consumed);
  if (++size_ * 2 > slots_.size()) Grow();
  return false;
}

void MemoTable::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.size() * 2, Slot{});
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.first_counts == kNone) continue;
    size_t i = static_cast<size_t>(s.hash) & mask;
    while (slots_[i].first_counts != kNone) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

}  // namespace locksmith
