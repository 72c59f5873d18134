/* ctorch's implementation for the fuzz targets, compiled once. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"
