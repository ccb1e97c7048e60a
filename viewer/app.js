// app.js: the viewer of singletable (docs/viewer.md). Plain ES modules, no library, no
// network but the endpoint that served it. Every value of an item is put into the page as
// text (textContent, createTextNode), never as HTML.
import { ddb, st, streams, setCredentials, credentials, ApiError } from "./api.js";
import { barChart } from "./charts.js";

const $ = (sel) => document.querySelector(sel);
const SVGNS = "http://www.w3.org/2000/svg";

// el("li", {class: "x", "data-pk": pk}, "text", child...): attributes by setAttribute, strings as text nodes
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

const fmt = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : String(n ?? ""));
const bytes = (n) => (n >= 1048576 ? `${(n / 1048576).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} B`);

function showError(e) {
  const box = $("#error");
  box.textContent = e instanceof ApiError ? e.message : String(e && e.message ? e.message : e);
  box.hidden = false;
  clearTimeout(showError.t);
  showError.t = setTimeout(() => { box.hidden = true; }, 8000);
}

// --- AttributeValues -------------------------------------------------------------------
function avType(v) { return Object.keys(v || {})[0] || "?"; }
function avText(v) {
  const t = avType(v);
  const x = v[t];
  if (t === "S" || t === "N" || t === "B") return String(x);
  if (t === "BOOL") return x ? "true" : "false";
  if (t === "NULL") return "null";
  return JSON.stringify(x);
}
function avString(v) { return v && (v.S ?? v.N ?? v.B); }

// --- state -----------------------------------------------------------------------------
const state = {
  table: null,         // DescribeTable's Table
  ttl: null,           // TTL attribute name, when enabled
  entities: [],        // ListEntities' Entities
  colour: new Map(),   // entity -> class
  tab: "collections",
};

function colourOf(entity) {
  if (!entity) return "unmatched";
  return state.colour.get(entity) || "ent-c7";
}

function keyNames(indexName) {
  const t = state.table;
  let schema = t.KeySchema;
  if (indexName) {
    const i = [...(t.GlobalSecondaryIndexes || []), ...(t.LocalSecondaryIndexes || [])].find((x) => x.IndexName === indexName);
    schema = i ? i.KeySchema : schema;
  }
  const hash = schema.find((k) => k.KeyType === "HASH");
  const range = schema.find((k) => k.KeyType === "RANGE");
  return { pk: hash && hash.AttributeName, sk: range && range.AttributeName };
}

// an AttributeValue of a key attribute, typed as the table declares it (S, N or B)
function keyValue(attr, text) {
  const d = (state.table.AttributeDefinitions || []).find((a) => a.AttributeName === attr);
  return { [d ? d.AttributeType : "S"]: text };
}

// --- sign-in -----------------------------------------------------------------------------
function restore() {
  try {
    const c = JSON.parse(sessionStorage.getItem("singletable-viewer") || "null");
    if (c && c.accessKeyId && c.secretAccessKey) return c;
  } catch { /* nothing kept */ }
  return null;
}

async function signIn(c) {
  setCredentials(c);
  const r = await ddb("ListTables", {});
  sessionStorage.setItem("singletable-viewer", JSON.stringify(c));
  $("#signin").hidden = true;
  $("#main").hidden = false;
  $("#signout").hidden = false;
  $("#edit-label").hidden = false;
  $("#who").textContent = `${c.accessKeyId} @ ${location.host}`;
  await showTables(r.TableNames || []);
}

function signOut() {
  sessionStorage.removeItem("singletable-viewer");
  setCredentials(null);
  location.hash = "";
  location.reload();
}

// --- tables ------------------------------------------------------------------------------
async function showTables(names) {
  const ul = $("#tables");
  ul.replaceChildren(...names.map((n) => el("li", {}, el("button", { type: "button", "data-table": n, onclick: () => { location.hash = `table=${encodeURIComponent(n)}`; } }, n))));
  if (names.length === 0) ul.append(el("li", { class: "muted" }, "no table this key may read"));
  const m = /^#table=([^&]+)/.exec(location.hash);
  if (m) await openTable(decodeURIComponent(m[1]));
  else $("#content").replaceChildren(el("p", { class: "muted" }, "Choose a table."));
}

async function openTable(name) {
  for (const b of document.querySelectorAll("#tables button")) b.classList.toggle("current", b.dataset.table === name);
  const content = $("#content");
  content.replaceChildren(el("p", { class: "muted" }, `Loading ${name}…`));
  // the first view: the table, its entities and its first page of collections, at once
  const [desc, ents, parts, ttl] = await Promise.all([
    ddb("DescribeTable", { TableName: name }),
    st("ListEntities", { TableName: name }),
    st("Partitions", { TableName: name, Limit: 25 }),
    ddb("DescribeTimeToLive", { TableName: name }).catch(() => null),
  ]);
  state.table = desc.Table;
  state.entities = ents.Entities;
  state.colour = new Map(state.entities.map((e, i) => [e.Entity, `ent-c${i % 8}`]));
  state.ttl = ttl && ttl.TimeToLiveDescription && ttl.TimeToLiveDescription.TimeToLiveStatus === "ENABLED"
    ? ttl.TimeToLiveDescription.AttributeName : null;
  state.tab = "collections";   // a table opens on its collections
  content.replaceChildren(tableInfo(desc.Table, ttl), tabs(), el("div", { id: "tab-body" }));
  await showTab(state.tab, parts);
}

