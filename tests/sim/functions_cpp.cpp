// An unannotated C++ program for the function view's reports
// (test_sim_function_reports): a templated kernel in a namespace, whose
// demangled name has characters every markup must escape, and a function so
// short that no cpu-clock sample hits it. Built -O2 -g without rprof.
//
// Usage: functions_cpp N REPS   (N doubles, the kernel run REPS times)
//   kern::dot<double>(x, y, n)   2 x N x REPS FLOPs, scalar double
//   tiny(x)                      16 FLOPs, scalar double (8 multiplies, 8 adds)
// main itself does no floating-point arithmetic.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define NOINLINE __attribute__((noinline))

namespace kern {
template <typename T>
NOINLINE T dot(const T* x, const T* y, int n) {
  T s = 0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}
}  // namespace kern

NOINLINE double tiny(const double* x) {
  double s = 0;
  for (int i = 0; i < 8; i++) s += x[i] * x[i];
  return s;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 1;
  if (n < 8 || reps < 1) return 2;
  std::vector<double> x(n), y(n);
  for (int i = 0; i < n; i++) {
    x[i] = static_cast<double>(i % 7 + 1);
    y[i] = static_cast<double>(i % 5 + 1);
  }
  // Kept apart: results are printed, never added in main.
  volatile double sink = 0;
  for (int r = 0; r < reps; r++) sink = kern::dot<double>(x.data(), y.data(), n);
  const double t = tiny(x.data());
  std::printf("functions_cpp: %.1f %.1f\n", static_cast<double>(sink), t);
  return 0;
}
