#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""select-corpus.py - pick a small committed corpus from a large fuzzed one.

libFuzzer's -merge=1 keeps every input that adds a feature, which for ELF
inputs of 5-250 KB is tens of MB. This reads the merge control file
(fuzz_encode -merge=1 -merge_control_file=MCF EMPTY_DIR INPUT_DIRS...) and
picks inputs greedily by new coverage edges (then new features) per byte,
the MUST inputs first, until BUDGET bytes. It prints what the selection
keeps and copies it to OUTDIR.

Usage: fuzz/select-corpus.py MCF BUDGET OUTDIR [MUST...]
"""
import os
import shutil
import sys

PER_FILE = 4096  # bytes a file costs beyond its size: favours fewer files


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    mcf, budget, outdir, must = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    lines = open(mcf).read().split('\n')
    nr = int(lines[0])
    files = lines[2:2 + nr]
    ft, cov, size = {}, {}, {}
    for line in lines[2 + nr:]:
        p = line.split()
        if not p:
            continue
        i = int(p[1])
        if p[0] == 'STARTED':
            size[i] = int(p[2])
        elif p[0] == 'FT':
            ft[i] = set(map(int, p[2:]))
        elif p[0] == 'COV':
            cov[i] = set(map(int, p[2:]))
    all_ft = set().union(*ft.values())
    all_cov = set().union(*cov.values())
    chosen, have_ft, have_cov, used = [], set(), set(), 0
    for m in must:
        i = files.index(m)
        chosen.append(i)
        have_ft |= ft.get(i, set())
        have_cov |= cov.get(i, set())
        used += size[i]
    while True:
        best, best_score = None, 0.0
        for i in ft:
            if i in chosen or used + size[i] > budget:
                continue
            gain = len(cov.get(i, set()) - have_cov) * 1000 + len(ft[i] - have_ft)
            score = gain / (size[i] + PER_FILE)
            if gain and score > best_score:
                best, best_score = i, score
        if best is None:
            break
        chosen.append(best)
        have_ft |= ft[best]
        have_cov |= cov.get(best, set())
        used += size[best]
    os.makedirs(outdir, exist_ok=True)
    for i in chosen:
        shutil.copy(files[i], os.path.join(outdir, os.path.basename(files[i])))
    print(f'{len(chosen)} files, {used} bytes, edges {len(have_cov)}/{len(all_cov)}, '
          f'features {len(have_ft)}/{len(all_ft)}')


if __name__ == '__main__':
    main()