function tableInfo(t, ttl) {
  const ks = (schema) => schema.map((k) => `${k.AttributeName} (${k.KeyType === "HASH" ? "partition" : "sort"})`).join(", ");
  const idx = [...(t.GlobalSecondaryIndexes || []).map((i) => `${i.IndexName} GSI: ${ks(i.KeySchema)}`),
    ...(t.LocalSecondaryIndexes || []).map((i) => `${i.IndexName} LSI: ${ks(i.KeySchema)}`)];
  const ttlText = ttl && ttl.TimeToLiveDescription
    ? `${ttl.TimeToLiveDescription.TimeToLiveStatus}${ttl.TimeToLiveDescription.AttributeName ? ` (${ttl.TimeToLiveDescription.AttributeName})` : ""}`
    : "DISABLED";
  const stream = t.StreamSpecification && t.StreamSpecification.StreamEnabled
    ? `${t.StreamSpecification.StreamViewType} (${t.LatestStreamLabel || ""})` : "none";
  return el("section", { id: "table-info" },
    el("h2", {}, t.TableName),
    el("dl", { class: "info" },
      el("dt", {}, "key schema"), el("dd", { id: "info-keys" }, ks(t.KeySchema)),
      el("dt", {}, "indexes"), el("dd", { id: "info-indexes" }, idx.length ? idx.join("; ") : "none"),
      el("dt", {}, "TTL"), el("dd", { id: "info-ttl" }, ttlText),
      el("dt", {}, "stream"), el("dd", { id: "info-stream" }, stream),
      el("dt", {}, "items"), el("dd", { id: "info-count" }, fmt(t.ItemCount)),
      el("dt", {}, "size"), el("dd", { id: "info-size" }, bytes(t.TableSizeBytes || 0)),
      el("dt", {}, "entities"), el("dd", { id: "info-entities" },
        state.entities.length ? state.entities.map((e) => el("span", { class: `tag ${colourOf(e.Entity)}` }, e.Entity)) : "none registered")));
}

const TABS = [["collections", "Item collections"], ["index", "Indexes"], ["inventory", "Inventory"],
  ["query", "Query builder"], ["design", "Design"], ["stream", "Stream"]];

function tabs() {
  return el("div", { class: "tabs", role: "tablist" }, TABS.map(([id, label]) =>
    el("button", { type: "button", "data-tab": id, class: id === state.tab ? "current" : null, onclick: () => showTab(id).catch(showError) }, label)));
}

async function showTab(id, firstPage) {
  state.tab = id;
  for (const b of document.querySelectorAll(".tabs button")) b.classList.toggle("current", b.dataset.tab === id);
  const body = $("#tab-body");
  body.replaceChildren();
  if (id === "collections") await collectionsTab(body, firstPage);
  else if (id === "index") indexTab(body);
  else if (id === "inventory") await inventoryTab(body);
  else if (id === "query") queryTab(body);
  else if (id === "design") designTab(body);
  else if (id === "stream") await streamTab(body);
}

// --- item collections --------------------------------------------------------------------
function pkEntityTag(pk) {
  const e = state.entities.find((x) => x.PkPrefix && pk.startsWith(x.PkPrefix));
  return e ? el("span", { class: `tag ${colourOf(e.Entity)}` }, e.PkPrefix) : el("span", { class: "tag unmatched" }, "no entity");
}

async function collectionsTab(body, firstPage) {
  const list = el("ul", { class: "partitions", id: "partitions" });
  const more = el("button", { type: "button", id: "more-partitions", hidden: true }, "More collections");
  const detail = el("section", { id: "collection" }, el("p", { class: "muted" }, "Open a collection."));
  const item = el("section", { id: "item" });
  body.append(el("div", { class: "split" },
    el("div", {}, el("h3", {}, "Item collections"), list, more, newItemButton()),
    el("div", {}, detail, item)));
  let max = 1;
  const add = (page) => {
    for (const p of page.Partitions) max = Math.max(max, p.Bytes);
    for (const p of page.Partitions) {
      const svg = document.createElementNS(SVGNS, "svg");
      svg.setAttribute("width", "100");
      svg.setAttribute("height", "10");
      const r = document.createElementNS(SVGNS, "rect");
      r.setAttribute("class", "bar");
      r.setAttribute("height", "10");
      r.setAttribute("width", String(Math.max(1, Math.round((100 * p.Bytes) / max))));
      svg.append(r);
      list.append(el("li", { class: "partition", "data-pk": p.Pk },
        el("span", {}, pkEntityTag(p.Pk), el("button", { type: "button", onclick: () => openCollection(p.Pk).catch(showError) }, p.Pk)),
        el("span", { class: "num" }, `${fmt(p.Items)}${p.ItemsCapped ? "+" : ""} items`),
        el("span", { class: "num" }, bytes(p.Bytes)), svg));
    }
    more.hidden = !page.LastEvaluatedPartition;
    more.onclick = async () => {
      try { add(await st("Partitions", { TableName: state.table.TableName, Limit: 25, ExclusiveStartPartition: page.LastEvaluatedPartition })); } catch (e) { showError(e); }
    };
  };
  add(firstPage || await st("Partitions", { TableName: state.table.TableName, Limit: 25 }));
  if (list.children.length === 0) list.append(el("li", { class: "muted", id: "no-partitions" }, "no items this key may read"));
  list.dataset.ready = "true";
  performance.mark("collections-ready");   // the first view's end (test/bench/viewer.sh)
}

