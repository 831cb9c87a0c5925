// The interposed signal functions and the handler wrapper (signals.h).
//
// librprof defines sigaction, signal, bsd_signal, ssignal, sysv_signal,
// __sysv_signal, sigset and siginterrupt, and the ways out of a handler:
// siglongjmp, longjmp, _longjmp, __longjmp_chk, setcontext and swapcontext
// (a C++ exception unwinds through the wrapper); a program linked with it reaches
// these before libc's (the dynamic linker's search order). A drop-in's
// dependency on it comes after libc: the launcher preloads librprof beside a
// drop-in it preloads (tools/rprof/marker_apis.cpp); a program linked with a
// drop-in only keeps libc's (docs/profile-schema.md).
// They work before the runtime's constructor ran (zero-initialised statics,
// libc's functions looked up on first use), so a handler installed by a
// library's constructor is wrapped too. Handlers installed by a raw
// rt_sigaction system call, or by libc itself, are not seen: their markers
// are refused only when they interrupt a marker call (ThreadState::enter_call).
#include "runtime/signals.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>

#include "rprof/rprof.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace rprof::runtime {

__thread HandlerMark t_handler __attribute__((tls_model("initial-exec")));

namespace {

constexpr int kNumSignals = _NSIG;

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);
using InfoHandler = void (*)(int, siginfo_t*, void*);
using PlainHandler = void (*)(int);

// The program's handler and flags per signal; handler 0 = none recorded (the
// kernel holds what the program set: SIG_DFL, SIG_IGN or a foreign handler).
struct AppAction {
  std::atomic<uintptr_t> handler{0};
  std::atomic<int> flags{0};
};
AppAction g_app[kNumSignals];

std::atomic<SigactionFn> g_real{nullptr};
// The process the table belongs to. A vfork child (or a child of a raw
// clone) shares the table's memory: its sigaction calls go to the kernel
// unwrapped and never touch the table (the parent's handlers stay as they
// are). 0: not known yet (before the runtime's constructor).
std::atomic<int> g_owner_pid{0};
// Signals siginterrupt() made interrupting: signal() sets no SA_RESTART for
// them (glibc's BSD signal keeps the same set, hidden in libc).
std::atomic<uint64_t> g_interrupt{0};
std::atomic_flag g_lock = ATOMIC_FLAG_INIT;  // writers of g_app, signals blocked

extern "C" int __sigaction(int, const struct sigaction*, struct sigaction*);

SigactionFn real_fn() {
  SigactionFn f = g_real.load(std::memory_order_acquire);
  if (f != nullptr) return f;
  f = reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
  if (f == nullptr) f = __sigaction;  // glibc's own name, never interposed
  g_real.store(f, std::memory_order_release);
  return f;
}

// libc's longjmp family: glibc's longjmp, _longjmp and siglongjmp are one
// function; __longjmp_chk is what _FORTIFY_SOURCE compiles all three to.
using JumpFn = void (*)(struct __jmp_buf_tag*, int);
enum Jump { kSiglongjmp, kLongjmp, kUnderscoreLongjmp, kLongjmpChk, kNumJumps };
constexpr const char* kJumpNames[kNumJumps] = {"siglongjmp", "longjmp", "_longjmp",
                                               "__longjmp_chk"};
std::atomic<JumpFn> g_jump[kNumJumps];

JumpFn jump_fn(Jump which);

// Whether `f` is in librprof (its own longjmp family, found by RTLD_DEFAULT).
bool in_runtime(JumpFn f) {
  Dl_info fi{}, mine{};
  return dladdr(reinterpret_cast<void*>(f), &fi) != 0 &&
         dladdr(reinterpret_cast<void*>(&jump_fn), &mine) != 0 && fi.dli_fbase == mine.dli_fbase;
}

// libc's function, or null. dlsym runs only before the runtime's constructor
// did (resolve_signal_functions) or when it found none.
JumpFn jump_fn(Jump which) {
  JumpFn f = g_jump[which].load(std::memory_order_acquire);
  if (f != nullptr) return f;
  f = reinterpret_cast<JumpFn>(dlsym(RTLD_NEXT, kJumpNames[which]));
  if (f == nullptr) {
    // librprof after libc in the search order (a drop-in's dependency): the
    // program's jumps bind to libc's and never reach ours.
    f = reinterpret_cast<JumpFn>(dlsym(RTLD_DEFAULT, kJumpNames[which]));
    if (f != nullptr && in_runtime(f)) f = nullptr;
  }
  if (f != nullptr) g_jump[which].store(f, std::memory_order_release);
  return f;
}

