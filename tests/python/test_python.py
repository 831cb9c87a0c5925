#!/usr/bin/python3
"""Tests of the Python package rprof (python/rprof), of `rprof report --format
caliper` and of `rprof machine --export ert / --import-ert`, on profiles the
built rprof writes of the samples. Each case runs in a fresh /usr/bin/python3
process (one CTest entry per case):

    test_python.py CASE RPROF SAMPLES_DIR SOURCE_DIR WORK_DIR

Hermetic: the test's own HOME and the recorded machine zen4-desktop
(tests/fixtures/machines), never this machine's caches or ceilings. A case
that cannot run here prints SKIP with the reason and exits 77.
"""

import json
import math
import os
import shutil
import subprocess
import sys

SKIP = 77
N = 1000      # daxpy elements
REPS = 3      # daxpy calls
FIXTURE = "zen4-desktop"


class Ctx:
    def __init__(self, rprof, samples, src, work):
        self.rprof, self.samples, self.src, self.work = rprof, samples, src, work
        self.machine_root = os.path.join(src, "tests", "fixtures", "machines", FIXTURE)
        self.machine_file = os.path.join(self.machine_root, "machine.json")
        home = os.path.join(work, "home")
        os.makedirs(home, exist_ok=True)
        self.env = dict(os.environ, HOME=home, XDG_CACHE_HOME=os.path.join(home, ".cache"),
                        RPROF_SYSROOT=self.machine_root, RPROF_MACHINE_FILE=self.machine_file,
                        MPLBACKEND="Agg", PYTHONPATH=os.path.join(src, "python"),
                        PYTHONDONTWRITEBYTECODE="1")
        self.env.pop("RPROF_FAKE_STEP", None)

    def run(self, args, env=None, check=True):
        e = dict(self.env, **(env or {}))
        r = subprocess.run(args, env=e, capture_output=True, text=True, timeout=300)
        if check and r.returncode != 0:
            fail(f"{' '.join(args)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
        return r

    def profile(self, tag, backend, n=N, reps=REPS, extra=(), env=None, app=None):
        out = os.path.join(self.work, tag)
        shutil.rmtree(out, ignore_errors=True)
        app = app or os.path.join(self.samples, "daxpy")
        self.run([self.rprof, "-q", f"--backend={backend}", *extra, "-o", out, app, str(n),
                  str(reps)], env=env)
        return out


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def eq(got, want, what):
    check(got == want, f"{what}: got {got!r}, want {want!r}")


def close(got, want, rel, what):
    check(math.isclose(got, want, rel_tol=rel), f"{what}: got {got!r}, want {want!r} (rel {rel})")


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


def fixture_ceilings(ctx):
    """The fixture machine's roofline ceilings, read from its machine file as
    rprof defines them (docs/machine-file.md): per thread count the best DP
    and SP peak over widths and mixes, and per boundary the best kernel's
    bytes across it (gbs at l1, traffic_gbs below)."""
    with open(ctx.machine_file) as f:
        m = json.load(f)
    out = {}
    for s in m["ceilings"]:
        peaks = {}
        for p in s["peaks"]:
            peaks[p["precision"]] = max(peaks.get(p["precision"], 0), p["gflops"])
        bw = {}
        for b in s["bandwidth"]:
            v = b["gbs"] if b["boundary"] == "l1" else b["traffic_gbs"]
            bw[b["boundary"]] = max(bw.get(b["boundary"], 0), v)
        out[s["threads"]] = (peaks, bw)
    return m, out


def sim_available(ctx):
    if os.environ.get("RPROF_TEST_SANITIZED"):
        skip("a sanitized build's programs cannot run under Valgrind (the sim backend)")
    if shutil.which("valgrind") is None:
        skip("the sim backend needs valgrind, not installed here")


# --- the reader on every backend -------------------------------------------

def case_reader_sim(ctx):
    import rprof

    sim_available(ctx)
    out = ctx.profile("sim", "sim")
    p = rprof.load(out)
    eq(p.backend, "sim", "backend")
    eq(p.file, os.path.join(out, "profile.json"), "file")
    with open(p.file) as f:
        doc = json.load(f)
    eq(len(p.regions), len(doc["regions"]), "one row per region")
    eq(set(p.regions.index), {"[program]", "init", "daxpy"}, "region paths")
    d = p.regions.loc["daxpy"]
    eq(int(d["calls"]), REPS, "daxpy calls")
    # Exact counts: 2n FLOPs per call (FMA = 2); at L1 24n bytes per call (x
    # and y loaded, y stored: 8 bytes each per element) plus the call's own
    # few stack bytes (tests/sim: the difference of two sizes is exact, see
    # case compare).
    eq(d["flops"], 2.0 * N * REPS, "daxpy FLOPs (sim, exact)")
    c = p.counters.loc["daxpy"]
    eq(d["l1_bytes"], float(c["bytes.l1.read"] + c["bytes.l1.write"]), "L1 bytes = the counters")
    check(24 * N * REPS <= d["l1_bytes"] < (24 * N + 256) * REPS,
          f"daxpy L1 bytes {d['l1_bytes']}: 24n per call and under 256 B of call overhead")
    eq(d["declared_flops"], 2.0 * N * REPS, "declared FLOPs")
    close(d["oi_l1_flop_per_byte"], d["flops"] / d["l1_bytes"], 1e-12, "L1 intensity")
    close(d["gflops_per_s"], d["flops"] / d["time_s"] / 1e9, 1e-9, "GFLOP/s = FLOPs / time")
    check(d["time_s"] > 0 and d["exclusive_time_s"] <= d["time_s"], "daxpy times")
    check(d["verdict"] is not None, "daxpy has a verdict")
    eq(d["depth"], 0, "daxpy depth")
    eq(p.counters.loc["daxpy", "flops.dp.scalar"] + p.counters.loc["daxpy"].filter(
        regex=r"^flops\.dp\.(128|256|512)$").fillna(0).sum(), 2.0 * N * REPS,
       "flops.dp.* counters")
    # The machine: the fixture's ceilings, as profile.json carries them.
    m, ceilings = fixture_ceilings(ctx)
    check(p.machine is not None, "profile.json has a machine section")
    eq(p.machine.cpu, m["cpu"]["model_name"], "machine cpu")
    eq(sorted(p.machine.thread_counts), sorted(ceilings), "machine thread counts")
    for t, (peaks, bw) in ceilings.items():
        eq(p.machine.ceiling_set(t)["threads"], t, "ceiling set")
        close(p.machine.peak_gflops_per_s("dp", threads=t), peaks["dp"], 1e-12,
              f"DP peak, {t} threads")
        for b, v in bw.items():
            close(p.machine.bandwidth_gb_per_s(b, threads=t), v, 1e-12,
                  f"{b} bandwidth, {t} threads")
    print(f"sim: daxpy {int(d['flops'])} FLOPs, {int(d['l1_bytes'])} L1 bytes, "
          f"{d['gflops_per_s']:.3g} GFLOP/s; machine {p.machine.cpu}")


def case_reader_time(ctx):
    import rprof

    out = ctx.profile("time", "time")
    p = rprof.load(os.path.join(out, "profile.json"))
    eq(p.backend, "time", "backend")
    eq(set(p.regions.index), {"[program]", "init", "daxpy"}, "region paths")
    d = p.regions.loc["daxpy"]
    eq(int(d["calls"]), REPS, "daxpy calls")
    eq(int(p.regions.loc["init", "calls"]), 1, "init calls")
    check(d["time_s"] > 0, "daxpy time")
    check(math.isnan(d["flops"]) and math.isnan(d["gflops_per_s"]), "no FLOPs without counts")
    check(math.isnan(d["dram_bytes"]), "no bytes without counts")
    eq(d["declared_flops"], 2.0 * N * REPS, "declared FLOPs (rprof_work)")
    prog = p.regions.loc["[program]"]
    close(prog["time_s"], p.run["wall_time_s"], 1e-12, "[program] time = wall time")
    print(f"time: daxpy {REPS} calls, {d['time_s']:.3g} s")


def case_reader_fake(ctx):
    import rprof

    step = 1000
    out = ctx.profile("fake", "fake", env={"RPROF_FAKE_STEP": str(step)})
    p = rprof.load(out)
    eq(p.backend, "fake", "backend")
    # Counter i advances by (i + 1) x step per read; each call of daxpy spans
    # one read (its begin's to its end's).
    eq(int(p.counters.loc["daxpy", "fake_a"]), REPS * step, "fake_a of daxpy")
    eq(int(p.counters.loc["daxpy", "fake_b"]), 2 * REPS * step, "fake_b of daxpy")
    eq(int(p.exclusive_counters.loc["daxpy", "fake_a"]), REPS * step, "exclusive fake_a")
    eq(int(p.counters.loc["init", "fake_a"]), step, "fake_a of init")
    print(f"fake: daxpy fake_a {REPS * step}, fake_b {2 * REPS * step}")


def hw_reader(ctx, backend, events, clock):
    """A hardware backend counting kernel software events (no PMU needed):
    every counter of profile.json is its column in Profile.counters."""
    import rprof

    out = os.path.join(ctx.work, backend)
    shutil.rmtree(out, ignore_errors=True)
    r = ctx.run([ctx.rprof, "-q", f"--backend={backend}", f"--events={events}", "-o", out,
                 os.path.join(ctx.samples, "daxpy"), str(N), str(REPS)], check=False)
    if r.returncode != 0 and r.stderr.startswith(f"rprof: --backend={backend}"):
        skip(f"{backend} cannot count software events here: " + r.stderr.strip().splitlines()[0])
    # PAPI without its perf_event component here (seen on an AMD EPYC VM with
    # no PMU: "Event does not exist"): rprof times only, and says so.
    off = [l for l in r.stderr.splitlines() if "counters off, timing only" in l]
    if r.returncode == 0 and off:
        skip(f"{backend} cannot count software events here: " + off[0].strip())
    check(r.returncode == 0, f"rprof --backend={backend}: {r.stderr}")
    p = rprof.load(out)
    eq(p.backend, backend, "backend")
    with open(p.file) as f:
        doc = json.load(f)
    by_path = {"/".join(x["path"]): x for x in doc["regions"]}
    eq(int(p.regions.loc["daxpy", "calls"]), REPS, "daxpy calls")
    eq(sorted(p.counters.columns), sorted(doc["counters"]), "one column per counter")
    for col in doc["counters"]:
        for path, reg in by_path.items():
            want = reg.get("counters", {}).get(col)
            got = p.counters.loc[path, col]
            if want is None:
                check(math.isnan(got), f"{path} {col}: absent is NaN")
            else:
                eq(int(got), want, f"{path} {col}")
    check(p.counters.loc["daxpy", clock] > 0, f"daxpy {clock} > 0")
    check(math.isnan(p.regions.loc["daxpy", "flops"]), "software events give no FLOPs")
    print(f"{backend}: daxpy {clock} {int(p.counters.loc['daxpy', clock])} ns, "
          f"{len(doc['counters'])} counters")


def case_reader_perf(ctx):
    hw_reader(ctx, "perf", "page-faults,task-clock", "hw.g0.task-clock")


def case_reader_papi(ctx):
    hw_reader(ctx, "papi", "perf::PAGE-FAULTS,perf::TASK-CLOCK", "hw.g0.perf..TASK-CLOCK")


# --- roofline, compare, the command line ------------------------------------

def case_roofline(ctx):
    import matplotlib
    import matplotlib.pyplot as plt

    import rprof

    sim_available(ctx)
    p = rprof.load(ctx.profile("sim-roof", "sim"))
    fig, ax = plt.subplots()
    got = p.roofline(ax=ax, boundary="l1")
    check(got is ax, "roofline(ax) draws on the given Axes and returns it")
    eq(matplotlib.get_backend().lower(), "agg", "backend Agg")
    d = p.regions.loc["daxpy"]
    pts = [tuple(line.get_xydata()[0]) for line in ax.lines if line.get_marker() == "o"]
    eq(len(pts), int((p.regions["gflops_per_s"] > 0).sum()), "one point per region with FLOPs")
    check(any(math.isclose(x, d["oi_l1_flop_per_byte"], rel_tol=1e-12) and
              math.isclose(y, d["gflops_per_s"], rel_tol=1e-12) for x, y in pts),
          f"daxpy's point at (I, GFLOP/s) = ({d['oi_l1_flop_per_byte']}, {d['gflops_per_s']})")
    threads = int(d["ceiling_threads"])
    top = p.machine.peak_gflops_per_s("dp", threads=threads)
    roofs = [c.get_segments()[0][0][1] for c in ax.collections]
    check(any(math.isclose(y, top, rel_tol=1e-12) for y in roofs), f"a roof at {top} GFLOP/s")
    bw = p.machine.bandwidth_gb_per_s("l1", threads=threads)
    slopes = [ln.get_ydata()[0] / ln.get_xdata()[0] for ln in ax.lines if ln.get_marker() != "o"]
    check(any(math.isclose(s, bw, rel_tol=1e-9) for s in slopes), f"an L1 ceiling of {bw} GB/s")
    check("FLOP/byte" in ax.get_xlabel() and "GFLOP/s" in ax.get_ylabel() and
          "FMA = 2" in ax.get_ylabel(), "axis labels carry units and FMA = 2")
    png = os.path.join(ctx.work, "roofline.png")
    fig.savefig(png)
    check(os.path.getsize(png) > 1000, "the chart renders to PNG")
    print(f"roofline: {len(pts)} points, roof {top} GFLOP/s, L1 {bw} GB/s")


def case_roofline_many(ctx):
    """A recorded inst profile of many regions (tests/html/many): each region
    against the roof it is judged by, in that roof's colour; labels inside
    the axes, none over another."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgba
    from matplotlib.text import Text

    import rprof

    p = rprof.load(os.path.join(ctx.src, "tests", "html", "many", "profile.json"))
    fig, ax = plt.subplots(figsize=(8, 5.5))
    p.roofline(ax=ax, boundary="l1")
    fig.canvas.draw()
    df = p.regions
    pts = df[(df["gflops_per_s"] > 0) & (df["oi_l1_flop_per_byte"] > 0)]
    check(len(pts) >= 20, f"{len(pts)} regions on the chart")
    judged = set(pts["compute_roof_gflops_per_s"].dropna())
    labels = set(pts["compute_roof"].dropna())
    check(len(judged) >= 2 and any(lb.startswith("sp ") for lb in labels),
          f"regions judged by several roofs, single precision among them: {labels}")
    lines = {}
    for c in ax.collections:
        lines[c.get_segments()[0][0][1]] = to_rgba(c.get_colors()[0])
    for g in judged:
        check(any(math.isclose(y, g, rel_tol=1e-12) for y in lines), f"a roof line at {g} GFLOP/s")
    # Each dot in its roof's colour.
    dots = [ln for ln in ax.lines if ln.get_marker() == "o"]
    eq(len(dots), len(pts), "one dot per region")
    for ln in dots:
        x, y = ln.get_xydata()[0]
        row = pts[(pts["oi_l1_flop_per_byte"] == x) & (pts["gflops_per_s"] == y)].iloc[0]
        want = [c for g, c in lines.items() if math.isclose(g, row["compute_roof_gflops_per_s"],
                                                             rel_tol=1e-12)]
        check(want and to_rgba(ln.get_color()) == want[0], f"dot of {row['name']} in its roof's colour")
    # Labels: inside the axes and clear of each other (1 px of slack).
    r = fig.canvas.get_renderer()
    area = ax.get_window_extent(r)
    # The text's own box (an Annotation's would include its leader line).
    boxes = [(t.get_text(), Text.get_window_extent(t, r)) for t in ax.texts]
    check(len(boxes) >= 8, f"{len(boxes)} labels")
    for text, b in boxes:
        check(b.x0 >= area.x0 - 1 and b.x1 <= area.x1 + 1 and b.y0 >= area.y0 - 1 and
              b.y1 <= area.y1 + 1, f"label {text!r} leaves the axes")
    for i, (ta, a) in enumerate(boxes):
        for tb, b in boxes[i + 1:]:
            ox = min(a.x1, b.x1) - max(a.x0, b.x0)
            oy = min(a.y1, b.y1) - max(a.y0, b.y0)
            check(ox <= 1 or oy <= 1, f"labels {ta!r} and {tb!r} overlap")
    texts = [t for t, _ in boxes]
    check(len(set(texts)) == len(texts), f"two labels read the same: {texts}")
    fig.savefig(os.path.join(ctx.work, "roofline_many.png"))

    # One intensity far outside the others (8e6 FLOP/byte, as a handful of
    # bytes gives) does not set the axis: it sits at the edge, with its value.
    with open(p.file) as f:
        doc = json.load(f)
    r = next(r for r in doc["regions"] if r["path"] == ["dot_l1"])
    next(b for b in r["roofline"]["boundaries"] if b["boundary"] == "l1")["intensity"] = 8e6
    odd = os.path.join(ctx.work, "outlier.json")
    with open(odd, "w") as f:
        json.dump(doc, f)
    fig, ax = plt.subplots(figsize=(8, 5.5))
    rprof.load(odd).roofline(ax=ax, boundary="l1")
    fig.canvas.draw()
    x_hi = ax.get_xlim()[1]
    check(x_hi < 1e4, f"the x axis ends at {x_hi}, not beyond the outlier")
    edge = [ln for ln in ax.lines if ln.get_marker() == ">"]
    eq(len(edge), 1, "one point at the right edge")
    check(math.isclose(edge[0].get_xydata()[0][0], x_hi), "the point sits on the edge")
    check(any(t.get_text() == "I 8e+06" for t in ax.texts), "its value beside it")
    print(f"roofline_many: {len(pts)} regions, {len(judged)} roofs, {len(boxes)} labels; "
          f"an outlier at the edge of an axis ending at {x_hi:.3g}")


def case_compare(ctx):
    import rprof

    sim_available(ctx)
    a = rprof.load(ctx.profile("sim-a", "sim", n=N))
    b = rprof.load(ctx.profile("sim-b", "sim", n=2 * N))
    c = a.compare(b)
    eq(c.loc["daxpy", "flops_self"], 2.0 * N * REPS, "flops of self")
    eq(c.loc["daxpy", "flops_other"], 4.0 * N * REPS, "flops of other")
    eq(c.loc["daxpy", "flops_ratio"], 2.0, "flops ratio (twice the elements)")
    eq(c.loc["daxpy", "calls_ratio"], 1.0, "calls ratio")
    # The same calls, n more elements: exactly 24n more bytes at L1 (16 B
    # loaded, 8 B stored per element), 16n more read.
    eq(b.regions.loc["daxpy", "l1_bytes"] - a.regions.loc["daxpy", "l1_bytes"],
       24.0 * N * REPS, "L1 bytes of n more elements")
    eq(b.counters.loc["daxpy", "bytes.l1.read"] - a.counters.loc["daxpy", "bytes.l1.read"],
       16 * N * REPS, "L1 bytes read of n more elements")
    eq(list(c["present"].unique()), ["both"], "every region in both")
    print("compare: daxpy FLOPs ratio 2.0 for 2x the elements")


def case_cli(ctx):
    out = ctx.profile("cli", "fake", env={"RPROF_FAKE_STEP": "7"})
    py = "/usr/bin/python3"
    r = ctx.run([py, "-m", "rprof", out])
    rows = [ln.split() for ln in r.stdout.splitlines()]
    check(any(row[:2] == ["daxpy", str(REPS)] for row in rows),
          f"a daxpy row with {REPS} calls:\n{r.stdout}")
    r = ctx.run([py, "-m", "rprof", "--csv", out])
    head = r.stdout.splitlines()[0].split(",")
    for col in ("path", "time_s", "gflops_per_s", "dram_bytes", "oi_dram_flop_per_byte"):
        check(col in head, f"CSV column {col}")
    # Bad input: one line on stderr, exit 2, never a traceback.
    bad_json = os.path.join(ctx.work, "bad.json")
    with open(bad_json, "w") as f:
        f.write('{"format": "rprof-profile", "schema_version": 1, "regions": [')
    foreign = os.path.join(ctx.work, "foreign.json")
    with open(foreign, "w") as f:
        f.write('{"format": "rprof-raw", "schema_version": 1}')
    empty_dir = os.path.join(ctx.work, "empty-dir")
    os.makedirs(empty_dir, exist_ok=True)
    cases = {
        os.path.join(ctx.work, "missing"): "no such file or directory",
        bad_json: "not JSON",
        foreign: "missing \"format\": \"rprof-profile\"",
        empty_dir: "no profile.json in this directory",
    }
    for path, why in cases.items():
        r = ctx.run([py, "-m", "rprof", path], check=False)
        eq(r.returncode, 2, f"exit status for {path}")
        lines = r.stderr.splitlines()
        eq(len(lines), 1, f"one line on stderr for {path}: {r.stderr!r}")
        check(lines[0].startswith("rprof: " + path) and why in lines[0],
              f"message for {path}: {lines[0]!r}")
    # A reader that goes away (python3 -m rprof DIR | head): no traceback.
    # The pipe is closed before the interpreter has started, so every write
    # of the table meets a closed pipe.
    p = subprocess.Popen([py, "-m", "rprof", out], env=ctx.env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdout.close()
    err = p.stderr.read().decode()
    p.wait(timeout=120)
    eq(err, "", "stderr when stdout is a closed pipe")
    eq(p.returncode, 1, "exit status when stdout is a closed pipe")
    print("cli: table, CSV, 4 bad inputs (exit 2, one line), a closed pipe (quiet, exit 1)")


# --- Caliper json-split ------------------------------------------------------

def read_caliper_like_hatchet(doc):
    """The sections Hatchet's CaliperReader reads from json-split: columns,
    column_metadata, nodes (those of the path column build the tree, a node
    without parent is a root) and data rows whose path cell is a node id."""
    for key in ("data", "columns", "column_metadata", "nodes"):
        check(key in doc, f"json-split has {key}")
    cols, meta, nodes = doc["columns"], doc["column_metadata"], doc["nodes"]
    eq(len(cols), len(meta), "one metadata entry per column")
    check("path" in cols, "a path column")
    path_col = cols.index("path")
    eq(meta[path_col]["is_value"], False, "path is not a value")
    for i, m in enumerate(meta):
        if i != path_col:
            eq(m["is_value"], True, f"{cols[i]} is a value")
    paths = {}
    for idx, node in enumerate(nodes):
        eq(node["column"], "path", f"node {idx} column")
        if "parent" not in node:
            paths[idx] = (node["label"],)
        else:
            check(node["parent"] in paths, f"node {idx}'s parent comes before it")
            paths[idx] = paths[node["parent"]] + (node["label"],)
    rows = {}
    for row in doc["data"]:
        eq(len(row), len(cols), "row width")
        check(row[path_col] is not None and row[path_col] in paths, "row's node exists")
        p = "/".join(paths[row[path_col]])
        check(p not in rows, f"one row per path ({p})")
        rows[p] = dict(zip(cols, row))
    return paths, rows, cols, meta


def case_caliper(ctx):
    sim_available(ctx)
    out = ctx.profile("sim-cali", "sim")
    r = ctx.run([ctx.rprof, "report", "--format", "caliper", out])
    doc = json.loads(r.stdout)
    paths, rows, cols, meta = read_caliper_like_hatchet(doc)
    with open(os.path.join(out, "profile.json")) as f:
        prof = json.load(f)
    want = {"/".join(x["path"]): x for x in prof["regions"]}
    eq(set(rows), set(want), "a row per region, keyed by its path from the node tree")
    prefixes = {tuple(x["path"][:k]) for x in prof["regions"] for k in range(1, len(x["path"]) + 1)}
    eq(set(paths.values()), prefixes, "nodes: every path prefix once")
    units = {c: m.get("attribute.unit") for c, m in zip(cols, meta)}
    eq(units["sum#time.duration"], "sec", "exclusive time unit")
    eq(units["inclusive#sum#time.duration"], "sec", "inclusive time unit")
    eq(units["inclusive#rprof.flops"], "FLOP", "FLOP unit")
    for p, reg in want.items():
        row = rows[p]
        eq(row["rprof.calls"], reg["calls"], f"{p} calls")
        eq(row["sum#time.duration"], reg["exclusive_time_s"], f"{p} exclusive time")
        eq(row["inclusive#sum#time.duration"], reg["time_s"], f"{p} inclusive time")
        for c, v in reg.get("counters", {}).items():
            eq(row["inclusive#sum#" + c], v, f"{p} inclusive {c}")
        for c, v in reg.get("exclusive_counters", {}).items():
            eq(row["sum#" + c], v, f"{p} exclusive {c}")
        if reg.get("roofline", {}).get("available"):
            eq(row["inclusive#rprof.flops"], reg["roofline"]["flops"], f"{p} FLOPs")
            eq(row["inclusive#rprof.gflops_per_s"], reg["roofline"]["gflops"], f"{p} GFLOP/s")
    eq(rows["daxpy"]["inclusive#rprof.flops"], 2.0 * N * REPS, "daxpy FLOPs")
    dm = {x["boundary"]: x["bytes"] for x in want["daxpy"]["memory"]["boundaries"]}
    for bnd, v in dm.items():
        eq(rows["daxpy"][f"inclusive#rprof.bytes.{bnd}"], v, f"daxpy {bnd} bytes")
        gbs = next(x["gbs"] for x in want["daxpy"]["memory"]["boundaries"] if x["boundary"] == bnd)
        eq(rows["daxpy"][f"inclusive#rprof.gb_per_s.{bnd}"], gbs, f"daxpy {bnd} GB/s")
    check("l1" in dm, "daxpy has L1 bytes")
    eq(doc["globals"]["rprof.backend"], "sim", "globals: backend")
    check("FMA = 2 FLOPs" in doc["globals"]["rprof.conventions"], "globals: conventions")

    # A tree (samples/nested, 2 iterations; fake counters are exact): the
    # node tree gives back every path, and Caliper's inclusive and exclusive
    # counter columns the profile's.
    k, step = 2, 10
    nested = os.path.join(ctx.work, "nested")
    ctx.run([ctx.rprof, "-q", "--backend=fake", "-o", nested,
             os.path.join(ctx.samples, "nested"), str(k)], env={"RPROF_FAKE_STEP": str(step)})
    cali = os.path.join(ctx.work, "nested.json")
    ctx.run([ctx.rprof, "report", "--format", "caliper", "-o", cali, nested])
    with open(cali) as f:
        tpaths, trows, _, _ = read_caliper_like_hatchet(json.load(f))
    with open(os.path.join(nested, "profile.json")) as f:
        tprof = {"/".join(x["path"]): x for x in json.load(f)["regions"]}
    for pth in ("solve", "solve/assemble", "solve/iterate", "solve/iterate/smooth",
                "solve/iterate/residual", "fib"):
        check(pth in trows, f"nested: {pth} in the node tree")
    eq(set(trows), set(tprof), "nested: the paths")
    eq(trows["solve/iterate/smooth"]["rprof.calls"], 4 * k, "smooth calls")
    eq(trows["fib"]["rprof.calls"], 1973, "fib calls (recursion on one node)")
    smooth = tpaths[next(i for i, q in tpaths.items() if q == ("solve", "iterate", "smooth"))]
    eq(smooth, ("solve", "iterate", "smooth"), "smooth's ancestors")
    for pth, reg in tprof.items():
        for c_, v in reg.get("counters", {}).items():
            eq(trows[pth]["inclusive#sum#" + c_], v, f"nested {pth} inclusive {c_}")
        for c_, v in reg.get("exclusive_counters", {}).items():
            eq(trows[pth]["sum#" + c_], v, f"nested {pth} exclusive {c_}")
    inc = trows["solve"]["inclusive#sum#fake_a"]
    exc = sum(trows[q]["sum#fake_a"] for q in trows if q == "solve" or q.startswith("solve/"))
    eq(exc, inc, "solve's subtree: exclusive counts add up to its inclusive count")
    print(f"caliper: {len(paths)} nodes, {len(rows)} rows, {len(cols)} columns round-trip; "
          f"nested: {len(tpaths)} nodes, depth {max(len(q) for q in tpaths.values())}")


# --- ERT roofline.json -------------------------------------------------------

def case_ert(ctx):
    m, ceilings = fixture_ceilings(ctx)
    top = max(ceilings)
    peaks, bw = ceilings[top]
    ert = os.path.join(ctx.work, "roofline.json")
    ctx.run([ctx.rprof, "machine", "--export", "ert", ert, "--machine", ctx.machine_file])
    with open(ert) as f:
        doc = json.load(f)
    emp = doc["empirical"]
    gflops = dict(emp["gflops"]["data"])
    eq(set(gflops), {"FP64 GFLOPs", "FP32 GFLOPs"}, "gflops names")
    close(gflops["FP64 GFLOPs"], peaks["dp"], 1e-15, "FP64 peak (most threads)")
    close(gflops["FP32 GFLOPs"], peaks["sp"], 1e-15, "FP32 peak")
    llc_level = max(c["level"] for c in m["caches"])
    names = {"l1": "L1", "l2": "L2", "llc": f"L{llc_level}", "dram": "DRAM"}
    gbytes = emp["gbytes"]["data"]
    eq([n for n, _ in gbytes], [names[b] for b in ("l1", "l2", "llc", "dram") if b in bw],
       "gbytes levels, L1 first")
    for n, v in gbytes:
        b = next(k for k, x in names.items() if x == n)
        close(v, bw[b], 1e-15, f"{n} GB/s")
    eq(emp["metadata"]["OPENMP_THREADS"], top, "OPENMP_THREADS")
    check("spec" in doc, "a spec section")
    # One thread's set on request.
    ert1 = os.path.join(ctx.work, "roofline-1t.json")
    ctx.run([ctx.rprof, "machine", "--export", "ert", ert1, "--threads", "1",
             "--machine", ctx.machine_file])
    with open(ert1) as f:
        one = json.load(f)["empirical"]
    close(dict(one["gflops"]["data"])["FP64 GFLOPs"], ceilings[1][0]["dp"], 1e-15, "1-thread peak")

    # Import: the ceilings of the file, this (recorded) machine's identity.
    imported = os.path.join(ctx.work, "imported.json")
    r = ctx.run([ctx.rprof, "machine", "--import-ert", ert, "-o", imported])
    with open(imported) as f:
        im = json.load(f)
    eq(im["cpu"]["model_name"], m["cpu"]["model_name"], "imported machine's CPU")
    eq([s["threads"] for s in im["ceilings"]], [top], "imported thread count (OPENMP_THREADS)")
    ctx.run([ctx.rprof, "machine", "--show", "--machine", imported])
    again = os.path.join(ctx.work, "roofline-again.json")
    ctx.run([ctx.rprof, "machine", "--export", "ert", again, "--machine", imported])
    with open(again) as f:
        emp2 = json.load(f)["empirical"]
    eq(emp2["gflops"]["data"], emp["gflops"]["data"], "round trip: gflops")
    eq(emp2["gbytes"]["data"], emp["gbytes"]["data"], "round trip: gbytes")
    # The imported ceilings hold a profile's regions: a saved profile with
    # FLOPs and L1 bytes (the fuzz corpus' valid one), rendered against them.
    saved = os.path.join(ctx.src, "tests", "fuzz", "corpus", "profile", "valid-two-threads.json")
    r = ctx.run([ctx.rprof, "report", "--format", "json", "--machine", imported, saved])
    rep = json.loads(r.stdout)
    rm = rep["roofline_machine"]
    eq(rm["file"], imported, "the report's machine file")
    got = {b["boundary"]: b["gbs"] for b in rm["ceilings"][0]["bandwidth"]}
    eq(got, bw, "the report's ceilings are the imported ones")
    roofs = [x["roofline"] for x in rep["regions"] if x.get("roofline", {}).get("available")]
    check(roofs, "some region has a roofline against the imported ceilings")
    for x in roofs:
        eq(x["full_compute_roof"]["gflops"], peaks[x["full_compute_roof"]["precision"]],
           "a region's compute roof is the imported peak")
        for bb in x["boundaries"]:
            eq(bb["bandwidth_gbs"], bw[bb["boundary"]], "a region's bandwidth is the imported one")

    # Thread counts: --threads, else OPENMP_THREADS x MPI_PROCS; ERT 1.1's
    # plain "GFLOPs" is FP64; HBM is the DRAM boundary.
    hand = os.path.join(ctx.work, "hand.json")
    with open(hand, "w") as f:
        json.dump({"empirical": {"metadata": {"OPENMP_THREADS": 8, "MPI_PROCS": 2},
                                 "gflops": {"data": [["GFLOPs", 1234.5]]},
                                 "gbytes": {"data": [["L1", 9000.0], ["HBM", 800.0]]}}}, f)
    for extra, want in (([], 16), (["--threads", "4"], 4)):
        out_m = os.path.join(ctx.work, f"hand-{want}.json")
        ctx.run([ctx.rprof, "machine", "--import-ert", hand, "-o", out_m, *extra])
        with open(out_m) as f:
            hm = json.load(f)
        eq([s_["threads"] for s_ in hm["ceilings"]], [want], f"threads of {extra or 'metadata'}")
        s0 = hm["ceilings"][0]
        eq([(p_["precision"], p_["gflops"]) for p_ in s0["peaks"]], [("dp", 1234.5)], "GFLOPs = DP")
        eq({b_["boundary"]: (b_["gbs"], b_["traffic_gbs"]) for b_ in s0["bandwidth"]},
           {"l1": (9000.0, 9000.0), "dram": (800.0, 800.0)}, "L1 and HBM -> dram")

    # Bad input: one line naming the file, non-zero exit.
    def bad(text, why, name):
        path = os.path.join(ctx.work, name)
        with open(path, "w") as f:
            f.write(text)
        r = ctx.run([ctx.rprof, "machine", "--import-ert", path, "-o",
                     os.path.join(ctx.work, "never.json")], check=False)
        check(r.returncode != 0, f"{name}: non-zero exit")
        lines = r.stderr.splitlines()
        eq(len(lines), 1, f"{name}: one line: {r.stderr!r}")
        check(path in lines[0] and why in lines[0], f"{name}: {lines[0]!r} names {why!r}")
        check(not os.path.exists(os.path.join(ctx.work, "never.json")), f"{name}: nothing written")

    bad('{"spec": {}}', "empirical", "no-empirical.json")
    bad('{"empirical": {"gflops": {"data": [["FP64 GFLOPs", -1]]}, "gbytes": {"data": '
        '[["DRAM", 20]]}}}', "not a ceiling", "negative.json")
    bad('{"empirical": {"gflops": {"data": [["FP64 GFLOPs", 10]]}, "gbytes": {"data": '
        '[["L9X", 20]]}}}', "L9X", "level.json")
    bad('{"empirical": {"gflops": {"data": [["FP64 GFLOPs", 10]]}, "gbytes": {"data": []}}}',
        "no bandwidth ceiling", "no-bw.json")
    bad('{"empirical": ', "not JSON", "truncated.json")
    r = ctx.run([ctx.rprof, "machine", "--export", "csv", ert], check=False)
    check(r.returncode == 2 and "unknown format 'csv'" in r.stderr, "--export csv refused")
    r = ctx.run([ctx.rprof, "machine", "--export", "ert", ert, "--import-ert", ert], check=False)
    check(r.returncode != 0 and "excludes" in r.stderr, f"--export with --import-ert: {r.stderr}")
    print(f"ert: FP64 {gflops['FP64 GFLOPs']} GFLOP/s, {len(gbytes)} levels, {top} threads; "
          "export -> import -> export identical; 5 bad files refused")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    if len(sys.argv) != 6 or sys.argv[1] not in CASES:
        print(f"usage: test_python.py {{{','.join(CASES)}}} RPROF SAMPLES SOURCE WORK")
        return 2
    case, rprof_bin, samples, src, work = sys.argv[1:]
    work = os.path.join(work, case)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    ctx = Ctx(rprof_bin, samples, src, work)
    sys.path.insert(0, os.path.join(src, "python"))
    os.environ.update(MPLBACKEND="Agg")
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    CASES[case](ctx)
    print(f"PASS: {case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