function itemPreview(it, skip) {
  const parts = [];
  for (const [k, v] of Object.entries(it)) {
    if (skip.includes(k)) continue;
    parts.push(`${k}: ${avText(v)}`);
    if (parts.length === 3) break;
  }
  return parts.join("  ");
}

// the fields of an entity's key templates in their order (pk's, then sk's; an index's templates)
function fieldOrder(entity, indexName) {
  const e = state.entities.find((x) => x.Entity === entity);
  if (!e) return [];
  let tpls = [e.PkTemplate, e.SkTemplate];
  if (indexName) {
    const t = Object.entries(e.Indexes || {}).find(([n]) => n.toLowerCase() === indexName.toLowerCase());
    tpls = t ? [t[1].pk, t[1].sk] : [];
  }
  return tpls.filter(Boolean).flatMap((t) => [...t.matchAll(/\{([^}:]+)/g)].map((m) => m[1]));
}

function fieldsText(d, indexName) {
  const order = fieldOrder(d.Entity, indexName);
  const names = Object.keys(d.Fields).sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return names.map((k) => `${k}=${d.Fields[k]}`).join(" ");
}

// items grouped by entity, in the order the page has them; decode by DecodeKeys (indexName: an index's keys)
async function renderGrouped(container, items, indexName) {
  const { pk, sk } = keyNames(indexName);
  const keys = items.map((it) => [avString(it[pk]) ?? "", sk ? (avString(it[sk]) ?? null) : null]);
  const decoded = keys.length ? (await st("DecodeKeys", { TableName: state.table.TableName, Keys: keys, ...(indexName ? { IndexName: indexName } : {}) })).Keys : [];
  const groups = new Map();
  items.forEach((it, i) => {
    const name = decoded[i].Entity;
    const g = name || "";
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push([it, decoded[i]]);
  });
  const tk = keyNames(null);
  for (const [name, rows] of groups) {
    const ol = el("ol", {});
    for (const [it, d] of rows) {
      const fields = fieldsText(d, indexName);
      ol.append(el("li", { class: "item", "data-pk": avString(it[tk.pk]), "data-sk": tk.sk ? avString(it[tk.sk]) : null, onclick: () => showItem(it).catch(showError) },
        name ? el("span", { class: "fields" }, fields || "(no fields)") : el("span", { class: "flag" }, "matches no entity"),
        el("span", { class: "rawkey" }, sk ? keys[items.indexOf(it)][1] : keys[items.indexOf(it)][0]),
        indexName ? el("span", { class: "rawkey" }, `${avString(it[tk.pk])} / ${tk.sk ? avString(it[tk.sk]) : ""}`) : null,
        el("span", { class: "preview" }, itemPreview(it, [pk, sk, tk.pk, tk.sk]))));
    }
    container.append(el("section", { class: `entity-group ${colourOf(name)}`, "data-entity": name || "(no entity)" },
      el("h4", {}, el("span", { class: `tag ${colourOf(name)}` }, name || "no entity"), `${rows.length} item${rows.length === 1 ? "" : "s"}`), ol));
  }
}

async function openCollection(pkValue, start) {
  for (const li of document.querySelectorAll("#partitions li")) li.classList.toggle("current", li.dataset.pk === pkValue);
  const { pk } = keyNames(null);
  const req = { TableName: state.table.TableName, KeyConditionExpression: "#p = :p",
    ExpressionAttributeNames: { "#p": pk }, ExpressionAttributeValues: { ":p": keyValue(pk, pkValue) }, Limit: 100 };
  if (start) req.ExclusiveStartKey = start;
  const box = $("#collection");
  box.replaceChildren(el("p", { class: "muted" }, `Loading ${pkValue}…`));
  const r = await ddb("Query", req);
  box.replaceChildren(el("h3", { id: "collection-pk" }, pkValue), el("p", { class: "muted" }, `${r.Count} items on this page, in sort key order, grouped by entity`));
  const groups = el("div", { id: "groups" });
  box.append(groups);
  await renderGrouped(groups, r.Items, null);
  if (r.LastEvaluatedKey) box.append(el("button", { type: "button", id: "next-page", onclick: () => openCollection(pkValue, r.LastEvaluatedKey).catch(showError) }, "Next page"));
  groups.dataset.ready = "true";
}

