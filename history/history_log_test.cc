#include "history/history_log.h"

#include <fstream>
#include <future>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "history/history_file.h"

namespace locksmith {
namespace {

History SampleHistory() {
  History h;
  auto add = [&](int64_t process, OpType type, std::string f, std::string key,
                 nlohmann::json value = nullptr, std::string error = "") {
    Op op;
    op.index = static_cast<int64_t>(h.size());
    op.time = 1000 * op.index + 7;
    op.process = process;
    op.type = type;
    op.f = std::move(f);
    op.key = std::move(key);
    op.value = std::move(value);
    op.error = std::move(error);
    h.push_back(std::move(op));
  };
  add(0, OpType::kInvoke, "acquire", "lock-0", {{"lease_ms", 1000}});
  add(1, OpType::kInvoke, "acquire", "lock-0", {{"lease_ms", 1000}});
  add(0, OpType::kOk, "acquire", "lock-0", {{"token", 17}});
  add(1, OpType::kFail, "acquire", "lock-0", nullptr, "held");
  add(kNemesisProcess, OpType::kInvoke, "kill", "", "n1");
  h.back().fault = FaultMark{0, "kill", true}.ToJson();
  add(kServiceProcess, OpType::kInfo, "+switch-master", "", {{"to", "n2"}});
  add(0, OpType::kInfo, "release", "lock-0", nullptr, std::string(300, 'e') + " \xc3\xa9");
  add(1, OpType::kInfo, "acquire", "lock-0", nullptr, "held");  // "held" a second time
  h.back().time = 3;  // times need not grow
  return h;
}

std::string Encode(const History& h) {
  HistoryLogEncoder encoder;
  std::string bytes(kHistoryLogMagic);
  for (const Op& op : h) encoder.Encode(op, &bytes);
  return bytes;
}

void ExpectSameOps(const History& a, const History& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(OpToJsonLine(a[i]), OpToJsonLine(b[i])) << i;
}

TEST(HistoryLogTest, EveryOpRoundTripsAndRewindsForASecondPass) {
  const History h = SampleHistory();
  auto stream = HistoryLogStream::FromBytes(Encode(h), "mem");
  ASSERT_TRUE(stream) << stream.error();
  for (int pass = 0; pass < 2; ++pass) {
    auto read = ReadAll(**stream);
    ASSERT_TRUE(read) << read.error();
    ExpectSameOps(*read, h);
    EXPECT_TRUE((*stream)->skipped().empty());
    ASSERT_TRUE((*stream)->Rewind());
  }
}

// A history long enough to take several of the reader's chunks.
History LongHistory() {
  History h;
  for (int round = 0; round < 3000; ++round) {
    for (Op op : SampleHistory()) {
      op.index = static_cast<int64_t>(h.size());
      op.key += "-" + std::to_string(round % 50);
      h.push_back(std::move(op));
    }
  }
  return h;
}

TEST(HistoryLogTest, AGrowingFileIsReadAsItsWriterPublishesIt) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/history.bin";
  const History h = LongHistory();
  const std::string bytes = Encode(h);
  ASSERT_GT(bytes.size(), size_t{200'000});
  std::ofstream(path).flush();  // the recorder creates the file before it writes
  auto extent = std::make_shared<LogExtent>();
  auto stream = std::async(std::launch::async, [&] {
    return HistoryLogStream::Open(path, /*allow_truncated_tail=*/false, extent);
  });
  // Pieces that cut records anywhere, published one at a time.
  std::thread writer([&] {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    for (size_t at = 0; at < bytes.size(); at += 9'973) {
      out << bytes.substr(at, 9'973) << std::flush;
      extent->Publish(std::min(bytes.size(), at + 9'973));
      std::this_thread::yield();
    }
    extent->Seal();
  });
  auto opened = stream.get();
  ASSERT_TRUE(opened) << opened.error();
  auto read = ReadAll(**opened);
  writer.join();
  ASSERT_TRUE(read) << read.error();
  ExpectSameOps(*read, h);
  ASSERT_TRUE((*opened)->Rewind());
  auto again = ReadAll(**opened);
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again->size(), h.size());
}

TEST(HistoryLogTest, NoByteIsReadPastWhatTheWriterPublished) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/history.bin";
  const History h = SampleHistory();
  History first_three(h.begin(), h.begin() + 3);
  const std::string whole = Encode(h);
  const size_t three = Encode(first_three).size();
  std::ofstream(path, std::ios::binary) << whole;
  // The file holds every op, but its writer vouched for three, then one
  // more record's first byte: a write still under way.
  auto extent = std::make_shared<LogExtent>();
  extent->Publish(three + 1);
  extent->Seal();
  auto stream = HistoryLogStream::Open(path, /*allow_truncated_tail=*/true, extent);
  ASSERT_TRUE(stream) << stream.error();
  auto read = ReadAll(**stream);
  ASSERT_TRUE(read) << read.error();
  ExpectSameOps(*read, first_three);
  EXPECT_EQ((*stream)->skipped().size(), 1u);
}

TEST(HistoryLogTest, RepeatedStringsAreWrittenOnce) {
  History h;
  for (int i = 0; i < 1000; ++i) {
    Op op;
    op.index = i;
    op.time = i * 50'000;
    op.process = i % 50;
    op.type = i % 2 ? OpType::kOk : OpType::kInvoke;
    op.f = "acquire";
    op.key = "lock-" + std::to_string(i % 50);
    h.push_back(op);
  }
  const std::string bytes = Encode(h);
  // An op of this kind is some 17 bytes; its JSON line is near a hundred.
  size_t json_bytes = 0;
  for (const Op& op : h) json_bytes += OpToJsonLine(op).size() + 1;
  EXPECT_LT(bytes.size() * 4, json_bytes);
  auto read = ParseHistoryLog(bytes, "mem");
  ASSERT_TRUE(read) << read.error();
  ExpectSameOps(*read, h);
}

TEST(HistoryLogTest, EveryCutOfTheFileReadsAPrefixAndSaysWhatItDropped) {
  const History h = SampleHistory();
  const std::string bytes = Encode(h);
  for (size_t cut = kHistoryLogMagic.size(); cut < bytes.size(); ++cut) {
    std::vector<SkippedLine> skipped;
    auto read = ParseHistoryLog(bytes.substr(0, cut), "mem", &skipped);
    ASSERT_TRUE(read) << cut << ": " << read.error();
    ASSERT_LT(read->size(), h.size());
    for (size_t i = 0; i < read->size(); ++i) EXPECT_EQ((*read)[i].index, h[i].index);
    // A cut between two records drops nothing; a cut inside one is said.
    if (!skipped.empty()) {
      EXPECT_TRUE(skipped[0].record);
      EXPECT_GE(skipped[0].line, 1);
    }
  }
}

TEST(HistoryLogTest, ATornTailIsRefusedWhenNotAllowed) {
  const std::string bytes = Encode(SampleHistory());
  auto stream = HistoryLogStream::FromBytes(bytes.substr(0, bytes.size() - 1), "mem",
                                            /*allow_truncated_tail=*/false);
  ASSERT_TRUE(stream);
  auto read = ReadAll(**stream);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().find("cut short"), std::string::npos) << read.error();
}

TEST(HistoryLogTest, ADamagedRecordInsideIsAnErrorNamingIt) {
  std::string bytes = Encode(SampleHistory());
  bytes[kHistoryLogMagic.size() + 3] ^= 0x40;  // inside the first record
  auto read = ParseHistoryLog(bytes, "h.bin");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().rfind("h.bin: record 1 (byte 8): ", 0), 0u) << read.error();
}

TEST(HistoryLogTest, AWrongMagicOrVersionIsAnError) {
  auto read = ParseHistoryLog("LKSMHST\x03 and more", "h.bin");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error(),
            "h.bin: a history log of version 3, which this locksmith does not read (it reads "
            "versions 1 and 2)");
  EXPECT_TRUE(HasHistoryLogMagic("LKSMHST\x03 and more"));  // so `check FILE` says so
  read = ParseHistoryLog("LKSMHIS\x01 and more", "h.bin");
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().find("not a history log"), std::string::npos) << read.error();
  EXPECT_FALSE(ParseHistoryLog("LKS", "h.bin"));
}

