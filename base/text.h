// Small text helpers every layer that shows things to people shares: the
// order of host names and a duration in the unit that reads best. Pure
// functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

namespace locksmith {

// Names with a trailing number ("c12", "n3") order by prefix, then number.
bool NaturalLess(const std::string& a, const std::string& b);

// "2.408 s", "12.3 ms", "850 µs", "40 ns": a duration given in nanoseconds.
std::string FormatDurationNs(double ns);

// Milliseconds (from a file someone else wrote: any double, NaN included) as
// nanoseconds, saturated to int64's range, so a wild value is a wild time
// rather than an undefined conversion. NaN reads as 0.
int64_t MillisToNs(double ms);

// The first line of a program's output, without its line ending or trailing
// blanks: what an error message quotes of a command that failed.
std::string FirstLine(const std::string& text);

}  // namespace locksmith
