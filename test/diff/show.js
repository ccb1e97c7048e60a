#!/usr/bin/env node
// test/diff/show.js [ID...]: the disagreements of the last run (out/disagreements.jsonl),
// compactly: the case, the first differing step's request and both sides' normalised
// responses (all disagreements when no id is given).
'use strict';
const fs = require('fs');
const path = require('path');
const want = new Set(process.argv.slice(2).map(Number));
const lines = fs.readFileSync(path.join(__dirname, 'out/disagreements.jsonl'), 'utf8').split('\n').filter(Boolean);
for (const l of lines) {
  const d = JSON.parse(l);
  if (want.size && !want.has(d.case)) continue;
  if (d.verdict === 'known') { console.log(`#${d.case} ${d.op}: known: ${d.rules.join('; ')}`); continue; }
  console.log(`#${d.case} ${d.op}, step ${d.step} (${d.step_op}${d.note ? ', ' + d.note : ''}): ${d.verdict}${d.rule ? ' — ' + d.rule : ''}`);
  console.log('  request: ' + JSON.stringify(d.request));
  for (const [k, v] of Object.entries(d)) {
    if (!['verdict', 'rule', 'case', 'op', 'step', 'step_op', 'note', 'request', 'steps'].includes(k)) console.log(`  ${k}: ${JSON.stringify(v)}`);
  }
}
