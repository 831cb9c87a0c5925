// Worker threads pinned one per CPU (pthread_setaffinity_np), reused across
// the measurements of a calibration so that threads start once and stay on
// their CPU. `run` starts all workers together and times them as one.
#ifndef RPROF_MACHINE_THREAD_TEAM_H_
#define RPROF_MACHINE_THREAD_TEAM_H_

#include <barrier>
#include <functional>
#include <thread>
#include <vector>

namespace rprof {

// CPUs this process may run on (sched_getaffinity), ascending.
std::vector<int> allowed_cpus();

class ThreadTeam {
 public:
  // One worker per entry of `cpus`, pinned to it.
  explicit ThreadTeam(std::vector<int> cpus);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int size() const { return static_cast<int>(cpus_.size()); }
  const std::vector<int>& cpus() const { return cpus_; }
  // False when some worker could not be pinned (it still ran, unpinned).
  bool pinned() const;

  // Runs fn(worker) on every worker at once. Returns seconds from the first
  // worker's start to the last worker's end (steady clock).
  double run(const std::function<void(int worker)>& fn);
  // Of the last run: the lowest share of its elapsed time a worker spent on
  // its CPU (thread CPU time / wall time). Below ~0.97 another process took
  // the CPU for a while: that repetition measured the scheduler, not the
  // hardware. (A hypervisor's steal time is invisible here.)
  double last_on_cpu() const;

 private:
  void worker_main(int index);

  std::vector<int> cpus_;
  std::vector<std::thread> threads_;
  std::vector<double> start_s_, end_s_, cpu_s_;
  std::vector<char> pinned_;
  std::barrier<> start_, done_;
  const std::function<void(int)>* task_ = nullptr;
  bool stop_ = false;
};

}  // namespace rprof

#endif  // RPROF_MACHINE_THREAD_TEAM_H_
