// A nemesis reads ops through history/, never through a checker: refused.
#include "checker/leased_lock_checker.h"
#include "history/lock_ops.h"
