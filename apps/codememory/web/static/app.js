// The web view's pages: memories, sessions, code graph, event log. Every figure comes from the JSON
// API of the same origin (the gateway's gRPC API behind it); user text is only ever set as textContent.
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(path, params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params || {})) if (value !== "" && value !== undefined) query.set(key, value);
  const reply = await fetch(path + "?" + query.toString(), { credentials: "same-origin" });
  const body = await reply.json();
  if (!reply.ok) throw new Error(body.error || reply.statusText);
  return body;
}

function when(seconds) {
  if (!seconds) return "";
  return new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19);
}

function showError(target, error) {
  target.replaceChildren(el("p", { class: "error" }, String(error.message || error)));
}

// ---- navigation
function openPage(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.page === name);
  for (const page of document.querySelectorAll(".page")) page.classList.toggle("active", page.id === "page-" + name);
  if (name === "sessions") loadSessions();
  if (name === "events" && !$("events").dataset.loaded) loadEvents(0);
}

// ---- memories
function dateSeconds(value, endOfDay) {
  if (!value) return "";
  const seconds = Date.parse(value + "T00:00:00Z") / 1000;
  return String(endOfDay ? seconds + 86399 : seconds);
}

function memoryFilters() {
  return {
    q: $("q").value.trim(),
    type: $("f-type").value.replace(/\s+/g, ""),
    repo: $("f-repo").value.trim(),
    session: $("f-session").value.trim(),
    since: dateSeconds($("f-since").value, false),
    until: dateSeconds($("f-until").value, true),
    state: $("f-state").value,
    working: $("f-working").value.replace(/\s+/g, ""),
    limit: "50",
  };
}

const PARTS = ["dense", "lexical", "recency", "importance", "scope", "author", "link", "graph", "centrality"];

function scoreParts(score) {
  if (!score) return null;
  const parts = el("div", { class: "parts" }, el("span", {}, "score " + score.total.toFixed(3)));
  for (const name of PARTS) {
    const value = score[name] || 0;
    if (!value) continue;
    const bar = el("span", { class: "bar" });
    bar.style.width = Math.round(Math.min(1, Math.abs(value)) * 40) + "px";
    parts.append(el("span", { class: "part part-" + name }, name + " " + value.toFixed(2), bar));
  }
  return parts;
}

function memoryLinks(memory) {
  const bits = [];
  if (memory.superseded_by) bits.push(["superseded by", memory.superseded_by]);
  for (const id of memory.supersedes || []) bits.push(["supersedes", id]);
  if (memory.merged_into) bits.push(["merged into", memory.merged_into]);
  for (const id of memory.links || []) bits.push(["linked", id]);
  if (!bits.length && !(memory.code_links || []).length) return null;
  const box = el("div", { class: "links" });
  for (const [label, id] of bits) {
    box.append(el("span", { class: "badge" }, label + " "), el("a", { class: "memory-link", onclick: (e) => { e.stopPropagation(); showMemory(id); } }, id.slice(0, 8)), " ");
  }
  for (const path of memory.code_links || []) {
    box.append(el("a", { class: "code-link", onclick: (e) => { e.stopPropagation(); drawGraph(path, memory.scope.repo); } }, path), " ");
  }
  return box;
}

function memoryCard(hit) {
  const m = hit.memory;
  const head = el("div", { class: "head" },
    el("span", { class: "badge type" }, m.type || "memory"),
    el("span", { class: "badge state state-" + m.state }, m.state),
    hit.suspect ? el("span", { class: "badge suspect", title: hit.suspect }, "suspect: " + hit.suspect) : null,
    el("span", { class: "muted" }, when(m.created_at) + "  " + (m.scope.repo || "") + (m.scope.session_id ? "  session " + m.scope.session_id : "")));
  return el("li", { class: "card memory", "data-id": m.id, onclick: () => showMemory(m.id) },
    head, el("div", { class: "text" }, m.text), scoreParts(hit.score), memoryLinks(m));
}

async function loadMemories() {
  const list = $("memory-list");
  try {
    const reply = await api("/api/memories", memoryFilters());
    list.replaceChildren(...reply.hits.map(memoryCard));
    $("memory-summary").textContent = reply.mode === "search"
      ? `${reply.hits.length} found in ${reply.took_ms.toFixed(1)} ms (score parts under each)`
      : `${reply.hits.length} of ${reply.total} memories, newest first`;
  } catch (error) {
    showError(list, error);
  }
}

async function showMemory(id) {
  const panel = $("memory-detail");
  try {
    const reply = await api("/api/memory", { id });
    const m = reply.memory;
    const rows = el("ol", { class: "history" }, ...(reply.entries || []).map((e) =>
      el("li", {}, `${when(e.at)}  ${e.event}`, e.seq ? `  (seq ${e.seq})` : "")));
    const related = el("ul", {}, ...(reply.related || []).map((r) =>
      el("li", {}, el("a", { onclick: () => showMemory(r.id) }, r.id.slice(0, 8)), ` ${r.state}: ${r.text.slice(0, 120)}`)));
    panel.replaceChildren(...[
      el("h3", {}, m.type + " " + m.id.slice(0, 8)),
      el("p", {}, el("span", { class: "badge state state-" + m.state }, m.state), ` importance ${m.importance.toFixed(2)}`,
        m.restated > 1 ? `  restated ${m.restated}x` : ""),
      el("p", { class: "text" }, m.text),
      memoryLinks(m),
      el("h4", {}, "History"), rows,
      (reply.related || []).length ? el("h4", {}, "Related") : null, related].filter((n) => n !== null));
  } catch (error) {
    showError(panel, error);
  }
}

