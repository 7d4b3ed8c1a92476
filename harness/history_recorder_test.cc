#include "harness/history_recorder.h"

#include <gtest/gtest.h>

#include <thread>

#include "base/testing/temp_dir.h"
#include "history/history_file.h"
#include "history/history_log.h"

namespace locksmith {
namespace {

TEST(HistoryRecorderTest, WritesEveryOpAsItIsRecordedWithIndexAndTime) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/recorder_test.jsonl";
  auto recorder = HistoryRecorder::Open(path, std::chrono::steady_clock::now());
  ASSERT_TRUE(recorder.ok()) << recorder.error();
  Op op;
  op.process = 4;
  op.f = "acquire";
  op.key = "lock-0";
  const OpStamp first = (*recorder)->Record(op);
  op.type = OpType::kOk;
  const OpStamp second = (*recorder)->Record(op);
  // On disk once flushed, before the recorder is closed: a killed run keeps it.
  (*recorder)->Flush();
  auto history = LoadHistoryFile(path, "");
  ASSERT_TRUE(history.ok()) << history.error();
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].index, 0);
  EXPECT_EQ((*history)[1].index, 1);
  EXPECT_EQ(first.index, 0);
  EXPECT_LE(first.time, second.time);
  EXPECT_EQ((*history)[1].time, second.time);
  EXPECT_EQ((*history)[1].type, OpType::kOk);
}

TEST(HistoryRecorderTest, ConcurrentRecordersKeepIndexAndTimeInStep) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/recorder_threads.jsonl";
  auto recorder = HistoryRecorder::Open(path, std::chrono::steady_clock::now());
  ASSERT_TRUE(recorder.ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        Op op;
        op.process = t;
        op.f = "acquire";
        (*recorder)->Record(op);
      }
    });
  }
  for (auto& t : threads) t.join();
  recorder->reset();  // closing writes what is queued
  auto history = LoadHistoryFile(path, "");
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 2000u);
  for (size_t i = 0; i < history->size(); ++i) {
    EXPECT_EQ((*history)[i].index, static_cast<int64_t>(i));
    if (i > 0) {
      EXPECT_LE((*history)[i - 1].time, (*history)[i].time);
    }
  }
}

TEST(HistoryRecorderTest, InvalidUtf8InAnErrorStillMakesAValidLine) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/recorder_utf8.jsonl";
  auto recorder = HistoryRecorder::Open(path, std::chrono::steady_clock::now());
  ASSERT_TRUE(recorder.ok());
  Op op;
  op.f = "acquire";
  op.type = OpType::kInfo;
  op.error = std::string("bad \xff\xfe byte");
  (*recorder)->Record(op);
  (*recorder)->Flush();
  auto history = LoadHistoryFile(path, "");
  ASSERT_TRUE(history.ok()) << history.error();
  EXPECT_EQ((*history)[0].error.substr(0, 4), "bad ");
  // Its JSON line, as export writes it, is valid too.
  EXPECT_TRUE(ParseOpLine(OpToJsonLine((*history)[0])).ok());
}

// /dev/full fails every write with ENOSPC, as a full disk does.
TEST(HistoryRecorderTest, AFailedWriteIsNamedOnceAndStopsTheWriting) {
  auto recorder = HistoryRecorder::Open("/dev/full", std::chrono::steady_clock::now());
  ASSERT_TRUE(recorder.ok()) << recorder.error();
  int told = 0;
  (*recorder)->OnWriteError([&] { ++told; });
  EXPECT_EQ((*recorder)->write_error(), "");
  Op op;
  op.f = "acquire";
  EXPECT_EQ((*recorder)->Record(op).index, 0);
  (*recorder)->Flush();
  EXPECT_EQ((*recorder)->write_error(), "cannot write /dev/full: No space left on device");
  EXPECT_EQ(told, 1);
  // Later ops keep their numbers but are not written, and tell no one again.
  EXPECT_EQ((*recorder)->Record(op).index, 1);
  (*recorder)->Flush();
  EXPECT_EQ((*recorder)->count(), 2);
  EXPECT_EQ(told, 1);
  (*recorder)->OnWriteError(nullptr);
  (*recorder)->Record(op);
  (*recorder)->Flush();
  EXPECT_EQ(told, 1);
}

