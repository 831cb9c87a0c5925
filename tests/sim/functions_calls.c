/* Calls the function view's fast paths take (rp_fn.h), with counts known
 * from the source (test_sim_functions), built -O2 -g without rprof.
 *
 * Usage: functions_calls N      (N even)
 *   leaf2(x, y)        x * y + 1: 2 FLOPs, a function that returns in the
 *                      superblock it starts (counted with no frame)
 *   mid(x, y)          leaf2(x, y) * 0.25: 1 FLOP of its own; it calls on,
 *                      so it is no leaf: called once per element, N times
 *   half_if_even(x, i) x * 0.5 for even i, x for odd i: a leaf with a branch
 *                      (1 FLOP on N/2 of its N calls)
 *   jumper(i)          calls mid, then longjmps out of itself for i % 4 == 0
 *                      (8 calls, 2 jumps)
 *   fib(n)             1 for n < 2, else fib(n-1) + fib(n-2): one add per
 *                      call with n >= 2
 *   on_signal          a SIGUSR1 handler calling leaf2, raised 5 times
 * main itself does no FP work (it passes values through a volatile). */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline, noclone))

static jmp_buf jump_back;
static volatile double sink;

NOINLINE double leaf2(double x, double y) { return x * y + 1.0; }
NOINLINE double half_if_even(double x, int i) { return (i & 1) ? x : x * 0.5; }
NOINLINE double mid(double x, double y) { return leaf2(x, y) * 0.25; }
NOINLINE void jumper(int i)
{
   const double v = mid(sink, 2.0);
   if (i % 4 == 0) longjmp(jump_back, 1);
   sink = v;
}
NOINLINE double fib(int n) { return n < 2 ? 1.0 : fib(n - 1) + fib(n - 2); }
NOINLINE void on_signal(int s)
{
   (void)s;
   sink = leaf2(3.0, 4.0);
}

int main(int argc, char** argv)
{
   const int n = argc > 1 ? atoi(argv[1]) : 1000;
   int i;
   for (i = 0; i < n; i++) sink = mid(sink, 1.0);
   for (i = 0; i < n; i++) sink = half_if_even(sink, i);
   for (i = 0; i < 8; i++) {
      if (setjmp(jump_back) == 0) jumper(i);
   }
   sink = fib(15);
   signal(SIGUSR1, on_signal);
   for (i = 0; i < 5; i++) raise(SIGUSR1);
   return 0;
}
