// `rprof machine --show`: the machine file for people, every figure with its
// unit and convention.
#ifndef RPROF_TOOLS_RPROF_MACHINE_TEXT_H_
#define RPROF_TOOLS_RPROF_MACHINE_TEXT_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "machine/machine.h"
#include "machine/recalibration.h"

namespace rprof {

void print_machine(const Machine& m, const std::string& file, std::ostream& out);

// After `rprof machine` replaced a file: how far its figures moved from the
// previous calibration's (`before`), by kind, and each figure beyond
// kRecalibrationSpread.
void print_recalibration(const Recalibration& r, const Machine& before, const Machine& after,
                         std::ostream& out);

// "32 KiB", "1 MiB", "1.5 GiB"
std::string binary_size(uint64_t bytes);
// "32kB" (1000s, as likwid-bench), "32KiB" (1024s), "4096"; 0 when malformed.
uint64_t parse_size(const std::string& text);

}  // namespace rprof

#endif  // RPROF_TOOLS_RPROF_MACHINE_TEXT_H_
