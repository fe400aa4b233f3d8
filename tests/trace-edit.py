#!/usr/bin/env python3
"""Edit the kernel times of a recorded CUPTI trace (.cgstrace, docs/trace-format.md), for the
tests of `cgscope diff`'s GPU time: a run made slower on purpose, where the change is known
because it is made here.

    trace-edit.py IN OUT slow SUBSTRING FACTOR   kernels whose mangled name holds SUBSTRING take
                                                 FACTOR times as long
    trace-edit.py IN OUT all FACTOR              every kernel takes FACTOR times as long
    trace-edit.py IN OUT jitter PCT SEED         every kernel longer or shorter by up to PCT%,
                                                 uniformly at random (seeded)
    trace-edit.py IN OUT outlier SUBSTRING FACTOR
                                                 the first kernel whose name holds SUBSTRING
                                                 (one call) takes FACTOR times as long
    trace-edit.py IN durations SUBSTRING         print the durations (ns) of those kernels

Only a KERNEL record's end time changes; every other byte is kept. The record walk is written
from the format's page, not from cgscope's reader.
"""
import random
import struct
import sys

KERNEL, NAME = 6, 5


def records(buf):
    magic, version, bom, hsize = struct.unpack_from("<8sIII", buf, 0)
    assert magic == b"CGSTRACE" and version == 1 and bom == 0x01020304, "not a version-1 trace"
    at = hsize
    while at + 8 <= len(buf):
        rtype, words, _tid = struct.unpack_from("<HHI", buf, at)
        assert words >= 1, "a record of 0 words at byte %d" % at
        yield rtype, at, at + 8, words * 8
        at += words * 8


def names(buf):
    out = {}
    for rtype, _at, p, _size in records(buf):
        if rtype == NAME:
            nid, ln = struct.unpack_from("<II", buf, p)
            out[nid] = bytes(buf[p + 8 : p + 8 + ln]).split(b"\0")[0].decode()
    return out


def kernels(buf):
    """(payload offset, start, end, name) of every KERNEL record, in file order."""
    nm = names(buf)
    for rtype, _at, p, _size in records(buf):
        if rtype == KERNEL:
            start, end = struct.unpack_from("<QQ", buf, p)
            name_id = struct.unpack_from("<I", buf, p + 24 + 16)[0]
            yield p, start, end, nm.get(name_id, "")


def main(argv):
    buf = bytearray(open(argv[1], "rb").read())
    if argv[2] == "durations":
        for _p, s, e, n in kernels(buf):
            if argv[3] in n:
                print(e - s)
        return 0
    out, what, args = argv[2], argv[3], argv[4:]
    rng = random.Random(int(args[1]) if what == "jitter" else 0)
    done = False
    for p, s, e, n in kernels(buf):
        if what == "slow" and args[0] in n:
            f = float(args[1])
        elif what == "all":
            f = float(args[0])
        elif what == "jitter":
            f = 1 + rng.uniform(-1, 1) * float(args[0]) / 100
        elif what == "outlier" and args[0] in n and not done:
            f, done = float(args[1]), True
        else:
            continue
        struct.pack_into("<Q", buf, p + 8, s + int(round((e - s) * f)))
    open(out, "wb").write(buf)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
