// missing_include.cu: includes a header that does not exist.
#include "no_such_header.cuh"

__global__ void k(int* p) { p[0] = 1; }
