"""python3 -m rprof PATH [--compare OTHER] [--csv] [--roofline OUT.png]

Prints a profile's regions (an rprof output directory or its profile.json)
as a table; exit 0, or 2 with one line on stderr for bad input."""

import argparse
import os
import sys

from ._profile import RprofError, load

_TABLE = ["calls", "time_s", "flops", "gflops_per_s", "dram_bytes", "oi_dram_flop_per_byte",
          "verdict"]


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m rprof",
        description="Print an rprof profile's regions (FMA = 2 FLOPs, GB = 1e9 bytes, "
                    "seconds; bytes and intensity at DRAM = LLC<->DRAM).")
    ap.add_argument("profile", help="rprof output directory or profile.json")
    ap.add_argument("--compare", metavar="OTHER", help="a second profile: both side by side")
    ap.add_argument("--csv", action="store_true", help="every column, as CSV")
    ap.add_argument("--roofline", metavar="PNG", help="also draw the roofline into this file")
    args = ap.parse_args(argv)
    try:
        import pandas as pd

        p = load(args.profile)
        if args.compare:
            df = p.compare(load(args.compare))
        else:
            df = p.regions if args.csv else p.regions[_TABLE]
        if args.csv:
            df.to_csv(sys.stdout)
        else:
            with pd.option_context("display.max_rows", None, "display.max_columns", None,
                                   "display.width", 200):
                print(f"{p.file}: backend {p.backend}, {len(p.regions)} regions")
                print(df.to_string())
        if args.roofline:
            import matplotlib

            matplotlib.use("Agg")
            ax = p.roofline()
            ax.figure.savefig(args.roofline, dpi=120, bbox_inches="tight")
            print(f"rprof: roofline written to {args.roofline}", file=sys.stderr)
    except RprofError as e:
        print(f"rprof: {e}", file=sys.stderr)
        return 2
    return 0


def _run():
    """main(), quiet when the reader goes away (python3 -m rprof DIR | head):
    no BrokenPipeError traceback, exit status 1 as for other write errors."""
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The rest of the output goes nowhere; the flush at exit must not fail.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status


if __name__ == "__main__":
    sys.exit(_run())
