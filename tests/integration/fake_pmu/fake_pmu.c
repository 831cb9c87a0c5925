/* A test-only PMU: an LD_PRELOAD library (never installed) that stands in
 * for the kernel's perf_event hardware counters, so `rprof --backend=perf`
 * runs through its real open/enable/read code (lib/hwcounters/perf_counters)
 * on a machine without a PMU, as if it were a recorded machine.
 *
 * It interposes:
 *   syscall(SYS_perf_event_open, ...)  hardware (type 0) and raw (type 4)
 *       events listed in the script open as fake fds (a real /dev/null fd,
 *       so close and fork behave; mmap of it fails, so rdpmc is off);
 *       any other hardware event fails with ENOENT, as on a machine whose
 *       PMU lacks it; software, tracepoint and other types go to the kernel.
 *   ioctl(fd, PERF_EVENT_IOC_ENABLE/DISABLE/RESET/ID, ...) on fake fds
 *       (PERF_IOC_FLAG_GROUP and group members follow their leader).
 *   read(fd, ...) on fake fds: the kernel's PERF_FORMAT layout
 *       (include/uapi/linux/perf_event.h): with PERF_FORMAT_GROUP
 *       { nr, [time_enabled], [time_running], { value, [id] } x nr },
 *       without it { value, [time_enabled], [time_running], [id] };
 *       ENOSPC when the buffer is too small.
 *   fopen/open/openat of /proc/cpuinfo and /sys/devices/cpu_* (the files
 *       rprof reads to identify the PMU it runs on): the script's root's.
 *
 * Counts follow CLOCK_MONOTONIC: while its group is enabled an event's
 * time_enabled advances with the clock, time_running by the script's
 * `running` share of it (multiplexing), and its value by rate x time
 * running; so a region's count, scaled by enabled / running, is rate x the
 * region's time.
 *
 * The script ($RPROF_FAKE_PMU, a file), one item a line, '#' comments:
 *   root <dir>                    recorded machine (proc/cpuinfo, sys/devices)
 *   running <share>               time_running / time_enabled, 0 < share <= 1
 *   event <type> <config> <config1> <config2> <per second>
 * Numbers are decimal or 0x hex. A bad script: one line on stderr, exit 2. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 256
#define MAX_FDS 4096
#define MAX_MEMBERS 64

struct scripted {
  uint32_t type;
  uint64_t config, config1, config2;
  double per_second;
};

/* One open fake event; fds index the table. Times in ns. */
struct fake {
  int used;
  int leader;               /* fd of the group leader (itself for a leader) */
  int members[MAX_MEMBERS]; /* a leader's members, in open order */
  int nmembers;
  uint64_t read_format;
  double per_second;
  int enabled;          /* leaders only: the group counts */
  uint64_t since_ns;    /* when it was last enabled */
  uint64_t enabled_ns;  /* time enabled before since_ns */
  uint64_t reset_value; /* value at the last RESET */
  uint64_t id;
};

typedef void (*any_fn)(void);

/* The next definition of `name` (libc's): dlsym's object pointer copied
 * into a function pointer, the conversion POSIX guarantees. */
static any_fn next_fn(const char* name) {
  void* p = dlsym(RTLD_NEXT, name);
  any_fn f;
  memcpy(&f, &p, sizeof(f));
  return f;
}
#define REAL(name) ((__typeof__(&name))next_fn(#name))

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static struct scripted g_events[MAX_EVENTS];
static int g_nevents;
static double g_running = 1.0;
static char g_root[4096];
static struct fake g_fakes[MAX_FDS];
static uint64_t g_next_id = 1000;

static void die(const char* what, const char* detail) {
  fprintf(stderr, "fake_pmu: %s%s\n", what, detail);
  _exit(2);
}

static uint64_t parse_u64(const char* s, const char* line) {
  char* end = NULL;
  errno = 0;
  const unsigned long long v = strtoull(s, &end, 0);
  if (errno != 0 || end == s || *end != '\0') die("bad number in script line: ", line);
  return (uint64_t)v;
}

