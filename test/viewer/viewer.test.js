// test/viewer/viewer.test.js: the viewer in headless Chromium (puppeteer-core), against the
// posting app of test/viewer/posting.sql through singletable-gateway --viewer; run by
// test/viewer/run.sh, which sets VIEWER_URL, PLAIN_URL (a gateway without --viewer),
// CHROMIUM and VIEWER_SCREENSHOTS. One TAP line per check.
"use strict";
const http = require("http");
const path = require("path");
const fs = require("fs");
const puppeteer = require("puppeteer-core");

const VIEWER_URL = process.env.VIEWER_URL;
const PLAIN_URL = process.env.PLAIN_URL;
// VIEWER_BROWSER=firefox FIREFOX=/usr/bin/firefox-esr: the same checks in Firefox (WebDriver
// BiDi), by hand; the screenshots are Chromium's
const FIREFOX = process.env.VIEWER_BROWSER === "firefox";
const SHOTS = FIREFOX ? "" : process.env.VIEWER_SCREENSHOTS;
const ADMIN = { accessKeyId: "AKIDVIEWERADMIN", secretAccessKey: "viewer-admin-secret", region: "us-east-1" };
const DENIED = { accessKeyId: "AKIDVIEWERDENIED", secretAccessKey: "viewer-denied-secret", region: "us-east-1" };
if (!globalThis.crypto) globalThis.crypto = require("crypto").webcrypto;   // Node 18