TEST(HistoryLogTest, FilesAreFoundAndReadByTheirMagic) {
  testing::TempDir dir;
  const History h = SampleHistory();
  EXPECT_EQ(RunHistoryFile(dir.path()), dir.path() + "/history.jsonl");
  {
    std::ofstream jsonl(dir.path() + "/history.jsonl");
    for (const Op& op : h) jsonl << OpToJsonLine(op) << "\n";
  }
  std::ofstream(dir.path() + "/history.bin") << Encode(h);
  EXPECT_EQ(RunHistoryFile(dir.path()), dir.path() + "/history.bin");
  for (const char* name : {"/history.bin", "/history.jsonl"}) {
    auto stream = OpenHistoryStream(dir.path() + name);
    ASSERT_TRUE(stream) << stream.error();
    auto read = ReadAll(**stream);
    ASSERT_TRUE(read) << read.error();
    ExpectSameOps(*read, h);
    // `check FILE` reads either, whatever format it is told.
    auto loaded = LoadHistoryFile(dir.path() + name, name[9] == 'b' ? "" : "jsonl");
    ASSERT_TRUE(loaded) << loaded.error();
    ExpectSameOps(*loaded, h);
  }
}

TEST(HistoryLogTest, ACutLogLoadedWholeSaysItsSkippedRecord) {
  testing::TempDir dir;
  const std::string bytes = Encode(SampleHistory());
  std::ofstream(dir.path() + "/history.bin") << bytes.substr(0, bytes.size() - 2);
  std::vector<SkippedLine> skipped;
  auto loaded = LoadHistoryFile(dir.path() + "/history.bin", "jsonl", &skipped);
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->size(), SampleHistory().size() - 1);
  const auto lines = DescribeSkippedLines("h.bin", skipped);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("h.bin: record "), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("the last record is cut short"), std::string::npos) << lines[0];
}

