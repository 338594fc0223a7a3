// graphs.cu: the smallest useful kernel, launched many times in a row.
// Shows:    what a launch costs on its own: add_one does almost nothing, so N of them
//           launched one by one cost N launches, and the same N captured in a graph cost
//           one replay, which the GPU walks without the host.
// Versions: add_one (x[threadIdx.x] += step).
// Launch:   one block of up to 1024 threads; x: blockDim ints.
// Expect:   after N launches (or one replay of N captured launches) of step s, x[i] grew by
//           N * s; replay costs less per kernel than launching one by one from some N on.
// Used by:  examples/concurrency/graphs.lua
__global__ void add_one(int* x, int step) { x[threadIdx.x] += step; }
