// extern_c.cuh: the types extern_c.cu's kernels are declared with, as a project's header
// gives them: a typedef and a macro behind an include guard.
#ifndef WARPLAB_TEST_EXTERN_C_CUH
#define WARPLAB_TEST_EXTERN_C_CUH
typedef float real_t;
#define INDEX_T unsigned int
#endif