uintptr_t frame_sp() {
  return reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
}

// Whether a frame at `sp` belongs to the handler `m` records.
bool inside(const HandlerMark& m, uintptr_t sp) {
  if (m.alt_hi != 0) return sp >= m.alt_lo && sp < m.alt_hi;
  return sp < m.entry_sp;  // stacks grow down: the handler's frames are below
}

bool is_handler(uintptr_t h) {
  return h != reinterpret_cast<uintptr_t>(SIG_DFL) &&
         h != reinterpret_cast<uintptr_t>(SIG_IGN) &&
         h != reinterpret_cast<uintptr_t>(SIG_ERR);
}

void wrapper(int sig, siginfo_t* info, void* uc) {
  const int saved_errno = errno;
  HandlerMark prev = t_handler;
  const uintptr_t sp = frame_sp();
  // A handler left by a jump while no marker ran since: its mark is stale.
  if (prev.depth > 0 && !inside(prev, sp)) prev = HandlerMark{0, 0, 0, 0};
  HandlerMark now = prev;
  if (now.depth == 0) {
    now.entry_sp = sp;
    // The kernel saved the alternate stack in the context (before
    // SS_AUTODISARM cleared it): no system call to find it.
    if (uc != nullptr) {
      const stack_t& ss = static_cast<const ucontext_t*>(uc)->uc_stack;
      const auto lo = reinterpret_cast<uintptr_t>(ss.ss_sp);
      if (!(ss.ss_flags & SS_DISABLE) && sp >= lo && sp < lo + ss.ss_size) {
        now.alt_lo = lo;
        now.alt_hi = lo + ss.ss_size;
      }
    }
  }
  ++now.depth;
  const AppAction& a = g_app[sig];
  const uintptr_t h = a.handler.load(std::memory_order_acquire);
  const int flags = a.flags.load(std::memory_order_relaxed);
  // SA_RESETHAND: the kernel restored SIG_DFL on delivery; the table keeps
  // the handler (read only when the kernel holds the wrapper), so a vfork
  // child's handler never writes its parent's table.
  t_handler = now;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  // Restores the mark when the handler returns, and when a C++ exception
  // leaves it (thrown in the handler, or through its frame with
  // -fnon-call-exceptions): the unwinder runs this destructor.
  struct Restore {
    HandlerMark prev;
    ~Restore() {
      std::atomic_signal_fence(std::memory_order_seq_cst);
      t_handler = prev;
    }
  } restore{prev};
  errno = saved_errno;
  if (is_handler(h)) {
    if (flags & SA_SIGINFO) {
      reinterpret_cast<InfoHandler>(h)(sig, info, uc);
    } else {
      reinterpret_cast<PlainHandler>(h)(sig);
    }
  } else {
    // The kernel holds the wrapper but the table no handler (a vfork child
    // changed the table): never swallow the signal, deliver it as SIG_DFL.
    struct sigaction dfl{};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    if (real_fn()(sig, &dfl, nullptr) == 0) raise(sig);
  }
}

