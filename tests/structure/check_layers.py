#!/usr/bin/python3
"""The tree's structure, checked (docs/ARCHITECTURE.md, "Where the tree differs").

1. Include arrows between the folders of lib/ and tools/ run downward only:
   a folder includes folders of lower layers, never one of its own layer or
   above (the layer table below is the architecture's).
2. No backend name is tested outside its own folder: a comparison with
   "time", "sim", "perf", "papi", "likwid" or "fake" in lib/ or tools/ is
   allowed only in lib/backends/<that name>/ (drivers say what they can do:
   BackendDriver::source(), counts_functions(), ...).

Usage: check_layers.py SOURCE_DIR. Prints every violation, exits 1 on any.
Standard library only (Debian's /usr/bin/python3).
"""
import os
import re
import sys

# Lowest first. Folders of one layer do not include each other.
LAYERS = [
    ["rprof"],                       # include/rprof: the public headers
    ["runtime", "common"],           # librprof; the tool side's basics
    ["compat", "fortran", "machine", "profile"],
    ["hwcounters", "roofline"],
    ["sampling", "analysis"],
    ["report", "run"],
    ["backends"],                    # drivers implement run/driver.h
    ["tools"],                       # tools/rprof: the CLI
]
LEVEL = {folder: i for i, layer in enumerate(LAYERS) for folder in layer}
BACKENDS = ["time", "sim", "perf", "papi", "likwid", "fake"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')
NAME_TEST = re.compile(r'(?:==|!=)\s*"(%s)"|"(%s)"\s*(?:==|!=)' % ("|".join(BACKENDS),
                                                                  "|".join(BACKENDS)))


def sources(root):
    for base in ("lib", "tools"):
        for d, _, files in os.walk(os.path.join(root, base)):
            if "/backends/sim/tool" in d[len(root):]:
                continue  # the Valgrind tool: C, Valgrind's headers only
            for f in files:
                if f.endswith((".c", ".cpp", ".h")):
                    yield os.path.join(d, f)


def folder_of(root, path):
    rel = os.path.relpath(path, root).split(os.sep)
    return "tools" if rel[0] == "tools" else rel[1]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    problems = []
    files = 0
    for path in sources(root):
        files += 1
        src = folder_of(root, path)
        rel = os.path.relpath(path, root)
        if src not in LEVEL:
            problems.append(f"{rel}: folder '{src}' has no layer in check_layers.py")
            continue
        with open(path, errors="replace") as f:
            lines = f.readlines()
        for n, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if m:
                dst = m.group(1)
                if dst == src or dst not in LEVEL:
                    pass
                elif LEVEL[dst] >= LEVEL[src]:
                    problems.append(f"{rel}:{n}: {src} (layer {LEVEL[src]}) includes {dst} "
                                    f"(layer {LEVEL[dst]}): arrows run downward only")
            for t in NAME_TEST.finditer(line):
                name = t.group(1) or t.group(2)
                own = os.path.join("lib", "backends", name) + os.sep
                if not rel.startswith(own):
                    problems.append(f"{rel}:{n}: tests the backend name \"{name}\" outside "
                                    f"lib/backends/{name}/: ask the driver what it can do")
    for p in problems:
        print(p)
    print(f"check_layers: {files} files, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
