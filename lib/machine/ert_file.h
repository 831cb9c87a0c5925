// The Empirical Roofline Toolkit's roofline.json (ERT's build_database):
//   {"empirical": {"metadata": {...},
//                  "gflops": {"data": [["FP64 GFLOPs", 59.1]], "metadata": {...}},
//                  "gbytes": {"data": [["L1", 420.0], ["L2", 190.0], ["DRAM", 27.9]],
//                             "metadata": {...}}},
//    "spec": {"gflops": {"data": []}, "gbytes": {"data": []}}}
// GFLOP/s with FMA = 2 FLOPs, GB/s with GB = 1e9 bytes (ERT's conventions
// and rprof's). docs/machine-file.md, "ERT's roofline.json".
#ifndef RPROF_MACHINE_ERT_FILE_H_
#define RPROF_MACHINE_ERT_FILE_H_

#include <nlohmann/json.hpp>
#include <string>

#include "machine/machine.h"
#include "machine/topology.h"

namespace rprof {

// The ceiling set measured with the thread count nearest to `threads` (0:
// the most threads) as roofline.json: per precision its best peak over widths
// and mixes ("FP64 GFLOPs", "FP32 GFLOPs"), per boundary the roofline's
// bandwidth (BandwidthCeiling::boundary_gbs; the llc boundary is named after
// its cache level, "L3"), the thread count in the metadata (OPENMP_THREADS).
nlohmann::json machine_to_ert(const Machine& m, int threads);

// A roofline.json as a machine: this machine's identity and caches (`topo`),
// one ceiling set with `threads` threads (0: the file's OPENMP_THREADS x
// MPI_PROCS metadata, else topo.logical_cpus). Levels L1, L2, L3/L4/LLC,
// DRAM/HBM/MCDRAM/MEM; "GFLOPs" without a precision is FP64 (ERT's default).
// Throws Error("<file>: not a valid ERT roofline.json: <where>: <why>").
Machine machine_from_ert(const std::string& path, const Topology& topo, int threads);
// The same for a document already parsed (`path` names it in errors).
Machine machine_from_ert_json(const nlohmann::json& doc, const std::string& path,
                              const Topology& topo, int threads);

}  // namespace rprof

#endif  // RPROF_MACHINE_ERT_FILE_H_
