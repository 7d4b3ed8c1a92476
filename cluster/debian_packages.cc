#include "cluster/debian_packages.h"

#include <fstream>
#include <set>

namespace locksmith {
namespace {

// The installed packages of a dpkg status file: its paragraphs, blank-line
// separated, each with "Package:" and "Status:" fields.
std::set<std::string> InstalledPackages(std::istream& in) {
  std::set<std::string> installed;
  std::string package, status, line;
  auto end_paragraph = [&] {
    if (!package.empty() && status == "install ok installed") installed.insert(package);
    package.clear();
    status.clear();
  };
  while (std::getline(in, line)) {
    if (line.empty()) {
      end_paragraph();
    } else if (line.rfind("Package: ", 0) == 0) {
      package = line.substr(9);
    } else if (line.rfind("Status: ", 0) == 0) {
      status = line.substr(8);
    }
  }
  end_paragraph();
  return installed;
}

}  // namespace

std::vector<std::string> MissingDebianPackages(const std::vector<std::string>& packages,
                                               const std::string& status_file) {
  std::ifstream in(status_file);
  if (!in) return {};
  const std::set<std::string> installed = InstalledPackages(in);
  std::vector<std::string> missing;
  for (const auto& p : packages) {
    if (!installed.contains(p)) missing.push_back(p);
  }
  return missing;
}

}  // namespace locksmith
