/* A kernel in a library (tests/integration/test_inst.cpp: shared and static
 * libraries built with rprof cc): dx(y, x, a, n) is n FMAs-worth of work,
 * 2 FLOPs per element (FMA = 2), 16 bytes read and 8 written per element. */
void dx(double* y, const double* x, double a, int n) {
  for (int i = 0; i < n; ++i) y[i] += a * x[i];
}