// The table and the kernel change together: other threads and this thread's
// handlers wait (signals blocked while the lock is held).
class Locked {
 public:
  Locked() {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old_);
    while (g_lock.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~Locked() {
    g_lock.clear(std::memory_order_release);
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;

 private:
  sigset_t old_;
};

bool owns_table() {
  const int pid = static_cast<int>(getpid());
  int owner = g_owner_pid.load(std::memory_order_relaxed);
  if (owner == 0 && g_owner_pid.compare_exchange_strong(owner, pid)) return true;
  return owner == pid;
}

// What the program set, in place of the wrapper the kernel holds.
void program_view(int sig, struct sigaction* old) {
  const uintptr_t h = g_app[sig].handler.load(std::memory_order_acquire);
  const int flags = g_app[sig].flags.load(std::memory_order_relaxed);
  old->sa_handler = h != 0 ? reinterpret_cast<PlainHandler>(h) : SIG_DFL;
  old->sa_flags = (old->sa_flags & ~SA_SIGINFO) | (flags & SA_SIGINFO);
}

int do_sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  const SigactionFn real = real_fn();
  if (sig <= 0 || sig >= kNumSignals || sig == SIGKILL || sig == SIGSTOP) {
    return real(sig, act, old);  // libc's error (EINVAL)
  }
  const int saved_errno = errno;
  if (!owns_table()) {
    // A vfork child: the kernel only; read back the program's handler.
    const int rc = real(sig, act, old);
    if (rc == 0 && old != nullptr && old->sa_sigaction == wrapper) program_view(sig, old);
    errno = rc == 0 ? saved_errno : errno;
    return rc;
  }
  const Locked lock;
  AppAction& a = g_app[sig];
  const uintptr_t prev_handler = a.handler.load(std::memory_order_relaxed);
  const int prev_flags = a.flags.load(std::memory_order_relaxed);
  struct sigaction kold{};
  int rc = 0;
  if (act != nullptr && act->sa_sigaction == wrapper) {
    // The wrapper itself, read back by a path that is not ours (a raw
    // rt_sigaction): installed as it is, the table keeps the program's.
    rc = real(sig, act, &kold);
  } else if (act != nullptr && is_handler(reinterpret_cast<uintptr_t>(act->sa_handler))) {
    struct sigaction mine = *act;
    mine.sa_sigaction = wrapper;
    mine.sa_flags |= SA_SIGINFO;
    // Recorded before the wrapper can run with it.
    a.flags.store(act->sa_flags, std::memory_order_relaxed);
    a.handler.store(reinterpret_cast<uintptr_t>(act->sa_handler), std::memory_order_release);
    rc = real(sig, &mine, &kold);
    if (rc != 0) {
      a.flags.store(prev_flags, std::memory_order_relaxed);
      a.handler.store(prev_handler, std::memory_order_release);
    }
  } else {
    rc = real(sig, act, &kold);
    if (rc == 0 && act != nullptr) a.handler.store(0, std::memory_order_release);
  }
  if (rc != 0) return rc;
  if (old != nullptr) {
    *old = kold;
    if (kold.sa_sigaction == wrapper) {
      // The program's own handler and flags, never the wrapper.
      old->sa_handler = prev_handler != 0 ? reinterpret_cast<PlainHandler>(prev_handler) : SIG_DFL;
      old->sa_flags = (kold.sa_flags & ~SA_SIGINFO) | (prev_flags & SA_SIGINFO);
    } else if (prev_handler != 0 && (prev_flags & SA_RESETHAND)) {
      // The kernel reset the wrapper to SIG_DFL on delivery and kept its
      // flags: the program's flags are those without the wrapper's SA_SIGINFO.
      old->sa_flags = (kold.sa_flags & ~SA_SIGINFO) | (prev_flags & SA_SIGINFO);
    }
  }
  errno = saved_errno;
  return 0;
}

// signal()'s two semantics, as glibc implements them over sigaction.
__sighandler_t set_handler(int sig, __sighandler_t handler, bool bsd) {
  if (handler == SIG_ERR || sig <= 0 || sig >= kNumSignals) {
    errno = EINVAL;
    return SIG_ERR;
  }
  struct sigaction act{};
  struct sigaction old{};
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (bsd) {
    sigaddset(&act.sa_mask, sig);
    const bool interrupts = (g_interrupt.load(std::memory_order_relaxed) >> (sig - 1)) & 1;
    act.sa_flags = interrupts ? 0 : SA_RESTART;
  } else {
    act.sa_flags = SA_RESETHAND | SA_NODEFER;
  }
  if (do_sigaction(sig, &act, &old) < 0) return SIG_ERR;
  return old.sa_handler;
}

// Before a jump: a thread inside a handler leaves every handler, unless the
// jump stays inside the innermost one (below). glibc mangles the stack
// pointer saved in the jmp_buf, so the target frame cannot be read; the
// buffer's own address stands for it: a jmp_buf in the handler's stack range
// (a local of the handler or of what it called) is a jump within the handler
// and keeps the mark: the range is the outermost handler's, so a jump out of a
// nested handler into the one it interrupted keeps the mark too (both
// handlers' markers stay refused).
void before_jump(const void* env) {
  HandlerMark& m = t_handler;
  if (m.depth == 0) return;
  const uintptr_t sp = frame_sp();
  const auto at = reinterpret_cast<uintptr_t>(env);
  // On the handler's stack: the live frames between here and the wrapper's.
  if (inside(m, sp) && inside(m, at) && (m.alt_hi != 0 || at > sp)) return;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  m = HandlerMark{0, 0, 0, 0};
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

[[noreturn]] void do_jump(Jump which, struct __jmp_buf_tag* env, int val) {
  const JumpFn real = jump_fn(which);
  if (real == nullptr) abort();  // no libc function to jump with
  before_jump(env);
#if defined(__SANITIZE_ADDRESS__)
  // Our frames' redzones are left behind by the jump (ASan's own longjmp
  // interceptor ran before them): unpoison the stack as it does.
  __asan_handle_no_return();
#endif
  real(env, val);
  __builtin_unreachable();
}

// setcontext and swapcontext: libc's, looked up like the jumps.
using SetcontextFn = int (*)(const ucontext_t*);
using SwapcontextFn = int (*)(ucontext_t*, const ucontext_t*);
std::atomic<SetcontextFn> g_setcontext{nullptr};
std::atomic<SwapcontextFn> g_swapcontext{nullptr};

template <typename Fn>
Fn context_fn(std::atomic<Fn>& slot, const char* name) {
  Fn f = slot.load(std::memory_order_acquire);
  if (f == nullptr) {
    f = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
    if (f != nullptr) slot.store(f, std::memory_order_release);
  }
  return f;
}

// Before a switch to context `to`: its stack pointer is plain (not mangled).
// A target among the handler's live frames (between here and the wrapper's
// frame, or on the alternate stack it runs on) stays in the handler; any
// other leaves every handler.
void before_switch(const ucontext_t* to) {
  HandlerMark& m = t_handler;
  if (m.depth == 0 || to == nullptr) return;
  const auto target = static_cast<uintptr_t>(to->uc_mcontext.gregs[REG_RSP]);
  if (m.alt_hi != 0 ? inside(m, target) : (target >= frame_sp() && target < m.entry_sp)) return;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  m = HandlerMark{0, 0, 0, 0};
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

int do_setcontext(const ucontext_t* ucp) {
  const SetcontextFn real = context_fn(g_setcontext, "setcontext");
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  const HandlerMark saved = t_handler;
  before_switch(ucp);
#if defined(__SANITIZE_ADDRESS__)
  __asan_handle_no_return();
#endif
  const int rc = real(ucp);
  t_handler = saved;  // it failed: still where it was
  return rc;
}

int do_swapcontext(ucontext_t* oucp, const ucontext_t* ucp) {
  const SwapcontextFn real = context_fn(g_swapcontext, "swapcontext");
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  const HandlerMark saved = t_handler;
  before_switch(ucp);
  const int rc = real(oucp, ucp);
  // Back in this frame (switched back to, or failed): the mark it left with.
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_handler = saved;
  return rc;
}

int do_siginterrupt(int sig, int interrupt) {
  if (sig <= 0 || sig >= kNumSignals) {
    errno = EINVAL;
    return -1;
  }
  struct sigaction act{};
  if (do_sigaction(sig, nullptr, &act) < 0) return -1;
  const uint64_t bit = uint64_t{1} << (sig - 1);
  if (interrupt) {
    if (owns_table()) g_interrupt.fetch_or(bit, std::memory_order_relaxed);
    act.sa_flags &= ~SA_RESTART;
  } else {
    if (owns_table()) g_interrupt.fetch_and(~bit, std::memory_order_relaxed);
    act.sa_flags |= SA_RESTART;
  }
  return do_sigaction(sig, &act, nullptr) < 0 ? -1 : 0;
}

[[gnu::noinline]] void throw_once(int v) {
  asm volatile("" : "+r"(v));  // a real throw, never folded into the catch
  throw v;
}

}  // namespace

bool still_in_handler() {
  if (inside(t_handler, frame_sp())) return true;
  t_handler = HandlerMark{0, 0, 0, 0};  // left by siglongjmp/longjmp
  return false;
}

void resolve_signal_functions() {
  // The wrapper's cleanup (a program's exception leaving a handler) runs
  // through librprof's own copy of the C++ runtime (linked in, hidden), whose
  // unwinder fills its register table the first time it unwinds: once here,
  // so its personality routine never meets the program's unwinder unprepared.
  try {
    throw_once(0);
  } catch (int) {
  }
  (void)real_fn();
  for (int j = 0; j < kNumJumps; ++j) (void)jump_fn(static_cast<Jump>(j));
  (void)context_fn(g_setcontext, "setcontext");
  (void)context_fn(g_swapcontext, "swapcontext");
  g_owner_pid.store(static_cast<int>(getpid()), std::memory_order_relaxed);
}

// A fork while another thread held the table's lock: the child's copy of it
// would be held for good (its first sigaction would spin forever). The child
// owns its copy of the table.
void signals_after_fork_child() {
  g_lock.clear(std::memory_order_release);
  g_owner_pid.store(static_cast<int>(getpid()), std::memory_order_relaxed);
}

}  // namespace rprof::runtime

using rprof::runtime::do_jump;
using rprof::runtime::do_setcontext;
using rprof::runtime::do_siginterrupt;
using rprof::runtime::do_swapcontext;
using rprof::runtime::do_sigaction;
using rprof::runtime::set_handler;

extern "C" {

RPROF_API int sigaction(int sig, const struct sigaction* act, struct sigaction* old) noexcept {
  return do_sigaction(sig, act, old);
}
RPROF_API __sighandler_t signal(int sig, __sighandler_t handler) noexcept {
  return set_handler(sig, handler, true);
}
RPROF_API __sighandler_t bsd_signal(int sig, __sighandler_t handler) noexcept {
  return set_handler(sig, handler, true);
}
RPROF_API __sighandler_t ssignal(int sig, __sighandler_t handler) noexcept {
  return set_handler(sig, handler, true);
}
RPROF_API __sighandler_t sysv_signal(int sig, __sighandler_t handler) noexcept {
  return set_handler(sig, handler, false);
}
RPROF_API __sighandler_t __sysv_signal(int sig, __sighandler_t handler) noexcept {
  return set_handler(sig, handler, false);
}

// siginterrupt: SA_RESTART off (1) or on (0) for the handler installed now
// and for those signal() installs later, as glibc's.
RPROF_API int siginterrupt(int sig, int interrupt) noexcept {
  return do_siginterrupt(sig, interrupt);
}

// Switches out of a handler clear its mark (signals.h).
RPROF_API int setcontext(const ucontext_t* ucp) noexcept { return do_setcontext(ucp); }
RPROF_API int swapcontext(ucontext_t* oucp, const ucontext_t* ucp) noexcept {
  return do_swapcontext(oucp, ucp);
}

// System V's sigset: SIG_HOLD blocks the signal, any other disposition is
// installed (no SA_ flags) and unblocks it; returns SIG_HOLD if it was blocked.
RPROF_API __sighandler_t sigset(int sig, __sighandler_t disp) noexcept {
  if (sig <= 0 || sig >= _NSIG || disp == SIG_ERR) {
    errno = EINVAL;
    return SIG_ERR;
  }
  sigset_t one;
  sigset_t was;
  sigemptyset(&one);
  sigaddset(&one, sig);
  struct sigaction old{};
  if (disp == SIG_HOLD) {
    if (do_sigaction(sig, nullptr, &old) < 0 || sigprocmask(SIG_BLOCK, &one, &was) < 0) {
      return SIG_ERR;
    }
    return sigismember(&was, sig) ? SIG_HOLD : old.sa_handler;
  }
  struct sigaction act{};
  act.sa_handler = disp;
  sigemptyset(&act.sa_mask);
  if (do_sigaction(sig, &act, &old) < 0 || sigprocmask(SIG_UNBLOCK, &one, &was) < 0) {
    return SIG_ERR;
  }
  return sigismember(&was, sig) ? SIG_HOLD : old.sa_handler;
}

// The longjmp family (signals.h): a jump out of a handler clears the mark
// before libc's function jumps.
RPROF_API void siglongjmp(sigjmp_buf env, int val) noexcept {
  do_jump(rprof::runtime::kSiglongjmp, env, val);
}
RPROF_API void longjmp(jmp_buf env, int val) noexcept {
  do_jump(rprof::runtime::kLongjmp, env, val);
}
RPROF_API void _longjmp(jmp_buf env, int val) noexcept {
  do_jump(rprof::runtime::kUnderscoreLongjmp, env, val);
}
RPROF_API __attribute__((noreturn)) void __longjmp_chk(struct __jmp_buf_tag* env,
                                                      int val) noexcept;
RPROF_API void __longjmp_chk(struct __jmp_buf_tag* env, int val) noexcept {
  do_jump(rprof::runtime::kLongjmpChk, env, val);
}

}  // extern "C"