// --- an item -----------------------------------------------------------------------------
async function showItem(it) {
  const box = $("#item");
  const size = await st("ItemSize", { Item: it });
  const per = new Map(size.Attributes.map((a) => [a.attribute, a]));
  const rows = Object.keys(it).sort().map((k) => el("tr", { "data-attr": k },
    el("td", { class: "mono" }, k), el("td", {}, avType(it[k])), el("td", { class: "value" }, avText(it[k])),
    el("td", { class: "num" }, per.has(k) ? `${per.get(k).bytes} B` : ""),
    el("td", { class: "num" }, per.has(k) ? `${Math.round(per.get(k).share * 100)}%` : "")));
  let ttl = null;
  if (state.ttl && it[state.ttl] && it[state.ttl].N) {
    const left = Number(it[state.ttl].N) - Date.now() / 1000;
    ttl = el("p", { id: "item-ttl" }, left > 0 ? `TTL: expires in ${formatDuration(left)}` : "TTL: expired, awaiting deletion");
  }
  box.replaceChildren(...[el("h3", {}, "Item"),
    el("p", { id: "item-size" }, `DynamoDB size ${fmt(size.Size)} bytes (${Math.ceil(size.Size / 4096)} read unit${Math.ceil(size.Size / 4096) === 1 ? "" : "s"} strongly consistent, ${Math.ceil(size.Size / 1024)} write unit${Math.ceil(size.Size / 1024) === 1 ? "" : "s"})`),
    ttl,
    el("table", { class: "attrs", id: "item-attrs" }, el("tr", {}, el("th", {}, "attribute"), el("th", {}, "type"), el("th", {}, "value"), el("th", {}, "size"), el("th", {}, "share")), rows)].filter(Boolean));
  if ($("#edit-mode").checked) box.append(editor(it));
}

function formatDuration(s) {
  const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  return d > 0 ? `${d} d ${h} h` : h > 0 ? `${h} h ${m} min` : `${m} min ${Math.floor(s % 60)} s`;
}

// --- edit mode: PutItem and DeleteItem through the same API ---------------------------------
function editor(it) {
  const ta = el("textarea", { id: "item-json", spellcheck: "false" });
  ta.value = JSON.stringify(it, null, 2);
  const status = el("span", { id: "edit-status" });
  const t = keyNames(null);
  return el("div", { class: "edit" }, el("h4", {}, "Edit (PutItem / DeleteItem)"), ta,
    el("button", { type: "button", id: "item-save", onclick: async () => {
      try {
        await ddb("PutItem", { TableName: state.table.TableName, Item: JSON.parse(ta.value) });
        status.textContent = "saved";
      } catch (e) { showError(e); }
    } }, "Put item"),
    it ? el("button", { type: "button", id: "item-delete", onclick: async () => {
      try {
        const key = { [t.pk]: it[t.pk] };
        if (t.sk) key[t.sk] = it[t.sk];
        await ddb("DeleteItem", { TableName: state.table.TableName, Key: key });
        status.textContent = "deleted";
      } catch (e) { showError(e); }
    } }, "Delete item") : null, status);
}

function newItemButton() {
  return el("button", { type: "button", id: "new-item", class: "edit-only", onclick: () => {
    if (!$("#edit-mode").checked) { showError("turn edit mode on to write"); return; }
    const t = keyNames(null);
    const blank = { [t.pk]: { S: "" } };
    if (t.sk) blank[t.sk] = { S: "" };
    $("#item").replaceChildren(el("h3", {}, "New item"), editor(null));
    $("#item-json").value = JSON.stringify(blank, null, 2);
  } }, "New item");
}

