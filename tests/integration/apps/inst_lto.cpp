// A constructor and a member function with a loop each, kept out of line:
// under -flto their regions are named as without it ("app::Grid::Grid()",
// not lto1's "__ct ()"). Prints the sum: 1.5 * sum(0.5 i + 1), i < n.
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace app {
struct Grid {
  std::vector<double> v;
  __attribute__((noinline)) explicit Grid(int n) : v(n) {
    for (int i = 0; i < n; ++i) v[i] = 0.5 * i + 1.0;
  }
  __attribute__((noinline)) double sum() const {
    double s = 0;
    for (double x : v) s += x * 1.5;
    return s;
  }
};
}  // namespace app

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  app::Grid g(n);
  std::printf("%g\n", g.sum());
}
