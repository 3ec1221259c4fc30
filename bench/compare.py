#!/usr/bin/env python3
"""compare.py - dwarf2btf binaries already built, or one binary under
different environment settings, run round-robin on a real kernel: median
wall time, CPU time (user + sys), system time, peak RSS (and its
quartiles) and minor page faults per build and -j, as a Markdown table on
standard output. Every output is compared with the first build's; a
difference stops the run.

Usage: python3 bench/compare.py [--runs N] [--jobs "1 2"] [--kernel 6.1|6.12|7.2]
                                [--module NAME] [--phases]
                                LABEL=[NAME=VALUE,...:]BINARY ...

  e.g. python3 bench/compare.py --runs 7 --jobs "1 2 4" \\
           old=/tmp/old/dwarf2btf new=build/dwarf2btf \\
           thp=GLIBC_TUNABLES=glibc.malloc.hugetlb=1:build/dwarf2btf

Each kernel is encoded with the flags its own Kbuild passes pahole 1.30
(tests/lib.sh's kbuild_flags), as bench/bench.sh does.

--module NAME encodes that cached module of the kernel (NAME.ko, see
tests/fetch.sh) as split BTF against its vmlinux (--btf_base), as a kernel
build does for each module; --module all encodes every cached module, one
after the other, and a run's times are their sums, its peak RSS the
largest. A BINARY may then also be pahole 1.30's wrapper
($DWARF2BTF_CACHE/pahole-1.30/bin/pahole130), without --phases.

--phases runs each with -V and adds a second table: the medians of each
phase's wall time, and the CPU time of the encoder's writer thread and of
the batch threads, as -V reports them.

bench/tune.sh builds revisions or compile-time values itself; this is for
builds made by hand (scratch changes) and for environment settings. Not a
test: it asserts no timing.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def kbuild_flags(kernel):
    """the flags @kernel's Kbuild passes pahole 1.30: tests/lib.sh's kbuild_flags"""
    out = subprocess.run(["bash", "-c", '. "$1/tests/lib.sh" && kbuild_flags "$2"', "-",
                          TOP, kernel], check=True, capture_output=True, text=True).stdout
    if not out.strip():
        sys.exit("compare.py: no Kbuild flags known for kernel %s" % kernel)
    return out.split()


PHASES = ["open", "encode", "merge", "funcs", "dedup", "write"]


def parse_phases(text):
    """-V's report: each phase's wall time, the writer's and batches' CPU time"""
    v = {}
    for m in re.finditer(r"^dwarf2btf: (\w+) +wall +([\d.]+) s", text, re.M):
        v[m.group(1)] = float(m.group(2))
    m = re.search(r"writer thread ([\d.]+) s CPU; .* ([\d.]+) s CPU, ", text)
    if m:
        v["writer"], v["batches"] = float(m.group(1)), float(m.group(2))
    return v


def parse_build(arg):
    label, rest = arg.split("=", 1)
    env, binary = ("", rest)
    if ":" in rest:
        env, binary = rest.rsplit(":", 1)
    settings = dict(kv.split("=", 1) for kv in env.split(",") if kv)
    return label, settings, binary


def run_one(a, label, settings, binary, j, base, target, out, first, first_label, phases):
    """one run: (wall, CPU, sys, peak RSS MiB, minor faults); its output compared with @first"""
    env = dict(os.environ, **settings)
    with tempfile.TemporaryFile("w+") as err:
        t0 = time.monotonic()
        p = subprocess.Popen([binary, "-J", "-j" + j] + (["-V"] if a.phases else []) + a.flags
                             + base + ["--btf_encode_detached=" + out, target],
                             env=env, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        err.seek(0)
        text = err.read()
    if status:
        sys.stderr.write(text)
        sys.exit("compare.py: %s -j%s %s failed (status %#x)" % (label, j, target, status))
    if a.phases:
        phases.append(parse_phases(text))
    with open(out, "rb") as f, open(first, "rb") as g:
        if f.read() != g.read():
            sys.exit("compare.py: %s -j%s %s: output differs from %s's"
                     % (label, j, target, first_label))
    return (wall, ru.ru_utime + ru.ru_stime, ru.ru_stime, ru.ru_maxrss / 1024, ru.ru_minflt)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--jobs", default="1 2")
    ap.add_argument("--kernel", default="6.1")
    ap.add_argument("--module")
    ap.add_argument("--phases", action="store_true")
    ap.add_argument("builds", nargs="+")
    a = ap.parse_args()
    if a.phases and a.module == "all":
        ap.error("--phases is for one input, not --module all")
    cache = os.environ.get("DWARF2BTF_CACHE", "/var/cache/dwarf2btf")
    vmlinux = os.path.join(cache, "linux-" + a.kernel, "vmlinux")
    targets, base = [vmlinux], []
    if a.module:
        moddir = os.path.join(cache, "linux-" + a.kernel, "modules")
        names = (sorted(n[:-3] for n in os.listdir(moddir) if n.endswith(".ko"))
                 if a.module == "all" else [a.module])
        targets = [os.path.join(moddir, n + ".ko") for n in names]
        base = ["--btf_base", vmlinux]
    a.flags = kbuild_flags(a.kernel)
    builds = [parse_build(b) for b in a.builds]
    jobs = a.jobs.split()
    res, phases = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(a.runs):
            for j in jobs:
                for k, (label, settings, binary) in enumerate(builds):
                    run = [0, 0, 0, 0, 0]
                    for t, target in enumerate(targets):
                        r = run_one(a, label, settings, binary, j, base, target,
                                    os.path.join(tmp, "%d-%s-%d.btf" % (k, j, t)),
                                    os.path.join(tmp, "0-%s-%d.btf" % (j, t)), builds[0][0],
                                    phases.setdefault((k, j), []))
                        run = [run[0] + r[0], run[1] + r[1], run[2] + r[2], max(run[3], r[3]),
                               run[4] + r[4]]
                    res.setdefault((k, j), []).append(run)
    print("Command: `python3 bench/compare.py %s` (%s, %d CPUs, kernel %s%s, %d runs, medians;"
          " every output identical to %s's)" % (" ".join(sys.argv[1:]), time.strftime("%Y-%m-%d"),
                                              os.cpu_count(), a.kernel,
                                              ", module " + a.module if a.module else "",
                                              a.runs, builds[0][0]))
    print()
    print("| build | -j | wall s | CPU s | sys s | peak RSS MiB | RSS quartiles | minor faults |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|")
    for j in jobs:
        for k, (label, _, _) in enumerate(builds):
            m = [statistics.median(r[i] for r in res[(k, j)]) for i in range(5)]
            # the peak moves by several MiB between runs of one build:
            # the first and third quartiles show how much
            q = statistics.quantiles([r[3] for r in res[(k, j)]], n=4) if a.runs > 1 else [m[3]] * 3
            print("| %s | %s | %.3f | %.3f | %.3f | %.1f | %.1f–%.1f | %d |"
                  % (label, j, *m[:4], q[0], q[2], m[4]))
    if not a.phases:
        return
    cols = PHASES + ["writer", "batches"]
    print()
    print("Medians of `-V`: each phase's wall time, the writer's and the batch threads' CPU time (s)")
    print()
    print("| build | -j | " + " | ".join(cols) + " |")
    print("|---|--:|" + "--:|" * len(cols))
    for j in jobs:
        for k, (label, _, _) in enumerate(builds):
            runs = phases[(k, j)]
            print("| %s | %s | " % (label, j) + " | ".join(
                "%.3f" % statistics.median(r[c] for r in runs) if all(c in r for r in runs)
                else "–" for c in cols) + " |")


if __name__ == "__main__":
    main()
