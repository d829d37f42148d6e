// The code graph around one node, drawn in SVG: dependencies (what it uses) fan out to the right,
// dependents (what uses it) to the left, one ring per depth. A node's radius grows with its PageRank.
// Hover shows its name, click selects it, double-click re-centres the drawing on it; drag pans and the
// wheel zooms. Written for this page: no library.
"use strict";

(function () {
  const NS = "http://www.w3.org/2000/svg";
  const MAX_PER_SIDE = 80;

  function svg(tag, attrs, text) {
    const node = document.createElementNS(NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function label(n) {
    const name = n.qualname || n.path || n.name || n.key || "";
    return name.length > 36 ? "…" + name.slice(-35) : name;
  }

  function place(nodes, side, cx, cy, ring) {
    // side 1: right (dependencies), -1: left (dependents); each depth on its own ring
    const byDepth = new Map();
    for (const n of nodes) {
      const d = Math.max(1, n.depth || 1);
      if (!byDepth.has(d)) byDepth.set(d, []);
      byDepth.get(d).push(n);
    }
    const placed = [];
    for (const [depth, group] of byDepth) {
      const radius = ring * depth;
      const spread = Math.min(Math.PI * 0.85, 0.22 * group.length + 0.2);
      group.forEach((n, i) => {
        const t = group.length === 1 ? 0 : i / (group.length - 1) - 0.5;
        const angle = t * spread;
        placed.push({ n, depth, x: cx + side * radius * Math.cos(angle), y: cy + radius * Math.sin(angle) * 1.15 });
      });
    }
    return placed;
  }

  function draw(target, reply, handlers) {
    const width = target.clientWidth || 900;
    const height = target.clientHeight || 560;
    target.replaceChildren();
    target.setAttribute("viewBox", `0 0 ${width} ${height}`);
    const view = svg("g", { class: "view" });
    target.append(view);
    const cx = width / 2, cy = height / 2;
    const out = reply.dependencies.nodes.slice(0, MAX_PER_SIDE);
    const inn = reply.dependents.nodes.slice(0, MAX_PER_SIDE);
    const outKeys = new Set(out.map((n) => n.key));
    const both = new Set(inn.filter((n) => outKeys.has(n.key)).map((n) => n.key));
    const ring = Math.min(width / 2 - 60, height / 2 - 30) / Math.max(1, ...out.concat(inn).map((n) => n.depth || 1));
    const right = place(out, 1, cx, cy, ring);
    const left = place(inn.filter((n) => !both.has(n.key)), -1, cx, cy, ring);
    const all = right.concat(left);
    const maxRank = Math.max(1e-9, ...all.map((p) => p.n.pagerank || 0), reply.centre.pagerank || 0);
    const radius = (rank) => 5 + Math.sqrt((rank || 0) / maxRank) * 13;

    const edges = svg("g", { class: "edges" });
    const nodes = svg("g", { class: "nodes" });
    view.append(edges, nodes);
    const at = (list) => new Map(list.map((p) => [p.n.key, p]));
    const rightAt = at(right), leftAt = at(left);
    for (const p of all) {
      const side = rightAt.get(p.n.key) === p ? "out" : "in";
      // a deeper node hangs from the node it was reached from; unknown: from the centre, dashed
      const from = p.n.parent ? (side === "out" ? rightAt : leftAt).get(p.n.parent) : null;
      const sx = from ? from.x : cx, sy = from ? from.y : cy;
      const bend = (p.y - sy) * 0.25;
      const path = svg("path", {
        class: `edge ${side}`,
        d: `M ${sx} ${sy} Q ${(sx + p.x) / 2} ${(sy + p.y) / 2 - bend} ${p.x} ${p.y}`,
        "stroke-dasharray": p.depth > 1 && !from ? "4 3" : "",
      });
      path.append(svg("title", {}, `${side === "out" ? "uses" : "used by"} (${p.n.via || "edge"}), depth ${p.depth}`));
      edges.append(path);
    }
    const nodeGroup = (p, cls) => {
      const g = svg("g", { class: `node ${cls}`, transform: `translate(${p.x},${p.y})`, "data-key": p.n.key || "", "data-parent": p.n.parent || "" });
      g.append(svg("circle", { r: radius(p.n.pagerank) }), svg("title", {}, `${p.n.qualname || p.n.path || p.n.key}\nPageRank ${(p.n.pagerank || 0).toFixed(5)}`));
      const text = svg("text", { x: cls === "in" ? -10 : 10, y: 4, "text-anchor": cls === "in" ? "end" : "start" }, label(p.n));
      if (cls === "centre") { text.setAttribute("y", -radius(p.n.pagerank) - 6); text.setAttribute("x", 0); text.setAttribute("text-anchor", "middle"); }
      g.append(text);
      g.addEventListener("click", (e) => { e.stopPropagation(); handlers.onSelect(p.n); });
      if (cls !== "centre") g.addEventListener("dblclick", (e) => { e.stopPropagation(); handlers.onOpen(p.n); });
      nodes.append(g);
    };
    for (const p of right) nodeGroup(p, both.has(p.n.key) ? "both" : "out");
    for (const p of left) nodeGroup(p, "in");
    nodeGroup({ n: reply.centre, x: cx, y: cy }, "centre");

    // pan and zoom
    let scale = 1, dx = 0, dy = 0, drag = null;
    const apply = () => view.setAttribute("transform", `translate(${dx},${dy}) scale(${scale})`);
    target.onwheel = (e) => {
      e.preventDefault();
      const factor = e.deltaY < 0 ? 1.1 : 1 / 1.1;
      const box = target.getBoundingClientRect();
      const px = (e.clientX - box.left) * (width / box.width), py = (e.clientY - box.top) * (height / box.height);
      dx = px - (px - dx) * factor; dy = py - (py - dy) * factor; scale *= factor;
      apply();
    };
    target.onmousedown = (e) => { drag = { x: e.clientX - dx, y: e.clientY - dy }; };
    target.onmousemove = (e) => { if (drag) { dx = e.clientX - drag.x; dy = e.clientY - drag.y; apply(); } };
    target.onmouseup = target.onmouseleave = () => { drag = null; };
  }

  window.CodeGraph = { draw };
})();
