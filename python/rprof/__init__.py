"""rprof's profiles in pandas and matplotlib.

    import rprof
    p = rprof.load("rprof-out")          # an output directory or its profile.json
    p.regions                            # pandas DataFrame, one row per region
    p.machine                            # the ceilings the regions were held against
    p.roofline()                         # matplotlib Axes: ceilings and one point per region
    p.compare(rprof.load("other-run"))   # DataFrame: the two runs side by side

Conventions (as in every rprof report): FMA = 2 FLOPs, GFLOP/s = 1e9 FLOP/s,
GB = 1e9 bytes, times in seconds (a region's time_s is its slowest
thread's), bytes and intensities at a named boundary (l1 = core<->L1,
l2 = L1<->L2, llc = L2<->LLC, dram = LLC<->DRAM). Column names carry their
units. Nothing is modelled here: FLOPs, bandwidths, intensities, roofs and
verdicts are read from the analysis rprof wrote into profile.json
(docs/profile-schema.md); see docs/python.md.
"""

from ._profile import BOUNDARIES, CONVENTIONS, Machine, Profile, RprofError, load

__all__ = ["load", "Profile", "Machine", "RprofError", "BOUNDARIES", "CONVENTIONS"]
__version__ = "0.1.0"
