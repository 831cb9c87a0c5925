"""The roofline chart (matplotlib): ceilings from the profile's machine
section, one point per region with FLOPs."""

import math

from ._profile import BOUNDARIES, BOUNDARY_TEXT, RprofError

_WIDTHS = ["scalar", "128", "256", "512"]


def draw_roofline(profile, ax=None, boundary="dram", precision="dp", threads=None,
                  regions=None, annotate=True):
    import matplotlib.pyplot as plt

    if boundary not in BOUNDARIES:
        raise RprofError(f"boundary {boundary!r} is none of {', '.join(BOUNDARIES)}")
    m = profile.machine
    if m is None or not m.ceilings:
        raise RprofError(f"{profile.file}: no machine section (roofline_machine) with "
                         "ceilings: re-render it with rprof report --machine FILE --format json")
    df = profile.regions
    if regions is not None:
        df = df.loc[list(regions)]
    oi_col = f"oi_{boundary}_flop_per_byte"
    pts = df[(df["gflops_per_s"] > 0) & (df[oi_col] > 0)]
    if threads is None:
        used = pts["ceiling_threads"].dropna()
        threads = int(used.mode().iloc[0]) if len(used) else None
    cs = m.ceiling_set(threads)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 5))

    xs = list(pts[oi_col]) or [1.0]
    x_lo = min(min(xs) / 10, 0.01)
    x_hi = max(max(xs) * 10, 100.0)
    peaks = sorted((p for p in cs.get("peaks", []) if p.get("precision") == precision),
                   key=lambda p: _WIDTHS.index(p["width"]))
    top = peaks[-1]["gflops"] if peaks else None
    # One line per distinct roof: widths that reach the same GFLOP/s share it.
    roofs = {}
    for p in peaks:
        roofs.setdefault(p["gflops"], []).append(p)
    for gflops, same in roofs.items():
        widths = "/".join(p["width"] for p in same)
        width = "scalar" if widths == "scalar" else widths + "-bit"
        mixes = "/".join(sorted({p["mix"] for p in same}))
        ax.hlines(gflops, x_lo, x_hi, colors="tab:blue",
                  linestyles="-" if gflops == top else ":", linewidth=1.2)
        ax.annotate(f"{precision.upper()} {width} {mixes}: {gflops:.4g} GFLOP/s",
                    (x_hi, gflops), ha="right", va="bottom", fontsize=7, color="tab:blue")
    colors = {"l1": "tab:green", "l2": "tab:olive", "llc": "tab:orange", "dram": "tab:red"}
    for bw in cs.get("bandwidth", []):
        b, gbs = bw["boundary"], bw["gbs"]
        x_end = top / gbs if top else x_hi
        ax.plot([x_lo, x_end], [gbs * x_lo, gbs * x_end], color=colors.get(b, "gray"),
                linewidth=2 if b == boundary else 1, linestyle="-" if b == boundary else "--",
                label=f"{BOUNDARY_TEXT[b]}: {gbs:.4g} GB/s")
    for path, r in pts.iterrows():
        ax.plot(r[oi_col], r["gflops_per_s"], "o", color="black", markersize=5)
        if annotate:
            ax.annotate(str(path), (r[oi_col], r["gflops_per_s"]), textcoords="offset points",
                        xytext=(4, 4), fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    lows = [v for v in list(pts["gflops_per_s"]) + [bw["gbs"] * x_lo for bw in
                                                    cs.get("bandwidth", [])] if v > 0]
    y_lo = 10 ** math.floor(math.log10(min(lows))) if lows else 0.01
    ax.set_ylim(y_lo, (top or max(lows or [1.0])) * 2)
    ax.set_xlabel(f"intensity [FLOP/byte at {BOUNDARY_TEXT[boundary]}]")
    ax.set_ylabel("performance [GFLOP/s, FMA = 2 FLOPs]")
    ax.set_title(f"roofline: {m.cpu}, ceilings for {cs['threads']} thread"
                 f"{'' if cs['threads'] == 1 else 's'} (GB = 1e9 bytes)", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(True, which="both", alpha=0.3)
    return ax
