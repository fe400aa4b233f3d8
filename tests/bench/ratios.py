#!/usr/bin/env python3
"""make bench: cgscope against plain Python doing the least the same job needs, side by side in
one run (issue 37's targets).

  info    whole `cgscope info GRAPH` process against CPython's json.load of the same file in
          process (target: 3x or faster)
  graphs  `cgscope graphs LOGS...` against a Python loop that json.loads every TORCH_TRACE record
          and counts each graph payload's assignment lines (target: 3x or faster); the --logs
          as one list of files, then each --log-source (a log, or a run's folder) as it is
  html    instructions of `cgscope html GRAPH` (every process it starts) against `cgscope info
          GRAPH`, counted by callgrind where valgrind is installed (target: 2x or fewer)
  loader  the graph loader in process (tests/bench/bench-load --best) against simdjson's DOM
          parse of the same file (tests/bench/simdjson-parse), both reading the file each time
          (target: within 1.5x)

Times are the best of five runs. Prints one line a comparison and exits 1 when a target is missed.
usage: ratios.py CGSCOPE --graph G [--graph G...] --logs PATH [--logs PATH...]
                 [--log-source PATH...] [--html-graph G]
                 [--bench-load BENCH_LOAD [--simdjson SIMDJSON_PARSE]]
"""
import argparse
import glob
import gzip
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

RUNS = 5
GRAPH_KEYS = ("dynamo_output_graph", "aot_forward_graph", "aot_backward_graph",
              "aot_joint_graph", "aot_inference_graph", "inductor_post_grad_graph",
              "inductor_pre_grad_graph", "graph_dump")


def best(fn):
    t = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def proc(argv):
    return best(lambda: subprocess.run(argv, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, check=False))


def opener(path):
    if path.endswith(".xz"):
        return lzma.open(path, "rb")
    if path.endswith(".gz"):
        return gzip.open(path, "rb")
    return open(path, "rb")


def count_log(path):
    graphs = lines = 0
    cur = False
    with opener(path) as f:
        for line in f:
            if line[:1] == b"\t":
                if cur and b" = " in line:
                    lines += 1
                continue
            i = line.find(b"] ")
            cur = False
            if i < 0:
                continue
            try:
                rec = json.loads(line[i + 2:])
            except ValueError:
                continue
            cur = isinstance(rec, dict) and any(k in rec for k in GRAPH_KEYS)
            graphs += cur
    return graphs, lines


def log_files(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(f for f in glob.glob(os.path.join(p, "**", "*"), recursive=True)
                          if os.path.isfile(f) and re.search(r"\.(log|txt)(\.xz|\.gz)?$", f))
        else:
            out.append(p)
    return out


def instructions(argv):
    """Instructions of argv and every process it starts (callgrind), or None."""
    if not shutil.which("valgrind"):
        return None
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, CGSCOPE_THREADS="1")
        # the counters are dumped and zeroed before each fork, so that a child counts only its
        # own work: the sum of every file's totals is the whole job's, each instruction once
        subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes",
                        "--dump-before=fork", "--callgrind-out-file=" + os.path.join(d, "cg.%p")]
                       + argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=False)
        total, procs = 0, set()
        for f in glob.glob(os.path.join(d, "cg.*")):
            with open(f, errors="replace") as fh:
                m = re.search(r"^totals: (\d+)", fh.read(), re.M)
            if m:
                total += int(m.group(1))
                procs.add(os.path.basename(f).split(".")[1])
        return total, len(procs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cgscope")
    ap.add_argument("--graph", action="append", default=[])
    ap.add_argument("--logs", action="append", default=[])
    ap.add_argument("--log-source", action="append", default=[],
                    help="a log, or a folder of logs (a run's ranks), given to graphs as it is "
                         "and compared on its own")
    ap.add_argument("--html-graph")
    ap.add_argument("--bench-load", help="build/bench/bench-load: the loader in process")
    ap.add_argument("--simdjson", help="build/bench/simdjson-parse (absent: not measured)")
    a = ap.parse_args()
    rc = 0
    for g in a.graph:
        mb = os.path.getsize(g) / 1e6
        tc = proc([a.cgscope, "info", g])
        tp = best(lambda: json.load(open(g, "rb")))
        r = tp / tc
        ok = r >= 3
        rc |= not ok
        print(f"ratios: info {os.path.basename(g)} ({mb:.1f} MB): cgscope {tc * 1e3:.1f} ms, "
              f"json.load {tp * 1e3:.1f} ms: {r:.2f}x (target 3x){'' if ok else '  MISSED'}")
    for g in a.graph if a.bench_load else []:
        if not a.simdjson:
            print(f"ratios: loader {os.path.basename(g)} against simdjson: simdjson-parse not "
                  "built (Debian: apt-get install libsimdjson-dev), not measured")
            continue
        # both in process, best of 9, the file read each time: the loader against simdjson's
        # DOM parse
        out = subprocess.run([a.bench_load, "--best", "9", g], capture_output=True, text=True,
                             check=True).stdout.split()
        sj = subprocess.run([a.simdjson, g, "9"], capture_output=True, text=True,
                            check=True).stdout.split()
        tl, ts = float(out[0]), float(sj[0])
        r = tl / ts
        ok = r <= 1.5
        rc |= not ok
        print(f"ratios: loader {os.path.basename(g)}: {tl * 1e3:.1f} ms, simdjson "
              f"{ts * 1e3:.1f} ms ({sj[1]}): {r:.2f}x (target 1.5x){'' if ok else '  MISSED'}")
    # the logs named by --logs as one set of files, then each --log-source as it is
    def source_name(d):
        n = len(log_files([d]))
        return (f"{os.path.basename(d.rstrip('/'))}/ ({n} logs)" if os.path.isdir(d)
                else os.path.basename(d))
    for what, files, argv in ([(f"{len(log_files(a.logs))} logs", log_files(a.logs),
                                log_files(a.logs))] if a.logs else []) + \
            [(source_name(d), log_files([d]), [d]) for d in a.log_source]:
        mb = sum(os.path.getsize(f) for f in files) / 1e6
        tc = proc([a.cgscope, "graphs"] + argv)
        tp = best(lambda: [count_log(f) for f in files])
        r = tp / tc
        ok = r >= 3
        rc |= not ok
        print(f"ratios: graphs on {what} ({mb:.1f} MB as stored): cgscope "
              f"{tc * 1e3:.1f} ms, Python loop {tp * 1e3:.1f} ms: {r:.2f}x (target 3x)"
              f"{'' if ok else '  MISSED'}")
    if a.html_graph:
        with tempfile.TemporaryDirectory() as d:
            h = instructions([a.cgscope, "html", a.html_graph, "-o", os.path.join(d, "p.html")])
            i = instructions([a.cgscope, "info", a.html_graph])
        if h is None or i is None:
            print("ratios: html/info instructions: valgrind not installed, not measured")
        else:
            r = h[0] / i[0]
            ok = r <= 2
            rc |= not ok
            print(f"ratios: html {os.path.basename(a.html_graph)}: {h[0] / 1e6:.0f} M "
                  f"instructions in {h[1]} processes, info "
                  f"{i[0] / 1e6:.0f} M: {r:.2f}x (target 2x){'' if ok else '  MISSED'}")
    return 1 if rc else 0


if __name__ == "__main__":
    sys.exit(main())