// ---- sessions
async function loadSessions() {
  const box = $("timeline");
  try {
    const reply = await api("/api/sessions", { repo: $("f-repo").value.trim() });
    const sessions = reply.sessions || [];
    if (!sessions.length) { box.replaceChildren(el("p", { class: "muted" }, "No sessions yet.")); return; }
    const start = Math.min(...sessions.map((s) => s.started_at));
    const end = Math.max(...sessions.map((s) => s.last_at));
    const span = Math.max(end - start, 1);
    box.replaceChildren(...sessions.map((s) => {
      const bar = el("div", { class: "span-bar" });
      bar.style.left = ((s.started_at - start) / span * 100).toFixed(2) + "%";
      bar.style.width = ((s.last_at - s.started_at) / span * 100).toFixed(2) + "%";
      const types = Object.entries(s.types).map(([t, n]) => `${t} ${n}`).join(", ");
      return el("div", { class: "session", "data-session": s.session_id, onclick: () => {
          $("f-session").value = s.session_id; $("q").value = ""; openPage("memories"); loadMemories(); } },
        el("strong", {}, s.session_id), el("span", { class: "muted" }, `  ${s.repo}  ${s.agent}  ${when(s.started_at)} → ${when(s.last_at)}  ${s.memories} memories (${types})`),
        el("div", { class: "span-track" }, bar));
    }));
  } catch (error) {
    showError(box, error);
  }
}

// ---- code graph
async function drawGraph(node, repo) {
  openPage("graph");
  if (node !== undefined) { $("g-node").value = node; $("g-repo").value = repo || ""; }
  const detail = $("graph-detail");
  try {
    const reply = await api("/api/graph", {
      node: $("g-node").value.trim(), repo: $("g-repo").value.trim(), depth: $("g-depth").value,
      edges: $("g-all").checked ? "all" : "",
    });
    const count = reply.dependencies.nodes.length + reply.dependents.nodes.length;
    $("graph-summary").textContent = `${reply.dependencies.nodes.length} dependencies, ${reply.dependents.nodes.length} dependents of ${reply.node}` +
      (reply.dependencies.truncated || reply.dependents.truncated ? " (cut at the gateway's cap)" : "");
    window.CodeGraph.draw($("graph"), reply, {
      onSelect: (n) => showNode(n),
      onOpen: (n) => drawGraph(n.qualname || n.path || n.key, n.repo || $("g-repo").value.trim()),
    });
    showNode(reply.centre);
    if (!count) detail.append(el("p", { class: "muted" }, "Nothing is linked to it by these edges."));
  } catch (error) {
    showError(detail, error);
  }
}

function showNode(n) {
  const rows = [["kind", n.symbol_kind || n.kind], ["path", n.path], ["lines", n.start_line ? `${n.start_line}-${n.end_line}` : ""],
    ["edge", n.via], ["depth", n.depth], ["pagerank", n.pagerank !== null && n.pagerank !== undefined ? Number(n.pagerank).toFixed(5) : ""],
    ["betweenness", n.betweenness !== null && n.betweenness !== undefined ? Number(n.betweenness).toFixed(5) : ""], ["signature", n.signature]];
  $("graph-detail").replaceChildren(el("h3", {}, n.qualname || n.name || n.key),
    el("dl", {}, ...rows.filter(([, v]) => v !== "" && v !== undefined && v !== null).flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))])));
}

// ---- events
async function loadEvents(before) {
  const body = $("events").querySelector("tbody");
  try {
    const reply = await api("/api/events", { before: before ? String(before) : "", limit: "50" });
    if (!before) body.replaceChildren();
    for (const e of reply.events) {
      body.append(el("tr", { class: "event", "data-seq": e.seq }, el("td", {}, e.seq), el("td", {}, e.event),
        el("td", {}, when(e.occurred_at)), el("td", { class: "summary" }, e.summary)));
    }
    $("events").dataset.loaded = "1";
    const more = $("events-more");
    more.dataset.before = reply.next_before_seq;
    more.disabled = reply.next_before_seq === "0" || !reply.next_before_seq;
  } catch (error) {
    showError(body, error);
  }
}

async function loadStatus() {
  try {
    const s = await api("/api/status", {});
    $("status-line").textContent = `${s.memories} current memories · LOG ${s.log_last_seq} · ${s.caught_up ? "caught up" : "catching up"}`;
  } catch (error) {
    $("status-line").textContent = "gateway: " + error.message;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => openPage(tab.dataset.page));
  $("memory-filters").addEventListener("submit", (e) => { e.preventDefault(); loadMemories(); });
  $("graph-form").addEventListener("submit", (e) => { e.preventDefault(); drawGraph(); });
  $("events-more").addEventListener("click", () => loadEvents(Number($("events-more").dataset.before)));
  if (window.history.replaceState) window.history.replaceState(null, "", "/");  // the token leaves the address bar
  loadStatus();
  loadMemories();
});
