"""The reader of profile.json (format "rprof-profile", schema_version 1)."""

import json
import os

BOUNDARIES = ("l1", "l2", "llc", "dram")
BOUNDARY_TEXT = {
    "l1": "L1 (core<->L1)",
    "l2": "L2 (L1<->L2)",
    "llc": "LLC (L2<->LLC)",
    "dram": "DRAM (LLC<->DRAM)",
}
CONVENTIONS = (
    "FMA = 2 FLOPs; GFLOP/s = 1e9 FLOP/s; GB = 1e9 bytes; times in seconds (time_s: "
    "the slowest thread's); bytes and intensity at the named boundary (l1 = core<->L1, "
    "l2 = L1<->L2, llc = L2<->LLC, dram = LLC<->DRAM)"
)
_FORMAT = "rprof-profile"
_SCHEMA_VERSION = 1
_NAN = float("nan")


class RprofError(Exception):
    """A profile that cannot be read: one line naming the file and why."""


def _num(v):
    """A JSON number as float; NaN when absent or null."""
    if v is None or isinstance(v, bool):
        return _NAN
    if isinstance(v, (int, float)):
        return float(v)
    return _NAN


def _counter_sum(counters, prefix):
    vals = [v for k, v in counters.items() if k.startswith(prefix)]
    return float(sum(vals)) if vals else _NAN


def _profile_file(path):
    path = os.fspath(path)
    if os.path.isdir(path):
        f = os.path.join(path, "profile.json")
        if not os.path.isfile(f):
            raise RprofError(f"{path}: no profile.json in this directory (not an rprof output "
                             "directory?)")
        return f
    if not os.path.exists(path):
        raise RprofError(f"{path}: no such file or directory")
    if not os.path.isfile(path):
        raise RprofError(f"{path}: not a regular file (rprof reads regular files only)")
    return path


def _read_json(f):
    try:
        with open(f, "rb") as fh:
            doc = json.loads(fh.read().decode("utf-8", errors="replace"))
    except json.JSONDecodeError as e:
        raise RprofError(f"{f}: not a valid rprof profile: not JSON: {e.msg} at line {e.lineno}, "
                         f"column {e.colno}") from None
    except OSError as e:
        raise RprofError(f"{f}: cannot read it: {e.strerror}") from None
    if not isinstance(doc, dict) or doc.get("format") != _FORMAT:
        raise RprofError(f"{f}: not a valid rprof profile: missing \"format\": \"{_FORMAT}\" "
                         "(a raw profile or a foreign file? rprof report DIR writes profile.json)")
    if doc.get("schema_version") != _SCHEMA_VERSION:
        raise RprofError(f"{f}: not a valid rprof profile: schema_version "
                         f"{doc.get('schema_version')!r} is not supported (this reader reads "
                         f"version {_SCHEMA_VERSION})")
    if not isinstance(doc.get("regions"), list):
        raise RprofError(f"{f}: not a valid rprof profile: regions: expected an array")
    return doc


