// TerminalSafe: text from input (keys, processes, errors, names from files
// others wrote) made safe to print on a terminal. A key holding an escape
// sequence could recolour or clear the screen, and one holding CR or LF could
// print a line of its own, such as a forged "verdict: VALID". Everything
// locksmith prints that carries such text goes through here: the run summary,
// the progress line, the verdict of `check FILE` and every error and warning
// line. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace locksmith {

// `text` with every character a terminal could act on written as an escape:
// C0 controls and DEL as \n, \r, \t or \xHH; C1 controls, line and paragraph
// separators and bidirectional overrides as \uHHHH; bytes that are not UTF-8
// as \xHH. Everything else (a backslash included) is kept as it is, so plain
// text reads unchanged and the result holds no line break.
std::string TerminalSafe(std::string_view text);

}  // namespace locksmith
