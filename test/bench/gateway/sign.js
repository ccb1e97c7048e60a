// test/bench/gateway/sign.js: pre-signed DynamoDB requests for wrk (endpoint.js writes them,
// wrk.lua replays them). Each request is the whole HTTP/1.1 message, signed with AWS Signature
// Version 4 as the SDKs sign (content-type, host, x-amz-date and x-amz-target signed; the
// body's SHA-256 in the canonical request), so the gateway's signature check is part of what
// is measured. A signature is valid for 15 minutes from its X-Amz-Date: sign right before use.
//
// File format (one file per wrk thread, PREFIX.0, PREFIX.1, ...): each request as its length
// in bytes in decimal, a newline, then the request's bytes.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const W = require('./workload');

const REGION = 'us-east-1';
const SERVICE = 'dynamodb';
const HOST = 'localhost';          // any name: every target ignores it but the signature covers it
const CONTENT_TYPE = 'application/x-amz-json-1.0';
const SIGNED = 'content-type;host;x-amz-date;x-amz-target';

const sha256 = (s) => crypto.createHash('sha256').update(s).digest('hex');
const hmac = (k, s) => crypto.createHmac('sha256', k).update(s).digest();

// A signer for one key and one instant (the X-Amz-Date of every request it signs).
function signer(keyId, secret, when = new Date()) {
  const amzDate = when.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${REGION}/${SERVICE}/aws4_request`;
  const kSigning = hmac(hmac(hmac(hmac('AWS4' + secret, day), REGION), SERVICE), 'aws4_request');
  return (operation, doc) => {
    const body = JSON.stringify(doc);
    const target = 'DynamoDB_20120810.' + operation;
    const canonical = ['POST', '/', '', `content-type:${CONTENT_TYPE}`, `host:${HOST}`,
      `x-amz-date:${amzDate}`, `x-amz-target:${target}`, '', SIGNED, sha256(body)].join('\n');
    const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
    const signature = hmac(kSigning, toSign).toString('hex');
    return 'POST / HTTP/1.1\r\n' +
      `Host: ${HOST}\r\n` +
      `Content-Type: ${CONTENT_TYPE}\r\n` +
      `X-Amz-Date: ${amzDate}\r\n` +
      `X-Amz-Target: ${target}\r\n` +
      `Authorization: AWS4-HMAC-SHA256 Credential=${keyId}/${scope}, SignedHeaders=${SIGNED}, Signature=${signature}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      '\r\n' + body;
  };
}

// The request of operation op ('put', 'get', 'query'), number n: PutItem writes the new item
// (writer#TAG, post#n), GetItem reads a random loaded item, Query a random whole collection.
function request(sign, op, tag, n) {
  if (op === 'put') return sign('PutItem', { TableName: W.TABLE, Item: W.putItem(tag, n) });
  if (op === 'get') return sign('GetItem', { TableName: W.TABLE, Key: W.randomKey() });
  if (op === 'query') return sign('Query', W.queryParams(W.randomCollection()));
  throw new Error('unknown operation ' + op);
}

// Writes COUNT signed requests of op into PREFIX.0 .. PREFIX.(THREADS-1), dealt round-robin
// (so PutItem keys are distinct across the threads too); returns the total bytes written.
function writeFiles(prefix, threads, op, tag, count, keyId, secret) {
  const sign = signer(keyId, secret);
  const parts = Array.from({ length: threads }, () => []);
  let bytes = 0;
  for (let n = 0; n < count; n++) {
    const r = Buffer.from(request(sign, op, tag, n));
    parts[n % threads].push(Buffer.from(r.length + '\n'), r);
    bytes += r.length;
  }
  parts.forEach((p, i) => fs.writeFileSync(`${prefix}.${i}`, Buffer.concat(p)));
  return bytes;
}

module.exports = { signer, request, writeFiles, HOST };
