"""The roofline chart (matplotlib): ceilings from the profile's machine
section, one point per region with FLOPs, each against the compute roof it is
judged by (the roofline's compute_roof), in that roof's colour. Labels are
placed once everything is drawn: each at the first free place beside its
point or line, inside the axes; one that finds none is left out (the legend
and the table hold the same names)."""

import math

from ._profile import BOUNDARIES, BOUNDARY_TEXT, RprofError

_WIDTHS = ["scalar", "128", "256", "512"]
_ROOF_COLOURS = ["tab:blue", "tab:purple", "tab:brown", "tab:cyan", "tab:pink", "tab:olive"]


def _roof_text(label):
    """'dp 256 fma' -> 'DP 256-bit fma'."""
    prec, width, mix = (label.split() + ["", "", ""])[:3]
    return f"{prec.upper()} {'scalar' if width == 'scalar' else width + '-bit'} {mix}".strip()


class _Placer:
    """Places texts one at a time at the first of their candidate offsets
    (points) whose box is inside the axes and clear of the boxes before."""

    def __init__(self, ax):
        self.ax = ax
        self.fig = ax.figure
        self.renderer = self.fig.canvas.get_renderer()
        self.area = ax.get_window_extent(self.renderer)
        self.taken = []

    def block(self, bbox):
        self.taken.append(bbox)

    def place(self, text, xy, places, **kw):
        """places: (dx, dy, ha) in points from xy."""
        t = self.ax.annotate(text, xy, textcoords="offset points", xytext=places[0][:2],
                             annotation_clip=False, **kw)
        for dx, dy, ha in places:
            t.set_position((dx, dy))
            t.set_horizontalalignment(ha)
            b = t.get_window_extent(self.renderer)
            inside = (b.x0 >= self.area.x0 and b.x1 <= self.area.x1 and
                      b.y0 >= self.area.y0 and b.y1 <= self.area.y1)
            if inside and not any(b.overlaps(o) for o in self.taken):
                self.taken.append(b)
                if abs(dx) > 8 or abs(dy) > 12:  # away from its point: a thin line to it
                    t.remove()
                    t = self.ax.annotate(text, xy, textcoords="offset points", xytext=(dx, dy),
                                         annotation_clip=False, ha=ha,
                                         arrowprops=dict(arrowstyle="-", color="0.6", lw=0.5,
                                                         shrinkA=0, shrinkB=2), **kw)
                return t
        t.remove()
        return None


_OFF_SCALE_DECADES = 3  # as the SVG chart's (chart_model.h kOffScaleGapX)


def _shown_span(values, fixed, gap):
    """The span (lo, hi) the axis shows, as rprof's SVG chart finds it
    (chart_scale.h shown_span): the values on a log scale split wherever two
    neighbours are more than `gap` decades apart; the span runs from the
    first to the last cluster holding a fixed value (a ridge), else it is the
    most populous cluster. (None, None) without values."""
    pts = sorted([(math.log10(v), False) for v in values if v > 0 and math.isfinite(v)] +
                 [(math.log10(v), True) for v in fixed if v > 0 and math.isfinite(v)])
    if not pts:
        return None, None
    clusters = [[pts[0]]]
    for a, b in zip(pts, pts[1:]):
        if b[0] - a[0] > gap:
            clusters.append([])
        clusters[-1].append(b)
    with_fixed = [k for k, c in enumerate(clusters) if any(f for _, f in c)]
    if with_fixed:
        first, last = with_fixed[0], with_fixed[-1]
    else:
        first = last = max(range(len(clusters)), key=lambda k: (len(clusters[k]), -k))
    return 10 ** clusters[first][0][0], 10 ** clusters[last][-1][0]


