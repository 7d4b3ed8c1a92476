// Headless Chromium (Debian's chromium, installed by scripts/setup.sh
// --tests) for the tests that check a page in a real browser: the DOM of a
// page after its scripts ran, and a screenshot. Each call uses a profile of
// its own under `work` and is bounded by `timeout 120`. Tests only.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "base/testing/file_text.h"

namespace locksmith::testing {

// The DOM Chromium built of the file `page` (an absolute path), in `*dom`,
// and Chromium's log in `*log`; false when Chromium failed.
inline bool DumpDomInChromium(const std::string& page, const std::string& work, std::string* dom,
                              std::string* log) {
  const std::string dom_file = work + "/dom.html", log_file = work + "/chromium.log";
  const std::string command =
      "timeout 120 chromium --headless=new --no-sandbox --disable-gpu --no-first-run "
      "--user-data-dir='" + work + "/profile' --dump-dom 'file://" + page + "' >'" + dom_file +
      "' 2>'" + log_file + "'";
  const int raw = std::system(command.c_str());
  *dom = FileText(dom_file);
  *log = FileText(log_file);
  return WIFEXITED(raw) && WEXITSTATUS(raw) == 0;
}

// A screenshot of `page` at 1400x900 into `png`; false when Chromium failed.
inline bool ScreenshotInChromium(const std::string& page, const std::string& work,
                                 const std::string& png) {
  const std::string command =
      "timeout 120 chromium --headless=new --no-sandbox --disable-gpu --no-first-run "
      "--user-data-dir='" + work + "/profile' --window-size=1400,900 --screenshot='" + png +
      "' 'file://" + page + "' >/dev/null 2>&1";
  const int raw = std::system(command.c_str());
  return WIFEXITED(raw) && WEXITSTATUS(raw) == 0;
}

}  // namespace locksmith::testing
