// page.js: warplab's run page. Served (by `watch --serve`, `run --serve`) it reads the runs
// from the server and follows them through server-sent events, updating in place; saved
// (`run --html`) it reads them from the document. Every string a run produced is put in
// the page with textContent, never parsed as markup; pictures are <img> elements (an SVG
// shown that way runs no script). Marks what changed since the run before.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  };
  const dataNode = $("warplab-data");
  const saved = dataNode ? JSON.parse(dataNode.textContent) : null;
  const token = new URLSearchParams(location.search).get("token") || "";
  const runs = new Map();  // run number -> its record as far as loaded
  let state = null;        // the runs kept: {script, version, runs: [{run, outcome, ...}]}
  let follow = true, wanted = null;
  let view = null;         // what is on screen: {run, count, body, tail, head, marks, ...}

  // ---- ANSI colours (the terminal's output, as printed) ----------------------------
  const BASE = ["#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
                "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"];
  function xterm(n) {
    if (n < 16) return BASE[n];
    if (n >= 232) { const v = 8 + (n - 232) * 10; return "rgb(" + v + "," + v + "," + v + ")"; }
    n -= 16;
    const lv = (x) => (x === 0 ? 0 : 55 + x * 40);
    return "rgb(" + lv(Math.floor(n / 36)) + "," + lv(Math.floor(n / 6) % 6) + "," + lv(n % 6) + ")";
  }
  // Appends `line` to `parent` as text spans, SGR colours applied, other escapes dropped.
  function ansi(parent, line) {
    const re = /\x1b\[([0-9;]*)m|\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)?|\x1b[@-_]?/g;
    let st = {}, at = 0, m;
    const put = (text) => {
      if (!text) return;
      if (!st.fg && !st.bg && !st.bold) { parent.appendChild(document.createTextNode(text)); return; }
      const s = el("span", null, text);
      if (st.fg) s.style.color = st.fg;
      if (st.bg) s.style.backgroundColor = st.bg;
      if (st.bold) s.style.fontWeight = "bold";
      parent.appendChild(s);
    };
    while ((m = re.exec(line)) !== null) {
      put(line.slice(at, m.index));
      at = re.lastIndex;
      if (m[1] === undefined) continue;
      const p = m[1] === "" ? [0] : m[1].split(";").map(Number);
      for (let i = 0; i < p.length; i++) {
        const c = p[i];
        if (c === 0) st = {};
        else if (c === 1) st.bold = true;
        else if (c === 22) st.bold = false;
        else if (c >= 30 && c <= 37) st.fg = BASE[c - 30];
        else if (c >= 90 && c <= 97) st.fg = BASE[c - 82];
        else if (c >= 40 && c <= 47) st.bg = BASE[c - 40];
        else if (c >= 100 && c <= 107) st.bg = BASE[c - 92];
        else if (c === 39) st.fg = null;
        else if (c === 49) st.bg = null;
        else if ((c === 38 || c === 48) && p[i + 1] === 5 && p[i + 2] >= 0 && p[i + 2] <= 255) {
          st[c === 38 ? "fg" : "bg"] = xterm(p[i + 2]); i += 2;
        } else if ((c === 38 || c === 48) && p[i + 1] === 2 && i + 4 < p.length) {
          const rgb = p.slice(i + 2, i + 5).map((v) => Math.max(0, Math.min(255, v | 0)));
          st[c === 38 ? "fg" : "bg"] = "rgb(" + rgb.join(",") + ")"; i += 4;
        }
      }
    }
    put(line.slice(at));
  }
  const plain = (s) => String(s).replace(/\x1b\[[0-9;?]*[ -\/]*[@-~]/g, "");

  // ---- what changed since the run before --------------------------------------------
  function marksFrom(prev) {
    const m = { lines: new Map(), checks: new Map(), tables: [], svgs: new Map(), counters: new Map(), any: !!prev };
    if (!prev) return m;
    const addLines = (text) => {
      for (const l of text.split("\n")) m.lines.set(plain(l), (m.lines.get(plain(l)) || 0) + 1);
    };
    for (const it of prev.items) {
      if (it.kind === "text") addLines(it.text.replace(/\n$/, ""));
      else if (it.kind === "check") m.checks.set(it.name + "\u0000" + it.what, it.ok);
      else if (it.kind === "table") m.tables.push(it);
      else if (it.kind === "svg") m.svgs.set(it.name, it.hash);
      else if (it.kind === "counters") {
        for (const r of it.counters.rows)
          for (const k in r.values) m.counters.set(r.kernel + "\u0000" + k, r.values[k]);
      }
    }
    return m;
  }
  // A line printed before too (as often) is not new.
  function lineChanged(line) {
    const m = view.marks;
    if (!m.any) return false;
    const k = plain(line), n = m.lines.get(k) || 0;
    if (n > 0) { m.lines.set(k, n - 1); return false; }
    return true;
  }
  function prevTable(item) {
    const m = view.marks;
    const same = m.tables.filter((t) => t.title === item.title);
    return same.length ? same[view.seen(item.title)] : m.tables[view.tables];
  }

  // ---- one item each ---------------------------------------------------------------
  function textItem(it) {
    const box = el("div", "out");
    const lines = it.text.replace(/\n$/, "").split("\n");
    for (const line of lines) {
      const d = el("div", "line " + it.stream);
      if (/^\S.*:\d+:\d+: (fatal )?(error|warning)/.test(plain(line))) d.classList.add("diag");
      if (lineChanged(line)) d.classList.add("changed");
      ansi(d, line);
      box.appendChild(d);
    }
    return box;
  }
  function checkItem(it) {
    const d = el("div", "check " + (it.ok ? "ok" : "fail"));
    d.appendChild(el("span", "mark", it.ok ? "\u2713" : "\u2717"));
    d.appendChild(el("span", "what", it.what));
    if (it.evidence) d.appendChild(el("span", "evidence", "  (" + it.evidence + ")"));
    const k = it.name + "\u0000" + it.what;
    if (view.marks.any && (!view.marks.checks.has(k) || view.marks.checks.get(k) !== it.ok)) {
      d.classList.add("changed");
      d.title = view.marks.checks.has(k) ? (it.ok ? "failed in the run before" : "passed in the run before")
                                          : "new since the run before";
    }
    return d;
  }
  function tableItem(it) {
    const box = el("div", "tablebox"), t = el("table");
    if (it.title !== null && it.title !== undefined) box.appendChild(el("div", "tabletitle", it.title));
    const prev = view.marks.any ? prevTable(it) : null;
    view.tables++;
    if (it.columns) {
      const tr = el("tr");
      for (const c of it.columns) tr.appendChild(el("th", null, c));
      t.appendChild(el("thead")).appendChild(tr);
    }
    const body = t.appendChild(el("tbody"));
    it.rows.forEach((row, i) => {
      const tr = body.appendChild(el("tr"));
      row.forEach((cell, j) => {
        const td = tr.appendChild(el("td", it.numeric[j] ? "num" : null, cell));
        const was = prev && prev.rows[i] ? prev.rows[i][j] : undefined;
        if (prev && was !== cell) { td.classList.add("changed"); td.title = was === undefined ? "new" : "was " + was; }
      });
    });
    box.appendChild(t);
    if (it.more > 0) box.appendChild(el("div", "more", it.more + " more rows not shown"));
    return box;
  }
  function svgItem(it) {
    const f = el("figure");
    const img = el("img");
    img.alt = it.name;
    if (it.width > 0 && it.height > 0) { img.width = it.width; img.height = it.height; }  // its place, before it loads
    img.src = it.src || "api/svg?" + new URLSearchParams({ token: token, run: view.run, id: it.id });
    f.appendChild(img);
    const cap = f.appendChild(el("figcaption", null, it.name));
    const was = view.marks.svgs.get(it.name);
    if (view.marks.any && was !== it.hash) cap.appendChild(el("span", "badge", was === undefined ? "new" : "changed"));
    return f;
  }
  const number = (v) => (v === null || v === undefined ? "-" : Number.isInteger(v) ? String(v) :
                         Math.abs(v) >= 1e6 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(3) : String(+v.toPrecision(4)));
  function countersItem(it) {
    const c = it.counters, t = el("table", "counters"), box = el("div", "tablebox");
    box.appendChild(el("div", "tabletitle", "hardware counters" + (c.chip ? " (" + c.chip + ")" : "")));
    const head = el("tr");
    for (const h of ["kernel", "site", "launches"]) head.appendChild(el("th", null, h));
    for (const k of c.counters) {
      const th = el("th", null, k.name + (k.unit ? " (" + k.unit + ")" : ""));
      if (k.meaning) th.title = k.meaning;
      head.appendChild(th);
    }
    t.appendChild(el("thead")).appendChild(head);
    const body = t.appendChild(el("tbody"));
    for (const r of c.rows) {
      const tr = body.appendChild(el("tr"));
      tr.appendChild(el("td", null, r.kernel));
      tr.appendChild(el("td", null, r.site));
      tr.appendChild(el("td", "num", r.launches));
      for (const k of c.counters) {
        const v = r.values[k.name], td = tr.appendChild(el("td", "num", number(v)));
        const key = r.kernel + "\u0000" + k.name;
        if (view.marks.any && view.marks.counters.has(key)) {
          const was = view.marks.counters.get(key);
          const moved = (was === null) !== (v === null) ||
                        (v !== null && Math.abs(v - was) > 0.01 * Math.max(Math.abs(v), Math.abs(was)));
          if (moved) { td.classList.add("changed"); td.title = "was " + number(was); }
        }
      }
    }
    box.appendChild(t);
    if (c.note) box.appendChild(el("div", "note", c.note));
    return box;
  }
  function item(it) {
    switch (it.kind) {
      case "text": return textItem(it);
      case "check": return checkItem(it);
      case "summary": return el("div", "summary " + (it.failed > 0 ? "fail" : "ok"),
                                it.name + ": " + it.passed + " passed, " + it.failed + " failed");
      case "table": return tableItem(it);
      case "svg": return svgItem(it);
      case "file": return el("div", "file", "wrote " + it.name + " (" + it.bytes + " bytes" +
                             (it.note ? ", " + it.note : "") + ")");
      case "note": return el("div", "note", it.text);
      case "counters": return countersItem(it);
      case "cut": return el("div", "cut", it.text);
      default: return null;
    }
  }
  // The kernel's source line by line, when the run sent it (`--lines`): the rows of
  // `warplab run --lines --json` (lab::lines_json), one table per kernel, cells as the
  // terminal's listing writes them, its three hottest lines marked.
  const has = (v) => typeof v === "number" && isFinite(v);
  const fixed = (v, d) => (has(v) ? v.toFixed(d) : "-");
  function lineCells(cols, r) {
    const c = [];
    if (!cols.counted && !cols.stalls) c.push(["instr", r.instructions]);
    if (cols.instructions) {
      c.push(["warp inst", fixed(r.inst, 0)], ["thread inst", fixed(r.thread_inst, 0)],
             ["pred off", has(r.predicated_off) ? (100 * r.predicated_off).toFixed(1) + " %" : "-"]);
    }
    if (cols.shared) c.push(["shared", has(r.shared_way) ? r.shared_way.toFixed(1) + "-way" : "-"]);
    if (cols.global)
      c.push(["global", has(r.global_ideal) && r.global_ideal > 0 ? (r.global_sectors / r.global_ideal).toFixed(2) + "x" : "-"]);
    if (cols.local) c.push(["local", has(r.local_sectors) && r.local_sectors > 0 ? r.local_sectors.toFixed(0) : "-"]);
    if (cols.stalls) {
      const top = Object.entries(r.reasons || {}).sort((a, b) => b[1] - a[1]).slice(0, 2)
        .map(([k, n]) => k + " " + (has(r.samples) && r.samples > 0 ? Math.round(100 * n / r.samples) : 0) + "%");
      c.push(["stalls", has(r.samples) && r.samples > 0 ? (100 * r.share).toFixed(1) + " %" : "-"],
             ["top reasons", top.join(", ")]);
    }
    return c;
  }
  function heat(r) {
    if (has(r.inst)) return r.inst;
    if (has(r.samples)) return r.samples;
    return r.instructions || 0;
  }
  function linesSection(lines) {
    const s = el("section", "lines");
    s.appendChild(el("h2", null, "Source, line by line"));
    const names = lines.columns || [], allRows = lines.rows || [];
    for (const k of lines.kernels || []) {
      const ran = k.launches > 0;
      const cols = { counted: ran && names.some((n) => n !== "stalls"), stalls: ran && names.includes("stalls") };
      for (const n of ["instructions", "shared", "global", "local"]) cols[n] = cols.counted && names.includes(n);
      const rows = allRows.filter((r) => r.kernel === k.kernel);
      const insts = rows.reduce((a, r) => a + (r.instructions || 0), 0);
      const box = s.appendChild(el("div", "tablebox"));
      box.appendChild(el("div", "tabletitle", k.kernel + ": " + (ran
        ? k.launches + (k.launches === 1 ? " launch" : " launches") +
          (cols.counted ? ", exact counts" : "") + (cols.stalls ? ", " + Math.round(k.samples) + " stall samples" : "")
        : insts + (k.from === "sass" ? " SASS" : " PTX") + " instructions on " + rows.length + " lines")));
      if (k.note) box.appendChild(el("div", "note", k.note));
      const hot = rows.slice().sort((a, b) => heat(b) - heat(a)).slice(0, 3).filter((r) => heat(r) > 0);
      const t = box.appendChild(el("table"));
      const head = el("tr");
      const shown = rows.length ? lineCells(cols, rows[0]).map((c) => c[0]) : [];
      for (const h of ["line"].concat(shown, ["source", "compiled to"])) head.appendChild(el("th", null, h));
      t.appendChild(el("thead")).appendChild(head);
      const body = t.appendChild(el("tbody"));
      let file = null;
      for (const r of rows) {
        if (r.file !== file) {
          file = r.file;
          const ft = body.appendChild(el("tr", "linefile"));
          const td = ft.appendChild(el("td", null, file || "(no line information)"));
          td.colSpan = shown.length + 3;
        }
        const tr = body.appendChild(el("tr", hot.includes(r) ? "hot" : null));
        tr.appendChild(el("td", "num", r.line || "-"));
        for (const [h, v] of lineCells(cols, r)) tr.appendChild(el("td", h === "top reasons" ? "reasons" : "num", v));
        tr.appendChild(el("td", "src", r.text));
        tr.appendChild(el("td", "kinds", (r.kinds || []).join(", ")));
      }
    }
    if (lines.note) s.appendChild(el("div", "note", lines.note));
    return s;
  }

  // ---- the run on screen -----------------------------------------------------------
  const outcomeText = { ok: "ok", failed: "failed", stopped: "stopped", cancelled: "cancelled" };
  function head(r) {
    const h = el("div", "runhead");
    h.appendChild(el("h1", null, "run " + r.run));
    h.appendChild(el("span", "outcome " + (r.outcome || "running"), r.outcome ? outcomeText[r.outcome] || r.outcome : "running"));
    h.appendChild(el("span", "endline", r.line || r.header || ("started " + r.started)));
    return h;
  }
  function previous(n) {
    if (!state) return null;
    const i = state.runs.findIndex((r) => r.run === n);
    return i > 0 ? runs.get(state.runs[i - 1].run) || null : null;
  }
  function render(n) {
    const r = runs.get(n), main = $("run");
    if (!r) return;
    if (!view || view.run !== n) {
      const y = window.scrollY;
      main.style.minHeight = main.offsetHeight + "px";  // the page keeps its height: no jump
      main.textContent = "";
      const counts = new Map();
      view = { run: n, count: 0, tables: 0, marks: marksFrom(previous(n)), linesShown: false,
               seen: (title) => { const c = counts.get(title) || 0; counts.set(title, c + 1); return c; } };
      view.head = main.appendChild(head(r));
      view.body = main.appendChild(el("div", "items"));
      view.tail = main.appendChild(el("div", "out tail"));
      window.scrollTo(0, y);
    }
    for (; view.count < r.items.length; view.count++) {
      const node = item(r.items[view.count]);
      if (node) view.body.appendChild(node);
    }
    view.tail.textContent = "";
    for (const s of ["out", "err"])
      if (r.tail && r.tail[s]) {
        const d = view.tail.appendChild(el("div", "line " + s));
        ansi(d, r.tail[s]);
      }
    const h = head(r);
    view.head.replaceWith(h);
    view.head = h;
    if (r.lines && !view.linesShown) { main.appendChild(linesSection(r.lines)); view.linesShown = true; }
    // Once the run is over and its pictures are in, the page takes its own height again.
    if (r.outcome && main.style.minHeight) {
      const shown = view;
      Promise.all(Array.from(main.querySelectorAll("img")).map((i) => i.decode().catch(() => null))).then(() => {
        if (view === shown) main.style.minHeight = "";
      });
    }
  }
  function history() {
    const nav = $("history");
    nav.textContent = "";
    if (!state) return;
    for (const r of state.runs) {
      const b = nav.appendChild(el("button", (r.outcome || "running") + (view && view.run === r.run ? " shown" : ""), "run " + r.run));
      b.title = r.line || r.header || "";
      b.addEventListener("click", () => {
        follow = r.run === state.runs[state.runs.length - 1].run;
        wanted = r.run;
        refresh();
      });
    }
    if (state.runs.length && !follow) {
      const b = nav.appendChild(el("button", null, "latest"));
      b.addEventListener("click", () => { follow = true; refresh(); });
    }
  }

  // ---- loading ---------------------------------------------------------------------
  async function get(path, params) {
    const r = await fetch(path + "?" + new URLSearchParams(Object.assign({ token: token }, params || {})), { cache: "no-store" });
    if (r.status === 404) return null;
    if (r.status === 503) {  // the server is busy sending (or has many pages open): again soon
      await new Promise((done) => setTimeout(done, 1000));
      return get(path, params);
    }
    if (!r.ok) throw new Error(path + ": " + r.status);
    return r.json();
  }
  // Run n's items that came since the last load (none when the state says there are none:
  // the watcher's lines about a run come after its end, so an ended run may still grow).
  async function load(n) {
    const have = runs.get(n), known = state.runs.find((r) => r.run === n);
    if (have && known && have.items.length >= known.count && have.outcome === known.outcome) return have;
    const r = await get("api/run", { run: n, from: have ? have.items.length : 0 });
    if (!r) return null;
    if (have && r.from === have.items.length) r.items = have.items.concat(r.items);
    runs.set(n, r);
    return r;
  }
  async function sync() {
    state = await get("api/state");
    for (const k of Array.from(runs.keys())) if (!state.runs.some((r) => r.run === k)) runs.delete(k);
    $("script").textContent = state.script;
    if (!state.runs.length) { history(); return; }
    const last = state.runs[state.runs.length - 1].run;
    const n = follow || !state.runs.some((r) => r.run === wanted) ? last : wanted;
    const i = state.runs.findIndex((r) => r.run === n);
    if (i > 0) await load(state.runs[i - 1].run);  // the marks need the run before, whole
    if (await load(n)) render(n);
    history();
  }
  let busy = false, again = false;
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      do { again = false; await sync(); } while (again);
    } catch (e) {
      status("not connected (" + e.message + ")", "down");
    } finally { busy = false; }
  }
  function status(text, cls) { const s = $("status"); s.textContent = text; s.className = "status " + (cls || ""); }

  if (saved) {
    state = { script: saved.script, version: saved.version, runs: saved.runs.map((r) => ({ run: r.run, outcome: r.outcome, line: r.line, header: r.header })) };
    for (const r of saved.runs) runs.set(r.run, r);
    $("script").textContent = saved.script;
    status("saved page");
    const show = () => {
      const n = follow || wanted === null ? state.runs[state.runs.length - 1].run : wanted;
      if (state.runs.length) render(n);
      history();
    };
    refresh = async () => show();  // eslint-disable-line no-func-assign
    show();
    return;
  }
  // One event stream per browser, whatever the number of tabs: a browser opens at most six
  // connections to one address, so six tabs each holding a stream would leave none for the
  // data. The tab holding the lock (Web Locks) follows the stream and tells the other tabs
  // through a BroadcastChannel; when it closes, another takes the lock and the stream over.
  // Without these APIs (a page reached over plain HTTP from another machine) each tab
  // follows its own stream.
  let version = -1, leading = null;  // leading: the stream's status, in the tab that follows it
  const name = "warplab-page-" + token;
  const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(name) : null;
  const heard = (msg) => {
    if (msg.status) status(msg.status[0], msg.status[1]);
    if (msg.version !== undefined && msg.version !== version) { version = msg.version; refresh(); }
  };
  const follow_stream = () => new Promise(() => {
    const tell = (msg) => { leading = msg.status; heard(msg); if (channel) channel.postMessage(msg); };
    const events = new EventSource("api/events?" + new URLSearchParams({ token: token }));
    events.onopen = () => tell({ status: ["live", "live"] });
    events.onmessage = (e) => tell({ status: ["live", "live"], version: JSON.parse(e.data).version });
    events.onerror = () => tell({ status: ["not connected: is warplab still running?", "down"] });
  });
  if (channel && navigator.locks) {
    channel.onmessage = (e) => {
      const msg = e.data || {};
      if (!msg.ask) heard(msg);
      else if (leading) channel.postMessage({ status: leading, version: version });  // a new tab asks
    };
    channel.postMessage({ ask: true });
    navigator.locks.request(name, follow_stream);
  } else {
    follow_stream();
  }
  refresh();
})();
