#!/usr/bin/env python3
"""GPU test of the CUPTI profiler (issue 14), on the H200 machine.

Runs tests/gpu/prof_workload.py (a transformer through the bridge's piecewise runner) under
`cgscope profile`, and the same workload under torch.profiler in a separate process, then:

  truth     per piece: kernel count equal to torch.profiler's, GPU time within 2%, memcpy and
            memset counts equal (modes eager, cudagraph, and breaks: a graph break after every
            block, each Dynamo graph with its own submod_N); train mode: the forward pieces
            equal, and the totals (backward kernels come from autograd's thread) equal;
  overhead  wall time of the timed loop, GPU-bound: plain, cgscope, torch.profiler, processes
            interleaved; cgscope at most 2% over plain and below torch.profiler;
  robust    SIGTERM mid-run (the trace is complete, ends on the signal, nothing lost); a forked
            child exits (and writes nothing); two ranks into one folder (merged, a column
            each); torch.profiler inside a cgscope run (cgscope keeps CUPTI, says so);
  demo      the user's run: cgscope profile, cgscope report, cgscope dot --profile.

Kineto's side is attributed from its Chrome trace on its own (kernel -> runtime/driver call by
correlation id -> innermost record_function on that thread containing the call), not with
cgscope's code. Writes OUT/results.json, OUT/profile_check.log, traces under OUT/traces/
(small ones, for tests/data/prof/), torch.profiler's per-piece numbers beside them.

usage: profile_check.py --out DIR --cgscope PATH [--phase truth,overhead,robust,demo]
"""
import argparse
import glob
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOAD = os.path.join(HERE, "prof_workload.py")
RESULTS = {"checks": []}
LOG = None


def log(msg):
    sys.stdout.write(msg + "\n")
    sys.stdout.flush()
    if LOG:
        LOG.write(msg + "\n")
        LOG.flush()


def check(name, ok, detail=""):
    RESULTS["checks"].append({"name": name, "ok": bool(ok), "detail": detail})
    log("%s  %s%s" % ("ok  " if ok else "FAIL", name, (": " + detail) if detail else ""))


def run(cmd, timeout=600, env=None, **kw):
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, **kw)
    return p, time.time() - t0


def workload_json(stdout):
    for line in stdout.splitlines()[::-1]:
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError("no JSON line from the workload:\n" + stdout[-2000:])


def kineto_pieces(path, prefix="cgscope:"):
    """Per piece from torch.profiler's Chrome trace: kernels, GPU ns, memcpy, memset."""
    ev = json.load(open(path))["traceEvents"]
    calls = {}
    ann = {}
    gpu = []
    for e in ev:
        cat = e.get("cat", "")
        if cat in ("cuda_runtime", "cuda_driver"):
            c = e.get("args", {}).get("correlation")
            if c is not None:
                calls[c] = (e["tid"], e["ts"])
        elif cat == "user_annotation" and e.get("name", "").startswith(prefix):
            ann.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e.get("dur", 0),
                                                 e["name"][len(prefix):]))
        elif cat in ("kernel", "gpu_memcpy", "gpu_memset"):
            gpu.append(e)
    for v in ann.values():
        v.sort()
    out = {}
    none = {"kernels": 0, "gpu_ns": 0.0, "memcpy": 0, "memset": 0}
    for e in gpu:
        c = e.get("args", {}).get("correlation")
        piece = None
        if c in calls:
            tid, ts = calls[c]
            best = None
            for (s, t, name) in ann.get(tid, ()):
                if s > ts:
                    break
                if ts <= t and (best is None or s >= best[0]):
                    best = (s, name)
            piece = best[1] if best else None
        row = out.setdefault(piece, {"kernels": 0, "gpu_ns": 0.0, "memcpy": 0, "memset": 0}) \
            if piece is not None else none
        if e["cat"] == "kernel":
            row["kernels"] += 1
            row["gpu_ns"] += e.get("dur", 0) * 1000.0
        elif e["cat"] == "gpu_memcpy":
            row["memcpy"] += 1
        else:
            row["memset"] += 1
    return out, none


