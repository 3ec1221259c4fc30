#!/usr/bin/env python3
"""unpack.py PACK DIR - unpack what bench.sh --pack wrote into PACK (the
programs with their libraries, tools.tar.xz, and the vmlinux, vmlinux.xz)
into DIR with python3 alone: the measuring machine may have neither xz nor
tar. Used by bench.sh --packed and tune.sh --packed."""
import lzma
import shutil
import sys
import tarfile

src, dst = sys.argv[1], sys.argv[2]
with tarfile.open(src + "/tools.tar.xz") as t:
    t.extractall(dst)
with lzma.open(src + "/vmlinux.xz") as i, open(dst + "/vmlinux", "wb") as o:
    shutil.copyfileobj(i, o, 1 << 24)
