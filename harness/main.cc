// locksmith's entry point: the CLI, with crashes turned into exit code 255.
#include <exception>
#include <iostream>

#include "harness/cli.h"

int main(int argc, char** argv) {
  try {
    return locksmith::CliMain(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "locksmith: crashed: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "locksmith: crashed\n";
  }
  return 255;
}