def cgscope_report(cg, folder):
    p, _ = run([cg, "report", folder, "--json", "--kernels", "0"])
    if p.returncode != 0:
        raise RuntimeError("cgscope report failed: " + p.stderr)
    return json.loads(p.stdout)


def profiled(cg, folder, args, timeout=600, env=None):
    cmd = [cg, "profile", "-o", folder, "--", sys.executable, WORKLOAD] + args
    p, secs = run(cmd, timeout=timeout, env=env)
    if p.returncode != 0:
        raise RuntimeError("cgscope profile failed (%d):\n%s" % (p.returncode, p.stderr[-3000:]))
    return workload_json(p.stdout), p, secs


def plain(args, extra_env=None):
    env = dict(os.environ)
    env.update(extra_env or {})
    p, secs = run([sys.executable, WORKLOAD] + args, env=env)
    if p.returncode != 0:
        raise RuntimeError("workload failed:\n" + p.stderr[-3000:])
    return workload_json(p.stdout), p, secs


def phase_truth(cg, out):
    # 3 warm-up calls and 30 timed ones a piece: with 10 calls in all, a first call's cold
    # caches in one process and not the other moved a piece's GPU time by 2% (2026-12-02)
    small = ["--batch", "8", "--iters", "10", "--reps", "3", "--warmup", "3"]
    for mode in ("eager", "cudagraph", "train", "breaks"):
        folder = os.path.join(out, "tr-" + mode)
        shutil.rmtree(folder, ignore_errors=True)
        w, p, secs = profiled(cg, folder, ["--mode", mode] + small)
        rep = cgscope_report(cg, folder)
        kt = os.path.join(out, "kineto-%s.json" % mode)
        wk, _, _ = plain(["--mode", mode, "--torch-profiler", kt] + small)
        kin, kin_none = kineto_pieces(kt)
        os.remove(kt)
        ours = {x["name"]: x for x in rep["pieces"]}
        truth = {"mode": mode, "args": small, "pieces": kin, "no_piece": kin_none,
                 "cgscope": {k: {"kernels": v["kernels"], "gpu_ns": v["gpu_ns"],
                                 "memcpy": v["memcpy"]["count"], "memset": v["memset"]["count"],
                                 "graph_replays": v.get("graph_replays", 0),
                                 "captured_kernels": v.get("captured_kernels", 0),
                                 "any_thread": v.get("any_thread", 0)}
                             for k, v in ours.items()},
                 "cgscope_unattributed": rep["unattributed"]["kernels"]}
        json.dump(truth, open(os.path.join(folder, "torch_profiler.json"), "w"), indent=1,
                  sort_keys=True)
        RESULTS.setdefault("truth", {})[mode] = truth
        names = sorted(set(kin) | set(ours))
        worst = 0.0
        counts_equal = True
        for n in names:
            a, b = ours.get(n), kin.get(n)
            if a is None or b is None:
                counts_equal = False
                log("   %s: only in %s" % (n, "cgscope" if b is None else "torch.profiler"))
                continue
            if (a["kernels"], a["memcpy"]["count"], a["memset"]["count"]) != \
                    (b["kernels"], b["memcpy"], b["memset"]):
                counts_equal = False
                log("   %s: cgscope %d kernels %d memcpy %d memset, torch.profiler %d %d %d" % (
                    n, a["kernels"], a["memcpy"]["count"], a["memset"]["count"], b["kernels"],
                    b["memcpy"], b["memset"]))
            if b["gpu_ns"]:
                worst = max(worst, abs(a["gpu_ns"] - b["gpu_ns"]) / b["gpu_ns"])
            log("   %-10s kernels %6d / %6d   GPU us %10.1f / %10.1f  (%+.2f%%)  replays %d" % (
                n, a["kernels"], b["kernels"], a["gpu_ns"] / 1e3, b["gpu_ns"] / 1e3,
                100 * (a["gpu_ns"] - b["gpu_ns"]) / b["gpu_ns"] if b["gpu_ns"] else 0,
                a.get("graph_replays", 0)))
        check("%s: kernel, memcpy and memset counts per piece equal torch.profiler's "
              "(%d pieces)" % (mode, len(names)), counts_equal)
        check("%s: GPU time per piece within 2%% of torch.profiler's" % mode, worst <= 0.02,
              "worst %.3f%%" % (100 * worst))
        if mode == "train":
            tot_ours = sum(v["kernels"] for v in ours.values()) + rep["unattributed"]["kernels"]
            tot_kin = sum(v["kernels"] for v in kin.values()) + kin_none["kernels"]
            in_pieces = sum(v["kernels"] for v in ours.values())
            log("   train: cgscope %d kernels (%d in pieces, %d through another thread's "
                "range), torch.profiler %d (%d in pieces by its own thread rule)" % (
                    tot_ours, in_pieces, sum(v.get("any_thread", 0) for v in ours.values()),
                    tot_kin, sum(v["kernels"] for v in kin.values())))
            RESULTS["train_totals"] = {"cgscope": tot_ours, "torch_profiler": tot_kin}
            # the backward runs on autograd's thread, inside the main thread's train_step
            p, _ = run([cg, "report", folder, "--ranges", "--json"])
            step = [x for x in json.loads(p.stdout)["pieces"] if x["name"] == "train_step"]
            other = step[0]["any_thread"] if step else 0
            check("train: backward kernels from autograd's thread reach the range open on the "
                  "main thread (train_step)", other > 0,
                  "%d records through another thread's range" % other)
        if mode == "breaks":
            graphs = sorted({n.rsplit("/", 1)[0] for n in ours if "/" in n})
            sub0 = [n for n in ours if n.endswith("/submod_0")]
            check("breaks: each Dynamo graph's pieces are their own rows (graphs %s)" % graphs,
                  len(graphs) >= 2 and len(sub0) == len(graphs),
                  "rows %s" % sorted(ours)[:12])
        if mode == "cudagraph":
            rp = sum(v.get("graph_replays", 0) for v in ours.values())
            cap = sum(v.get("captured_kernels", 0) for v in ours.values())
            check("cudagraph: replays seen and their kernels mapped to the capturing piece",
                  rp > 0 and cap > 0, "%d replays, %d kernels through the node map" % (rp, cap))


