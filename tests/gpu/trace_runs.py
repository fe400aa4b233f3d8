#!/usr/bin/env python3
"""GPU recordings for `cgscope top`, `breaks` and `cache diff` (issue 13).

Runs a small model with plain torch.compile under TORCH_TRACE (one graph break, two batch
sizes so the frame recompiles), then again with the compile caches warm, then again warm but
with one Inductor config value changed, then the bridge's piecewise runner writing events to
$CGSCOPE_EVENTS; and `cgscope top -- CMD` live under tmux (a captured screen). Checks what
cgscope says about each against what torch did, prints ok/FAIL lines, and leaves the logs
(small) in OUT for tests/data/traces.

  python3 tests/gpu/trace_runs.py --out $OUT --cgscope .devcarry/cgscope.sh [--tmux PATH]
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import time

# the model run: the file kept beside the recordings it made
MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "traces",
                     "model.py")

results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print("%s %s%s" % ("ok  " if ok else "FAIL", name, ": " + str(detail)[:300] if not ok else ""))
    sys.stdout.flush()


def cgs(args, cgscope):
    p = subprocess.run([cgscope] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def run_model(out, name, env_extra):
    trace = os.path.join(out, name)
    env = dict(os.environ, TORCH_TRACE=trace, TORCHINDUCTOR_CACHE_DIR=os.path.join(out, "cache"))
    env.update(env_extra)
    p = subprocess.run([sys.executable, os.path.join(out, "model.py")], env=env,
                       capture_output=True, text=True, timeout=400)
    check("%s run" % name, p.returncode == 0, p.stderr[-500:])
    return trace


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cgscope", required=True)
    ap.add_argument("--tmux", default=shutil.which("tmux"))
    ap.add_argument("--live-only", action="store_true", help="only the top -- CMD screen")
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    cg = os.path.abspath(a.cgscope)
    os.makedirs(out, exist_ok=True)
    shutil.copyfile(MODEL, os.path.join(out, "model.py"))
    os.environ["CGS_BRIDGE"] = os.path.abspath("tools/python")
    if a.live_only:
        return live(a, out, cg)
    recorded(a, out, cg)
    return live(a, out, cg)


def recorded(a, out, cg):
    cold = run_model(out, "cold", {})
    warm = run_model(out, "warm", {})
    changed = run_model(out, "changed", {"CGS_CHANGE": "1"})
    for name, t in (("cold", cold), ("warm", warm), ("changed", changed)):
        rc, so, se = cgs(["top", t, "--once", "--json"], cg)
        check("top --once --json %s" % name, rc == 0, se)
        d = json.loads(so) if rc == 0 else {}
        fx = d.get("caches", {}).get("fx_graph", {})
        print("  %s: compiles %s, fx_graph %s, aotautograd %s, recompiles %s, bad %s" % (
            name, d.get("compiles"), fx, d.get("caches", {}).get("aotautograd"),
            d.get("recompiles"), d.get("bad_lines")))
        check("%s: no bad line" % name, d.get("bad_lines") == 0, d.get("first_bad_line"))
        if name == "cold":
            check("cold: FX graph cache only misses", fx.get("miss", 0) > 0 and fx.get("hit") == 0, fx)
        if name == "warm":
            check("warm: FX graph cache only hits", fx.get("hit", 0) > 0 and fx.get("miss") == 0, fx)
        if name == "changed":
            check("changed: FX graph cache misses again", fx.get("miss", 0) > 0, fx)
        check("%s: recompiled (batch 8 -> 32)" % name, d.get("recompiles", 0) >= 1, d.get("recompiles"))
    rc, so, se = cgs(["breaks", cold, "--json"], cg)
    d = json.loads(so) if rc == 0 else {}
    check("breaks: the print graph break", rc == 0 and len(d.get("breaks", [])) >= 1, so[:300] + se)
    for b in d.get("breaks", []):
        print("  break %s: %s at %s" % (b["compile_id"], b["reason"], b["frame"]))
    check("breaks: frame is model.py", any("model.py" in (b["frame"]["file"] or "")
                                           for b in d.get("breaks", [])), d.get("breaks"))
    rc, so, se = cgs(["cache", "diff", warm, changed], cg)
    print(so[:3000])
    check("cache diff names the changed config", rc == 0 and "epilogue_fusion" in so, so[:500] + se)
    rc, so, se = cgs(["cache", "diff", cold, warm], cg)
    check("cache diff cold/warm: same keys", rc == 0 and "same key" in so, so[:500])

    # the piecewise runner: events through $CGSCOPE_EVENTS
    ev = os.path.join(out, "piecewise.events.jsonl")
    env = dict(os.environ, CGSCOPE_EVENTS=ev, CGS_PIECEWISE="1")
    p = subprocess.run([sys.executable, os.path.join(out, "model.py")], env=env,
                       capture_output=True, text=True, timeout=400)
    check("piecewise run", p.returncode == 0, p.stderr[-500:])
    rc, so, se = cgs(["top", ev, "--once"], cg)
    print(so)
    check("top reads the runner's events", rc == 0 and "piecewise" in so, se)



def live(a, out, cg):
    """cgscope top -- CMD, live, under tmux: a captured screen."""
    if a.tmux:
        sock = os.path.join(out, "tmux.sock")
        run_dir = os.path.join(out, "live")
        cmd = "%s top --dir %s -- %s %s" % (cg, run_dir, sys.executable, os.path.join(out, "model.py"))
        subprocess.run([a.tmux, "-S", sock, "new-session", "-d", "-x", "160", "-y", "30",
                        "env TERM=xterm-256color CGS_BRIDGE=%s %s" % (os.environ["CGS_BRIDGE"], cmd)],
                       check=False)
        screen, mid = "", ""
        for _ in range(480):
            time.sleep(0.5)
            screen = subprocess.run([a.tmux, "-S", sock, "capture-pane", "-p"],
                                    capture_output=True, text=True).stdout
            if not mid and "0/0" in screen and "command exited" not in screen:
                mid = screen
            if "command exited" in screen:
                break
        with open(os.path.join(out, "top-live.screen.txt"), "w") as f:
            f.write(screen)
        with open(os.path.join(out, "top-live.mid.screen.txt"), "w") as f:
            f.write(mid)
        print(mid)
        print(screen)
        check("top -- CMD: live rows while the command ran", bool(mid), "")
        check("top -- CMD: screen shows compiles", "compiles" in screen and "0/0" in screen, screen[-300:])
        check("top -- CMD: the command ended", "command exited with 0" in screen, screen[-300:])
        subprocess.run([a.tmux, "-S", sock, "send-keys", "q"], check=False)
        time.sleep(1)
        subprocess.run([a.tmux, "-S", sock, "kill-server"], check=False)
    n_ok = sum(results)
    print("%d passed, %d failed" % (n_ok, len(results) - n_ok))
    return 0 if n_ok == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
