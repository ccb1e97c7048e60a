// test/diff/lib/wire.js: a DynamoDB emulator (dynalite, DynamoDB Local) spoken to over HTTP
// with the request document exactly as the case has it. No SDK: an SDK would reshape requests
// and responses (and the AWS SDK v3 needs Node 20, Debian 12 has 18). Requests are signed with
// SigV4 because both emulators read the Authorization header (DynamoDB Local keeps one
// database per access key and region).
'use strict';
const http = require('http');
const crypto = require('crypto');
const fs = require('fs');

const sha256 = (s) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (k, s) => crypto.createHmac('sha256', k).update(s, 'utf8').digest();

// The headers of a SigV4-signed POST of body to host for DynamoDB operation op.
function signedHeaders(host, op, body, now = new Date()) {
  const amzDate = now.toISOString().replace(/[:-]|\.\d{3}/g, '');
  const day = amzDate.slice(0, 8);
  const region = 'us-east-1';
  const headers = {
    'content-type': 'application/x-amz-json-1.0',
    host,
    'x-amz-date': amzDate,
    'x-amz-target': 'DynamoDB_20120810.' + op,
  };
  const names = Object.keys(headers).sort();
  const canonical = ['POST', '/', '', names.map((n) => `${n}:${headers[n]}\n`).join(''), names.join(';'), sha256(body)].join('\n');
  const scope = `${day}/${region}/dynamodb/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  let key = hmac('AWS4difftest', day);
  for (const part of [region, 'dynamodb', 'aws4_request']) key = hmac(key, part);
  const sig = crypto.createHmac('sha256', key).update(toSign, 'utf8').digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=difftest/${scope}, SignedHeaders=${names.join(';')}, Signature=${sig}`;
  return headers;
}

class WireSide {
  constructor(name, port) {
    this.name = name;
    this.port = port;
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  }

  // {ok: true, body} or {error: exception name, message, body}.
  call(op, request) {
    const body = JSON.stringify(request);
    if (process.env.DIFF_TRACE) fs.appendFileSync(process.env.DIFF_TRACE, this.name + ' ' + op + ' ' + body + '\n');
    const host = `127.0.0.1:${this.port}`;
    return new Promise((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1', port: this.port, method: 'POST', path: '/', agent: this.agent,
        headers: { ...signedHeaders(host, op, body), 'content-length': Buffer.byteLength(body) },
      }, (res) => {
        const chunks = [];
        res.on('data', (d) => chunks.push(d));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let doc;
          try { doc = text ? JSON.parse(text) : {}; } catch (e) { doc = { __type: 'unparseable#' + res.statusCode, message: text.slice(0, 200) }; }
          if (res.statusCode === 200) resolve({ ok: true, body: doc });
          else resolve(errorOutcome(doc.__type, doc.message || doc.Message, doc));
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  end() { this.agent.destroy(); }
}

// An error body -> {error, message, body}: the exception's name is __type after the '#'.
function errorOutcome(type, message, body) {
  const t = String(type || 'unknown');
  return { error: t.slice(t.lastIndexOf('#') + 1), message: message === undefined ? null : String(message), body };
}

module.exports = { WireSide, errorOutcome };
