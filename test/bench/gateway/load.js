#!/usr/bin/env node
// test/bench/gateway/load.js: one client process of the gateway benchmark (bench.js spawns them).
//   node load.js DRIVER ENDPOINT OP INFLIGHT SECONDS WARMUP_SECONDS TAG
// DRIVER sdk: @aws-sdk/client-dynamodb, INFLIGHT concurrent send() loops on one client
// (keep-alive agent, no retries). DRIVER raw: the requests the SDK sends (captured once from
// the SDK's own request handler: its headers, signature and body), replayed over INFLIGHT
// keep-alive connections without the SDK, answers checked for HTTP 200 only; this measures
// the servers with the least client CPU. OP is put, get or query (the workload of bench.js);
// TAG makes this process's PutItem keys its own. After WARMUP_SECONDS of load it counts the
// requests completed in SECONDS and prints one JSON line {ops, errors, seconds, firstError}.
'use strict';
const net = require('net');
const http = require('http');
const { DynamoDBClient, PutItemCommand, GetItemCommand, QueryCommand } = require('@aws-sdk/client-dynamodb');
const { NodeHttpHandler } = require('@smithy/node-http-handler');
const W = require('./workload');

const [driver, endpoint, op, inflightS, secondsS, warmupS, tag] = process.argv.slice(2);
const inflight = Number(inflightS);
const seconds = Number(secondsS);
const warmup = Number(warmupS);
const url = new URL(endpoint);

function command(i, n) {
  if (op === 'put') return new PutItemCommand({ TableName: W.TABLE, Item: W.putItem(`${tag}-${i}`, n) });
  if (op === 'get') return new GetItemCommand({ TableName: W.TABLE, Key: W.randomKey() });
  if (op === 'query') return new QueryCommand(W.queryParams(W.randomCollection()));
  throw new Error('unknown op ' + op);
}

const creds = { accessKeyId: 'AKIDBENCH', secretAccessKey: 'bench-secret' };

async function runSdk() {
  const agent = new http.Agent({ keepAlive: true, maxSockets: inflight });
  const client = new DynamoDBClient({
    endpoint, region: 'us-east-1', maxAttempts: 1, credentials: creds,
    requestHandler: new NodeHttpHandler({ httpAgent: agent }),
  });
  let counting = false;
  let ops = 0;
  let errors = 0;
  let firstError = null;
  let stop = false;
  async function loop(i) {
    let n = 0;
    while (!stop) {
      try {
        await client.send(command(i, n++));
        if (counting) ops++;
      } catch (e) {
        if (counting) errors++;
        firstError = firstError || `${e.name}: ${e.message}`;
      }
    }
  }
  const loops = Array.from({ length: inflight }, (_, i) => loop(i));
  await new Promise((r) => setTimeout(r, warmup * 1000));
  counting = true;
  const t0 = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  counting = false;
  const t = Number(process.hrtime.bigint() - t0) / 1e9;
  stop = true;
  await Promise.all(loops);
  agent.destroy();
  return { ops, errors, seconds: t, firstError };
}

// The SDK's own signed request for command c, captured by a request handler that answers nothing.
async function capture(c) {
  let got = null;
  const client = new DynamoDBClient({
    endpoint, region: 'us-east-1', maxAttempts: 1, credentials: creds,
    requestHandler: { handle: async (req) => { got = req; throw new Error('captured'); }, updateHttpClientConfig() {}, httpHandlerConfigs: () => ({}) },
  });
  try { await client.send(c); } catch (_) { /* captured */ }
  if (!got) throw new Error('the SDK sent nothing');
  const body = typeof got.body === 'string' ? Buffer.from(got.body) : Buffer.from(got.body.buffer, got.body.byteOffset, got.body.byteLength);
  const headers = { ...got.headers, host: url.host, 'content-length': String(body.length), connection: 'keep-alive' };
  const head = `POST ${got.path || '/'} HTTP/1.1\r\n` + Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n') + '\r\n\r\n';
  return Buffer.concat([Buffer.from(head), body]);
}

// One keep-alive connection sending request after request, each after the previous answer.
function rawConnection(requests, state) {
  return new Promise((resolve) => {
    const sock = net.connect(Number(url.port), url.hostname);
    sock.setNoDelay(true);
    let buf = Buffer.alloc(0);
    let k = Math.floor(Math.random() * requests.length);
    const send = () => {
      if (state.stop) { sock.end(); resolve(); return; }
      sock.write(requests[k++ % requests.length]);
    };
    sock.on('connect', send);
    sock.on('error', (e) => { state.firstError = state.firstError || String(e); resolve(); });
    sock.on('close', () => resolve());
    sock.on('data', (d) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString('latin1');
        let total;
        const cl = /\r\ncontent-length: *(\d+)/i.exec(head);
        if (cl) total = end + 4 + Number(cl[1]);
        else if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
          const z = buf.indexOf('\r\n0\r\n\r\n', end);
          if (z < 0) return;
          total = z + 7;
        } else total = end + 4;
        if (buf.length < total) return;
        const ok = head.startsWith('HTTP/1.1 200');
        if (state.counting) { if (ok) state.ops++; else state.errors++; }
        if (!ok) state.firstError = state.firstError || buf.subarray(0, Math.min(total, 400)).toString();
        buf = buf.subarray(total);
        send();
      }
    });
  });
}

async function runRaw() {
  // distinct requests to cycle through: keys differ, bodies are the SDK's
  const requests = [];
  for (let n = 0; n < 200; n++) requests.push(await capture(command(n % inflight, n)));
  const state = { ops: 0, errors: 0, counting: false, stop: false, firstError: null };
  const conns = Array.from({ length: inflight }, () => rawConnection(requests, state));
  await new Promise((r) => setTimeout(r, warmup * 1000));
  state.counting = true;
  const t0 = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  state.counting = false;
  const t = Number(process.hrtime.bigint() - t0) / 1e9;
  state.stop = true;
  await Promise.all(conns);
  return { ops: state.ops, errors: state.errors, seconds: t, firstError: state.firstError };
}

(driver === 'raw' ? runRaw() : runSdk()).then((r) => {
  process.stdout.write(JSON.stringify(r) + '\n');
  process.exit(0);
}, (e) => { process.stderr.write(String(e.stack || e) + '\n'); process.exit(1); });