def overhead_of(cg, out, name, args, rounds):
    med = {"plain": [], "cgscope": [], "torch.profiler": []}
    for round_ in range(rounds):
        w, _, _ = plain(args)
        med["plain"].append(statistics.median(w["rep_ms"][1:]))
        folder = os.path.join(out, "overhead-trace")
        shutil.rmtree(folder, ignore_errors=True)
        w, _, _ = profiled(cg, folder, args)
        med["cgscope"].append(statistics.median(w["rep_ms"][1:]))
        kt = os.path.join(out, "overhead-kineto.json")
        w, _, _ = plain(args + ["--torch-profiler", kt])
        os.remove(kt)
        med["torch.profiler"].append(statistics.median(w["rep_ms"][1:]))
        log("   %s round %d: plain %.2f ms, cgscope %.2f ms, torch.profiler %.2f ms per rep" % (
            name, round_, med["plain"][-1], med["cgscope"][-1], med["torch.profiler"][-1]))
    shutil.rmtree(os.path.join(out, "overhead-trace"), ignore_errors=True)
    base = statistics.median(med["plain"])
    ov = statistics.median(med["cgscope"]) / base - 1
    tp = statistics.median(med["torch.profiler"]) / base - 1
    RESULTS.setdefault("overhead", {})[name] = {"rep_ms": med, "cgscope": ov,
                                                "torch_profiler": tp, "args": args}
    return ov, tp


