// cgscope html: the page's behaviour. The data is the JSON in #cgs-data (the commands' own
// documents); without JavaScript the page shows the summary and each table's first rows.
"use strict";
(function () {
  var errors = [];
  window.addEventListener("error", function (e) {
    errors.push(String(e.message));
    document.documentElement.setAttribute("data-errors", errors.join(" | "));
  });
  var data = JSON.parse(document.getElementById("cgs-data").textContent);
  var ROW_H = 22, VIRTUAL = 400, nodeTables = [], idleRanks = [];

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function ms(ns) { return ns === null || ns === undefined ? "-" : (ns / 1e6).toFixed(3); }
  // A text's sort key: lower case, each run of digits led by a character that orders it by
  // its length (so add_9 < add_10, as people read numbers), compared by code unit: an order
  // close to a numeric collator's at a fraction of its cost on 100k distinct names.
  function natKey(v) {
    var out = "", i = 0, n = v.length, s = v.toLowerCase();
    while (i < n) {
      var c = s.charCodeAt(i), j = i;
      if (c < 48 || c > 57) {
        while (j < n && ((c = s.charCodeAt(j)) < 48 || c > 57)) j++;
        out += s.slice(i, j);
      } else {
        while (j < n && (c = s.charCodeAt(j)) >= 48 && c <= 57) j++;
        while (i < j - 1 && s.charCodeAt(i) === 48) i++; // leading zeros
        out += String.fromCharCode(0x21 + Math.min(j - i, 60)) + s.slice(i, j);
      }
      i = j;
    }
    return out;
  }
  // Each row's rank in column i of rows (equal values, equal ranks): numbers, or the texts'
  // keys, each distinct value sorted once by the engine's own sort (no compare function).
  function columnRanks(rows, i) {
    var n = rows.length, k, allNum = true, rank = new Map(), nd;
    for (k = 0; k < n && allNum; k++) allNum = typeof rows[k][i] === "number";
    if (allNum) {
      var set = new Set();
      for (k = 0; k < n; k++) set.add(rows[k][i]);
      var nums = Float64Array.from(set).sort();
      for (k = 0; k < nums.length; k++) rank.set(nums[k], k);
      nd = nums.length;
    } else {
      var text = new Map(), keys = []; // a key -> its text
      for (k = 0; k < n; k++) {
        var v = String(rows[k][i]);
        if (!rank.has(v)) {
          var key = natKey(v);
          if (text.has(key)) key += "\u0000" + v; // "A1" and "a01": their own texts decide
          rank.set(v, 0);
          text.set(key, v);
          keys.push(key);
        }
      }
      keys.sort(); // by code unit
      for (k = 0; k < keys.length; k++) rank.set(text.get(keys[k]), k);
      nd = keys.length;
    }
    var out = new Float64Array(n);
    for (k = 0; k < n; k++) out[k] = rank.get(allNum ? rows[k][i] : String(rows[k][i]));
    return {rank: out, n: nd};
  }

  // A table of rows (arrays of cell values), sortable by a click on a header, filtered by a
  // search box, its body rendered as it scrolls when it is long.
  function Table(host, cols, rows, opts) {
    opts = opts || {};
    this.cols = cols; this.all = rows; this.rows = rows; this.opts = opts;
    this.sortCol = -1; this.sortDir = 1;
    // each row's place in the table, and each column's ranks once computed: a long table's
    // are computed while the page is idle, so a click sorts without them
    for (var ri = 0; ri < rows.length; ri++) rows[ri].$i = ri;
    this.ranks = [];
    if (rows.length > VIRTUAL) idleRanks.push(this);
    var wrap = host;
    wrap.textContent = "";
    if (opts.search) {
      var tools = el("div", {"class": "tools"});
      this.input = el("input", {type: "search", placeholder: opts.search, "aria-label": "filter"});
      this.count = el("span", {"class": "count"});
      tools.appendChild(this.input); tools.appendChild(this.count);
      wrap.appendChild(tools);
      var self0 = this;
      var timer = null;
      this.input.addEventListener("input", function () {
        // a long table is filtered once the typing pauses
        if (timer) clearTimeout(timer);
        timer = setTimeout(function () { timer = null; self0.filter(self0.input.value); },
                           rows.length > VIRTUAL ? 150 : 0);
      });
    }
    this.scroll = el("div", {"class": rows.length > 20 ? "scroll" : "tscroll"});
    this.table = el("table", {"class": rows.length > VIRTUAL ? "t virtual" : "t"});
    var thead = el("thead"), tr = el("tr"), self = this;
    cols.forEach(function (c, i) {
      var th = el("th", {"class": c.num ? "n" : "", tabindex: "0", "aria-sort": "none",
                         title: "sort by " + c.name}, c.name);
      th.addEventListener("click", function () { self.sort(i, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); self.sort(i, th); }
      });
      tr.appendChild(th);
    });
    thead.appendChild(tr);
    this.table.appendChild(thead);
    this.tbody = el("tbody");
    this.table.appendChild(this.tbody);
    this.scroll.appendChild(this.table);
    wrap.appendChild(this.scroll);
    if (rows.length > VIRTUAL) {
      var queued = false;
      this.scroll.addEventListener("scroll", function () {
        if (queued) return;
        queued = true;
        window.requestAnimationFrame(function () { queued = false; self.render(); });
      }, {passive: true});
    }
    this.render(true);
  }
  Table.prototype.filter = function (q) {
    q = q.trim().toLowerCase();
    var m = /^piece:(\S+)$/.exec(q), cols = this.cols;
    if (!q) this.rows = this.all;
    else if (m && this.opts.pieceCol !== undefined) {
      // piece:NAME, or piece:A,B,C for the pieces a folded box stands for
      var pc = this.opts.pieceCol, want = {};
      m[1].split(",").forEach(function (x) { want[x] = 1; });
      this.rows = this.all.filter(function (r) { return want[String(r[pc]).toLowerCase()] === 1; });
    } else {
      this.rows = this.all.filter(function (r) {
        for (var i = 0; i < cols.length; i++)
          if (String(r[i]).toLowerCase().indexOf(q) >= 0) return true;
        return false;
      });
    }
    if (this.input && this.input.value !== q && m) this.input.value = m[0];
    this.scroll.scrollTop = 0;
    this.render(true);
  };
  Table.prototype.sort = function (i, th) {
    this.sortDir = this.sortCol === i ? -this.sortDir : 1;
    this.sortCol = i;
    var d = this.sortDir;
    var t0 = performance.now();
    this.rows = this.sorted(i, d);
    // how long the last sort took (ms; make bench reads it on the 100k-node page)
    document.documentElement.setAttribute("data-sort-ms", Math.round(performance.now() - t0));
    Array.prototype.forEach.call(th.parentNode.children, function (x) {
      x.classList.remove("asc", "desc"); x.setAttribute("aria-sort", "none");
    });
    th.classList.add(d > 0 ? "asc" : "desc");
    th.setAttribute("aria-sort", d > 0 ? "ascending" : "descending");
    this.render(true);
  };
  // the rows in view sorted by column i (d: 1 ascending, -1 descending), stable: rank and
  // place packed into one number a row and those sorted natively
  Table.prototype.sorted = function (i, d) {
    var c = this.ranks[i] || (this.ranks[i] = columnRanks(this.all, i));
    var rows = this.rows, n = rows.length, k, SPAN = 4194304;
    var packed = new Float64Array(n), out = new Array(n);
    for (k = 0; k < n; k++) {
      var r = c.rank[rows[k].$i];
      packed[k] = (d < 0 ? c.n - 1 - r : r) * SPAN + k;
    }
    packed.sort();
    for (k = 0; k < n; k++) out[k] = rows[packed[k] % SPAN];
    return out;
  };
  Table.prototype.sortBy = function (name, dir) {
    var ths = this.table.tHead.rows[0].cells;
    for (var i = 0; i < this.cols.length; i++)
      if (this.cols[i].name === name) {
        this.sortCol = dir < 0 ? i : -1; // a second sort of a column reverses it
        this.sortDir = 1;
        this.sort(i, ths[i]);
        return true;
      }
    return false;
  };
  Table.prototype.row = function (r) {
    var tr = el("tr"), cols = this.cols;
    if (this.opts.rowClass) tr.className = this.opts.rowClass(r);
    for (var i = 0; i < cols.length; i++) {
      var td = el("td", {"class": cols[i].num ? "n" : (cols[i].cls || "")},
                  cols[i].fmt ? cols[i].fmt(r[i]) : r[i]);
      tr.appendChild(td);
    }
    return tr;
  };
  // The body: every row, or for a long table the rows in view (and a margin) between two
  // spacers. The scroll position is read before the body changes (emptying it would clamp the
  // position to 0), the row height is measured once drawn, and a scroll that keeps the same
  // window draws nothing.
  Table.prototype.render = function (force) {
    var rows = this.rows, n = rows.length, body = this.tbody, start = 0, end = n;
    var rowH = this.rowH || ROW_H;
    if (n > VIRTUAL) {
      var top = this.scroll.scrollTop, h = this.scroll.clientHeight || 520;
      var head = this.table.tHead ? this.table.tHead.offsetHeight : 0;
      start = Math.max(0, Math.floor(Math.max(0, top - head) / rowH) - 20);
      end = Math.min(n, start + Math.ceil(h / rowH) + 40);
    }
    if (!force && this.drawn && this.drawn[0] === start && this.drawn[1] === end &&
        this.drawn[2] === rows) return;
    this.drawn = [start, end, rows];
    if (this.count) this.count.textContent = n + " of " + this.all.length + " rows";
    var frag = document.createDocumentFragment();
    if (n > VIRTUAL) {
      var pad = el("tr", {"class": "spacer", "aria-hidden": "true"});
      pad.style.height = (start * rowH) + "px"; frag.appendChild(pad);
    }
    for (var i = start; i < end; i++) frag.appendChild(this.row(rows[i]));
    if (n > VIRTUAL) {
      var pad2 = el("tr", {"class": "spacer", "aria-hidden": "true"});
      pad2.style.height = ((n - end) * rowH) + "px"; frag.appendChild(pad2);
      // on paper the rows drawn, then how many more there are
      var more = el("tr", {"class": "more printonly"});
      more.appendChild(el("td", {colspan: String(this.cols.length)},
                          (n - (end - start)) + " more rows (the page on screen lists them all)"));
      frag.appendChild(more);
    }
    body.textContent = "";
    body.appendChild(frag);
    if (n > VIRTUAL && !this.rowH && end > start) {
      var one = body.children[1] && body.children[1].getBoundingClientRect().height;
      if (one > 0 && Math.abs(one - rowH) > 0.01) {
        this.rowH = one;
        this.render(true);
      } else if (one > 0) {
        this.rowH = one;
      }
    }
  };
  // Scroll the table to the row whose first cell is name, and mark it.
  Table.prototype.reveal = function (name) {
    var i, rows = this.rows;
    for (i = 0; i < rows.length; i++) if (String(rows[i][0]) === name) break;
    if (i === rows.length) return false;
    var rowH = this.rowH || ROW_H;
    this.scroll.scrollTop = rows.length > VIRTUAL ? i * rowH : 0;
    this.render(true);
    var trs = this.tbody.querySelectorAll("tr:not(.spacer)");
    for (var k = 0; k < trs.length; k++) {
      if (trs[k].firstChild && trs[k].firstChild.textContent === name) {
        trs[k].classList.add("hit");
        if (rows.length <= VIRTUAL) trs[k].scrollIntoView({block: "center"});
        else this.scroll.scrollIntoView({block: "start"});
        return true;
      }
    }
    return false;
  };

  // The picture: the wheel zooms, a drag pans, a click on a piece lists its nodes.
  function zoomable(box, onPiece) {
    var svg = box.querySelector("svg");
    if (!svg) return;
    svg.removeAttribute("width"); svg.removeAttribute("height");
    var vb = svg.viewBox.baseVal, x = vb.x, y = vb.y, w = vb.width, h = vb.height;
    function set() { svg.setAttribute("viewBox", x + " " + y + " " + w + " " + h); }
    var x0 = x, y0 = y, w0 = w, h0 = h;
    function zoom(f, cx, cy) {  // by f about (cx, cy), a point of the box (0-1 each way)
      var px = x + w * cx, py = y + h * cy;
      w *= f; h *= f; x = px - (px - x) * f; y = py - (py - y) * f; set();
    }
    // the wheel scrolls the page; with ctrl or the command key it zooms where it points
    box.addEventListener("wheel", function (e) {
      if (!e.ctrlKey && !e.metaKey) return;
      e.preventDefault();
      var r = box.getBoundingClientRect();
      zoom(e.deltaY > 0 ? 1.2 : 1 / 1.2, (e.clientX - r.left) / r.width,
           (e.clientY - r.top) / r.height);
    }, {passive: false});
    var ctl = el("div", {"class": "zoomctl", role: "group", "aria-label": "zoom the picture"});
    [["+", "zoom in", function () { zoom(1 / 1.25, 0.5, 0.5); }],
     ["\u2212", "zoom out", function () { zoom(1.25, 0.5, 0.5); }],
     ["fit", "fit the picture", function () { x = x0; y = y0; w = w0; h = h0; set(); }]]
      .forEach(function (b) {
        var bt = el("button", {type: "button", title: b[1], "aria-label": b[1]}, b[0]);
        bt.addEventListener("click", b[2]);
        ctl.appendChild(bt);
      });
    box.parentNode.insertBefore(ctl, box);
    var drag = null;
    box.addEventListener("mousedown", function (e) { drag = [e.clientX, e.clientY, x, y]; });
    window.addEventListener("mouseup", function () { drag = null; });
    window.addEventListener("mousemove", function (e) {
      if (!drag) return;
      var r = box.getBoundingClientRect();
      x = drag[2] - (e.clientX - drag[0]) * w / r.width;
      y = drag[3] - (e.clientY - drag[1]) * h / r.height; set();
    });
    Array.prototype.forEach.call(svg.querySelectorAll("g.node"), function (g) {
      var t = g.querySelector("title"), name = t ? t.textContent : "";
      // a folded box's id lists every piece it stands for: b:submod_1,submod_3,...
      var many = /^b:([^:].*,.*)$/.exec(g.id || "");
      function pick() {
        Array.prototype.forEach.call(svg.querySelectorAll("g.node.sel"), function (s) { s.classList.remove("sel"); });
        g.classList.add("sel");
        onPiece(many ? many[1] : name.split(" ")[0]);
      }
      g.addEventListener("click", pick);
      if (name.charAt(0) === ":") return;  // the inputs and outputs boxes
      // reachable by keyboard: Tab to a piece, Enter or Space lists its nodes
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      g.setAttribute("aria-label", "piece " + name + ": list its nodes");
      g.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(); }
      });
    });
  }

  function bars(host, title, items) {
    var max = 0;
    items.forEach(function (it) { max = Math.max(max, it[1]); });
    host.appendChild(el("h4", {}, title));
    items.forEach(function (it) {
      var row = el("div", {"class": "bar", title: it[0]});
      row.appendChild(el("span", {"class": "name"}, it[0]));
      var f = el("div", {"class": "fill"});
      f.style.width = (max ? 100 * it[1] / max : 0) + "%";
      row.appendChild(f);
      row.appendChild(el("span", {"class": "ms"}, ms(it[1]) + " ms"));
      host.appendChild(row);
    });
  }

  // --baseline: what changed since it, marked where it is (compiles, pieces in the tables and
  // the picture)
  var changedCompile = {}, changedPiece = {};
  if (data.baseline) data.baseline.changes.forEach(function (c) {
    var rk = c.rank === null ? -1 : c.rank;
    (c.compile_ids || "").split(", ").forEach(function (x) { if (x) changedCompile[rk + "|" + x] = 1; });
    if (c.graph && c.pieces)
      c.pieces.split(", ").forEach(function (x) { changedPiece[c.graph + "|" + x] = 1; });
  });

  var prof = data.profile, profPieces = {}, opener = {};
  if (prof) (prof.pieces || []).forEach(function (p) { profPieces[p.name] = p; });

  data.graphs.forEach(function (g) {
    if (!g.split) return;
    var id = g.id, split = g.split, why = {};
    split.boundaries.forEach(function (b) { why[b.before] = b.reason; });
    var pcols = [{name: "piece"}, {name: "kind"}, {name: "nodes", num: 1},
                 {name: "CUDA graph"}, {name: "why it starts here", cls: "reasons"}];
    if (prof) pcols.push({name: "GPU ms", num: 1, fmt: ms});
    var prow = split.pieces.map(function (p) {
      var r = [p.name, p.is_splitting_graph ? "splitting" : "compiled", p.n_nodes,
               p.is_splitting_graph ? "eager"
                 : !(split.splitting_ops || []).length ? "-"  // no piecewise backend split it
                 : p.capturable ? "yes" : "no: " + p.capturable_reasons.join("; "),
               why[p.name] || ""];
      if (prof) r.push(profPieces[p.name] ? profPieces[p.name].gpu_ns : null);
      return r;
    });
    var ph = document.getElementById(id + "-ptable");
    var pdiv = el("div"); ph.parentNode.replaceChild(pdiv, ph);
    new Table(pdiv, pcols, prow, {rowClass: function (r) {
      return changedPiece[g.ref + "|" + r[0]] ? "changed" : "";
    }});
    var pbox = document.getElementById(id + "-svg");
    if (pbox && data.baseline) Array.prototype.forEach.call(pbox.querySelectorAll("g.node"), function (n) {
      var t = n.querySelector("title");
      if (t && changedPiece[g.ref + "|" + t.textContent.split(" ")[0]]) n.classList.add("changed");
    });

    var t = g.table, pieces = split.pieces.map(function (p) { return p.name; });
    var nrows = t.rows.map(function (r) {
      return [r[0], r[1], t.targets[r[2]], r[3], r[4], r[5] >= 0 ? pieces[r[5]] : "",
              r[6] >= 0 ? t.sources[r[6]] : ""];
    });
    var nh = document.getElementById(id + "-nscroll");
    var tools = nh.previousElementSibling;
    if (tools && tools.classList.contains("tools")) tools.parentNode.removeChild(tools);
    var ndiv = el("div"); nh.parentNode.replaceChild(ndiv, nh);
    var nt = new Table(ndiv, [{name: "node"}, {name: "op"}, {name: "target"}, {name: "value"},
                              {name: "status"}, {name: "piece"}, {name: "source"}], nrows,
                       {search: "filter nodes (name, target, shape, piece:NAME)", pieceCol: 5});
    nodeTables.push(nt);
    var box = document.getElementById(id + "-svg");
    function open(piece) {
      nt.input.value = "piece:" + piece; nt.filter(nt.input.value);
    }
    if (box) zoomable(box, function (piece) {
      open(piece); ndiv.scrollIntoView({block: "nearest"});
    });
    opener[id] = function (piece) {
      if (box) Array.prototype.forEach.call(box.querySelectorAll("g.node"), function (n) {
        var t = n.querySelector("title");
        if (t && t.textContent.split(" ")[0] === piece) n.classList.add("sel");
      });
      open(piece);
      // a link to a piece shows its nodes first, then the picture with the piece marked
      var h = document.getElementById(id + "-nodes"), art = document.getElementById(id);
      var first = art.querySelector("p");
      if (h && first) {
        first.parentNode.insertBefore(ndiv, first.nextSibling);
        first.parentNode.insertBefore(h, ndiv);
      }
    };
    var lh = document.getElementById(id + "-ltable");
    if (lh && g.layout) layoutSection(lh, g.layout);
  });

  // The layout document (cgscope layout --json): the decision and its rule, then each part
  // that has rows as a table of its own.
  function layoutSection(host, L) {
    function list(v) { return v === null || v === undefined ? "" : [].concat(v).join(", "); }
    function part(title, cols, rows) {
      if (!rows || !rows.length) return;
      host.appendChild(el("h4", {}, title + " (" + rows.length + ")"));
      var d = el("div"); host.appendChild(d);
      new Table(d, cols.map(function (c) { return {name: c[0], num: c[2]}; }),
                rows.map(function (r) { return cols.map(function (c) { return c[1](r); }); }));
    }
    function key(k) { return function (r) { var v = r[k]; return Array.isArray(v) ? list(v) : v; }; }
    host.textContent = "";
    var p = el("p", {"class": "decision"});
    p.appendChild(el("b", {}, "layout optimisation " + (L.layout_opt ? "on" : "off")));
    p.appendChild(document.createTextNode(": " + (L.reason || "") +
      (L.rule ? " (rule " + L.rule + (L.rule_nodes && L.rule_nodes.length ? ": " +
       list(L.rule_nodes) : "") + ")" : "")));
    host.appendChild(p);
    var facts = [["graph", L.graph], ["rules", L.rules], ["inference", L.is_inference],
                 ["backward", L.is_backward], ["nodes", L.nodes], ["convolutions", L.nconv]];
    if (L.flop_vote) facts.push(["weighted flops", L.flop_vote.weighted_flops],
                                ["total flops", L.flop_vote.total_flops]);
    if (L.prefer_channels_last && L.prefer_channels_last.length)
      facts.push(["prefer channels last", list(L.prefer_channels_last)]);
    var dl = el("dl", {"class": "facts"});
    facts.forEach(function (f) {
      if (f[1] === undefined || f[1] === null) return;
      dl.appendChild(el("dt", {}, f[0])); dl.appendChild(el("dd", {}, f[1]));
    });
    host.appendChild(dl);
    part("convolutions", [["name", key("name")], ["class", key("class")], ["weight", key("weight")],
                          ["groups", key("groups"), true], ["transposed", key("transposed")],
                          ["flops", key("flops"), true], ["counted", key("counted")]],
         L.convolutions);
    part("stride orders", [["node", key("name")], ["requirement", key("requirement")],
                           ["order", key("order")], ["dense", key("dense")]], L.stride_orders);
    part("fixed layouts", [["node", key("name")], ["user", key("user")], ["order", key("order")],
                           ["channels last", key("channels_last")]], L.fixed_layout);
    part("realize hints", [["node", function (r) { return r; }]], L.realize_hints);
    part("channels last if realized", [["node", function (r) { return r; }]],
         L.channels_last_if_realized);
    part("input constraints", [["node", key("name")], ["target", key("target")],
                               ["constraint", key("constraint")]], L.input_constraints);
    part("fallbacks", [["node", key("name")], ["target", key("target")], ["kind", key("kind")]],
         L.fallbacks);
  }

  // the compiles on a time axis: each ends at its row's last event and lasts its last compile
  function timeline(host, rows) {
    var t = rows.filter(function (r) { return r.last_ts !== null && r.last_ts !== undefined &&
                                              r.last_compile_ms > 0; });
    if (!t.length) return;
    // several ranks: each rank's compiles together, in time order, labelled with the rank
    var ranks = {};
    t.forEach(function (r) { if (r.rank !== null && r.rank !== undefined) ranks[r.rank] = 1; });
    var multi = Object.keys(ranks).length > 1;
    if (multi) t = t.slice().sort(function (a, b) {
      return (a.rank - b.rank) || (a.last_ts - a.last_compile_ms / 1000) -
                                  (b.last_ts - b.last_compile_ms / 1000);
    });
    var t0 = Infinity, t1 = -Infinity, NS = "http://www.w3.org/2000/svg";
    t.forEach(function (r) {
      t0 = Math.min(t0, r.last_ts - r.last_compile_ms / 1000); t1 = Math.max(t1, r.last_ts);
    });
    var W = 1000, H = 18 * t.length + 24, span = Math.max(t1 - t0, 1e-3);
    var svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("class", "timeline");
    t.forEach(function (r, i) {
      var x = 340 + (W - 350) * (r.last_ts - r.last_compile_ms / 1000 - t0) / span;
      var w = Math.max(2, (W - 350) * (r.last_compile_ms / 1000) / span);
      var lab = document.createElementNS(NS, "text");
      lab.setAttribute("x", 0); lab.setAttribute("y", 18 * i + 13);
      lab.textContent = (multi ? "rank " + r.rank + " \u00b7 " : "") +
          (r.compile_id || r.graph_index) + (r.frame ? " " + r.frame : "");
      var bar = document.createElementNS(NS, "rect");
      bar.setAttribute("x", x); bar.setAttribute("y", 18 * i + 3);
      bar.setAttribute("width", w); bar.setAttribute("height", 12);
      bar.setAttribute("class", r.recompiles ? "re" : "");
      var tip = document.createElementNS(NS, "title");
      tip.textContent = (r.compile_id || "") + ": " + r.last_compile_ms.toFixed(1) + " ms" +
          (r.reasons && r.reasons.length ? "\n" + r.reasons.join("\n") : "");
      bar.appendChild(tip);
      svg.appendChild(lab); svg.appendChild(bar);
    });
    var axis = document.createElementNS(NS, "text");
    axis.setAttribute("x", 340); axis.setAttribute("y", H - 4);
    axis.textContent = "0 s ... " + span.toFixed(2) + " s (a bar: the last compile of a row; " +
        "recompiles marked)";
    svg.appendChild(axis);
    host.appendChild(el("h4", {}, "Compile timeline"));
    host.appendChild(svg);
  }

  var ct = document.getElementById("ctable");
  if (ct && data.top) {
    new Table(ct, [{name: "compile id"}, {name: "rank"}, {name: "frame"}, {name: "graph"},
                   {name: "shape"}, {name: "backend"}, {name: "hits", num: 1}, {name: "misses", num: 1},
                   {name: "compiles", num: 1}, {name: "compile ms", num: 1}, {name: "recompiles", num: 1},
                   {name: "why it failed or recompiled", cls: "reasons"}],
              data.top.rows.map(function (r) {
                // a failure and torch's refusal at its recompile limit are said apart from
                // the recompile reasons; a time the log does not give is "-", never 0
                var why = (r.reasons || []).join("\n");
                if (r.fail_type) why = "failed: " + r.fail_type + ": " + (r.fail_reason || "");
                else if (r.recompile_limit) why = "recompile limit reached (ran without compiling)" +
                    (why ? "\n" + why : "");
                return [(r.compile_id || "") + (r.run > 1 ? "@" + r.run : ""),
                        r.rank === null ? "" : r.rank, r.frame || "",
                        r.graph_index === null ? "" : r.graph_index,
                        r.runtime_shape !== null ? r.runtime_shape
                          : r.graph_index === null && r.compile_id ? "" : "dynamic",
                        r.backend || "",
                        r.hits, r.misses, r.compiles,
                        r.compile_ms === null ? "-" : Math.round(r.compile_ms * 10) / 10,
                        r.recompiles, why];
              }), {search: "filter compiles", rowClass: function (r) {
                var id = String(r[0]).replace(/@\d+$/, "");
                return changedCompile[(r[1] === "" ? -1 : r[1]) + "|" + id] ? "changed" : "";
              }});
    var tl = el("div");
    ct.parentNode.insertBefore(tl, ct);
    timeline(tl, data.top.rows);
  }
  var pb = document.getElementById("pbars");
  if (pb && prof) {
    pb.textContent = "";  // the tables written for a reader without JavaScript
    bars(pb, "GPU time per piece", (prof.pieces || []).map(function (p) { return [p.name, p.gpu_ns]; })
         .sort(function (a, b) { return b[1] - a[1]; }));
    bars(pb, "GPU time per kernel (top " + Math.min(20, (prof.kernel_table || []).length) + ")",
         (prof.kernel_table || []).slice(0, 20).map(function (k) { return [k.name, k.gpu_ns]; }));
  }
  // a link to a piece: report.html#open=g0:submod_2 lists its nodes
  // ... and #only=SECTION shows that section alone (the summary, the profile: a picture of one)
  function only(node) {
    for (var n = node; n && n !== document.body; n = n.parentNode)
      Array.prototype.forEach.call(n.parentNode ? n.parentNode.children : [], function (sib) {
        if (sib !== n && sib.tagName !== "SCRIPT" && sib.tagName !== "HEADER" &&
            !/^H[1-6]$/.test(sib.tagName)) sib.style.display = "none";
      });
  }
  var hash = decodeURIComponent(location.hash);
  var m = /^#open=([^:]+):(.+)$/.exec(hash);
  if (m && opener[m[1]]) { only(document.getElementById(m[1])); opener[m[1]](m[2]); }
  // a link to a node: report.html#node=NAME opens the node table at it (bug reports link so)
  var nm = /^#node=(.+)$/.exec(hash);
  if (nm) for (var t = 0; t < nodeTables.length; t++) if (nodeTables[t].reveal(nm[1])) break;
  // report.html#sort=COLUMN (or #sort=-COLUMN, descending) sorts the node tables by it
  var so = /^#sort=(-?)(.+)$/.exec(hash);
  if (so) nodeTables.forEach(function (t) {
    // the column's ranks first (data-ranks-ms: what a click before the idle work pays more)
    var t0 = performance.now();
    for (var c = 0; c < t.cols.length; c++)
      if (t.cols[c].name === so[2] && !t.ranks[c]) t.ranks[c] = columnRanks(t.all, c);
    document.documentElement.setAttribute("data-ranks-ms", Math.round(performance.now() - t0));
    t.sortBy(so[2], so[1] ? -1 : 1);
  });
  // the long tables' column ranks, a column each idle moment, so that a click only sorts
  (function next() {
    for (var t = 0; t < idleRanks.length; t++)
      for (var c = 0; c < idleRanks[t].cols.length; c++)
        if (!idleRanks[t].ranks[c]) {
          var tab = idleRanks[t], col = c;
          var later = window.requestIdleCallback ? window.requestIdleCallback.bind(window)
                                                 : function (f) { setTimeout(f, 50); };
          later(function () {
            if (!tab.ranks[col]) tab.ranks[col] = columnRanks(tab.all, col);
            next();
          });
          return;
        }
  })();
  var o = /^#only=(.+)$/.exec(hash);
  if (o && document.getElementById(o[1])) only(document.getElementById(o[1]));
  document.documentElement.setAttribute("data-ready", "1");
  // how wide the page is once drawn (a test reads it: a phone's width takes no sideways scroll)
  document.documentElement.setAttribute("data-width", document.documentElement.scrollWidth);
  // when the page first showed something and when its script had finished (ms): make bench's
  // and the docs' figures of first paint on a large graph
  document.documentElement.setAttribute("data-ready-ms", Math.round(performance.now()));
  if (window.PerformanceObserver) {
    try {
      new PerformanceObserver(function (l) {
        l.getEntries().forEach(function (e) {
          if (e.name === "first-contentful-paint")
            document.documentElement.setAttribute("data-fcp-ms", Math.round(e.startTime));
        });
      }).observe({type: "paint", buffered: true});
    } catch (e) { /* an old browser: no figure */ }
  }
})();
