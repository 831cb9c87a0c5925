// Markers called from an asynchronous signal handler (issue 16).
//
// librprof interposes sigaction, signal and their aliases (signals.cpp): a
// handler the program installs is recorded in a table and the runtime's
// wrapper is installed in its place. The wrapper marks the thread as inside a
// handler for the handler's length, and every marker call checks that mark
// with one thread-local load: a marker in a handler is refused and counted
// (ErrorKind::kInSignalHandler), so the interrupted thread's region stack
// never changes. The program always reads back its own handler and flags;
// the runtime installs no handler of its own. A vfork child's calls go to the
// kernel unwrapped (the table is its parent's memory).
//
// A C++ exception leaving a handler unwinds through the wrapper, whose
// cleanup clears the mark; setcontext and swapcontext are interposed and
// clear it when their target lies outside the handler's frames.
//
// A handler left by siglongjmp/longjmp never returns through the wrapper:
// librprof interposes siglongjmp, longjmp, _longjmp and __longjmp_chk too,
// and a jump made inside a handler clears the mark before libc's function
// jumps (the target's stack pointer is mangled in the jmp_buf: a jump whose
// jmp_buf lies in the handler's own stack range stays in the handler and
// keeps the mark; any other leaves every handler, nested ones included).
// Should the mark still be stale (a jump the runtime did not see), a marker
// that finds its stack pointer outside the handler's stack range (above the
// wrapper's frame on the same stack, or off the alternate signal stack the
// handler ran on) clears it.
#ifndef RPROF_RUNTIME_SIGNALS_H_
#define RPROF_RUNTIME_SIGNALS_H_

#include <signal.h>

#include <cstdint>

namespace rprof::runtime {

// Where the thread's outermost running handler (of those the wrapper ran)
// lives. Initial-exec TLS, zero-initialised (__thread: no TLS init wrapper
// on the markers' fast path), no allocation: safe to read in a handler.
struct HandlerMark {
  int depth;           // wrapped handlers running on this thread
  uintptr_t entry_sp;  // the wrapper's frame of the outermost one
  uintptr_t alt_lo;    // its alternate signal stack, [lo, hi), when it ran
  uintptr_t alt_hi;    // on one (SA_ONSTACK); 0 otherwise
};
extern __thread HandlerMark t_handler __attribute__((tls_model("initial-exec")));

// Slow path: depth > 0; clears a stale mark (handler left by a jump).
bool still_in_handler();

// True when the calling thread runs inside a signal handler the program
// installed (through the interposed functions). One TLS load when not.
inline bool in_signal_handler() {
  return t_handler.depth != 0 && still_in_handler();
}

// Looks libc's sigaction and longjmp family up now (the runtime's
// constructor, where the simulator counts nothing), so a first sigaction or
// jump from a handler does not call dlsym there.
void resolve_signal_functions();
// In the child after fork() (session.cpp's fork handlers): the signal
// table's lock is free and the child owns the table.
void signals_after_fork_child();

}  // namespace rprof::runtime

#endif  // RPROF_RUNTIME_SIGNALS_H_
