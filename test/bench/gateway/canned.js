#!/usr/bin/env node
// test/bench/gateway/canned.js: the client's ceiling. A trivial HTTP server (its own process)
// answering every DynamoDB request at once with a canned answer of the right shape (PutItem {},
// GetItem one item, Query the 30 items, with x-amz-crc32 as the SDK checks it), so the load
// drivers' throughput against it is what the client alone can do on this machine.
//   node canned.js    prints "port N" once listening on 127.0.0.1
'use strict';
const http = require('http');
const W = require('./workload');

const TABLE = new Int32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1;
  return c;
});
function crc32(buf) {
  let c = -1;
  for (let i = 0; i < buf.length; i++) c = TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

const items = W.loadItems();
const answers = {};
for (const [op, doc] of Object.entries({
  PutItem: {},
  GetItem: { Item: items[0] },
  Query: { Items: items.slice(0, W.ITEMS), Count: W.ITEMS, ScannedCount: W.ITEMS },
})) {
  const body = Buffer.from(JSON.stringify(doc));
  answers[op] = { body, crc: String(crc32(body)) };
}

const server = http.createServer({ keepAliveTimeout: 60000 }, (req, res) => {
  req.resume();
  req.on('end', () => {
    const op = String(req.headers['x-amz-target'] || '').split('.')[1];
    const a = answers[op] || answers.PutItem;
    res.writeHead(200, {
      'content-type': 'application/x-amz-json-1.0', 'content-length': a.body.length,
      'x-amz-crc32': a.crc, 'x-amzn-requestid': 'CANNED',
    });
    res.end(a.body);
  });
});
server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));
