#!/usr/bin/env python3
"""GPU check (issue 12 item 13): torch.compile's mode= and options= reach the bridge's
backends and Inductor compiles with them; a failing dump is loud.

  python3 tests/gpu/bridge_options.py [--out DIR]

Each check prints "ok"/"FAIL"; the last line is "N passed, N failed"; exit 1 on a failure.
Also prints torch.fx.graph.dtype_abbrs (the notation cgscope's text output follows).
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "python"))
import torch  # noqa: E402
import cgscope_torch as ct  # noqa: E402

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print("%s %s%s" % ("ok  " if ok else "FAIL", name, (": " + detail) if detail and not ok else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=tempfile.mkdtemp())
    a = ap.parse_args()
    import torch.fx.graph as fxg
    print("dtype_abbrs:", file=sys.stderr)
    print("DTYPE_ABBRS",  {str(k).replace("torch.", ""): v for k, v in fxg.dtype_abbrs.items()})

    dev = "cuda" if torch.cuda.is_available() else "cpu"
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(),
                                torch.nn.Linear(64, 8)).to(dev)
    x = torch.randn(4, 32, device=dev)
    seen = []

    def probe(graph):
        import torch._inductor.config as c
        seen.append((c.max_autotune, c.triton.cudagraphs))

    for post_grad in (False, True):
        # mode= from torch.compile: max-autotune-no-cudagraphs sets max_autotune
        torch._dynamo.reset()
        seen.clear()
        b = ct.dump_backend(os.path.join(a.out, "m%d" % post_grad), post_grad=post_grad,
                            options={"post_grad_custom_pre_pass": probe})
        out = torch.compile(model, backend=b, mode="max-autotune-no-cudagraphs")(x)
        check("mode reaches Inductor (post_grad=%s)" % post_grad,
              bool(seen) and all(s[0] for s in seen), str(seen))
        check("output equals eager (mode, post_grad=%s)" % post_grad,
              torch.allclose(out, model(x), atol=1e-4))
        # options= from torch.compile: our probe runs
        torch._dynamo.reset()
        seen.clear()
        b = ct.dump_backend(os.path.join(a.out, "o%d" % post_grad), post_grad=post_grad)
        torch.compile(model, backend=b, options={"post_grad_custom_pre_pass": probe,
                                                  "max_autotune": False})(x)
        check("options reach Inductor (post_grad=%s)" % post_grad,
              bool(seen) and not any(s[0] for s in seen), str(seen))
        check("graph dumped (post_grad=%s)" % post_grad, bool(b.dumps), str(b.dumps))
    # the piecewise runner too
    torch._dynamo.reset()
    seen.clear()
    pb = ct.piecewise_backend(["aten.relu", "torch.relu", "torch.nn.functional.relu"],
                              options={"post_grad_custom_pre_pass": probe})
    torch.compile(model, backend=pb, mode="max-autotune-no-cudagraphs")(x)
    check("piecewise: mode and options reach Inductor", bool(seen) and all(s[0] for s in seen),
          "%s; errors %s" % (seen, pb.errors))
    # an unknown option fails at once, naming it
    try:
        ct.dump_backend(a.out, options={"no_such_option": 1})
        check("unknown option refused", False, "accepted")
    except RuntimeError as e:
        check("unknown option refused", "no_such_option" in str(e), str(e))
    # a dump that cannot be written stops the compile (strict by default)
    torch._dynamo.reset()
    bad = ct.dump_backend("/proc/no/such/folder")
    try:
        torch.compile(model, backend=bad)(x)
        check("failed dump is loud", False, "compile went on")
    except Exception as e:
        check("failed dump is loud", "CgscopeDumpError" in repr(e) or "failed" in str(e),
              repr(e)[:200])
    n_ok = sum(results)
    print("%d passed, %d failed" % (n_ok, len(results) - n_ok))
    return 0 if n_ok == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
