// The watch makes a signal the run's interruption, whether it came before
// the watch began or while it lives.
#include "harness/interruption_watch.h"

#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "base/testing/eventually.h"

namespace locksmith {
namespace {

// Sends `sig` to the process (the watcher's thread takes it) and waits
// until the watcher has it.
void SignalProcessAndWait(SignalWatcher& signals, int sig) {
  ::kill(::getpid(), sig);
  while (!signals.interrupted()) ::usleep(1000);
}

TEST(InterruptionWatchTest, ASignalBeforeTheWatchIsNotedAsItBegins) {
  SignalWatcher signals;
  RunLog log;
  Interruption interruption;
  SignalProcessAndWait(signals, SIGHUP);
  EXPECT_FALSE(interruption.noted());
  InterruptionWatch watch(signals, interruption, log);
  EXPECT_TRUE(interruption.noted());
  EXPECT_TRUE(interruption.BeforeWorkload());
}

TEST(InterruptionWatchTest, ASignalWhileItWatchesIsNotedInItsPhase) {
  SignalWatcher signals;
  RunLog log;
  Interruption interruption;
  InterruptionWatch watch(signals, interruption, log);
  interruption.SetPhase(Interruption::Phase::kWorkload);
  SignalProcessAndWait(signals, SIGTERM);
  ASSERT_TRUE(testing::Eventually([&] { return interruption.noted().load(); }, "the signal noted"));
  EXPECT_TRUE(interruption.StoppedTheRun());
  EXPECT_FALSE(interruption.BeforeWorkload());
}

}  // namespace
}  // namespace locksmith