// A writer that cannot keep up holds the producers rather than queueing
// without bound: many more ops than the queue holds all arrive, in order.
TEST(HistoryRecorderTest, OpsBeyondTheQueuesSizeAllArriveInOrder) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/recorder_many.bin";
  auto recorder = HistoryRecorder::Open(path, std::chrono::steady_clock::now());
  ASSERT_TRUE(recorder.ok());
  const size_t total = HistoryRecorder::kBatchOps * (HistoryRecorder::kMaxQueuedBatches + 3) + 5;
  Op op;
  op.f = "acquire";
  op.key = "lock-1";
  for (size_t i = 0; i < total; ++i) (*recorder)->Record(op);
  recorder->reset();
  auto history = LoadHistoryFile(path, "");
  ASSERT_TRUE(history.ok()) << history.error();
  ASSERT_EQ(history->size(), total);
  EXPECT_EQ(history->back().index, static_cast<int64_t>(total - 1));
  EXPECT_EQ(history->back().key, "lock-1");
}

TEST(HistoryRecorderTest, AClosedEmptyRecorderLeavesAnEmptyLog) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/recorder_empty.bin";
  HistoryRecorder::Open(path, std::chrono::steady_clock::now()).value().reset();
  auto history = LoadHistoryFile(path, "");
  ASSERT_TRUE(history.ok()) << history.error();
  EXPECT_TRUE(history->empty());
}

// What a reader finds at the end of the log at `path`.
HistoryEnd EndOf(const std::string& path) {
  auto stream = HistoryLogStream::Open(path);
  EXPECT_TRUE(stream) << stream.error();
  if (!stream) return {};
  EXPECT_TRUE(ReadAll(**stream));
  return *(*stream)->end();
}

TEST(HistoryRecorderTest, CloseWritesTheClosingRecordLastAndRecordsNothingAfter) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/recorder_closed.bin";
  auto recorder = HistoryRecorder::Open(path, std::chrono::steady_clock::now());
  ASSERT_TRUE(recorder.ok());
  Op op;
  op.process = kNemesisProcess;
  op.f = "kill";
  op.fault = FaultMark{0, "kill", true}.ToJson();
  (*recorder)->Record(op);
  op.process = 2;
  op.f = "acquire";
  op.fault = nullptr;
  (*recorder)->Record(op);
  // Only a closed log is whole: a flushed one is a run still going, or cut short.
  (*recorder)->Flush();
  EXPECT_FALSE(EndOf(path).closing.has_value());
  EXPECT_EQ((*recorder)->Close(kEndedInterrupted, "by SIGINT"), "");
  EXPECT_TRUE((*recorder)->extent()->Now().sealed);
  (*recorder)->Record(op);  // after the close: dropped, never after the closing record
  EXPECT_EQ((*recorder)->Close(kEndedTimeLimit, ""), "");  // once
  recorder->reset();
  const HistoryEnd end = EndOf(path);
  ASSERT_TRUE(end.closing.has_value());
  EXPECT_EQ(*end.closing, (HistoryClosing{kEndedInterrupted, "by SIGINT", 2, 1}));
  EXPECT_EQ(end.CutShort(path), "");
}

TEST(HistoryRecorderTest, ALogWhoseWriteFailedHasNoClosingRecord) {
  auto recorder = HistoryRecorder::Open("/dev/full", std::chrono::steady_clock::now());
  ASSERT_TRUE(recorder.ok());
  Op op;
  op.f = "acquire";
  (*recorder)->Record(op);
  EXPECT_EQ((*recorder)->Close(kEndedTimeLimit, ""),
            "cannot write /dev/full: No space left on device");
}

TEST(HistoryRecorderTest, UnwritablePathIsAnError) {
  auto recorder = HistoryRecorder::Open("/nonexistent-dir/h.jsonl", std::chrono::steady_clock::now());
  ASSERT_FALSE(recorder.ok());
  EXPECT_NE(recorder.error().find("/nonexistent-dir/h.jsonl"), std::string::npos);
}

}  // namespace
}  // namespace locksmith