def phase_overhead(cg, out):
    # GPU-bound: a rep of 20 steps of a 4-layer, width-1024 transformer at batch 16 x 512
    gpu_bound = ["--mode", "eager", "--batch", "16", "--seq", "512", "--width", "1024",
                 "--layers", "4", "--iters", "20", "--reps", "8", "--warmup", "3"]
    ov, tp = overhead_of(cg, out, "gpu_bound", gpu_bound, 3)
    check("overhead on a GPU-bound run at most 2%", ov <= 0.02, "%+.2f%%" % (100 * ov))
    # on a GPU-bound run both profilers cost next to nothing (the GPU hides the CPU work), so
    # the comparison is made where their CPU cost shows: a launch-bound run of the same model
    launch = ["--mode", "eager", "--batch", "1", "--seq", "64", "--width", "256", "--layers",
              "4", "--iters", "50", "--reps", "8", "--warmup", "3"]
    lov, ltp = overhead_of(cg, out, "launch_bound", launch, 2)
    check("overhead no more than torch.profiler's on the GPU-bound run (within 0.1%) and below "
          "it on the launch-bound run", ov <= tp + 0.001 and lov < ltp,
          "GPU-bound: cgscope %+.2f%%, torch.profiler %+.2f%%; launch-bound: cgscope %+.1f%%, "
          "torch.profiler %+.1f%%" % (100 * ov, 100 * tp, 100 * lov, 100 * ltp))


def phase_robust(cg, out):
    small = ["--batch", "8", "--iters", "5", "--reps", "2", "--warmup", "3"]
    # SIGTERM mid-run: cgscope forwards it; the library flushes before the process dies
    folder = os.path.join(out, "tr-sigterm")
    shutil.rmtree(folder, ignore_errors=True)
    cmd = [cg, "profile", "-o", folder, "--", sys.executable, WORKLOAD, "--forever"] + small
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    iters = 0
    t0 = time.time()
    for line in p.stderr:
        if line.startswith("iter "):
            iters = int(line.split()[1])
            if iters >= 20:
                break
        if time.time() - t0 > 300:
            break
    p.send_signal(signal.SIGTERM)
    rest, err = p.communicate(timeout=120)
    rep = cgscope_report(cg, folder)
    tr = rep["traces"][0] if rep["traces"] else {}
    per_iter = None
    eager = RESULTS.get("truth", {}).get("eager")
    if eager:
        runs = 3 + 5 * 2
        per_iter = sum(v["kernels"] for v in eager["cgscope"].values()) / runs
    got = sum(x["kernels"] for x in rep["pieces"])
    ok = tr.get("complete") and tr.get("signal") == 15 and \
        (per_iter is None or got >= per_iter * (3 + iters))
    check("SIGTERM: the trace is complete, ends on signal 15, no kernel lost", ok,
          "%d iterations printed, %d piece kernels (%s per iteration), exit %s" % (
              iters, got, per_iter, p.returncode))
    # fork: the child exits through C's exit() without hanging in a flush, and writes nothing
    folder = os.path.join(out, "fork")
    shutil.rmtree(folder, ignore_errors=True)
    try:
        w, pr, secs = profiled(cg, folder, ["--fork"] + small, timeout=240)
        line = [x for x in pr.stderr.splitlines() if x.startswith("fork child")]
        traces = glob.glob(os.path.join(folder, "*.cgstrace*"))
        check("fork: the child exits and writes no trace of its own",
              line and "status 0" in line[0] and len(traces) == 1,
              "%s; %d trace file(s)" % (line[0] if line else "no child line", len(traces)))
    except subprocess.TimeoutExpired:
        check("fork: the child exits and writes no trace of its own", False, "timed out")
    # two ranks into one folder
    folder = os.path.join(out, "tr-ranks")
    shutil.rmtree(folder, ignore_errors=True)
    w = " ".join([sys.executable, WORKLOAD] + small)
    sh = "RANK=0 %s > /dev/null & RANK=1 %s > /dev/null; wait" % (w, w)
    p, secs = run([cg, "profile", "-o", folder, "--", "sh", "-c", sh], timeout=600)
    rep = cgscope_report(cg, folder)
    ranks = sorted(t["rank"] for t in rep["traces"] if t["rank"] is not None)
    per = [sum(r["kernels"] for x in rep["pieces"] for r in x["ranks"] if r["rank"] == k)
           for k in (0, 1)]
    check("two ranks: two traces merged, a column each, equal work", ranks == [0, 1] and
          per[0] == per[1] and per[0] > 0, "ranks %s, piece kernels %s" % (ranks, per))
    p2, _ = run([cg, "report", folder])
    log(p2.stdout[:3000])
    # torch.profiler inside a cgscope run: cgscope holds CUPTI and carries on
    folder = os.path.join(out, "conflict")
    shutil.rmtree(folder, ignore_errors=True)
    kt = os.path.join(out, "conflict-kineto.json")
    w, pr, secs = profiled(cg, folder, ["--torch-profiler", kt] + small)
    rep = cgscope_report(cg, folder)
    kin, none = kineto_pieces(kt)
    # (the workload's pieces are record_function ranges here, so cgscope sees no piece: all
    # its kernels are unattributed, and counted)
    got = rep["kernels"]
    kin_k = sum(v["kernels"] for v in kin.values()) + none["kernels"]
    msgs = [x for x in pr.stderr.splitlines() if "MULTIPLE_SUBSCRIBERS" in x][:1]
    eager = RESULTS.get("truth", {}).get("eager")
    want = sum(v["kernels"] for v in eager["cgscope"].values()) if eager else 1
    check("torch.profiler inside a cgscope run: cgscope keeps CUPTI and records everything",
          got >= want and kin_k == 0,
          "cgscope %d kernels (%d in the plain run's pieces), torch.profiler %d; %s" % (
              got, want, kin_k, msgs))


