// test/diff/lib/known.js: where both emulators contradict DynamoDB as documented in
// shared/docs/dynamodb-semantics.md, the documentation decides: each rule recognises such a
// case and gives the outcome DynamoDB documents, which replaces the emulator's.
'use strict';
const { stable, norm } = require('./values');

const sameKey = (a, b, keys) => keys.every((k) => stable(norm(a[k])) === stable(norm(b[k])));

const RULES = [
  {
    name: 'an UpdateItem of only REMOVE/DELETE on an absent item creates nothing (emulators create a key-only item)',
    doc: 'dynamodb-semantics.md §6.5 [E: ALT test_update_item_non_existent]',
    fix(c, o, t) {
      if (c.op !== 'UpdateItem' || !o.ok || !o.stored) return null;
      const clauses = (c.params.UpdateExpression.match(/\b(SET|REMOVE|ADD|DELETE)\b/gi) || []).map((s) => s.toUpperCase());
      if (clauses.some((s) => s === 'SET' || s === 'ADD')) return null;
      const keys = [t.pk, t.sk].filter(Boolean);
      if (c.setup.some((i) => sameKey(i, c.key, keys))) return null;
      if (Object.keys(o.stored).length !== keys.length) return null;
      return { ok: true, returned: null, stored: null };
    },
  },
];

// The oracle's outcome, or the documented one with the rule's name when a rule applies.
function correct(c, o, t) {
  for (const r of RULES) {
    const f = r.fix(c, o, t);
    if (f) return { outcome: f, rule: `${r.name} (${r.doc})` };
  }
  return { outcome: o, rule: null };
}

module.exports = { correct };