def _region_row(r, i, f):
    if not isinstance(r, dict) or not isinstance(r.get("path"), list) or not r["path"]:
        raise RprofError(f"{f}: not a valid rprof profile: regions[{i}].path: expected a "
                         "non-empty array of names")
    counters = r.get("counters") or {}
    roof = r.get("roofline") or {}
    roof_ok = bool(roof.get("available"))
    mem = r.get("memory") or {}
    mem_ok = bool(mem.get("available"))
    verdict = r.get("verdict") or {}
    path = "/".join(r["path"])
    row = {
        "path": path,
        "name": r.get("name", r["path"][-1]),
        "depth": len(r["path"]) - 1,
        "parent": "/".join(r["path"][:-1]) or None,
        "calls": int(r.get("calls", 0)),
        "time_s": _num(r.get("time_s")),
        "exclusive_time_s": _num(r.get("exclusive_time_s")),
        "thread_time_s": _num(r.get("thread_time_s")),
        "cpu_time_s": _num(r.get("cpu_time_s")),
        "percent_of_run": _num(r.get("percent_of_run")),
        "threads": int((r.get("threads") or {}).get("rows", 0)),
        "complete": bool(r.get("complete", True)),
        "is_function": "function" in r,
    }
    # FLOPs (FMA = 2): the analysis' count (hardware events turned into
    # FLOPs by rprof), else the canonical flops.* counters as measured.
    row["flops"] = _num(roof.get("flops")) if roof_ok else _counter_sum(counters, "flops.")
    row["gflops_per_s"] = _num(roof.get("gflops")) if roof_ok else _NAN
    mem_b = {b.get("boundary"): b for b in mem.get("boundaries", [])} if mem_ok else {}
    roof_b = {b.get("boundary"): b for b in roof.get("boundaries", [])} if roof_ok else {}
    for b in BOUNDARIES:
        if b in mem_b:
            nbytes = _num(mem_b[b].get("bytes"))
        elif b in roof_b:
            nbytes = _num(roof_b[b].get("bytes"))
        else:
            rd, wr = counters.get(f"bytes.{b}.read"), counters.get(f"bytes.{b}.write")
            nbytes = _NAN if rd is None and wr is None else float((rd or 0) + (wr or 0))
        row[f"{b}_bytes"] = nbytes
        row[f"{b}_gb_per_s"] = _num(mem_b[b].get("gbs")) if b in mem_b else _NAN
        row[f"{b}_fraction_of_roof"] = (_num(mem_b[b].get("fraction_of_roof"))
                                        if b in mem_b else _NAN)
        row[f"oi_{b}_flop_per_byte"] = _num(roof_b[b].get("intensity")) if b in roof_b else _NAN
    cr = (roof.get("compute_roof") or {}) if roof_ok else {}
    row["compute_roof_gflops_per_s"] = _num(cr.get("gflops")) if roof_ok else _NAN
    # The roof the region is judged by: "dp 256 fma" (precision, width, mix).
    row["compute_roof"] = (" ".join(str(cr.get(k)) for k in ("precision", "width", "mix"))
                           if cr.get("precision") else None)
    row["bound_gflops_per_s"] = _num(roof.get("bound_gflops")) if roof_ok else _NAN
    row["fraction_of_bound"] = _num(roof.get("fraction_of_bound")) if roof_ok else _NAN
    row["limiting_boundary"] = (roof.get("limiting_boundary") if roof_ok
                                else mem.get("limiting_boundary") if mem_ok else None)
    row["ceiling_threads"] = (roof.get("ceiling_threads") if roof_ok
                              else mem.get("ceiling_threads") if mem_ok else None)
    row["verdict"] = verdict.get("bound")
    row["verdict_boundary"] = verdict.get("boundary")
    row["flags"] = ",".join(fl.get("name", "") for fl in verdict.get("flags", []))
    row["summary"] = verdict.get("summary")
    dw = r.get("declared_work") or {}
    row["declared_flops"] = _num(dw.get("flops"))
    row["declared_bytes"] = _num(dw.get("bytes"))
    return row


class Machine:
    """The ceilings a profile's regions were held against (profile.json's
    roofline_machine): GFLOP/s with FMA = 2 FLOPs, GB/s with GB = 1e9 bytes,
    per measured thread count."""

    def __init__(self, section):
        self.raw = section
        self.file = section.get("file")
        self.cpu = section.get("cpu")
        self.mode = section.get("mode")
        self.thread_counts = list(section.get("thread_counts", []))
        self.notes = list(section.get("notes", []))
        self.ceilings = list(section.get("ceilings", []))

    def ceiling_set(self, threads=None):
        """The set measured with the thread count nearest to `threads` (ties:
        the smaller; None: the most threads), as rprof chooses it."""
        if not self.ceilings:
            return None
        if threads is None:
            return max(self.ceilings, key=lambda s: s["threads"])
        return min(self.ceilings, key=lambda s: (abs(s["threads"] - threads), s["threads"]))

    def peak_gflops_per_s(self, precision="dp", width=None, threads=None):
        """The best peak of a precision at a width (None: the widest measured)."""
        s = self.ceiling_set(threads)
        if s is None:
            return _NAN
        order = ["scalar", "128", "256", "512"]
        peaks = [p for p in s.get("peaks", []) if p.get("precision") == precision]
        if width is not None:
            peaks = [p for p in peaks if p.get("width") == str(width)]
        if not peaks:
            return _NAN
        return float(max(peaks, key=lambda p: order.index(p["width"]))["gflops"])

    def bandwidth_gb_per_s(self, boundary="dram", threads=None):
        """The roofline's bandwidth at a boundary (bytes that cross it)."""
        s = self.ceiling_set(threads)
        for b in (s or {}).get("bandwidth", []):
            if b.get("boundary") == boundary:
                return float(b["gbs"])
        return _NAN

    def __repr__(self):
        return (f"Machine(cpu={self.cpu!r}, mode={self.mode!r}, "
                f"thread_counts={self.thread_counts}, file={self.file!r})")


