// Nested regions with RPROF_SCOPE, including recursion.
//
// Usage: nested [iterations]   (default 3)
// Expect (iterations = k):
//   solve            k calls
//     assemble       k calls
//     iterate        k calls
//       smooth       4k calls
//       residual     4k calls
//   fib              1 call of the region tree, recursion counted on one
//                    node: calls = number of fib() invocations (fib(15): 1973)
// Inclusive time of solve >= assemble + iterate; exclusive excludes children.
#include <rprof/rprof.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

double g_sink = 0;

void busy(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += std::sqrt(static_cast<double>(i));
  g_sink += s;
}

int fib(int n) {
  RPROF_SCOPE("fib");
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

void solve() {
  RPROF_SCOPE("solve");
  {
    RPROF_SCOPE("assemble");
    busy(200000);
  }
  RPROF_SCOPE("iterate");
  for (int it = 0; it < 4; ++it) {
    {
      RPROF_SCOPE("smooth");
      busy(100000);
    }
    RPROF_SCOPE("residual");
    busy(50000);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 3;
  for (int i = 0; i < iterations; ++i) solve();
  const int f = fib(15);
  std::printf("nested: iterations=%d fib(15)=%d sink=%g\n", iterations, f, g_sink);
  return 0;
}
