// A backend file that reaches up into the harness: the layering check refuses it.
#include "harness/run.h"