let n = 0;
let failed = 0;
function check(name, ok, detail) {
  n++;
  if (ok) console.log(`ok ${n} - ${name}`);
  else {
    failed++;
    console.log(`not ok ${n} - ${name}`);
    if (detail !== undefined) console.log(`# ${JSON.stringify(detail).slice(0, 600)}`);
  }
}
const eq = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// a raw GET: the path is sent exactly as given (no URL normalisation of '..')
function rawGet(base, p) {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: p, method: "GET" }, (res) => {
      let body = "";
      res.on("data", (c) => { body += c; });
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

// a signed POST with the viewer's own signing code
async function signedPost(base, target, request, creds) {
  // the page's own module, imported as an ES module whatever the Node version makes of a .js
  // file without "type": "module" (Debian 12's Node 18 reads it as CommonJS)
  const sigv4 = fs.readFileSync(path.join(__dirname, "../../viewer/sigv4.js"));
  const { signedHeaders } = await import("data:text/javascript;base64," + sigv4.toString("base64"));
  const u = new URL(base);
  const body = JSON.stringify(request);
  const headers = await signedHeaders(creds, u.host, target, body);
  const r = await fetch(`${base}/`, { method: "POST", headers, body });
  return { status: r.status, body: await r.json().catch(() => null) };
}

async function http_checks() {
  const index = await rawGet(VIEWER_URL, "/viewer/");
  const h = index.headers;
  check("GET /viewer/ serves index.html as text/html", index.status === 200 && /^text\/html/.test(h["content-type"]) && index.body.includes("app.js"), [index.status, h["content-type"]]);
  const csp = h["content-security-policy"] || "";
  check("a strict Content-Security-Policy: default-src 'self', no inline script or style, frame-ancestors 'none'",
    csp.includes("default-src 'self'") && csp.includes("script-src 'self'") && csp.includes("style-src 'self'") &&
    csp.includes("frame-ancestors 'none'") && !csp.includes("unsafe-inline") && !csp.includes("unsafe-eval"), csp);
  check("X-Content-Type-Options nosniff, X-Frame-Options DENY, Referrer-Policy no-referrer",
    h["x-content-type-options"] === "nosniff" && h["x-frame-options"] === "DENY" && h["referrer-policy"] === "no-referrer", h);
  check("no inline script or style in index.html", !/<script(?![^>]*\bsrc=)[^>]*>/i.test(index.body) && !/<style|style=/i.test(index.body));
  const js = await rawGet(VIEWER_URL, "/viewer/app.js");
  check("app.js is text/javascript", js.status === 200 && /^text\/javascript/.test(js.headers["content-type"]), js.headers["content-type"]);
  const css = await rawGet(VIEWER_URL, "/viewer/style.css");
  check("style.css is text/css", css.status === 200 && /^text\/css/.test(css.headers["content-type"]), css.headers["content-type"]);
  const redirect = await rawGet(VIEWER_URL, "/viewer");
  check("/viewer redirects to /viewer/", redirect.status === 301 && redirect.headers.location === "/viewer/", [redirect.status, redirect.headers.location]);
  const traversal = ["/viewer/../README.md", "/viewer/%2e%2e/%2e%2e/etc/passwd", "/viewer/..%2f..%2fetc%2fpasswd",
    "/viewer//etc/passwd", "/viewer/%2fetc%2fpasswd", "/viewer/.hidden", "/viewer/nothing.js", "/viewer/..", "/viewer/%2e%2e"];
  const answers = [];
  for (const p of traversal) answers.push([p, (await rawGet(VIEWER_URL, p)).status, (await rawGet(VIEWER_URL, p)).body.slice(0, 20)]);
  check("no directory traversal: .., %2e%2e, encoded slashes, absolute paths and hidden names are 404",
    answers.every(([, s, b]) => s === 404 && !b.includes("root:")), answers);
  const health = await rawGet(VIEWER_URL, "/");
  check("GET / is still the health check with --viewer", health.status === 200 && health.body.startsWith("healthy: singletable-gateway"), health.body);

  // without --viewer: the paths are answered as any GET (the health check), as DynamoDB answers them
  const plainRoot = await rawGet(PLAIN_URL, "/");
  for (const p of ["/viewer/", "/viewer", "/viewer/app.js", "/viewer/../etc/passwd"]) {
    const r = await rawGet(PLAIN_URL, p);
    check(`without --viewer, GET ${p} is answered as GET / (${r.status} ${r.body.trim()})`,
      r.status === plainRoot.status && r.body === plainRoot.body && r.headers["content-type"] === plainRoot.headers["content-type"] &&
      !r.headers["content-security-policy"], [r.status, r.body]);
  }
  const plainOp = await signedPost(PLAIN_URL, "SingleTable_20261201.ListEntities", { TableName: "app" }, ADMIN);
  check("without --viewer, X-Amz-Target SingleTable_20261201.* is UnknownOperationException",
    plainOp.status === 400 && /UnknownOperationException$/.test(plainOp.body && plainOp.body.__type), plainOp);
  const op = await signedPost(VIEWER_URL, "SingleTable_20261201.ListEntities", { TableName: "app" }, ADMIN);
  check("with --viewer, SingleTable_20261201.ListEntities answers the registry",
    op.status === 200 && op.body.Entities.map((e) => e.Entity).includes("Post"), op);
  const bad = await signedPost(VIEWER_URL, "SingleTable_20261201.DropEverything", {}, ADMIN);
  check("an unknown operation of the extension is UnknownOperationException with a message",
    bad.status === 400 && /UnknownOperationException$/.test(bad.body.__type) && typeof bad.body.message === "string", bad);
  const missing = await signedPost(VIEWER_URL, "SingleTable_20261201.Partitions", { TableName: "nosuch" }, ADMIN);
  check("a missing table is ResourceNotFoundException", missing.status === 400 && /ResourceNotFoundException$/.test(missing.body.__type), missing);
  const invalid = await signedPost(VIEWER_URL, "SingleTable_20261201.Partitions", { TableName: "app", Limit: 1000 }, ADMIN);
  check("an argument out of range is ValidationException", invalid.status === 400 && /ValidationException$/.test(invalid.body.__type), invalid);
  const unsigned = await fetch(`${VIEWER_URL}/`, { method: "POST", headers: { "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "SingleTable_20261201.ListEntities" }, body: "{}" });
  check("an unsigned call of the extension's operations is refused (MissingAuthenticationTokenException)",
    unsigned.status === 400 && /MissingAuthenticationToken/.test((await unsigned.json()).__type));
}

async function shot(page, name) {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `viewer-${name}.png`), fullPage: false });
}

async function signIn(page, creds) {
  await page.goto(`${VIEWER_URL}/viewer/`, { waitUntil: "domcontentloaded" });
  await page.type("#akid", creds.accessKeyId);
  await page.type("#secret", creds.secretAccessKey);
  await page.click("#signin-button");
  await page.waitForSelector("#tables li", { timeout: 10000 });
}

async function texts(page, sel) {
  return page.$$eval(sel, (els) => els.map((e) => e.textContent));
}

async function openTable(page, name) {
  await page.click(`#tables button[data-table="${name}"]`);
  await page.waitForSelector(`#table-info h2`, { timeout: 10000 });
  await page.waitForFunction((t) => document.querySelector("#table-info h2").textContent === t, { timeout: 10000 }, name);
}

async function tab(page, id) {
  await page.click(`.tabs button[data-tab="${id}"]`);
}

async function browser_checks() {
  const browser = await puppeteer.launch(FIREFOX
    ? { browser: "firefox", executablePath: process.env.FIREFOX || "/usr/bin/firefox-esr", headless: true,
      defaultViewport: { width: 1400, height: 900 } }
    : { executablePath: process.env.CHROMIUM, headless: true,
      args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run", "--window-size=1400,900"],
      defaultViewport: { width: 1400, height: 900 } });
  try {
    const page = await browser.newPage();
    const dialogs = [];
    const cspViolations = [];
    const pageErrors = [];
    page.on("dialog", async (d) => { dialogs.push(d.message()); await d.dismiss(); });
    page.on("pageerror", (e) => pageErrors.push(String(e)));
    page.on("console", (m) => { if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text()); });
    const sent = [];
    page.on("request", (r) => {
      let body = "";
      try { body = r.postData() || ""; } catch { body = ""; }   // Firefox (BiDi) does not give it
      sent.push({ url: r.url(), headers: r.headers(), body });
    });
    await page.evaluateOnNewDocument(() => { window.__xss = 0; });

    await signIn(page, ADMIN);
    const tables = await texts(page, "#tables button");
    check("sign in: the tables of the key are listed", tables.includes("app") && tables.includes("billing"), tables);
    check("the secret is never sent: only signatures",
      sent.length > 0 && sent.every((r) => !r.body.includes("viewer-admin-secret") && !JSON.stringify(r.headers).includes("viewer-admin-secret") && !r.url.includes("viewer-admin-secret")) &&
      sent.filter((r) => r.headers.authorization).every((r) => /^AWS4-HMAC-SHA256 Credential=AKIDVIEWERADMIN\//.test(r.headers.authorization)));
    check("no request leaves the endpoint's origin", sent.every((r) => r.url.startsWith(VIEWER_URL)), sent.map((r) => r.url));

    await openTable(page, "app");
    const info = await page.$eval("#table-info", (e) => e.innerText);
    check("the table shows its key schema, index, TTL, stream, item count and size",
      /pk \(partition\), sk \(sort\)/.test(info) && /GSI1 GSI: gsi1pk \(partition\), gsi1sk \(sort\)/.test(info) &&
      /ENABLED \(expiresAt\)/.test(info) && /stream\s+NEW_AND_OLD_IMAGES/.test(info) && /items\s+17/.test(info), info);
    await page.waitForSelector("#partitions[data-ready]", { timeout: 10000 });
    const parts = await page.$$eval("#partitions li.partition", (els) => els.map((e) => e.dataset.pk));
    check("the table shows its item collections", eq(parts, ["POST#p_0017", "USER#u_1001", "USER#u_1002"]), parts);
    const partText = await page.$eval('#partitions li[data-pk="USER#u_1001"]', (e) => e.innerText);
    check("a collection is listed with its items and size", /11 items/.test(partText) && /\d+ B|KB/.test(partText), partText);
    await shot(page, "tables");

    await page.click('#partitions li[data-pk="USER#u_1001"] button');
    await page.waitForSelector("#groups[data-ready]", { timeout: 10000 });
    const groups = await page.$$eval("#groups .entity-group", (els) => els.map((g) => [g.dataset.entity, g.querySelectorAll("li").length]));
    const gmap = Object.fromEntries(groups);
    check("USER#u_1001: profile, posts and integrations grouped by entity",
      gmap.User === 1 && gmap.Post === 4 && gmap.Integration === 2 && gmap.Library === 1 && gmap.Folder === 1 && gmap.Analytics === 1, groups);
    const postFields = await page.$$eval('#groups .entity-group[data-entity="Post"] li .fields', (els) => els.map((e) => e.textContent));
    check("each sort key decoded into its entity's fields", eq(postFields.slice(0, 2), ["userId=u_1001 postId=p_0017", "userId=u_1001 postId=p_0018"]), postFields);
    const colours = await page.$$eval("#groups .entity-group", (els) => els.map((g) => getComputedStyle(g).borderLeftColor));
    check("a colour per entity", new Set(colours).size === colours.length, colours);
    const unmatched = await page.$$eval('#groups .entity-group[data-entity="(no entity)"] li', (els) => els.map((e) => [e.dataset.sk, e.querySelector(".flag") && e.querySelector(".flag").textContent]));
    check("a key matching no entity is marked", eq(unmatched, [["NOTE#xss", "matches no entity"]]), unmatched);
    await shot(page, "collection");

    // the item holding a script: shown as text, runs nothing
    const xssText = await page.$eval('#groups li[data-sk="NOTE#xss"] .preview', (e) => e.textContent);
    await page.click('#groups li[data-sk="NOTE#xss"]');
    await page.waitForSelector('#item-attrs tr[data-attr="title"]', { timeout: 10000 });
    const title = await page.$eval('#item-attrs tr[data-attr="title"] td.value', (e) => [e.textContent, e.innerHTML, e.children.length]);
    await new Promise((r) => setTimeout(r, 300));
    const ran = await page.evaluate(() => [window.__xss, document.querySelectorAll("script").length, document.querySelectorAll("#content img").length]);
    check("an item holding <script>alert(1)</script> renders as text",
      xssText.includes("<script>alert(1)</script>") && title[0] === "<script>alert(1)</script>" && title[1] === "&lt;script&gt;alert(1)&lt;/script&gt;" && title[2] === 0, [xssText, title]);
    check("... and runs nothing: no dialog, no handler, no script element added", dialogs.length === 0 && ran[0] === 0 && ran[1] === 1 && ran[2] === 0, [dialogs, ran]);

    // an item: attributes with types, size and breakdown
    await page.click('#groups li[data-sk="PROFILE"]');
    await page.waitForFunction(() => document.querySelector('#item-attrs tr[data-attr="plan"]'), { timeout: 10000 });
    const attrs = await page.$$eval("#item-attrs tr[data-attr]", (els) => els.map((e) => Array.from(e.children, (c) => c.textContent)));
    const size = await page.$eval("#item-size", (e) => e.textContent);
    check("an item: attributes with types, values, per-attribute size and share",
      eq(attrs, [["name", "S", "Aiko", "13 B", "23%"], ["pk", "S", "USER#u_1001", "18 B", "32%"],
        ["plan", "S", "pro", "12 B", "21%"], ["sk", "S", "PROFILE", "14 B", "25%"]]), attrs);
    check("an item: its DynamoDB size", /^DynamoDB size 57 bytes \(1 read unit strongly consistent, 1 write unit\)$/.test(size), size);
    await shot(page, "item");

    // TTL remaining: a Metrics item of POST#p_0017
    await page.click('#partitions li[data-pk="POST#p_0017"] button');
    await page.waitForFunction(() => document.querySelector("#collection-pk") && document.querySelector("#collection-pk").textContent === "POST#p_0017" && document.querySelector("#groups[data-ready]"), { timeout: 10000 });
    const pgroups = await page.$$eval("#groups .entity-group", (els) => els.map((g) => g.dataset.entity));
    check("POST#p_0017: metrics and sources grouped", eq(pgroups.sort(), ["Metrics", "PostSource"]), pgroups);
    await page.click('#groups .entity-group[data-entity="Metrics"] li');
    await page.waitForSelector("#item-ttl", { timeout: 10000 });
    const ttl = await page.$eval("#item-ttl", (e) => e.textContent);
    check("an item with the TTL attribute shows the time remaining", /^TTL: expires in \d+ d \d+ h$/.test(ttl), ttl);

    // GSI1 STATUS#approved: the scheduled posts in index order
    await tab(page, "index");
    await page.waitForSelector("#index-name");
    await page.select("#index-name", "GSI1");
    await page.type("#index-pk", "STATUS#approved");
    await page.click("#index-go");
    await page.waitForSelector("#index-groups[data-ready]", { timeout: 10000 });
    const scheduled = await page.$$eval("#index-groups li", (els) => els.map((e) => [e.dataset.sk, e.dataset.indexSk, e.querySelector(".tag").textContent]));
    check("GSI1 STATUS#approved lists the scheduled posts in publish order", eq(scheduled, [
      ["POST#p_0020", "2026-06-22T08:00:00Z", "Post"], ["POST#p_0017", "2026-06-23T09:00:00Z", "Post"], ["POST#p_0101", "2026-06-24T07:30:00Z", "Post"]]), scheduled);
    const gsiFields = await page.$eval("#index-groups li .fields", (e) => e.textContent);
    check("the index key decoded with the entity's GSI1 template", gsiFields === "status=approved publishAt=2026-06-22T08:00:00+00:00", gsiFields);
    await shot(page, "index");

    // the inventory as charts
    await tab(page, "inventory");
    await page.waitForSelector("#charts", { timeout: 20000 });
    const charts = await page.$$eval("#charts .chart", (els) => els.map((c) => [c.id, c.querySelectorAll("svg rect").length]));
    const postBar = await page.$eval('#chart-items rect[data-label="Post"]', (r) => r.getAttribute("data-value")).catch(() => null);
    check("the inventory as SVG charts: items and bytes per entity, largest collections, hot keys",
      charts.length === 5 && charts[0][1] >= 8 && charts[1][1] >= 8 && charts[2][1] === 3 && charts[3][1] >= 1 && charts[4][1] >= 1 && postBar === "5", [charts, postBar]);
    await shot(page, "inventory");

    // the query builder on the billing tenant: USERS# flagged, USER# suggested, 50 units
    await openTable(page, "billing");
    await tab(page, "query");
    await page.waitForSelector("#q-pk");
    await page.type("#q-pk", "TENANT#acme");
    await page.select("#q-sk-op", "begins_with");
    await page.type("#q-sk", "USERS#");
    const flag = await page.$eval("#q-sk-flag", (e) => e.textContent);
    check("the query builder flags USERS# as you type and suggests USER#",
      flag === "no entity has a sort key beginning with 'USERS#'; did you mean 'USER#' (entity User)?", flag);
    await shot(page, "query-flag");
    const suggest = await page.$$eval("#q-sk-list option", (els) => els.map((o) => o.value));
    check("sort key prefixes suggested from the registry", eq(suggest.sort(), ["EVENT#", "INVOICE#", "USER#"]), suggest);
    await page.$eval("#q-sk", (e) => { e.value = ""; });
    await page.type("#q-sk", "USER#");
    const flag2 = await page.$eval("#q-sk-flag", (e) => e.textContent);
    check("a prefix of an entity is not flagged", flag2 === "", flag2);
    await page.click("#q-run");
    await page.waitForSelector('#q-out[data-ready="true"]', { timeout: 20000 });
    const ec = await page.$eval("#q-cost-ec", (e) => e.textContent);
    const sc = await page.$eval("#q-cost-sc", (e) => e.textContent);
    check("the member listing of the billing tenant costs 50 eventually consistent units", ec === "50" && sc === "100", [ec, sc]);
    const reqJson = JSON.parse(await page.$eval("#q-request", (e) => e.textContent));
    check("the DynamoDB request is shown", reqJson.KeyConditionExpression === "#pk = :pk AND begins_with(#sk, :sk)" && reqJson.ExpressionAttributeValues[":sk"].S === "USER#", reqJson);
    const sqlCall = await page.$eval("#q-sql", (e) => e.textContent);
    const code = await page.$$eval("pre[id^=q-code-]", (els) => els.map((e) => [e.id, e.textContent.length]));
    check("the SQL call and the exported program (JavaScript, Python, SQL) are shown",
      sqlCall.startsWith("SELECT singletable.dynamodb('Query', ") && code.length === 3 && code.every(([, l]) => l > 100), [sqlCall, code]);
    const resultCount = await page.$$eval('#q-result .entity-group[data-entity="User"] li', (els) => els.length);
    check("the result: the tenant's users (a page of 100)", resultCount === 100, resultCount);
    await shot(page, "query");

    // the design helper
    await tab(page, "design");
    await page.click("#design-run");
    await page.waitForSelector("#design-script", { timeout: 10000 });
    const script = await page.$eval("#design-script", (e) => e.textContent);
    await shot(page, "design");
    check("the design helper proposes the keys and the script", script.includes("singletable.create_table(") && script.includes("define_entity"), script.slice(0, 200));

    // edit mode: a PutItem through the same API
    await openTable(page, "app");
    await page.waitForSelector("#partitions[data-ready]");
    await page.click('#partitions li[data-pk="USER#u_1002"] button');
    await page.waitForSelector("#groups[data-ready]");
    await page.click('#groups li[data-sk="PROFILE"]');
    await page.waitForSelector('#item-attrs tr[data-attr="plan"]');
    const noEditor = await page.$("#item-json");
    await page.click("#edit-mode");
    await page.click('#groups li[data-sk="PROFILE"]');
    await page.waitForSelector("#item-json");
    await page.$eval("#item-json", (t) => { t.value = t.value.replace('"free"', '"team"'); });
    await page.click("#item-save");
    await page.waitForFunction(() => document.querySelector("#edit-status").textContent === "saved", { timeout: 10000 });
    await page.click('#partitions li[data-pk="USER#u_1002"] button');
    await page.waitForFunction(() => document.querySelector('#groups[data-ready] li[data-sk="PROFILE"] .preview'), { timeout: 10000 });
    const after = await page.$eval('#groups li[data-sk="PROFILE"] .preview', (e) => e.textContent);
    check("writes only in edit mode: no editor before, PutItem after", noEditor === null && after.includes("plan: team"), after);

    // the stream's latest records: the edit above, once the stream worker has decoded it
    let streamRows = [];
    for (let i = 0; i < 30 && !streamRows.some((r) => r[1] === "MODIFY" && r[2].includes("USER#u_1002")); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 500));
      await tab(page, "stream");
      await page.waitForSelector("#stream-records, #stream-none", { timeout: 10000 });
      streamRows = await page.$$eval("#stream-records tr", (els) => els.slice(1).map((e) => Array.from(e.children, (c) => c.textContent)));
    }
    check("the stream's latest records: the edit is a MODIFY of USER#u_1002 with its new image",
      streamRows.length > 0 && streamRows[0][1] === "MODIFY" && streamRows[0][2] === "pk=USER#u_1002 sk=PROFILE" && streamRows[0][3].includes('"team"'), streamRows.slice(0, 2));
    await shot(page, "stream");

    check("no Content-Security-Policy violation and no page error", cspViolations.length === 0 && pageErrors.length === 0, [cspViolations, pageErrors]);

    // a key whose role row-level security denies app's rows sees none of them
    const ctx = await browser.createBrowserContext();
    const page2 = await ctx.newPage();
    await signIn(page2, DENIED);
    await openTable(page2, "app");
    await page2.waitForSelector("#partitions[data-ready]", { timeout: 10000 });
    const denied = await page2.$$eval("#partitions li.partition", (els) => els.length);
    const none = await page2.$("#no-partitions");
    await tab(page2, "query");
    await page2.type("#q-pk", "USER#u_1001");
    await page2.click("#q-run");
    await page2.waitForSelector('#q-out[data-ready="true"]', { timeout: 20000 });
    const deniedItems = await page2.$$eval("#q-result li", (els) => els.length);
    check("a key denied by row-level security sees none of app's items (collections and Query)", denied === 0 && none !== null && deniedItems === 0, [denied, deniedItems]);
    await ctx.close();
  } finally {
    await browser.close();
  }
}

(async () => {
  try {
    await http_checks();
    await browser_checks();
  } catch (e) {
    check(`the test ran to its end (${String(e && e.message).slice(0, 200)})`, false, String(e && e.stack));
  }
  console.log(`1..${n}`);
  process.exit(failed ? 1 : 0);
})();
