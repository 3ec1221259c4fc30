#!/usr/bin/env python3
"""layers.py - the house rules the build can check: no .c file over 800
lines, and no circle of .c files calling each other.

Usage: tests/layers.py SRCDIR OBJECT... [--list]

A file calls another when it uses a symbol with external linkage that the
other defines: the undefined symbols of one object (nm's U) against the
defined text symbols of the others (T), read with binutils' nm, which reads
GCC's and clang's LTO objects through their plugins. The circles are the
strongly connected components of that graph with more than one file. --list prints each file's
layer: 0 for a file that calls none of the others, and otherwise one more
than the highest layer it calls.

Prints one line per broken rule; the last line is "N passed, M failed";
exit status 0 iff M is 0.
"""

import os
import subprocess
import sys

MAX_LINES = 800


def source_name(obj):
    # CMake's objects are named FILE.c.o
    name = os.path.basename(obj)
    return name[:-2] if name.endswith(".o") else name


def symbols(objs):
    """{object: (defined, used)}, from one nm over them all"""
    out = subprocess.run(["nm", "-A"] + objs, check=True, capture_output=True,
                         text=True).stdout
    syms = {obj: (set(), set()) for obj in objs}
    for line in out.splitlines():
        # OBJECT:VALUE TYPE NAME, or OBJECT:  U NAME (undefined: no value)
        obj, _, rest = line.partition(":")
        parts = rest.split()
        if obj not in syms:
            continue
        if len(parts) == 2 and parts[0] == "U":
            syms[obj][1].add(parts[1])
        elif len(parts) == 3 and parts[1] == "T":
            syms[obj][0].add(parts[2])
    return syms


def circles(graph):
    """Tarjan's strongly connected components with more than one node."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def layers(graph):
    layer = {}

    def depth(v):
        if v not in layer:
            layer[v] = 1 + max((depth(w) for w in graph[v]), default=-1)
        return layer[v]

    for v in graph:
        depth(v)
    return layer


def main(argv):
    listing = "--list" in argv
    argv = [a for a in argv if a != "--list"]
    if len(argv) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    srcdir, objs = argv[0], argv[1:]
    passed = failed = 0

    defs, uses, owner = {}, {}, {}
    for obj, (defined, used) in symbols(objs).items():
        name = source_name(obj)
        defs[name], uses[name] = defined, used
        for sym in defs[name]:
            owner[sym] = name
    graph = {name: {owner[s] for s in uses[name] if owner.get(s, name) != name}
             for name in defs}

    for name in sorted(defs):
        with open(os.path.join(srcdir, name), encoding="utf-8") as f:
            n = sum(1 for _ in f)
        if n > MAX_LINES:
            print(f"{name}: {n} lines, over {MAX_LINES}")
            failed += 1
        else:
            passed += 1

    found = circles(graph)
    for comp in found:
        print("a circle of calls: " + ", ".join(comp))
        for v in comp:
            for w in sorted(graph[v] & set(comp)):
                calls = sorted(s for s in uses[v] if owner.get(s) == w)
                print(f"  {v} -> {w}: {', '.join(calls)}")
    if found:
        failed += 1
    else:
        passed += 1
        if listing:
            layer = layers(graph)
            for name in sorted(graph, key=lambda v: (-layer[v], v)):
                print(f"{layer[name]:2} {name} -> {' '.join(sorted(graph[name]))}")

    print(f"{len(objs)} files read")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
