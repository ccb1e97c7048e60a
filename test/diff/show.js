#!/usr/bin/env node
// test/diff/show.js [ID...]: prints cases of out/disagreements.jsonl compactly (all when no id):
// the request, then each side's outcome on one line.
'use strict';
const fs = require('fs');
const path = require('path');
const want = new Set(process.argv.slice(2).map(Number));
const lines = fs.readFileSync(path.join(__dirname, 'out/disagreements.jsonl'), 'utf8').split('\n').filter(Boolean);
for (const l of lines) {
  const d = JSON.parse(l);
  if (want.size && !want.has(d.case.id)) continue;
  const { params, setup } = d.case;
  console.log(`#${d.case.id} ${d.case.op} on ${d.case.table} — ${d.category || d.verdict}`);
  console.log('  setup: ' + JSON.stringify(setup));
  console.log('  params: ' + JSON.stringify(params));
  for (const [side, o] of Object.entries(d.outcomes)) console.log(`  ${side}: ${JSON.stringify(o)}`);
}
