// many_errors.cu: six errors, one per line, for truncation of the diagnostics list.
__global__ void k(int* p) {
  p[0] = e1;
  p[1] = e2;
  p[2] = e3;
  p[3] = e4;
  p[4] = e5;
  p[5] = e6;
}
