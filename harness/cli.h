// The locksmith command line: `run`, `check`, `cleanup`, each with --help.
// Exit codes: 0 valid, 1 invalid, 2 unknown, 254 bad input (one clear line
// naming the problem), 255 crash or a run that could not be carried out.
// Called once from main; not reentrant.
#pragma once

namespace locksmith {

int CliMain(int argc, char** argv);

}  // namespace locksmith