class Profile:
    """One profile.json. Attributes: regions (DataFrame indexed by path),
    counters and exclusive_counters (DataFrames: region x counter, as
    measured), run (dict), machine (Machine or None), notes, file, raw."""

    def __init__(self, doc, file):
        import pandas as pd

        self.file = file
        self.raw = doc
        self.run = dict(doc.get("run") or {})
        self.backend = self.run.get("backend")
        self.notes = list(doc.get("notes") or [])
        section = doc.get("roofline_machine")
        self.machine = Machine(section) if isinstance(section, dict) else None
        rows = [_region_row(r, i, file) for i, r in enumerate(doc["regions"])]
        columns = list(_region_row({"path": ["x"]}, 0, file).keys())
        self.regions = pd.DataFrame(rows, columns=columns).set_index("path")
        paths = [row["path"] for row in rows]
        self.counters = pd.DataFrame(
            [r.get("counters") or {} for r in doc["regions"]], index=pd.Index(paths, name="path"))
        self.exclusive_counters = pd.DataFrame(
            [r.get("exclusive_counters") or {} for r in doc["regions"]],
            index=pd.Index(paths, name="path"))

    def __repr__(self):
        return (f"<rprof.Profile {self.file!r}: backend {self.backend}, "
                f"{len(self.regions)} regions>")

    def roofline(self, ax=None, boundary="dram", precision="dp", threads=None,
                 regions=None, annotate=True):
        """Draws the roofline on `ax` (a new figure when None) and returns it:
        the compute roof of `precision` (each measured width), every boundary's
        bandwidth ceiling, and one point per region with FLOPs at its
        intensity at `boundary`. Log-log; axes labelled with units."""
        from ._plot import draw_roofline

        return draw_roofline(self, ax=ax, boundary=boundary, precision=precision,
                             threads=threads, regions=regions, annotate=annotate)

    def compare(self, other, metrics=("calls", "time_s", "flops", "gflops_per_s",
                                      "dram_bytes", "oi_dram_flop_per_byte")):
        """The regions of both profiles side by side (outer join on path):
        for each metric <m>_self, <m>_other and <m>_ratio (other / self), and
        `present`: both, self or other."""
        import pandas as pd

        a = self.regions[list(metrics)]
        b = other.regions[list(metrics)]
        out = a.join(b, how="outer", lsuffix="_self", rsuffix="_other")
        for m in metrics:
            num = pd.to_numeric(out[f"{m}_other"], errors="coerce")
            den = pd.to_numeric(out[f"{m}_self"], errors="coerce")
            out[f"{m}_ratio"] = num / den.where(den != 0)
        present = []
        for p in out.index:
            in_a, in_b = p in a.index, p in b.index
            present.append("both" if in_a and in_b else "self" if in_a else "other")
        out["present"] = present
        order = [c for m in metrics for c in (f"{m}_self", f"{m}_other", f"{m}_ratio")]
        return out[order + ["present"]]


def load(path):
    """Reads an rprof output directory or a profile.json (any backend)."""
    f = _profile_file(path)
    return Profile(_read_json(f), f)
