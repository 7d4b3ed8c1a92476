// The whole text of a file a test wrote or reads back (empty when it cannot
// be opened: the test's own assertions then say what is missing). Tests only;
// production code reads others' files through base/input_file.h.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace locksmith::testing {

inline std::string FileText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace locksmith::testing
