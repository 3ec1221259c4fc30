#!/usr/bin/env python3
"""unpack.py PACK DIR - unpack what bench.sh --pack wrote into PACK (the
programs with their libraries, tools.tar.xz, and each kernel's vmlinux,
vmlinux-VER.xz) into DIR (DIR/tools, DIR/vmlinux-VER) with python3 alone:
the measuring machine may have neither xz nor tar. Used by bench.sh
--packed and tune.sh --packed."""
import glob
import lzma
import os
import shutil
import sys
import tarfile

src, dst = sys.argv[1], sys.argv[2]
with tarfile.open(src + "/tools.tar.xz") as t:
    t.extractall(dst)
for packed in sorted(glob.glob(src + "/vmlinux-*.xz")):
    name = os.path.basename(packed)[: -len(".xz")]
    with lzma.open(packed) as i, open(os.path.join(dst, name), "wb") as o:
        shutil.copyfileobj(i, o, 1 << 24)
