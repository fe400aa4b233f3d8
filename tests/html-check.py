#!/usr/bin/env python3
"""Checks of the page `cgscope html` writes (tests/cli/html.sh runs them).

  html-check.py data PAGE                   print the page's data (the JSON it embeds)
  html-check.py same PAGE KIND JSON [GRAPH] the page's KIND document (split, shapes, top,
                                            profile) says what the command's --json says
  html-check.py cards PAGE                  the summary cards show the summary's numbers,
                                            and those are the documents' own
  html-check.py selfcontained PAGE          nothing is fetched: no src/href/url() outside
  html-check.py png A B TOLERANCE           two screenshots differ in less than TOLERANCE
                                            (0-1) of their 16x16 blocks
"""
import json
import re
import struct
import sys
import zlib


def page_data(path):
    s = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="cgs-data">(.*?)</script>', s, re.S)
    assert m, "no data script in the page"
    return json.loads(m.group(1)), s


def graph_doc(data, ref, kind):
    for g in data["graphs"]:
        if ref is None or g["ref"] == ref:
            return g[kind]
    raise AssertionError("no graph %r in the page: %s" % (ref, [g["ref"] for g in data["graphs"]]))


def same(page, kind, cmd_json, ref=None):
    data, _ = page_data(page)
    want = json.load(open(cmd_json))
    if kind == "split":
        got = graph_doc(data, ref, "split")
        keys = ("name", "graph_id", "is_splitting_graph", "n_nodes", "inputs", "outputs",
                "compile_index", "sym_shape_indices", "capturable", "capturable_reasons")
        gp = [{k: p[k] for k in keys} for p in got["pieces"]]
        wp = [{k: p[k] for k in keys} for p in want["pieces"]]
        assert gp == wp, (gp, wp)
        assert got["boundaries"] == want["boundaries"], "boundaries differ"
        assert got["counters"] == want["counters"], (got["counters"], want["counters"])
    elif kind == "shapes":
        got = graph_doc(data, ref, "shapes")
        assert got["summary"] == want["summary"], (got["summary"], want["summary"])
        assert got["root_causes"] == want["root_causes"], "root causes differ"
        # every node's value in the table is the one shapes --json gives it
        table = graph_doc(data, ref, "table")
        rows = {r[0]: r for r in table["rows"]}
        assert len(rows) == len(want["nodes"]), (len(rows), len(want["nodes"]))
        for n in want["nodes"]:
            r = rows[n["name"]]
            assert r[4] == n["status"], (n["name"], r[4], n["status"])
            assert table["targets"][r[2]] == n["target"], (n["name"], n["target"])
            v = n["val"]
            if isinstance(v, dict) and "dtype" in v and isinstance(v.get("shape"), list):
                dims = ", ".join(str(d) for d in v["shape"])
                assert "[%s]" % dims in r[3], (n["name"], r[3], v["shape"])
    elif kind == "top":
        got = dict(data["top"])
        # top --once --json adds the findings; the page holds them in its summary
        want_findings = want.pop("findings", None)
        for d in (got, want):
            d.pop("sources", None)
        # the page's rows also carry what only the page shows (docs/json.md: "html's data only")
        page_only = ("graph_texts", "guards", "specializations", "output_code", "metrics")
        got["rows"] = [{k: v for k, v in r.items() if k not in page_only} for r in got["rows"]]
        assert got == want, "top documents differ"
        if want_findings is not None and not data["graphs"]:
            assert data["summary"]["findings"] == want_findings, "findings differ"
    elif kind == "breaks":
        got = dict(data["breaks"])
        assert got == want, "breaks documents differ"
    elif kind == "profile":
        got = data["profile"]
        assert got["pieces"] == want["pieces"], "profile pieces differ"
        for k in ("gpu_ns", "memcpy", "memset", "unattributed"):
            assert got[k] == want[k], (k, got[k], want[k])
        n = len(got["kernel_table"])
        assert got["kernel_table"] == want["kernel_table"][:n], "kernel table differs"
    else:
        raise SystemExit("unknown kind " + kind)