// --- indexes -----------------------------------------------------------------------------
function indexTab(body) {
  const t = state.table;
  const indexes = [...(t.GlobalSecondaryIndexes || []), ...(t.LocalSecondaryIndexes || [])];
  if (indexes.length === 0) { body.append(el("p", { class: "muted" }, "This table has no secondary index.")); return; }
  const sel = el("select", { id: "index-name" }, indexes.map((i) => el("option", { value: i.IndexName }, i.IndexName)));
  const dl = el("datalist", { id: "index-prefixes" });
  const input = el("input", { id: "index-pk", list: "index-prefixes", placeholder: "partition value, e.g. STATUS#approved", size: 40 });
  const fill = () => {
    const prefixes = new Set();
    for (const e of state.entities) {
      for (const [n, tpl] of Object.entries(e.Indexes || {})) if (n.toLowerCase() === sel.value.toLowerCase() && tpl.pk) prefixes.add(tpl.pk.split("{")[0]);
    }
    dl.replaceChildren(...[...prefixes].map((p) => el("option", { value: p })));
  };
  sel.onchange = fill;
  fill();
  const out = el("div", { id: "index-items" });
  const go = async (start) => {
    const idx = indexes.find((i) => i.IndexName === sel.value);
    const { pk } = keyNames(idx.IndexName);
    const req = { TableName: t.TableName, IndexName: idx.IndexName, KeyConditionExpression: "#p = :p",
      ExpressionAttributeNames: { "#p": pk }, ExpressionAttributeValues: { ":p": keyValue(pk, input.value) }, Limit: 100 };
    if (start) req.ExclusiveStartKey = start;
    const r = await ddb("Query", req);
    out.replaceChildren(el("p", { class: "muted" }, `${r.Count} items of ${idx.IndexName} partition ${input.value}, in index order`));
    const list = el("div", { id: "index-groups" });
    out.append(list);
    await renderIndexOrder(list, r.Items, idx.IndexName);
    if (r.LastEvaluatedKey) out.append(el("button", { type: "button", id: "index-next", onclick: () => go(r.LastEvaluatedKey).catch(showError) }, "Next page"));
    list.dataset.ready = "true";
  };
  body.append(el("div", { class: "form-grid" }, el("label", { for: "index-name" }, "index"), sel,
    el("label", { for: "index-pk" }, "partition"), el("span", {}, input, dl, " ", el("button", { type: "button", id: "index-go", onclick: () => go().catch(showError) }, "Browse"))), out,
    el("section", { id: "item" }));
}

// an index's items in index order (not grouped: the order is the point), each decoded
async function renderIndexOrder(container, items, indexName) {
  const { pk, sk } = keyNames(indexName);
  const tk = keyNames(null);
  const keys = items.map((it) => [avString(it[pk]) ?? "", sk ? (avString(it[sk]) ?? null) : null]);
  const decoded = keys.length ? (await st("DecodeKeys", { TableName: state.table.TableName, IndexName: indexName, Keys: keys })).Keys : [];
  const ol = el("ol", {});
  items.forEach((it, i) => {
    const d = decoded[i];
    ol.append(el("li", { class: `item ${colourOf(d.Entity)}`, "data-pk": avString(it[tk.pk]), "data-sk": tk.sk ? avString(it[tk.sk]) : null, "data-index-sk": keys[i][1], onclick: () => showItem(it).catch(showError) },
      el("span", { class: `tag ${colourOf(d.Entity)}` }, d.Entity || "no entity"),
      el("span", { class: "fields" }, fieldsText(d, indexName)),
      el("span", { class: "rawkey" }, `${avString(it[tk.pk])} / ${tk.sk ? avString(it[tk.sk]) : ""}`),
      el("span", { class: "preview" }, itemPreview(it, [pk, sk, tk.pk, tk.sk]))));
  });
  container.append(el("section", { class: "entity-group" }, ol));
}

// --- inventory ---------------------------------------------------------------------------
async function inventoryTab(body) {
  body.append(el("p", { class: "muted" }, "Reading the whole table…"));
  const [inv, hot] = await Promise.all([st("Inventory", { TableName: state.table.TableName, Top: 10 }),
    st("HotKeys", { TableName: state.table.TableName })]);
  const ents = inv.Entities.map((e) => ({ label: e.entity || `${e.pk_prefix} ${e.sk_prefix || ""} (no entity)`, cls: colourOf(e.entity), items: e.items, bytes: e.bytes }));
  const largest = inv.Collections.filter((c) => c.rank_by === "bytes").map((c) => ({ label: c.partition_key, value: c.bytes }));
  const reads = hot.HotKeys.filter((h) => h.access === "read").slice(0, 10).map((h) => ({ label: h.partition_key, value: h.count }));
  const writes = hot.HotKeys.filter((h) => h.access === "write").slice(0, 10).map((h) => ({ label: h.partition_key, value: h.count }));
  body.replaceChildren(el("div", { id: "charts" },
    barChart("chart-items", "Items per entity", ents.map((e) => ({ label: e.label, value: e.items, cls: e.cls })), fmt),
    barChart("chart-bytes", "Bytes per entity", ents.map((e) => ({ label: e.label, value: e.bytes, cls: e.cls })), bytes),
    barChart("chart-collections", "Largest collections (bytes)", largest, bytes),
    barChart("chart-hot-reads", "Hot keys: reads (this server's window)", reads, fmt),
    barChart("chart-hot-writes", "Hot keys: writes (this server's window)", writes, fmt)));
}

// --- query builder -----------------------------------------------------------------------
function levenshtein(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++)
    d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length][b.length];
}

