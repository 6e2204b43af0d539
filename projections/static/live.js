// The live page (projections/live/page.py): episodes in trouble first, the budget burn of one episode, and the
// alert feed over Server-Sent Events. Reads only the JSON routes of projections/api.py; every URL is relative, so
// the page works under any prefix a proxy serves the API at. Data is written with textContent, never as HTML.
"use strict";

(function () {
  const PAGE_SIZE = 50;
  const ALERTS_KEPT = 200;
  const BURN_HIGH = 0.8; // the read model counts an episode as in trouble from 80 % of a budget
  const REFRESH_MS = 5000;
  const W = 640, H = 280, M = { left: 44, right: 12, top: 14, bottom: 30 };

  const $ = (selector) => document.querySelector(selector);
  const state = { selected: null, next: null, seenAlerts: new Set(), refreshTimer: null, detailToken: 0 };
  // The SVG namespace, taken from the <svg> the HTML parser built, so that no URL appears in this file.
  const SVG_NS = $("#chart svg").namespaceURI;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  async function getJSON(path) {
    const response = await fetch(path, { headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    return response.json();
  }

  function showError(message) {
    const box = $("#error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  function shortTime(iso) {
    return iso ? String(iso).replace("T", " ").replace(/\.\d+Z$|Z$/, "") : "";
  }

  function percent(burn) {
    return burn === null || burn === undefined ? "" : `${Math.round(burn * 100)}%`;
  }

  function episodeHash(id) {
    return `#episode=${encodeURIComponent(id)}`;
  }

  function hashEpisode() {
    const match = /^#episode=(.+)$/.exec(window.location.hash);
    return match ? decodeURIComponent(match[1]) : null;
  }

  // ------------------------------------------------------------------------------------------- episodes
  function episodeRow(ep) {
    const row = el("tr");
    row.dataset.episodeId = ep.episode_id;
    row.tabIndex = 0;
    const packets = ep.packets || { accepted: 0, warnings: 0, rejected: 0 };
    if (ep.trouble > 0) row.classList.add("trouble");
    if (ep.safe_mode) row.classList.add("safe-mode");
    if (packets.rejected > 0) row.classList.add("rejections");
    if (ep.max_burn !== null && ep.max_burn !== undefined && ep.max_burn >= BURN_HIGH) row.classList.add("burn-high");
    if (ep.episode_id === state.selected) row.classList.add("selected");

    row.append(el("td", "episode", ep.episode_id));
    const fsm = el("td", "state", ep.fsm_state);
    if (ep.safe_mode) fsm.append(el("span", "badge safe", "SAFE MODE"));
    row.append(fsm);

    const counts = el("td", "packets");
    counts.append(el("span", "accepted", packets.accepted), " / ", el("span", "warnings", packets.warnings), " / ",
      el("span", "rejected", packets.rejected));
    if (ep.last_rejection) {
      const why = [ep.last_rejection.rule, ep.last_rejection.reason].filter(Boolean).join(": ");
      counts.title = `last rejection ${ep.last_rejection.packet_id} ${why}`;
    }
    row.append(counts);

    const burn = el("td", "burn");
    if (ep.max_burn !== null && ep.max_burn !== undefined) {
      const meter = el("meter");
      Object.assign(meter, { min: 0, max: 1, low: BURN_HIGH, high: 0.999, optimum: 0, value: Math.min(ep.max_burn, 1) });
      burn.append(meter, el("span", "value", percent(ep.max_burn)));
    }
    burn.title = Object.entries(ep.budgets || {})
      .map(([name, b]) => `${name}: ${b.used}${b.limit === null ? " (no limit)" : ` / ${b.limit} (${percent(b.burn)})`}`)
      .join("\n");
    row.append(burn);

    const alerts = el("td", "alerts", ep.alerts || 0);
    if (ep.top_severity) alerts.append(el("span", `badge sev-${ep.top_severity}`, ep.top_severity));
    row.append(alerts);
    const last = el("td", "time", shortTime(ep.last_event_time).slice(5)); // the year is in the title
    last.title = ep.last_event_time || "";
    row.append(last);

    row.addEventListener("click", () => select(ep.episode_id));
    row.addEventListener("keydown", (event) => { if (event.key === "Enter") select(ep.episode_id); });
    return row;
  }

  function episodesQuery(cursor) {
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if ($("#trouble-only").checked) params.set("trouble", "true");
    if (cursor) params.set("cursor", cursor);
    return `episodes?${params}`;
  }

  async function loadEpisodes(append) {
    try {
      const page = await getJSON(episodesQuery(append ? state.next : null));
      const body = $("#episodes tbody");
      const rows = page.items.map(episodeRow);
      if (append) body.append(...rows); else body.replaceChildren(...rows);
      state.next = page.next || null;
      $("#episodes-more").hidden = !state.next;
      $("#episodes-empty").hidden = body.children.length > 0;
      $("#updated").textContent = `updated ${new Date().toLocaleTimeString()}`;
      showError(null);
      if (!state.selected && page.items.length && !append) select(page.items[0].episode_id, { replace: true });
    } catch (error) {
      showError(`Cannot read episodes: ${error.message}`);
    }
  }

  function scheduleRefresh(delay) {
    clearTimeout(state.refreshTimer);
    state.refreshTimer = setTimeout(async () => {
      await loadEpisodes(false);
      if (state.selected) await loadDetail(state.selected);
      scheduleRefresh(REFRESH_MS);
    }, delay);
  }

  function select(id, options) {
    const hash = episodeHash(id);
    if (window.location.hash !== hash) {
      if (options && options.replace) window.history.replaceState(null, "", hash);
      else window.location.hash = hash; // hashchange shows it
    }
    show(id);
  }

  function show(id) {
    if (!id) return;
    state.selected = id;
    for (const row of document.querySelectorAll("#episodes tbody tr")) {
      row.classList.toggle("selected", row.dataset.episodeId === id);
    }
    loadDetail(id);
  }

  // ------------------------------------------------------------------------------------------- chart
  async function loadDetail(id) {
    const token = ++state.detailToken; // a slower answer for an earlier click must not overwrite this one
    try {
      const detail = await getJSON(`episodes/${encodeURIComponent(id)}`);
      if (token === state.detailToken) drawChart(detail);
    } catch (error) {
      if (token === state.detailToken) {
        $("#chart-title").textContent = `Budget burn of ${id}`;
        $("#chart-subtitle").textContent = `Cannot read this episode: ${error.message}`;
        $("#chart svg").replaceChildren();
        $("#chart-legend").replaceChildren();
      }
    }
  }

  // One series per budget with a limit: usage / limit over event time (a step line: usage holds until the next
  // verdict). Budgets without a limit have no burn; only when no budget has one are they drawn, dotted, each against
  // its own peak, so that the chart is never silently empty (the note says so).
  function seriesOf(detail) {
    const budgets = detail.budgets || {};
    const timeline = (detail.timeline || []).filter((t) => !Number.isNaN(Date.parse(t.event_time)));
    const names = new Set(Object.keys(budgets));
    for (const entry of timeline) for (const name of Object.keys(entry.usage || {})) names.add(name);
    const all = [];
    for (const name of [...names].sort()) {
      const limit = budgets[name] && budgets[name].limit > 0 ? budgets[name].limit : null;
      const points = timeline
        .filter((t) => t.usage && typeof t.usage[name] === "number")
        .map((t) => ({ t: Date.parse(t.event_time), used: t.usage[name], entry: t }));
      if (!points.length) continue;
      const scale = limit || Math.max(...points.map((p) => p.used)) || 1;
      all.push({ name, limit, points: points.map((p) => ({ ...p, y: p.used / scale })) });
    }
    const limited = all.filter((s) => s.limit);
    const unlimited = all.filter((s) => !s.limit).map((s) => s.name);
    return { series: limited.length ? limited : all, unlimited, timeline };
  }

  function drawChart(detail) {
    const { series, unlimited, timeline } = seriesOf(detail);
    const chart = $("#chart svg");
    chart.replaceChildren();
    $("#chart-title").textContent = `Budget burn of ${detail.episode_id}`;
    const flags = [detail.fsm_state, detail.safe_mode ? "safe mode" : null,
      detail.packets && detail.packets.rejected ? `${detail.packets.rejected} rejected` : null,
      detail.max_burn !== null && detail.max_burn !== undefined ? `max burn ${percent(detail.max_burn)}` : null];
    $("#chart-subtitle").textContent = flags.filter(Boolean).join(" · ");
    const legend = $("#chart-legend");
    legend.replaceChildren();
    $("#chart-note").textContent = "";
    if (!series.length) {
      $("#chart-note").textContent = "No budget usage recorded for this episode.";
      return;
    }
    if (unlimited.length) {
      $("#chart-note").textContent = series.some((s) => s.limit)
        ? `Without a limit, not drawn: ${unlimited.join(", ")}.`
        : "No budget of this episode has a limit: usage is drawn dotted, each against its own peak.";
    }
    const times = timeline.map((t) => Date.parse(t.event_time));
    let t0 = Math.min(...times), t1 = Math.max(...times);
    if (t1 === t0) { t0 -= 1000; t1 += 1000; }
    const top = Math.max(1.1, ...series.flatMap((s) => s.points.map((p) => p.y))) * 1.05;
    const x = (t) => M.left + ((t - t0) / (t1 - t0)) * (W - M.left - M.right);
    const y = (v) => H - M.bottom - (v / top) * (H - M.top - M.bottom);

    chart.append(svg("line", { class: "axis", x1: M.left, y1: y(0), x2: W - M.right, y2: y(0) }));
    chart.append(svg("line", { class: "axis", x1: M.left, y1: M.top, x2: M.left, y2: y(0) }));
    for (const [value, cls, label] of [[1, "limit", "limit"], [BURN_HIGH, "warn", "80%"]]) {
      chart.append(svg("line", { class: `guide ${cls}`, x1: M.left, y1: y(value), x2: W - M.right, y2: y(value) }));
      chart.append(svg("text", { x: M.left - 4, y: y(value) + 4, "text-anchor": "end" }, label));
    }
    chart.append(svg("text", { x: M.left - 4, y: y(0) + 4, "text-anchor": "end" }, "0"));
    chart.append(svg("text", { x: M.left, y: H - 8 }, shortTime(new Date(t0).toISOString())));
    chart.append(svg("text", { x: W - M.right, y: H - 8, "text-anchor": "end" }, shortTime(new Date(t1).toISOString())));

    for (const entry of timeline) {
      if (entry.status === "REJECTED") {
        const at = x(Date.parse(entry.event_time));
        const mark = svg("line", { class: "rejected-mark", x1: at, y1: y(0) - 6, x2: at, y2: y(0) + 6 });
        mark.append(svg("title", {}, `rejected ${entry.packet_id}`));
        chart.append(mark);
      }
    }

    series.forEach((s, i) => {
      const cls = `series-${i % 6}`;
      let d = "";
      s.points.forEach((p, k) => {
        const px = x(p.t).toFixed(1), py = y(p.y).toFixed(1);
        d += k === 0 ? `M${px},${py}` : `H${px}V${py}`;
      });
      d += `H${(W - M.right).toFixed(1)}`;
      const path = svg("path", { class: `burn ${cls}${s.limit ? "" : " unlimited"}`, d });
      path.dataset.budget = s.name;
      chart.append(path);
      for (const p of s.points.slice(-200)) {
        const dot = svg("circle", { class: cls, cx: x(p.t).toFixed(1), cy: y(p.y).toFixed(1), r: 2.5 });
        const usage = s.limit ? `${p.used} / ${s.limit} (${percent(p.y)})` : `${p.used}`;
        dot.append(svg("title", {}, `${s.name} ${usage}\n${p.entry.packet_id} ${p.entry.status} ` +
          `${p.entry.fsm_from} -> ${p.entry.fsm_to}\n${shortTime(p.entry.event_time)}`));
        chart.append(dot);
      }
      const last = s.points[s.points.length - 1];
      const text = s.limit ? `${s.name} ${last.used} / ${s.limit} (${percent(last.y)})`
        : `${s.name} ${last.used} (no limit)`;
      legend.append(el("li", cls, text));
    });
  }

  // ------------------------------------------------------------------------------------------- alerts
  function alertItem(alert, fresh) {
    const item = el("li", `alert sev-${alert.severity}${fresh ? " new" : ""}`);
    item.dataset.seq = String(alert.seq);
    item.dataset.alertId = alert.alert_id;
    item.append(el("span", "sev", alert.severity), el("span", "time", shortTime(alert.event_time)),
      el("span", "kind", alert.kind));
    if (alert.episode_id) {
      const link = el("a", "episode", alert.episode_id);
      link.href = episodeHash(alert.episode_id);
      item.append(link);
    } else if (alert.session_id || alert.subject_id) {
      item.append(el("span", "subject muted", alert.session_id || alert.subject_id));
    }
    item.append(el("span", "summary", alert.summary));
    return item;
  }

  // Newest first = highest seq first (arrival order in the read model); an alert already shown is not repeated,
  // whether it comes from the first page or again from the stream.
  function addAlert(alert, fresh) {
    if (!alert || state.seenAlerts.has(alert.alert_id)) return false;
    state.seenAlerts.add(alert.alert_id);
    const list = $("#alerts");
    const item = alertItem(alert, fresh);
    const later = [...list.children].find((li) => Number(li.dataset.seq) < alert.seq);
    list.insertBefore(item, later || null);
    while (list.children.length > ALERTS_KEPT) list.lastElementChild.remove();
    $("#alerts-empty").hidden = true;
    return true;
  }

  // The first page, then the stream from the highest seq of that page on (`after`): nothing that arrives between
  // the two reads is lost, and what both carry is shown once.
  async function loadAlerts() {
    try {
      const page = await getJSON(`alerts?limit=${PAGE_SIZE}`);
      for (const alert of page.items) addAlert(alert, false);
      return Math.max(0, ...page.items.map((a) => Number(a.seq) || 0));
    } catch (error) {
      showError(`Cannot read alerts: ${error.message}`);
      return null; // unknown: the stream starts with what arrives from now on
    }
  }

  function streamAlerts(afterSeq) {
    const status = $("#stream-status");
    const source = new EventSource(afterSeq === null ? "alerts/stream" : `alerts/stream?after=${afterSeq}`);
    source.addEventListener("open", () => { status.textContent = "live"; status.className = "status live"; });
    source.addEventListener("error", () => {
      // EventSource reconnects by itself, sending Last-Event-ID: the stream resumes after the last seq seen.
      status.textContent = "reconnecting";
      status.className = "status reconnecting";
    });
    source.addEventListener("alert", (event) => {
      let alert;
      try { alert = JSON.parse(event.data); } catch (error) { return; }
      if (addAlert(alert, true)) {
        scheduleRefresh(300); // the episode's trouble changed: re-rank the table soon, once for a burst
      }
    });
  }

  // ------------------------------------------------------------------------------------------- start
  window.addEventListener("hashchange", () => show(hashEpisode()));
  $("#trouble-only").addEventListener("change", () => loadEpisodes(false));
  $("#episodes-more").addEventListener("click", () => loadEpisodes(true));
  const initial = hashEpisode(); // a link to one episode; otherwise the first in trouble is shown
  state.selected = initial;
  loadEpisodes(false).then(() => { if (initial) show(initial); });
  loadAlerts().then(streamAlerts);
  scheduleRefresh(REFRESH_MS);
})();