def cards(page):
    data, html = page_data(page)
    sm = data["summary"]
    shown = dict(re.findall(r'data-key="([a-z_]+)"><span class="v">([^<]*)</span>', html))
    for k in ("graphs", "pieces", "not_capturable", "compiles", "recompiles", "graph_breaks"):
        want = "-" if sm[k] is None else "%d" % sm[k]
        assert shown[k] == want, (k, shown[k], want)
    hr = sm["hit_rate"]
    assert shown["hit_rate"] == ("-" if hr is None else "%.0f%%" % (hr * 100)), shown["hit_rate"]
    g = sm["gpu_ns"]
    assert shown["gpu_ns"] == ("-" if g is None else "%.3f" % (g / 1e6)), shown["gpu_ns"]
    # the summary is the documents' own numbers
    ok = [g for g in data["graphs"] if g.get("split")]
    assert sm["pieces"] == sum(len(g["split"]["pieces"]) for g in ok)
    # CUDA-graph verdicts count only where a piecewise backend split (split ops given or
    # recorded); a plain torch.compile graph is one piece with no verdict
    split = [g for g in ok if g["split"]["splitting_ops"]]
    if not split:
        assert sm["not_capturable"] is None, sm["not_capturable"]
    else:
        assert sm["not_capturable"] == sum(
            1 for g in split for p in g["split"]["pieces"]
            if not p["is_splitting_graph"] and not p["capturable"])
    if data["top"]:
        for k in ("compiles", "recompiles", "graph_breaks", "hit_rate"):
            assert sm[k] == data["top"][k], (k, sm[k], data["top"][k])
    if data["profile"]:
        assert sm["gpu_ns"] == data["profile"]["gpu_ns"]


def selfcontained(page):
    html = open(page, encoding="utf-8").read()
    # nothing fetched: a link a person may follow (torch's page about a graph break) is not
    bad = re.findall(r'src\s*=\s*"(?:https?:)?//[^"]*"', html)
    bad += [m for m in re.findall(r'<(\w+)[^>]*\bhref\s*=\s*"(?:https?:)?//[^"]*"', html)
            if m.lower() != "a"]
    bad += re.findall(r'url\(\s*["\']?(?:https?:)?//', html)
    bad += re.findall(r'<link\b', html) + re.findall(r'<script\b[^>]*\bsrc=', html)
    bad += re.findall(r'@import', html)
    assert not bad, bad[:5]


def png_gray(path):
    """A PNG (8-bit, not interlaced, gray/RGB/RGBA, as Chromium writes them) as rows of
    brightness 0-255."""
    b = open(path, "rb").read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n", path + ": not a PNG"
    pos, idat, w = 8, b"", None
    while pos < len(b):
        n, t = struct.unpack(">I4s", b[pos:pos + 8])
        body = b[pos + 8:pos + 8 + n]
        if t == b"IHDR":
            w, h, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and inter == 0 and ctype in (0, 2, 6), (path, depth, ctype, inter)
            bpp = {0: 1, 2: 3, 6: 4}[ctype]
        elif t == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, rows, i = zlib.decompress(idat), w * bpp, bytearray(w * bpp), [], 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            up, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + up) & 255
            elif f == 3:
                line[x] = (line[x] + ((a + up) >> 1)) & 255
            elif f == 4:
                p = a + up - c
                pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
        prev = line
        rows.append([sum(line[x * bpp:x * bpp + min(bpp, 3)]) // min(bpp, 3) for x in range(w)])
    return w, h, rows


def png(a, b, tol):
    """The share of 16x16 blocks whose mean brightness differs by more than 4% must stay under
    tol: a font that renders a little differently moves a few blocks, another page most."""
    wa, ha, ra = png_gray(a)
    wb, hb, rb = png_gray(b)
    assert (wa, ha) == (wb, hb), "sizes differ: %dx%d and %dx%d" % (wa, ha, wb, hb)
    moved, blocks = 0, 0
    for by in range(0, ha, 16):
        for bx in range(0, wa, 16):
            sa = sb = k = 0
            for y in range(by, min(by + 16, ha)):
                sa += sum(ra[y][bx:bx + 16])
                sb += sum(rb[y][bx:bx + 16])
                k += len(ra[y][bx:bx + 16])
            moved += abs(sa - sb) / (255.0 * k) > 0.04
            blocks += 1
    d = moved / blocks
    print("%s vs %s: %.4f of blocks differ (tolerance %s)" % (a, b, d, tol))
    assert d < float(tol), "screenshots differ in %.1f%% of their blocks" % (100 * d)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "data":
        print(json.dumps(page_data(args[0])[0], indent=1))
    elif cmd == "same":
        same(*args)
    elif cmd == "cards":
        cards(args[0])
    elif cmd == "selfcontained":
        selfcontained(args[0])
    elif cmd == "png":
        png(*args)
    else:
        raise SystemExit(__doc__)