// [prefix, entity] of the partition (part "pk") or sort keys (part "sk") of the table or an index
function prefixes(part, indexName, pkValue) {
  const out = [];
  for (const e of state.entities) {
    let tpl;
    if (indexName) {
      const t = Object.entries(e.Indexes || {}).find(([n]) => n.toLowerCase() === indexName.toLowerCase());
      tpl = t && t[1][part];
    } else tpl = part === "pk" ? e.PkTemplate : e.SkTemplate;
    if (!tpl) continue;
    if (part === "sk" && pkValue) {
      const ptpl = indexName ? (Object.entries(e.Indexes || {}).find(([n]) => n.toLowerCase() === indexName.toLowerCase()) || [0, {}])[1].pk : e.PkTemplate;
      const pp = (ptpl || "").split("{")[0];
      if (pp && !pkValue.startsWith(pp) && !pp.startsWith(pkValue)) continue;
    }
    const p = tpl.split("{")[0];
    if (p !== "") out.push([p, e.Entity]);
  }
  return out;
}

// the flag of a typed key value: null when some entity's prefix fits it, else the message
export function prefixFlag(value, known, what) {
  if (!value || known.length === 0) return null;
  if (known.some(([p]) => p.startsWith(value) || value.startsWith(p))) return null;
  let best = null;
  for (const [p, e] of known) {
    const dist = levenshtein(value.slice(0, p.length + 1), p);
    if (!best || dist < best.dist) best = { p, e, dist };
  }
  return `no entity has a ${what} beginning with '${value}'; did you mean '${best.p}' (entity ${best.e})?`;
}

