// charts.js: horizontal bar charts as inline SVG, drawn with DOM calls (labels as text nodes).
const SVGNS = "http://www.w3.org/2000/svg";

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

// A chart of rows [{label, value, cls}], in a <div class="chart" id=id> with a title.
export function barChart(id, title, rows, format) {
  const div = document.createElement("div");
  div.className = "chart";
  div.id = id;
  const h = document.createElement("h4");
  h.textContent = title;
  div.append(h);
  if (rows.length === 0) {
    const p = document.createElement("p");
    p.className = "muted";
    p.textContent = "nothing yet";
    div.append(p);
    return div;
  }
  const labelW = 230, barW = 360, rowH = 20, valueW = 90;
  const max = Math.max(1, ...rows.map((r) => Number(r.value) || 0));
  const s = svg("svg", { width: labelW + barW + valueW, height: rows.length * rowH + 6, role: "img", "aria-label": title });
  rows.forEach((r, i) => {
    const y = i * rowH + 3;
    const label = r.label.length > 34 ? `${r.label.slice(0, 33)}…` : r.label;
    s.append(svg("text", { x: labelW - 6, y: y + 13, "text-anchor": "end" }, label));
    s.append(svg("rect", { class: `bar ${r.cls || ""}`, x: labelW, y, height: rowH - 5,
      width: Math.max(1, Math.round((barW * (Number(r.value) || 0)) / max)), "data-label": r.label, "data-value": r.value }));
    s.append(svg("text", { x: labelW + barW + 6, y: y + 13 }, format(Number(r.value) || 0)));
  });
  div.append(s);
  return div;
}