// The log a run writes: its ops, then the closing record.
std::string EncodeClosed(const History& h, const std::string& ended = kEndedTimeLimit) {
  HistoryLogEncoder encoder;
  std::string bytes(kHistoryLogMagic);
  for (const Op& op : h) encoder.Encode(op, &bytes);
  encoder.EncodeClosing(HistoryClosing{.ended = ended, .detail = "why"}, &bytes);
  return bytes;
}

// Every op of `bytes`, and what the stream found at its end.
HistoryEnd ReadToEnd(const std::string& bytes, History* ops = nullptr) {
  auto stream = HistoryLogStream::FromBytes(bytes, "h.bin");
  EXPECT_TRUE(stream) << stream.error();
  if (!stream) return {};
  auto read = ReadAll(**stream);
  EXPECT_TRUE(read) << read.error();
  if (read && ops != nullptr) *ops = *read;
  return *(*stream)->end();
}

TEST(HistoryLogTest, AClosedLogIsWholeAndCountsWhatItHolds) {
  const History h = SampleHistory();
  History read;
  const HistoryEnd end = ReadToEnd(EncodeClosed(h), &read);
  ExpectSameOps(read, h);
  ASSERT_TRUE(end.closing.has_value());
  EXPECT_EQ(end.closing->ended, kEndedTimeLimit);
  EXPECT_EQ(end.closing->ops, static_cast<int64_t>(h.size()));
  EXPECT_EQ(end.closing->faults, 1);  // the kill's window
  EXPECT_EQ(end.ops, end.closing->ops);
  EXPECT_EQ(end.faults, 1);
  EXPECT_EQ(end.CutShort("h.bin"), "");
}

TEST(HistoryLogTest, ALogCutAtAnyRecordBoundaryOrInsideOneIsNotWhole) {
  const std::string bytes = EncodeClosed(SampleHistory());
  int boundaries = 0;
  for (size_t cut = kHistoryLogMagic.size(); cut < bytes.size(); ++cut) {
    std::vector<SkippedLine> skipped;
    auto stream = HistoryLogStream::FromBytes(bytes.substr(0, cut), "h.bin");
    ASSERT_TRUE(stream) << stream.error();
    ASSERT_TRUE(ReadAll(**stream));
    const HistoryEnd& end = *(*stream)->end();
    EXPECT_FALSE(end.closing.has_value()) << cut;
    const std::string line = end.CutShort("h.bin");
    EXPECT_EQ(line.rfind("history cut short: h.bin ends ", 0), 0u) << line;
    EXPECT_NE(line.find("without its closing record"), std::string::npos) << line;
    if ((*stream)->skipped().empty()) {  // a cut between two records: no warning said it
      ++boundaries;
      EXPECT_EQ(end.whole_bytes, cut) << line;
    }
  }
  EXPECT_GT(boundaries, 5);
}

TEST(HistoryLogTest, AClosingRecordThatCountsOtherOpsIsNotWhole) {
  const History h = SampleHistory();
  // The closing record of a longer history, after the first ops only.
  HistoryLogEncoder full;
  std::string ignored;
  for (const Op& op : h) full.Encode(op, &ignored);
  HistoryLogEncoder part;
  std::string bytes(kHistoryLogMagic);
  for (size_t i = 0; i + 2 < h.size(); ++i) part.Encode(h[i], &bytes);
  std::string closing;
  full.EncodeClosing(HistoryClosing{.ended = kEndedTimeLimit}, &closing);
  const HistoryEnd end = ReadToEnd(bytes + closing);
  ASSERT_TRUE(end.closing.has_value());
  EXPECT_EQ(end.CutShort("h.bin"),
            "history cut short: h.bin's closing record counts 8 ops and 1 faults; 6 ops and 1 "
            "faults were read");
}

TEST(HistoryLogTest, NothingMayFollowTheClosingRecord) {
  const History h = SampleHistory();
  HistoryLogEncoder encoder;
  std::string bytes(kHistoryLogMagic);
  encoder.Encode(h[0], &bytes);
  encoder.EncodeClosing(HistoryClosing{.ended = kEndedTimeLimit}, &bytes);
  encoder.Encode(h[1], &bytes);
  auto read = ParseHistoryLog(bytes, "h.bin");
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().find("a record after the closing record"), std::string::npos)
      << read.error();
}

TEST(HistoryLogTest, ALogOfVersionOneIsReadButNeverWhole) {
  const History h = SampleHistory();
  std::string bytes = Encode(h);
  bytes.replace(0, kHistoryLogMagicV1.size(), kHistoryLogMagicV1);
  History read;
  const HistoryEnd end = ReadToEnd(bytes, &read);
  ExpectSameOps(read, h);
  EXPECT_FALSE(end.closing.has_value());
  EXPECT_NE(end.CutShort("h.bin").find("without its closing record"), std::string::npos);
  // Version 1 had no closing record: its kind is unknown there.
  std::string closed = EncodeClosed(h);
  closed.replace(0, kHistoryLogMagicV1.size(), kHistoryLogMagicV1);
  auto refused = ParseHistoryLog(closed, "h.bin");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("an unknown record kind"), std::string::npos) << refused.error();
}

}  // namespace
}  // namespace locksmith