def _around(r=4):
    """Offsets (points) around a dot: right, left, above, below, then out."""
    out = []
    for d in (r, r + 10, r + 20):
        out += [(d, -3, "left"), (-d, -3, "right"), (d, d, "left"), (-d, d, "right"),
                (d, -d - 6, "left"), (-d, -d - 6, "right"), (0, d + 2, "center"),
                (0, -d - 9, "center")]
    return out


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
        _, ax = plt.subplots(figsize=(8, 5.5))

    peaks = sorted((p for p in cs.get("peaks", []) if p.get("precision") == precision),
                   key=lambda p: (_WIDTHS.index(p["width"]), p["gflops"]))
    top = max((p["gflops"] for p in peaks), default=None)
    # The roofs: the machine's top one of `precision`, and each roof a region
    # drawn is judged by (any precision, width or mix), one line per figure.
    roofs = {}  # gflops -> [labels]
    if top:
        best = max(peaks, key=lambda p: p["gflops"])
        roofs[top] = [f"{precision} {best['width']} {best['mix']}"]
    for label, gflops in zip(pts["compute_roof"], pts["compute_roof_gflops_per_s"]):
        if label and gflops > 0 and label not in roofs.setdefault(gflops, []):
            roofs[gflops].append(label)
    # The x axis: the intensities near the others and the ridges; one far
    # outside them (a boundary crossed by a handful of bytes) sits at the edge.
    ridges = [g / bw["gbs"] for g in roofs for bw in cs.get("bandwidth", []) if bw["gbs"] > 0]
    lo, hi = _shown_span(list(pts[oi_col]), ridges, _OFF_SCALE_DECADES)
    x_lo = min(lo / 10, 0.01) if lo else 0.01
    x_hi = max(hi * 10, 100.0) if hi else 100.0

    def at_x(v):
        """The point's x on the chart and its side: -1, 0, +1 (off scale)."""
        return (x_lo, -1) if v < x_lo else (x_hi, 1) if v > x_hi else (v, 0)

    colour = {}
    for k, gflops in enumerate(sorted(roofs, reverse=True)):
        colour[gflops] = _ROOF_COLOURS[k % len(_ROOF_COLOURS)]
        ax.hlines(gflops, x_lo, x_hi, colors=colour[gflops],
                  linestyles="-" if gflops == top else "--", linewidth=1.2)
    colors = {"l1": "tab:green", "l2": "tab:olive", "llc": "tab:orange", "dram": "tab:red"}
    roof_top = max(roofs) if roofs else top
    for bw in cs.get("bandwidth", []):
        b, gbs = bw["boundary"], bw["gbs"]
        x_end = roof_top / gbs if roof_top else x_hi
        ax.plot([x_lo, x_end], [gbs * x_lo, gbs * x_end], color=colors.get(b, "gray"),
                linewidth=2 if b == boundary else 1, linestyle="-" if b == boundary else "--",
                label=f"{BOUNDARY_TEXT[b]}: {gbs:.4g} GB/s")
    for path, r in pts.iterrows():
        g = r["compute_roof_gflops_per_s"]
        x, side = at_x(r[oi_col])
        ax.plot(x, r["gflops_per_s"], {-1: "<", 0: "o", 1: ">"}[side], markersize=5 + 2 * abs(side),
                color=colour.get(g, "black") if g == g else "black", clip_on=False)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    lows = [v for v in list(pts["gflops_per_s"]) + [bw["gbs"] * x_lo for bw in
                                                    cs.get("bandwidth", [])] if v > 0]
    y_lo = 10 ** math.floor(math.log10(min(lows))) if lows else 0.01
    ax.set_ylim(y_lo, (roof_top or max(lows or [1.0])) * 2)
    ax.set_xlabel(f"intensity [FLOP/byte at {BOUNDARY_TEXT[boundary]}]")
    ax.set_ylabel("performance [GFLOP/s, FMA = 2 FLOPs]")
    ax.set_title(f"roofline: {m.cpu}, ceilings for {cs['threads']} thread"
                 f"{'' if cs['threads'] == 1 else 's'} (GB = 1e9 bytes)", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(True, which="both", alpha=0.3)

    # Labels, once the axes are final: the legend's box is taken, then the
    # roofs (right end, above or below their line), then the regions.
    from matplotlib.transforms import Bbox

    placer = _Placer(ax)
    placer.block(ax.get_legend().get_window_extent(placer.renderer))
    for path, r in pts.iterrows():  # the dots themselves
        xy = ax.transData.transform((at_x(r[oi_col])[0], r["gflops_per_s"]))
        placer.block(Bbox.from_extents(xy[0] - 3, xy[1] - 3, xy[0] + 3, xy[1] + 3))
    for path, r in pts.iterrows():  # off-scale values beside their arrows
        x, side = at_x(r[oi_col])
        if side:
            placer.place(f"I {r[oi_col]:.3g}", (x, r["gflops_per_s"]), _around(),
                         fontsize=7, color="0.25")
    for gflops in sorted(roofs, reverse=True):
        text = " / ".join(_roof_text(lb) for lb in roofs[gflops]) + f": {gflops:.4g} GFLOP/s"
        placer.place(text, (x_hi, gflops), [(-4, 2, "right"), (-4, -10, "right"),
                                            (-4, 12, "right"), (-4, -20, "right")],
                     va="bottom", fontsize=7, color=colour[gflops])
    if annotate:
        # A name two regions share gets its parent's, then its parent's path.
        def label(r, parent):
            return r["name"] + (" in " + parent if parent else "")

        count = {}
        for path, r in pts.iterrows():
            count[r["name"]] = count.get(r["name"], 0) + 1
        names = {}
        for path, r in pts.iterrows():
            parent = r["parent"] or ""
            names[path] = label(r, parent.split("/")[-1] if count[r["name"]] > 1 else "")
        again = {}
        for n in names.values():
            again[n] = again.get(n, 0) + 1
        for path, r in pts.iterrows():
            if again[names[path]] > 1:
                names[path] = label(r, r["parent"] or "")
        order = pts.sort_values("time_s", ascending=False)
        for path, r in order.iterrows():
            placer.place(names[path], (at_x(r[oi_col])[0], r["gflops_per_s"]), _around(),
                         fontsize=7)
    return ax