static void load_script(void) {
  const char* path = getenv("RPROF_FAKE_PMU");
  if (path == NULL || *path == '\0') return; /* no script: no hardware events */
  FILE* f = REAL(fopen)(path, "r");
  if (f == NULL) die("cannot read the script RPROF_FAKE_PMU=", path);
  char line[8192];
  while (fgets(line, sizeof(line), f) != NULL) {
    line[strcspn(line, "#\n")] = '\0';
    char word[32], a[64], b[64], c[64], d[64], e[64], extra[2];
    int at = 0;
    if (sscanf(line, " %31s%n", word, &at) != 1) continue;
    if (strcmp(word, "root") == 0) {
      /* The root is the rest of the line: a checkout's path may be long and
         hold spaces. */
      const char* r = line + at + strspn(line + at, " \t");
      size_t len = strlen(r);
      while (len > 0 && (r[len - 1] == ' ' || r[len - 1] == '\t' || r[len - 1] == '\r')) --len;
      if (len == 0) die("bad script line: ", line);
      if (len >= sizeof(g_root) - 64) die("root too long: ", r);
      memcpy(g_root, r, len);
      g_root[len] = '\0';
      continue;
    }
    const int n = sscanf(line, "%31s %63s %63s %63s %63s %63s %1s", word, a, b, c, d, e, extra);
    if (n <= 0) continue;
    if (strcmp(word, "running") == 0 && n == 2) {
      char* end = NULL;
      g_running = strtod(a, &end);
      if (*end != '\0' || !(g_running > 0 && g_running <= 1))
        die("running share not in (0, 1]: ", a);
    } else if (strcmp(word, "event") == 0 && n == 6) {
      if (g_nevents == MAX_EVENTS) die("too many events in the script", "");
      struct scripted* s = &g_events[g_nevents++];
      s->type = (uint32_t)parse_u64(a, line);
      s->config = parse_u64(b, line);
      s->config1 = parse_u64(c, line);
      s->config2 = parse_u64(d, line);
      char* end = NULL;
      s->per_second = strtod(e, &end);
      if (*end != '\0' || s->per_second < 0) die("bad rate in script line: ", line);
    } else {
      die("bad script line: ", line);
    }
  }
  fclose(f);
}

static void init(void) { pthread_once(&g_once, load_script); }

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct fake* fake_of(int fd) {
  return fd >= 0 && fd < MAX_FDS && g_fakes[fd].used ? &g_fakes[fd] : NULL;
}

/* Caller holds g_lock. */
static uint64_t time_enabled(const struct fake* f, uint64_t now) {
  const struct fake* l = &g_fakes[f->leader];
  return l->enabled_ns + (l->enabled ? now - l->since_ns : 0);
}
static uint64_t time_running(uint64_t enabled) { return (uint64_t)((double)enabled * g_running); }
static uint64_t raw_value(const struct fake* f, uint64_t now) {
  const double v = f->per_second * (double)time_running(time_enabled(f, now)) / 1e9;
  return (uint64_t)v;
}

static long fake_open(const struct perf_event_attr* attr, int group_fd, unsigned long flags) {
  init();
  if (attr->type != PERF_TYPE_HARDWARE && attr->type != PERF_TYPE_RAW) return -2; /* kernel's */
  const struct scripted* s = NULL;
  for (int i = 0; i < g_nevents; ++i) {
    const struct scripted* e = &g_events[i];
    if (e->type == attr->type && e->config == attr->config && e->config1 == attr->config1 &&
        e->config2 == attr->config2) {
      s = e;
      break;
    }
  }
  if (s == NULL) {
    errno = ENOENT;
    return -1;
  }
  const int fd =
      REAL(open)("/dev/null", O_RDONLY | ((flags & PERF_FLAG_FD_CLOEXEC) ? O_CLOEXEC : 0));
  if (fd < 0) return -1;
  pthread_mutex_lock(&g_lock);
  struct fake* leader = group_fd == -1 ? NULL : fake_of(group_fd);
  if (fd >= MAX_FDS || (group_fd != -1 && (leader == NULL || leader->leader != group_fd ||
                                           leader->nmembers == MAX_MEMBERS))) {
    pthread_mutex_unlock(&g_lock);
    REAL(close)(fd);
    errno = EINVAL;
    return -1;
  }
  struct fake* f = &g_fakes[fd];
  memset(f, 0, sizeof(*f));
  f->used = 1;
  f->leader = leader == NULL ? fd : group_fd;
  f->read_format = attr->read_format;
  f->per_second = s->per_second;
  f->id = g_next_id++;
  if (leader == NULL) {
    f->enabled = !attr->disabled;
    f->since_ns = now_ns();
  } else {
    leader->members[leader->nmembers++] = fd;
  }
  pthread_mutex_unlock(&g_lock);
  return fd;
}

long syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (int i = 0; i < 6; ++i) a[i] = va_arg(ap, long);
  va_end(ap);
  if (number == SYS_perf_event_open) {
    const long r = fake_open((const struct perf_event_attr*)a[0], (int)a[3], (unsigned long)a[4]);
    if (r != -2) return r;
  }
  return REAL(syscall)(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* libpfm4 and others call it by this name. */
int perf_event_open(struct perf_event_attr* attr, pid_t pid, int cpu, int group_fd,
                    unsigned long flags) {
  return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

int ioctl(int fd, unsigned long request, ...) {
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  pthread_mutex_lock(&g_lock);
  struct fake* f = fake_of(fd);
  if (f == NULL) {
    pthread_mutex_unlock(&g_lock);
    return REAL(ioctl)(fd, request, arg);
  }
  struct fake* l = &g_fakes[f->leader];
  const uint64_t now = now_ns();
  int rc = 0;
  switch (request) {
    case PERF_EVENT_IOC_ENABLE:
      if (!l->enabled) {
        l->enabled = 1;
        l->since_ns = now;
      }
      break;
    case PERF_EVENT_IOC_DISABLE:
      if (l->enabled) {
        l->enabled_ns += now - l->since_ns;
        l->enabled = 0;
      }
      break;
    case PERF_EVENT_IOC_RESET:
      f->reset_value = raw_value(f, now);
      if (((uintptr_t)arg & PERF_IOC_FLAG_GROUP) && f == l) {
        for (int i = 0; i < l->nmembers; ++i) {
          struct fake* m = &g_fakes[l->members[i]];
          m->reset_value = raw_value(m, now);
        }
      }
      break;
    case PERF_EVENT_IOC_ID:
      *(uint64_t*)arg = f->id;
      break;
    default:
      errno = ENOTTY;
      rc = -1;
  }
  pthread_mutex_unlock(&g_lock);
  return rc;
}

static ssize_t fake_read(struct fake* f, void* buf, size_t count) {
  const uint64_t fmt = f->read_format;
  const uint64_t now = now_ns();
  const uint64_t en = time_enabled(f, now);
  uint64_t out[3 + 2 * (MAX_MEMBERS + 1)];
  size_t n = 0;
  if (fmt & PERF_FORMAT_GROUP) {
    if (f->leader != (int)(f - g_fakes)) { /* the kernel reads a member's group too */
      f = &g_fakes[f->leader];
    }
    out[n++] = 1 + (uint64_t)f->nmembers;
    if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) out[n++] = en;
    if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING) out[n++] = time_running(en);
    for (int i = -1; i < f->nmembers; ++i) {
      const struct fake* e = i < 0 ? f : &g_fakes[f->members[i]];
      out[n++] = raw_value(e, now) - e->reset_value;
      if (fmt & PERF_FORMAT_ID) out[n++] = e->id;
    }
  } else {
    out[n++] = raw_value(f, now) - f->reset_value;
    if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) out[n++] = en;
    if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING) out[n++] = time_running(en);
    if (fmt & PERF_FORMAT_ID) out[n++] = f->id;
  }
  if (count < n * sizeof(uint64_t)) {
    errno = ENOSPC;
    return -1;
  }
  memcpy(buf, out, n * sizeof(uint64_t));
  return (ssize_t)(n * sizeof(uint64_t));
}

ssize_t read(int fd, void* buf, size_t count) {
  pthread_mutex_lock(&g_lock);
  struct fake* f = fake_of(fd);
  if (f != NULL) {
    const ssize_t r = fake_read(f, buf, count);
    pthread_mutex_unlock(&g_lock);
    return r;
  }
  pthread_mutex_unlock(&g_lock);
  return REAL(read)(fd, buf, count);
}

ssize_t __read_chk(int fd, void* buf, size_t count, size_t buflen) {
  (void)buflen;
  return read(fd, buf, count);
}

int close(int fd) {
  pthread_mutex_lock(&g_lock);
  struct fake* f = fake_of(fd);
  if (f != NULL) {
    if (f->leader != fd && fake_of(f->leader) != NULL) { /* leave the leader's list */
      struct fake* l = &g_fakes[f->leader];
      for (int i = 0; i < l->nmembers; ++i) {
        if (l->members[i] == fd) {
          memmove(&l->members[i], &l->members[i + 1], sizeof(int) * (size_t)(l->nmembers - i - 1));
          --l->nmembers;
          break;
        }
      }
    }
    f->used = 0;
  }
  pthread_mutex_unlock(&g_lock);
  return REAL(close)(fd);
}

/* The files that identify the PMU rprof runs on, from the script's root. */
static const char* redirect(const char* path, char* buf, size_t size) {
  init();
  if (g_root[0] == '\0' || path == NULL) return path;
  if (strcmp(path, "/proc/cpuinfo") != 0 && strncmp(path, "/sys/devices/cpu_", 17) != 0) {
    return path;
  }
  snprintf(buf, size, "%s%s", g_root, path);
  return buf;
}

FILE* fopen(const char* path, const char* mode) {
  char buf[8192];
  return REAL(fopen)(redirect(path, buf, sizeof(buf)), mode);
}

FILE* fopen64(const char* path, const char* mode) {
  char buf[8192];
  return REAL(fopen64)(redirect(path, buf, sizeof(buf)), mode);
}

int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
  va_end(ap);
  char buf[8192];
  return REAL(open)(redirect(path, buf, sizeof(buf)), flags, mode);
}

int open64(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
  va_end(ap);
  char buf[8192];
  return REAL(open64)(redirect(path, buf, sizeof(buf)), flags, mode);
}

int openat(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
  va_end(ap);
  char buf[8192];
  return REAL(openat)(dirfd, redirect(path, buf, sizeof(buf)), flags, mode);
}
