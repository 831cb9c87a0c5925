#include "machine/thread_team.h"

#include <pthread.h>
#include <sched.h>

#include <time.h>

#include <algorithm>
#include <chrono>

namespace rprof {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

std::vector<int> allowed_cpus() {
  std::vector<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) out.push_back(c);
    }
  }
  if (out.empty()) {
    const unsigned n = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned c = 0; c < n; ++c) out.push_back(static_cast<int>(c));
  }
  return out;
}

ThreadTeam::ThreadTeam(std::vector<int> cpus)
    : cpus_(std::move(cpus)),
      start_s_(cpus_.size()),
      end_s_(cpus_.size()),
      cpu_s_(cpus_.size()),
      pinned_(cpus_.size(), 0),
      start_(static_cast<std::ptrdiff_t>(cpus_.size() + 1)),
      done_(static_cast<std::ptrdiff_t>(cpus_.size() + 1)) {
  for (size_t i = 0; i < cpus_.size(); ++i) {
    threads_.emplace_back([this, i] { worker_main(static_cast<int>(i)); });
  }
  // Let every worker pin itself before the first measurement.
  static const std::function<void(int)> kNothing = [](int) {};
  run(kNothing);
}

ThreadTeam::~ThreadTeam() {
  stop_ = true;
  start_.arrive_and_wait();
  for (std::thread& t : threads_) t.join();
}

bool ThreadTeam::pinned() const {
  return std::all_of(pinned_.begin(), pinned_.end(), [](char p) { return p != 0; });
}

void ThreadTeam::worker_main(int index) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpus_[static_cast<size_t>(index)], &set);
  pinned_[static_cast<size_t>(index)] =
      pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
  for (;;) {
    start_.arrive_and_wait();  // the barrier orders task_/stop_ before this read
    if (stop_) return;
    const size_t i = static_cast<size_t>(index);
    const double cpu0 = thread_cpu_s();
    start_s_[i] = now_s();
    (*task_)(index);
    end_s_[i] = now_s();
    cpu_s_[i] = thread_cpu_s() - cpu0;
    done_.arrive_and_wait();
  }
}

double ThreadTeam::run(const std::function<void(int)>& fn) {
  task_ = &fn;
  start_.arrive_and_wait();
  done_.arrive_and_wait();
  const double first = *std::min_element(start_s_.begin(), start_s_.end());
  const double last = *std::max_element(end_s_.begin(), end_s_.end());
  return last - first;
}

double ThreadTeam::last_on_cpu() const {
  double lowest = 1;
  for (size_t i = 0; i < cpus_.size(); ++i) {
    const double wall = end_s_[i] - start_s_[i];
    if (wall > 0) lowest = std::min(lowest, cpu_s_[i] / wall);
  }
  return lowest;
}

}  // namespace rprof
