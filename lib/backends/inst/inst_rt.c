/* The run-time part of an rprof-instrumented program, linked into it by
 * `rprof cc` (librprof_inst_rt.a: an instrumented object's reference to the
 * counters pulls it in). It owns the per-thread counter array the plugin's
 * code adds to, marks the program as instrumented (an ELF note), and, when
 * rprof's runtime (librprof) is loaded, hands it the array. Without rprof the
 * program runs as usual: the counters are kept and never read. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inst_counters.h"

__attribute__((tls_model("initial-exec"), used, visibility("default")))
__thread unsigned long long __rprof_inst_ctr[RPROF_INST_ARRAY] = {
    /* B = 0: no memory access is passed on until librprof says so. */
    [RPROF_INST_SET_BITS] = 0};

/* Which version of each loop nest runs (inst_counters.h): 0, the plain copy,
 * unless the environment asks for counts (1) or counts and accesses (2). Set by the first constructor
 * (priority 101) of the object it is linked into: the program's constructors
 * that run instrumented loops come after it; a shared library's, which the
 * loader runs before the program's, run their loops plain. */
__attribute__((used, visibility("default"))) int __rprof_inst_counting = 0;

__attribute__((constructor(101), no_instrument_function)) static void rprof_inst_counting_init(
    void) {
  const char* v = getenv(RPROF_INST_COUNTING_ENV);
  __rprof_inst_counting = v == NULL ? 0 : strcmp(v, "1") == 0 ? 1 : strcmp(v, "2") == 0 ? 2 : 0;
}

/* The calling thread's counters. */
__attribute__((no_instrument_function)) static unsigned long long* rprof_inst_counters(void) {
  return __rprof_inst_ctr;
}

/* The note: namesz 6 ("rprof\0"), descsz 4, type 1, name padded to 8, the
 * layout version. */
struct rprof_inst_note {
  uint32_t namesz, descsz, type;
  char name[8];
  uint32_t version;
};
__attribute__((section(RPROF_INST_NOTE_SECTION), used, aligned(4)))
static const struct rprof_inst_note rprof_inst_note = {
    sizeof(RPROF_INST_NOTE_OWNER), 4, RPROF_INST_NOTE_TYPE, RPROF_INST_NOTE_OWNER,
    RPROF_INST_LAYOUT_VERSION};

typedef void (*rprof_inst_attach_fn)(unsigned long long* (*)(void), int);
typedef int (*rprof_inst_enter_fn)(const char*, int, const void*);
typedef int (*rprof_inst_exit_fn)(const char*);
typedef void (*rprof_inst_mem_fn)(const void*, unsigned long, int);

/* librprof's, when rprof runs the program (set once, at start-up). */
static rprof_inst_enter_fn rprof_inst_enter_hook;
static rprof_inst_exit_fn rprof_inst_exit_hook;

/* Regions librprof stopped timing (called too often, too briefly: its hooks
 * return 1): skipped here, before the call into librprof. A direct-mapped
 * table of their names; a name it loses to another is asked again. */
#define RPROF_INST_OFF_SLOTS 1024
static const char* rprof_inst_off[RPROF_INST_OFF_SLOTS];

__attribute__((no_instrument_function)) static inline unsigned rprof_inst_slot(const char* name) {
  return (unsigned)((((uintptr_t)name >> 3) * 2654435761u) >> 7) % RPROF_INST_OFF_SLOTS;
}

/* Where a function with loops starts or a loop nest is entered, and where
 * they end (the plugin's calls, inst_counters.h): a load and a branch when
 * rprof does not run the program. */
__attribute__((no_instrument_function, visibility("default"))) void __rprof_inst_enter(
    const char* name, int kind, const void* frame) {
  rprof_inst_enter_fn f = rprof_inst_enter_hook;
  if (!f) return;
  const unsigned s = rprof_inst_slot(name);
  if (__atomic_load_n(&rprof_inst_off[s], __ATOMIC_RELAXED) == name) return;
  /* frame: the instrumented function's canonical frame address (librprof
   * closes regions whose functions a longjmp or an exception left without
   * their exit: their frames are at or below a new function's). */
  if (f(name, kind, frame)) {
    __atomic_store_n(&rprof_inst_off[s], name, __ATOMIC_RELAXED);
  }
}

__attribute__((no_instrument_function, visibility("default"))) void __rprof_inst_exit(
    const char* name) {
  rprof_inst_exit_fn f = rprof_inst_exit_hook;
  if (!f) return;
  const unsigned s = rprof_inst_slot(name);
  if (__atomic_load_n(&rprof_inst_off[s], __ATOMIC_RELAXED) == name) return;
  if (f(name)) __atomic_store_n(&rprof_inst_off[s], name, __ATOMIC_RELAXED);
}

/* The memory accesses the thread's set filter selects (inst_counters.h,
 * RPROF_INST_SET_BITS), before each is made; librprof's cache model takes
 * them and sets the filter. */
static rprof_inst_mem_fn rprof_inst_mem_hook;

__attribute__((no_instrument_function, visibility("default"))) void __rprof_inst_load(
    const void* addr, unsigned long bytes) {
  rprof_inst_mem_fn f = rprof_inst_mem_hook;
  if (f) f(addr, bytes, 0);
}

__attribute__((no_instrument_function, visibility("default"))) void __rprof_inst_store(
    const void* addr, unsigned long bytes) {
  rprof_inst_mem_fn f = rprof_inst_mem_hook;
  if (f) f(addr, bytes, 1);
}

/* librprof's constructors ran before this one (it is preloaded, or a library
 * the program links), so its attach function is there to find. */
__attribute__((constructor, no_instrument_function)) static void rprof_inst_start(void) {
  /* POSIX dlsym: an object pointer that is a function's address. */
  void* f = dlsym(RTLD_DEFAULT, RPROF_INST_ATTACH_SYMBOL);
  rprof_inst_attach_fn attach;
  memcpy(&attach, &f, sizeof(attach));
  if (!attach) return;
  void* mem = dlsym(RTLD_DEFAULT, RPROF_INST_RT_MEM);
  memcpy(&rprof_inst_mem_hook, &mem, sizeof(mem));
  attach(rprof_inst_counters, RPROF_INST_LAYOUT_VERSION);
  void* enter = dlsym(RTLD_DEFAULT, RPROF_INST_RT_ENTER);
  void* leave = dlsym(RTLD_DEFAULT, RPROF_INST_RT_EXIT);
  if (enter && leave) {
    memcpy(&rprof_inst_enter_hook, &enter, sizeof(enter));
    memcpy(&rprof_inst_exit_hook, &leave, sizeof(leave));
  }
}