def phase_demo(cg, out):
    folder = os.path.join(out, "demo")
    dump = os.path.join(out, "demo-graphs")
    shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(dump, ignore_errors=True)
    env = dict(os.environ, CGSCOPE_DEMO_DUMP=dump)
    p, secs = run([cg, "profile", "-o", folder, "--", sys.executable, WORKLOAD, "--mode",
                   "cudagraph", "--iters", "10", "--reps", "2"], env=env)
    log("$ cgscope profile -o demo -- python3 prof_workload.py --mode cudagraph --iters 10 "
        "--reps 2\n" + p.stderr[-4000:])
    p2, _ = run([cg, "report", folder])
    log("$ cgscope report demo\n" + p2.stdout[:5000] + p2.stderr[:1000])
    graphs = sorted(glob.glob(os.path.join(dump, "*.dynamo.json")))
    sample = os.path.join(out, "sample")
    shutil.rmtree(sample, ignore_errors=True)
    shutil.copytree(folder, sample)
    for g in glob.glob(os.path.join(dump, "*")):
        shutil.copy(g, sample)
    if graphs:
        svg = os.path.join(out, "demo-pieces.svg")
        p3, _ = run([cg, "dot", graphs[0], "--split-ops",
                     "torch._C._nn.scaled_dot_product_attention", "--collapse", "pieces",
                     "--profile", os.path.join(folder, "report.json"), "-o", svg])
        log("$ cgscope dot %s --split-ops ... --collapse pieces --profile demo/report.json -o "
            "demo-pieces.svg\n%s%s" % (os.path.basename(graphs[0]), p3.stdout, p3.stderr))
        check("demo: profile, report and dot --profile work", p.returncode == 0 and
              p2.returncode == 0 and p3.returncode == 0 and os.path.exists(svg))
    else:
        check("demo: the workload dumped its graph", False)


def main():
    global LOG
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cgscope", required=True)
    ap.add_argument("--phase", default="truth,overhead,robust,demo")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    LOG = open(os.path.join(a.out, "profile_check.log"), "a")
    cg = os.path.abspath(a.cgscope)
    for ph in a.phase.split(","):
        t0 = time.time()
        log("== %s" % ph)
        try:
            globals()["phase_" + ph](cg, a.out)
        except Exception as exc:  # a phase that breaks is a failure, the others still run
            check("%s phase ran" % ph, False, "%s: %s" % (type(exc).__name__, exc))
        log("   (%.0f s)" % (time.time() - t0))
    path = os.path.join(a.out, "results.json")
    old = json.load(open(path)) if os.path.exists(path) else {"checks": []}
    old["checks"] += RESULTS.pop("checks")
    old.update(RESULTS)
    json.dump(old, open(path, "w"), indent=1, sort_keys=True)
    failed = sum(not c["ok"] for c in old["checks"])
    log("%d passed, %d failed" % (len(old["checks"]) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
