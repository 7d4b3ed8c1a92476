// The history may use only base: a checker header here is refused.
#include "base/result.h"
#include "checker/checker.h"
