#!/usr/bin/env python3
"""The findings model against logs others wrote and logs with provoked faults (issue 36).

For each line of tests/data/findings.expect: `cgscope check --json SOURCE` gives exactly the
findings listed (kind, severity, count, subject and text), exits with the status listed, and
`top --once --json` and the page `html --json` hold the same findings (one model, printed three
ways). tlparse's logs are unpacked from tests/data/tlparse/inputs.tar.xz.

  python3 tests/check-findings.py [CGSCOPE]
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import threading

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CG = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "cgscope"))
fails = 0


def fail(msg):
    global fails
    fails += 1
    print("FAIL " + msg)


def run(args):
    p = subprocess.run([CG] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def matches(f, spec):
    kind, sev, count, *keys = spec.split(":")
    rest = ":".join(keys)
    if f["kind"] != kind or f["severity"] != sev:
        return False
    if count != "*" and f["count"] != int(count):
        return False
    # key=text pairs; a text may itself hold ':' (a file:line), so split on known keys
    pairs = []
    for part in rest.split(":") if rest else []:
        if "=" in part.split(" ")[0] and part.split("=")[0] in (
                "frame", "ranks", "compile_ids", "message", "hint"):
            pairs.append(part.split("=", 1))
        elif pairs:
            pairs[-1][1] += ":" + part
    for k, text in pairs:
        have = f["subject"].get(k) if k in ("frame", "ranks", "compile_ids") else f.get(k)
        if have is None or text not in have:
            return False
    return True


def one(line, tl, tmp):
    """The checks of one line of findings.expect; the failures as messages."""
    out = []
    src, status, specs = [x.strip() for x in line.split("|")]
    # several sources: "A + B" (a cold run's log, then a warm run's)
    paths = [x.replace("TL/", tl + "/") if x.startswith("TL/") else os.path.join(ROOT, x)
             for x in src.split(" + ")]
    specs = [s.strip() for s in specs.split(";") if s.strip()]
    rc, so, se = run(["check"] + paths + ["--json"])
    if rc != int(status):
        out.append("%s: check exit %d, expected %s: %s" % (src, rc, status, se[-300:]))
    try:
        got = json.loads(so)["findings"]
    except Exception as e:
        return out + ["%s: check --json: %s" % (src, e)]
    left = list(got)
    for spec in specs:
        m = [f for f in left if matches(f, spec)]
        if not m:
            out.append("%s: no finding %s in %s" % (src, spec, [
                (f["kind"], f["severity"], f["count"], f["message"][:80]) for f in left]))
            continue
        left.remove(m[0])
    for f in left:
        out.append("%s: unexpected finding %s %s %s: %s" % (
            src, f["kind"], f["severity"], f["count"], f["message"][:120]))
    # every finding says what it rests on and what it is
    for f in got:
        for k in ("kind", "severity", "subject", "message", "hint", "evidence", "count"):
            if k not in f:
                out.append("%s: finding without '%s'" % (src, k))
    sev = [("error", "warning", "note").index(f["severity"]) for f in got]
    if sev != sorted(sev):
        out.append("%s: findings not sorted by severity" % src)
    # one model: top --once and the page print the same findings
    rc2, so2, se2 = run(["top"] + paths + ["--once", "--json"])
    if rc2 == 0 and json.loads(so2).get("findings") != got:
        out.append("%s: top --once --json findings differ from check's" % src)
    elif rc2 not in (0, 2):
        out.append("%s: top --once exit %d: %s" % (src, rc2, se2[-200:]))
    if not got:  # the page of a log with nothing to say: the model's empty list, shown once
        return out
    page = os.path.join(tmp, "p%d.html" % threading.get_ident())
    rc3, so3, se3 = run(["html"] + paths + ["-o", page, "--json"])
    if rc3 != 0:
        out.append("%s: html exit %d: %s" % (src, rc3, se3[-200:]))
    elif json.loads(so3)["summary"]["findings"] != got:
        out.append("%s: the page's findings differ from check's" % src)
    return out


def main():
    tmp = tempfile.mkdtemp(prefix="cgs-findings.")
    with tarfile.open(os.path.join(ROOT, "tests/data/tlparse/inputs.tar.xz")) as t:
        t.extractall(tmp, filter="data") if sys.version_info >= (3, 12) else t.extractall(tmp)
    tl = os.path.join(tmp, "inputs")
    lines = [l for l in open(os.path.join(ROOT, "tests/data/findings.expect"))
             if l.strip() and not l.startswith("#")]
    # two sources at a time (their commands are independent); the failures are printed in order
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        results = list(ex.map(lambda l: one(l, tl, tmp), lines))
    for msgs in results:
        for m in msgs:
            fail(m)
    n = len(lines)
    # the gate's threshold
    rc, _, _ = run(["check", os.path.join(tl, "multi_rank_runtime"), "--fail-on", "warning"])
    if rc != 1:
        fail("check --fail-on warning on recompiles: exit %d, expected 1" % rc)
    rc, _, se = run(["check", os.path.join(tl, "simple.log"), "--fail-on", "bogus"])
    if rc != 2:
        fail("check --fail-on bogus: exit %d, expected 2" % rc)
    rc, _, se = run(["check", os.path.join(tmp, "no-such.log")])
    if rc != 2 or "no-such.log" not in se:
        fail("check on a missing file: exit %d, expected 2 naming it" % rc)
    subprocess.run(["rm", "-rf", tmp])
    print("%d sources, %d failures" % (n, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