function queryTab(body) {
  const t = state.table;
  const indexes = [...(t.GlobalSecondaryIndexes || []), ...(t.LocalSecondaryIndexes || [])];
  const idx = el("select", { id: "q-index" }, el("option", { value: "" }, "(table)"), indexes.map((i) => el("option", { value: i.IndexName }, i.IndexName)));
  const pk = el("input", { id: "q-pk", list: "q-pk-list", size: 36, spellcheck: "false" });
  const pkList = el("datalist", { id: "q-pk-list" });
  const pkFlag = el("span", { id: "q-pk-flag", class: "flag" });
  const op = el("select", { id: "q-sk-op" }, ["", "=", "begins_with", "<", "<=", ">", ">=", "between"].map((o) => el("option", { value: o }, o || "(none)")));
  const sk = el("input", { id: "q-sk", list: "q-sk-list", size: 30, spellcheck: "false" });
  const sk2 = el("input", { id: "q-sk2", size: 20, placeholder: "and (between)", spellcheck: "false" });
  const skList = el("datalist", { id: "q-sk-list" });
  const skFlag = el("span", { id: "q-sk-flag", class: "flag" });
  const filter = el("input", { id: "q-filter", size: 50, placeholder: "#status = :s  (values as JSON below)", spellcheck: "false" });
  const values = el("input", { id: "q-values", size: 50, placeholder: '{":s": {"S": "approved"}}', spellcheck: "false" });
  const projection = el("input", { id: "q-projection", size: 50, placeholder: "title, #status", spellcheck: "false" });
  const consistent = el("input", { id: "q-consistent", type: "checkbox" });
  const calls = el("input", { id: "q-calls", type: "number", value: "1000000", min: "0" });
  const out = el("div", { id: "q-out" });

  const refresh = () => {
    const ix = idx.value || null;
    const pks = prefixes("pk", ix);
    pkList.replaceChildren(...pks.map(([p, e]) => el("option", { value: p }, e)));
    const sks = prefixes("sk", ix, pk.value);
    skList.replaceChildren(...sks.map(([p, e]) => el("option", { value: p }, e)));
    pkFlag.textContent = prefixFlag(pk.value, pks, "partition key") || "";
    skFlag.textContent = op.value && op.value !== "=" || sk.value ? (prefixFlag(sk.value, sks, "sort key") || "") : "";
    const suggest = el("span", { id: "q-sk-suggest", class: "muted" }, sks.length ? `prefixes: ${[...new Set(sks.map(([p, e]) => `${p} (${e})`))].join(", ")}` : "");
    const old = $("#q-sk-suggest");
    if (old) old.replaceWith(suggest);
  };
  for (const x of [idx, pk, op, sk]) x.addEventListener("input", refresh);

  const build = () => {
    const ix = idx.value || null;
    const names = keyNames(ix);
    const req = { TableName: t.TableName };
    if (ix) req.IndexName = ix;
    const ean = { "#pk": names.pk };
    let eav = { ":pk": keyValue(names.pk, pk.value) };
    let kce = "#pk = :pk";
    if (op.value && names.sk) {
      ean["#sk"] = names.sk;
      eav[":sk"] = keyValue(names.sk, sk.value);
      if (op.value === "begins_with") kce += " AND begins_with(#sk, :sk)";
      else if (op.value === "between") { kce += " AND #sk BETWEEN :sk AND :sk2"; eav[":sk2"] = keyValue(names.sk, sk2.value); }
      else kce += ` AND #sk ${op.value} :sk`;
    }
    req.KeyConditionExpression = kce;
    if (filter.value.trim()) req.FilterExpression = filter.value.trim();
    if (projection.value.trim()) req.ProjectionExpression = projection.value.trim();
    if (values.value.trim()) eav = { ...eav, ...JSON.parse(values.value) };
    // #names used by the filter or projection: the attribute of the same name
    for (const m of `${filter.value} ${projection.value}`.matchAll(/#([A-Za-z0-9_]+)/g)) if (!ean[`#${m[1]}`]) ean[`#${m[1]}`] = m[1];
    req.ExpressionAttributeNames = ean;
    req.ExpressionAttributeValues = eav;
    if (consistent.checked) req.ConsistentRead = true;
    return req;
  };

  const run = async () => {
    const req = build();
    const reqNoTable = { ...req };
    delete reqNoTable.TableName;
    const [r, cost, js, py, sql] = await Promise.all([
      ddb("Query", { ...req, Limit: 100 }),
      st("EstimateCost", { TableName: t.TableName, Request: reqNoTable, Operation: "Query", CallsPerMonth: Number(calls.value) || 0 }),
      st("ExportCode", { TableName: t.TableName, Request: reqNoTable, Operation: "Query", Language: "javascript" }),
      st("ExportCode", { TableName: t.TableName, Request: reqNoTable, Operation: "Query", Language: "python" }),
      st("ExportCode", { TableName: t.TableName, Request: reqNoTable, Operation: "Query", Language: "sql" }),
    ]);
    const result = el("div", { id: "q-result" });
    const usd = (x) => `$${Number(x).toLocaleString("en-US", { maximumFractionDigits: 2 })}`;
    out.replaceChildren(...[
      el("h3", {}, "Estimated cost"),
      el("p", { class: "cost", id: "q-cost" },
        el("strong", { id: "q-cost-units" }, fmt(cost.units_per_call)), " read units per call (",
        el("span", { id: "q-cost-ec" }, fmt(cost.eventually_consistent_units)), " eventually consistent, ",
        el("span", { id: "q-cost-sc" }, fmt(cost.strongly_consistent_units)), " strongly consistent); ",
        `${fmt(Number(calls.value) || 0)} calls a month: ${fmt(cost.units_per_month)} units, `,
        el("span", { id: "q-cost-month" }, usd(cost.on_demand_usd_per_month)), " on demand, ",
        `${usd(cost.provisioned_usd_per_month)} provisioned (${fmt(cost.provisioned_capacity_units)} units)`),
      r.$warning ? el("p", { class: "flag", id: "q-warning" }, r.$warning) : null,
      el("h3", {}, `Result: ${r.Count} item${r.Count === 1 ? "" : "s"} (scanned ${r.ScannedCount})${r.LastEvaluatedKey ? ", more pages" : ""}`), result,
      el("h3", {}, "DynamoDB request"), el("pre", { id: "q-request" }, JSON.stringify(req, null, 2)),
      el("h3", {}, "SQL call"), el("pre", { id: "q-sql" }, `SELECT singletable.dynamodb('Query', '${JSON.stringify(req).replace(/'/g, "''")}');`),
      el("h3", {}, "The program"),
      el("details", { open: true }, el("summary", {}, "JavaScript"), el("pre", { id: "q-code-javascript" }, js.Code)),
      el("details", {}, el("summary", {}, "Python"), el("pre", { id: "q-code-python" }, py.Code)),
      el("details", {}, el("summary", {}, "SQL"), el("pre", { id: "q-code-sql" }, sql.Code))].filter(Boolean));
    await renderGrouped(result, r.Items, req.IndexName || null);
    out.dataset.ready = "true";
  };

  body.append(el("div", { class: "form-grid", id: "query-form" },
    el("label", { for: "q-index" }, "index"), idx,
    el("label", { for: "q-pk" }, "partition value"), el("span", {}, pk, pkList, " ", pkFlag),
    el("label", { for: "q-sk-op" }, "sort condition"), el("span", {}, op, " ", sk, skList, " ", sk2, " ", skFlag),
    el("span", {}, ""), el("span", { id: "q-sk-suggest", class: "muted" }),
    el("label", { for: "q-filter" }, "filter"), filter,
    el("label", { for: "q-values" }, "values"), values,
    el("label", { for: "q-projection" }, "projection"), projection,
    el("label", { for: "q-consistent" }, "strongly consistent"), consistent,
    el("label", { for: "q-calls" }, "calls per month"), calls,
    el("span", {}), el("button", { type: "button", id: "q-run", onclick: () => { out.dataset.ready = "false"; run().catch(showError); } }, "Run")), out);
  refresh();
}

// --- design helper -----------------------------------------------------------------------
function designTab(body) {
  const ents = el("textarea", { id: "design-entities", rows: 8, cols: 80, spellcheck: "false" });
  ents.value = JSON.stringify([{ name: "tenant", key: "tenantId" },
    { name: "user", key: "userId", parent: "tenant", attributes: { role: "string" } },
    { name: "invoice", key: "invoiceId", parent: "tenant", attributes: { status: "string", dueDate: "date" } }], null, 1);
  const pats = el("textarea", { id: "design-patterns", rows: 4, cols: 80, spellcheck: "false" });
  pats.value = JSON.stringify(["list users by tenantId", "list invoices sorted by dueDate only where status = open", "list users by role"], null, 1);
  const name = el("input", { id: "design-table", value: "billing" });
  const out = el("div", { id: "design-out" });
  body.append(el("div", { class: "form-grid" },
    el("label", { for: "design-entities" }, "entities"), ents,
    el("label", { for: "design-patterns" }, "access patterns"), pats,
    el("label", { for: "design-table" }, "table"), name,
    el("span", {}), el("button", { type: "button", id: "design-run", onclick: async () => {
      try {
        const d = await st("Design", { Entities: JSON.parse(ents.value), AccessPatterns: JSON.parse(pats.value), TableName: name.value });
        const script = d.script || d.sql || null;
        const rest = { ...d };
        delete rest.script;
        out.replaceChildren(...[el("h3", {}, "Proposed keys and indexes"), designTable(d), el("details", {}, el("summary", {}, "the whole proposal"), el("pre", { id: "design-proposal" }, JSON.stringify(rest, null, 2))),
          script ? el("h3", {}, "Script") : null, script ? el("pre", { id: "design-script" }, Array.isArray(script) ? script.join("\n") : String(script)) : null].filter(Boolean));
      } catch (e) { showError(e); }
    } }, "Propose")), out);
}

function designTable(d) {
  const rows = (d.entities || []).map((e) => el("tr", {}, el("td", {}, e.name), el("td", { class: "value" }, e.pk), el("td", { class: "value" }, e.sk || ""),
    el("td", { class: "value" }, Object.entries(e.indexes || {}).map(([n, t]) => `${n}: ${t.pk} / ${t.sk || ""}`).join("; "))));
  const idx = (d.indexes || []).map((i) => el("tr", {}, el("td", {}, i.name), el("td", { class: "value" }, i.partition_key), el("td", { class: "value" }, i.sort_key || ""), el("td", {}, (i.entities || []).join(", "))));
  return el("div", { id: "design-keys" },
    el("table", { class: "attrs" }, el("tr", {}, el("th", {}, "entity"), el("th", {}, "pk"), el("th", {}, "sk"), el("th", {}, "index keys")), rows),
    idx.length ? el("table", { class: "attrs" }, el("tr", {}, el("th", {}, "index"), el("th", {}, "partition key"), el("th", {}, "sort key"), el("th", {}, "entities")), idx) : null);
}

// --- stream ------------------------------------------------------------------------------
async function streamTab(body) {
  const arn = state.table.LatestStreamArn;
  if (!arn) { body.append(el("p", { id: "stream-none", class: "muted" }, "This table has no stream.")); return; }
  const d = await streams("DescribeStream", { StreamArn: arn });
  const shards = d.StreamDescription.Shards || [];
  const records = [];
  for (const s of shards.slice(-3)) {
    const it = await streams("GetShardIterator", { StreamArn: arn, ShardId: s.ShardId, ShardIteratorType: "TRIM_HORIZON" });
    const r = await streams("GetRecords", { ShardIterator: it.ShardIterator, Limit: 1000 });
    records.push(...r.Records);
  }
  const latest = records.slice(-20).reverse();
  body.append(el("h3", {}, `Latest records of ${d.StreamDescription.StreamLabel} (${d.StreamDescription.StreamStatus})`),
    el("table", { class: "attrs", id: "stream-records" }, el("tr", {}, el("th", {}, "sequence"), el("th", {}, "event"), el("th", {}, "keys"), el("th", {}, "new image")),
      latest.map((r) => el("tr", {}, el("td", { class: "mono" }, r.dynamodb.SequenceNumber), el("td", {}, r.eventName),
        el("td", { class: "value" }, Object.entries(r.dynamodb.Keys).map(([k, v]) => `${k}=${avText(v)}`).join(" ")),
        el("td", { class: "value" }, r.dynamodb.NewImage ? JSON.stringify(r.dynamodb.NewImage) : "")))));
}

// --- start -------------------------------------------------------------------------------
window.addEventListener("hashchange", () => {
  const m = /^#table=([^&]+)/.exec(location.hash);
  if (m && credentials()) openTable(decodeURIComponent(m[1])).catch(showError);
});

document.addEventListener("DOMContentLoaded", () => {
  $("#signin-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    signIn({ accessKeyId: $("#akid").value.trim(), secretAccessKey: $("#secret").value, region: $("#region").value.trim() || "us-east-1" })
      .catch((e) => { setCredentials(null); showError(e); });
  });
  $("#signout").addEventListener("click", signOut);
  $("#edit-mode").addEventListener("change", () => document.body.classList.toggle("editing", $("#edit-mode").checked));
  const c = restore();
  if (c) signIn(c).catch((e) => { setCredentials(null); showError(e); });
});
