#!/usr/bin/python3
"""Example: load an rprof run in pandas, print its slowest regions with their
rates and intensities, and save its roofline chart.

    rprof --backend=sim -o run build/bin/samples/daxpy 100000 5
    PYTHONPATH=python python3 docs/python_example.py run roofline.png

(PYTHONPATH only when rprof is not installed; docs/python.md.)
"""

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import rprof  # noqa: E402


def main(run, png):
    p = rprof.load(run)
    print(p, "|", rprof.CONVENTIONS)
    marked = p.regions[~p.regions["is_function"] & (p.regions.index != "[program]")]
    cols = ["calls", "time_s", "flops", "gflops_per_s", "dram_bytes", "oi_dram_flop_per_byte",
            "fraction_of_bound", "verdict"]
    print(marked.sort_values("time_s", ascending=False)[cols].head(10).to_string())
    if p.machine is None:
        print("no machine ceilings in this profile: re-render it with "
              "rprof report RUN --format json --machine FILE -o profile.json")
        return 0
    fig, ax = plt.subplots(figsize=(7, 5))
    p.roofline(ax=ax, boundary="dram")
    fig.savefig(png, dpi=120, bbox_inches="tight")
    print(f"roofline written to {png}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python_example.py RUN_DIR_OR_PROFILE_JSON OUT.png")
    sys.exit(main(sys.argv[1], sys.argv[2]))
