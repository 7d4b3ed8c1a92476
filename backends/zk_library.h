// Process-wide settings of libzookeeper_mt: its log goes to a stream of the
// whole process, so locksmith sets it once. Thread-safe (call_once).
#pragma once

namespace locksmith {

// Silences the library's own log (it would write every reconnect of every
// client to stderr while a fault is in force). Idempotent.
void QuietZkLibrary();

}  // namespace locksmith
