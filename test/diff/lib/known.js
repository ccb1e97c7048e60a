// test/diff/lib/known.js: differences between singletable and dynalite that DynamoDB's
// documentation decides (dynalite is not DynamoDB), and singletable's differences that are
// already scheduled. Each rule says which steps it matches, what DynamoDB documents and
// where: a section of shared/docs/dynamodb-semantics.md ("sem §x") or an AWS documentation
// page. A difference a rule explains is reported as known and does not fail the run.
//
// Two kinds of rule:
//   rewrite(doc, side, ctx): a documented equivalence or a member dynalite invents; applied to
//     both normalised response documents of a differing step before they are compared again;
//   match(ctx): a whole outcome of singletable that the documentation prescribes where
//     dynalite answers otherwise.
// A rewrite marked member: true only drops or moves a member dynalite adds (a member no
// TableDescription has, an empty map DynamoDB leaves out): a case whose only rules are such
// rewrites is counted as agreeing, and the summary says how many did so.
// ctx = {c: the case, s: the step, i: its index, st: singletable's outcome, dl: dynalite's outcome,
//        so, ao: every step's outcome on singletable and on dynalite}.
'use strict';
const { SHARED } = require('./cases');
const { norm, stable } = require('./values');
const { normBody } = require('./normalise');

const tableDesc = (doc) => doc && (doc.TableDescription || doc.Table);
const msg = (o) => String(o && o.message);

// The item a compared write of a shared table finds: the last earlier step of the case that put
// an item with its key (undefined: none), or null when an earlier step may have changed it
// otherwise (then no rule below decides anything).
const keyOf = (req) => {
  const t = SHARED[req.TableName];
  const src = req.Key || req.Item;
  if (!t || !src) return null;
  return stable([t.pk, t.sk].filter(Boolean).map((k) => src[k] && norm(src[k])));
};
function itemBefore(c, i) {
  const k = keyOf(c.steps[i].req);
  if (k === null) return null;
  let item;
  for (let j = 0; j < i; j++) {
    const x = c.steps[j];
    if (x.req.TableName !== c.steps[i].req.TableName || keyOf(x.req) !== k) continue;
    if (x.op !== 'PutItem' || x.compare || x.req.ConditionExpression) return null;
    item = x.req.Item;
  }
  return item;
}

// A ConditionExpression evaluated on item two ways: as dynalite does (its own parser and
// compare), and with =, <> and IN as DynamoDB documents them (sem §6.3: maps and lists compare
// deeply, a missing attribute is never = anything, even another missing one, and always <>).
// Everything else is dynalite's compare in both. null when dynalite cannot parse it.
let dyn;
try { dyn = { db: require('dynalite/db'), v: require('dynalite/validations') }; } catch (_) { dyn = null; }
// A FilterExpression (req without a ConditionExpression) is evaluated the same way.
function evalCondition(req, item) {
  if (!dyn || !(req.ConditionExpression || req.FilterExpression)) return null;
  const data = JSON.parse(JSON.stringify(req));
  if (dyn.v.validateExpressions(data)) return null;
  const parsed = req.ConditionExpression ? data._condition : data._filter;
  if (!parsed || !parsed.expression) return null;
  const arg = (a) => {
    if (Array.isArray(a)) return dyn.db.mapPath(a, item || {});
    if (a.type === 'function' && a.name === 'size') {
      const v = arg(a.args[0]);
      if (!v) return null;
      const [t] = Object.keys(v);
      const n = t === 'S' ? v.S.length : t === 'B' ? Buffer.from(v.B, 'base64').length
        : ['SS', 'NS', 'BS', 'L'].includes(t) ? v[t].length : t === 'M' ? Object.keys(v.M).length : null;
      return n == null ? null : { N: String(n) };
    }
    return a;
  };
  const docEq = (a, b) => !!a && !!b && stable(norm(a)) === stable(norm(b));
  const run = (e, doc) => {
    if (e.type === 'and') return run(e.args[0], doc) && run(e.args[1], doc);
    if (e.type === 'or') return run(e.args[0], doc) || run(e.args[1], doc);
    if (e.type === 'not') return !run(e.args[0], doc);
    // size() of an N, BOOL or NULL of the item: the comparison that uses it is false (sem §6.4; dynalite: <> is true)
    if (doc && e.args.some((a) => a && a.type === 'function' && a.name === 'size' && ['N', 'BOOL', 'NULL'].includes(Object.keys(arg(a.args[0]) || {})[0]))) return false;
    const as = e.args.map(arg);
    if (doc && e.type === '=') return docEq(as[0], as[1]);
    if (doc && e.type === '<>') return !docEq(as[0], as[1]);
    if (doc && e.type === 'in') return as.slice(1).some((x) => docEq(as[0], x));
    if (doc && ['<', '<=', '>', '>=', 'between'].includes(e.type) && as.some((x) => !x)) return false;
    // S orders by the bytes of its UTF-8 encoding (sem §1.4; dynalite: by UTF-16 code units)
    if (doc && ['<', '<=', '>', '>=', 'between'].includes(e.type) && as.every((x) => x.S !== undefined)) {
      const cmp = (a, b) => Buffer.compare(Buffer.from(a.S, 'utf8'), Buffer.from(b.S, 'utf8'));
      if (e.type === 'between') return cmp(as[0], as[1]) >= 0 && cmp(as[0], as[2]) <= 0;
      const k = cmp(as[0], as[1]);
      return e.type === '<' ? k < 0 : e.type === '<=' ? k <= 0 : e.type === '>' ? k > 0 : k >= 0;
    }
    return dyn.db.compare(e.type === 'function' ? e.name : e.type, as[0], as.slice(1));
  };
  const root = parsed.expression;
  const attempt = (doc) => { try { return run(root, doc); } catch (_) { return null; } }; // null: no verdict
  const r = { dynalite: attempt(false), documented: attempt(true) };
  return r.documented === null ? null : r;
}
// Does the condition of the compared write of case c (step i) pass on singletable's side
// (doc) and fail on dynalite's, or the reverse, for this documented reason alone?
function conditionSplit(c, i) {
  const s = c.steps[i];
  if (!['PutItem', 'UpdateItem', 'DeleteItem'].includes(s.op) || !s.compare) return null;
  const before = itemBefore(c, i);
  if (before === null) return null;
  const r = evalCondition(s.req, before);
  return r && r.dynalite !== null && r.dynalite !== r.documented ? r : null;
}
const writeStep = (c) => c.steps.findIndex((x) => ['PutItem', 'UpdateItem', 'DeleteItem'].includes(x.op) && x.compare);

// ---- the legacy conditions (Expected, QueryFilter, ScanFilter; lib/legacy.js) ----
// A map of conditions evaluated on item two ways: as dynalite does (db.matchesFilter), and as
// the AWS API Reference documents them: ConditionalOperator OR is true when any condition is
// ("OR - At least one of the conditions must evaluate to true, rather than all of them";
// dynalite returns false at the first false one), EQ/NE/IN compare lists, maps and sets by
// value (Condition: "EQ is supported for all data types, including lists and maps"; dynalite
// compares L and M by reference), {"Exists": true, "Value": v} means the attribute is there
// and equals v (ExpectedAttributeValue: Value "for DynamoDB to compare with an attribute";
// dynalite only tests existence), and NOT_CONTAINS, which tests for "absence of a
// subsequence, or absence of a value in a set" of the target attribute, is false when there
// is no attribute (dynalite: true; DynamoDB Local, AWS's own code, agrees with singletable:
// local.sh). Everything else is dynalite's compare in both. null: no verdict.
function legacyEval(map, op, item) {
  if (!dyn || !map) return null;
  // copies: the generator may put one object in both the item and the condition, and dynalite
  // compares lists and maps by reference (over the wire they are never the same object)
  map = JSON.parse(JSON.stringify(map));
  item = JSON.parse(JSON.stringify(item || {}));
  const docEq = (a, b) => !!a && !!b && stable(norm(a)) === stable(norm(b));
  const term = (e, v) => {
    if (!e.ComparisonOperator) return e.Exists === false ? v === undefined : docEq(v, e.Value);
    const list = e.AttributeValueList || (e.Value ? [e.Value] : []);
    switch (e.ComparisonOperator) {
      case 'EQ': return docEq(v, list[0]);
      case 'NE': return !docEq(v, list[0]);
      case 'IN': return list.some((x) => docEq(v, x));
      case 'NOT_CONTAINS': return !!v && dyn.db.compare('NOT_CONTAINS', v, list);
      default: return dyn.db.compare(e.ComparisonOperator, v, list);
    }
  };
  try {
    const terms = Object.entries(map).map(([k, e]) => term(e, item[k]));
    return { dynalite: dyn.db.matchesFilter(item, map, op), documented: op === 'OR' ? terms.some(Boolean) : terms.every(Boolean) };
  } catch (_) { return null; }
}
// The legacy condition of write step i passes on one side and fails on the other for the reasons above alone.
function legacySplit(c, i) {
  const s = c.steps[i];
  if (!['PutItem', 'UpdateItem', 'DeleteItem'].includes(s.op) || !s.compare || !s.req.Expected) return null;
  const before = itemBefore(c, i);
  if (before === null) return null;
  const r = legacyEval(s.req.Expected, s.req.ConditionalOperator, before);
  return r && r.dynalite !== r.documented ? r : null;
}
// The items of a legacy Query/Scan case (c.items, keyed by c.keyNames) by key.
const itemKey = (c, it) => stable(c.keyNames.map((k) => it[k] && norm(it[k])));

const reqOf = (ctx) => ctx.s.req || {};
const REWRITES = [
  {
    name: 'dynalite adds TableThroughputModeSummary',
    member: true, // a member dynalite adds or places otherwise: the documents agree without it
    doc: 'AWS API Reference, TableDescription: no such member',
    rewrite(doc, side) { const t = tableDesc(doc); if (side === 'dynalite' && t) delete t.TableThroughputModeSummary; },
  },
  {
    name: 'BillingMode: dynalite writes it as a top-level member; PROVISIONED is the default',
    member: true, // a member dynalite adds or places otherwise: the documents agree without it
    doc: 'AWS API Reference, TableDescription.BillingModeSummary and BillingModeSummary ("PROVISIONED ... the default")',
    rewrite(doc) {
      const t = tableDesc(doc);
      if (!t) return;
      const mode = (t.BillingModeSummary && t.BillingModeSummary.BillingMode) || t.BillingMode || 'PROVISIONED';
      delete t.BillingMode;
      if (mode === 'PROVISIONED') delete t.BillingModeSummary; else t.BillingModeSummary = { BillingMode: mode };
    },
  },
  {
    name: 'dynalite reports Backfilling false on indexes that are not being backfilled',
    member: true, // a member dynalite adds or places otherwise: the documents agree without it
    doc: 'AWS API Reference, GlobalSecondaryIndexDescription.Backfilling ("for indexes that were created during a CreateTable operation, the Backfilling attribute does not appear")',
    rewrite(doc, side) { const t = tableDesc(doc); if (side === 'dynalite') for (const g of (t && t.GlobalSecondaryIndexes) || []) if (g.Backfilling === false) delete g.Backfilling; },
  },
  {
    name: 'dynalite returns an empty Attributes map; DynamoDB leaves Attributes out when nothing is left',
    member: true, // a member dynalite adds or places otherwise: the documents agree without it
    doc: 'sem §7.2 ("Attributes is absent when nothing is left")',
    rewrite(doc, side) { if (side === 'dynalite' && doc && doc.Attributes && !Object.keys(doc.Attributes).length) delete doc.Attributes; },
  },
  {
    name: 'a Query on an index: dynalite adds a Table part of 0 units',
    member: true, // a member dynalite adds or places otherwise: the documents agree without it
    doc: 'sem §3.4 ("Query or Scan on an index returns only the index part ... no Table")',
    rewrite(doc, side, ctx) {
      const cc = doc && doc.ConsumedCapacity;
      if (side === 'dynalite' && ctx.s.op === 'Query' && reqOf(ctx).IndexName && cc && cc.Table && cc.Table.CapacityUnits === 0) delete cc.Table;
    },
  },
  {
    name: 'a Query that evaluates nothing costs the minimum (dynalite: 0)',
    doc: 'sem §3.2 Query ("The minimum is 0.5/1 per partition touched, even an empty one"; DG ReadConsistency)',
    rewrite(doc, side, ctx) {
      const cc = doc && doc.ConsumedCapacity;
      if (side !== 'dynalite' || ctx.s.op !== 'Query' || !cc || doc.ScannedCount !== 0 || cc.CapacityUnits !== 0) return;
      const min = reqOf(ctx).ConsistentRead === true ? 1 : 0.5;
      cc.CapacityUnits = min;
      if (cc.Table && cc.Table.CapacityUnits === 0) cc.Table.CapacityUnits = min;
      // on an index the whole charge is the index's part (sem §3.4: "The total equals Table plus every index")
      const ix = reqOf(ctx).IndexName;
      for (const m of ['GlobalSecondaryIndexes', 'LocalSecondaryIndexes']) if (ix && cc[m] && cc[m][ix] && cc[m][ix].CapacityUnits === 0) cc[m][ix].CapacityUnits = min;
    },
  },
  {
    name: 'dynalite leaves the indexes out of DeleteTable\'s TableDescription',
    doc: 'AWS API Reference, DeleteTable: the response is the TableDescription of the table being deleted',
    rewrite(doc, side, ctx) {
      const t = tableDesc(doc);
      if (ctx.s.op !== 'DeleteTable' || !t) return;
      const o = tableDesc(ctx.dl.body);
      if (o && !o.GlobalSecondaryIndexes) delete t.GlobalSecondaryIndexes;
    },
  },
];

const MATCHES = [
  {
    name: 'ReturnValues of PutItem/DeleteItem other than ALL_OLD/NONE is refused',
    doc: 'sem §7.2 (AWS API Reference, PutItem/DeleteItem ReturnValues)',
    match: (ctx) => ['PutItem', 'DeleteItem'].includes(ctx.s.op) && !['ALL_OLD', 'NONE', undefined].includes(reqOf(ctx).ReturnValues)
      && ctx.st.error === 'ValidationException' && /ReturnValues can only be ALL_OLD or NONE/.test(msg(ctx.st)),
  },
  {
    name: 'a path into a key attribute is refused',
    doc: 'sem §1.1 ("Key attributes must be scalars; list random access \'[]\' and map lookup \'.\' are not allowed")',
    match: (ctx) => ctx.st.error === 'ValidationException' && /^Key attributes must be scalars/.test(msg(ctx.st)),
  },
  {
    name: 'an ordering comparison or BETWEEN with a :value that is not S, N or B is refused before any item is read',
    doc: 'sem §6.3 (DG Expressions.OperatorsAndFunctions: comparators on scalars)',
    match: (ctx) => ctx.st.error === 'ValidationException'
      && /Incorrect operand type for operator or function; operator or function: (<|<=|>|>=|BETWEEN), operand type: (L|M|SS|NS|BS|BOOL|NULL)/.test(msg(ctx.st)),
  },
  {
    name: 'a ProjectionExpression or AttributesToGet with Select COUNT (or any Select but SPECIFIC_ATTRIBUTES) is refused',
    doc: 'sem §4.3 (AWS API Reference, Query.Select: "You cannot use both Select and ProjectionExpression in a single request, unless the value for Select is SPECIFIC_ATTRIBUTES"; Query.AttributesToGet is the legacy form of ProjectionExpression)',
    match: (ctx) => ctx.st.error === 'ValidationException' && /^Cannot specify the (ProjectionExpression|AttributesToGet) when choosing to get/.test(msg(ctx.st)),
  },
  {
    name: 'Expected: OR, Exists true with a Value, NOT_CONTAINS on an absent attribute, EQ/NE/IN on lists and maps decided as documented (dynalite differs)',
    doc: 'AWS API Reference, ExpectedAttributeValue, Condition (ComparisonOperator) and PutItem.ConditionalOperator; see legacyEval',
    match(ctx) {
      const r = legacySplit(ctx.c, ctx.i);
      const out = (o, pass) => (pass ? o.ok : o.error === 'ConditionalCheckFailedException');
      return !!r && out(ctx.st, r.documented) && out(ctx.dl, r.dynalite);
    },
  },
  {
    name: 'after a write whose Expected passed on singletable alone (rule above), what it wrote is stored',
    doc: 'sem §7.3 (a write whose condition passes is applied); the rule above',
    match(ctx) {
      const { c, i, st, so } = ctx;
      if (ctx.s.note !== 'stored' || ctx.s.op !== 'GetItem' || !st.ok || i < 1 || !so[i - 1].ok) return false;
      const w = c.steps[i - 1], r = legacySplit(c, i - 1);
      if (!r || !r.documented || ctx.ao[i - 1].error !== 'ConditionalCheckFailedException') return false;
      const same = (a, b) => stable(norm({ M: a || {} })) === stable(norm({ M: b || {} }));
      if (w.op === 'PutItem') return same(w.req.Item, st.body.Item);
      if (w.op === 'DeleteItem') return !st.body.Item;
      return w.req.ReturnValues === 'ALL_NEW' ? same(so[i - 1].body.Attributes, st.body.Item) : !!st.body.Item;
    },
  },
  {
    name: 'QueryFilter/ScanFilter: OR, NOT_CONTAINS on an absent attribute, EQ/NE/IN on lists and maps decided as documented (dynalite differs)',
    doc: 'AWS API Reference, Condition (ComparisonOperator), Query.ConditionalOperator, Scan.ConditionalOperator; see legacyEval. The filter is applied after Limit ("A filter expression is applied after a Query finishes, but before the results are returned", DG Query.FilterExpression), so only the Items and Count differ',
    match(ctx) {
      const { c, s, st, dl } = ctx;
      const f = reqOf(ctx).QueryFilter || reqOf(ctx).ScanFilter;
      if (!f || !c.items || !st.ok || !dl.ok || !['Query', 'Scan'].includes(s.op)) return false;
      const full = new Map(c.items.map((it) => [itemKey(c, it), it]));
      const a = normBody(st.body, { sort: true }), b = normBody(dl.body, { sort: true });
      const ka = new Set((a.Items || []).map((it) => itemKey(c, it))), kb = new Set((b.Items || []).map((it) => itemKey(c, it)));
      if (!a.Items || !b.Items) return false;
      for (const [mine, other, pass] of [[ka, kb, true], [kb, ka, false]]) {
        for (const k of mine) {
          if (other.has(k)) continue;
          const r = legacyEval(f, reqOf(ctx).ConditionalOperator, full.get(k));
          if (!r || r.documented !== pass || r.dynalite === pass) return false;
        }
      }
      const common = (x, other) => ({ ...x, Items: x.Items.filter((it) => other.has(itemKey(c, it))), Count: undefined });
      return stable(common(a, kb)) === stable(common(b, ka)) && a.Count === ka.size && b.Count === kb.size;
    },
  },
  {
    name: 'Select SPECIFIC_ATTRIBUTES without a ProjectionExpression is refused',
    doc: 'sem §4.3 ("SPECIFIC_ATTRIBUTES: requires ProjectionExpression"; AWS API Reference, Query.Select)',
    match: (ctx) => ['Query', 'Scan'].includes(ctx.s.op) && reqOf(ctx).Select === 'SPECIFIC_ATTRIBUTES' && !reqOf(ctx).ProjectionExpression
      && ctx.st.error === 'ValidationException' && /Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES/.test(msg(ctx.st)),
  },
  {
    name: 'an UpdateItem of only REMOVE/DELETE actions on an absent item creates nothing (dynalite creates a key-only item)',
    doc: 'sem §6.5; for AttributeUpdates, AWS API Reference, AttributeValueUpdate ("If no item with the specified Key is found: ... DELETE - Nothing happens; there is no attribute to delete")',
    match(ctx) {
      const { c, s, st, dl } = ctx;
      const upd = c.steps.find((x) => x.op === 'UpdateItem' && x.compare);
      // AttributeUpdates of DELETE actions only: "If no item with the specified Key is found: ... DELETE - Nothing happens" (AWS API Reference, AttributeValueUpdate)
      const au = upd && upd.req.AttributeUpdates && Object.values(upd.req.AttributeUpdates);
      const legacyDelete = !!au && au.length > 0 && au.every((x) => x && x.Action === 'DELETE') && !upd.req.UpdateExpression;
      if (!upd || (!legacyDelete && (!/^\s*(REMOVE|DELETE)\b/i.test(upd.req.UpdateExpression || '') || /\b(SET|ADD)\b/.test(upd.req.UpdateExpression)))) return false;
      if (c.steps.some((x) => x.op === 'PutItem' && !x.compare && x.req.TableName === upd.req.TableName
        && JSON.stringify(Object.keys(upd.req.Key).sort().map((k) => x.req.Item[k])) === JSON.stringify(Object.keys(upd.req.Key).sort().map((k) => upd.req.Key[k])))) return false;
      const keyOnly = (i) => i && Object.keys(i).length === Object.keys(upd.req.Key).length;
      if (s === upd) return st.ok && dl.ok && !st.body.Attributes && keyOnly(dl.body.Attributes);
      return s.note === 'stored' && st.ok && dl.ok && !st.body.Item && keyOnly(dl.body.Item);
    },
  },
  {
    name: '= and <> compare maps and lists deeply, and a missing attribute is = nothing (dynalite: by reference; two missing attributes equal)',
    doc: 'sem §6.3 ("maps compare deeply", "Two missing attributes are not =")',
    match(ctx) {
      if (ctx.s.note === 'stored' && ctx.s.op === 'GetItem' && ctx.i > 0 && ctx.st.ok && ctx.so && ctx.so[ctx.i - 1].ok) {
        // the write before passed its condition on singletable alone: what it put is stored
        const w = ctx.c.steps[ctx.i - 1], r = conditionSplit(ctx.c, ctx.i - 1);
        if (!r || !r.documented || ctx.ao[ctx.i - 1].ok) return false;
        if (w.op === 'PutItem') return stable(norm({ M: w.req.Item })) === stable(norm({ M: ctx.st.body.Item || {} }));
        if (w.op === 'DeleteItem') return !ctx.st.body.Item;
        return false;
      }
      const r = conditionSplit(ctx.c, ctx.i);
      // a condition that passes lets an UpdateItem fail on the types it finds in the item (sem §6.5)
      const typeError = (o) => ctx.s.op === 'UpdateItem' && o.error === 'ValidationException'
        && msg(o) === 'An operand in the update expression has an incorrect data type';
      const out = (o, pass) => (pass ? o.ok || typeError(o) : o.error === 'ConditionalCheckFailedException');
      return !!r && out(ctx.st, r.documented) && out(ctx.dl, r.dynalite);
    },
  },
  {
    name: 'FilterExpression: =, <>, IN on maps and lists, missing attributes and the order of S decided as documented (dynalite differs)',
    doc: 'sem §6.3 ("maps compare deeply", "Missing attribute: every comparison with it is false, except <>"), sem §1.4 (S in UTF-8 byte order, "not UTF-16 order"), sem §4.4/§5 (the filter is applied to the items read, so only Items and Count differ)',
    match(ctx) {
      const { c, s, st, dl, i } = ctx;
      const q = reqOf(ctx);
      if (!['Query', 'Scan'].includes(s.op) || !q.FilterExpression || !st.ok || !dl.ok) return false;
      const a = normBody(st.body, { sort: true }), b = normBody(dl.body, { sort: true });
      if (!a.Items || !b.Items) return false;
      // the items of the table: its setup puts that succeeded (none of the case's compared writes before)
      const full = [];
      for (let j = 0; j < i; j++) {
        const x = c.steps[j];
        if (x.req.TableName !== q.TableName) continue;
        if (['GetItem', 'Query', 'Scan', 'CreateTable', 'DescribeTable'].includes(x.op)) continue;
        if (x.op !== 'PutItem') return false;
        if (x.op === 'PutItem' && (x.compare || x.req.ConditionExpression)) return false;
        if (x.op === 'PutItem' && ctx.so[j].ok) full.push(x.req.Item);
      }
      const verdicts = full.map((it) => evalCondition(q, it));
      // x is what a projection of f can give: f's members, lists by a subsequence of their elements
      const sub = (x, f) => {
        const [t] = Object.keys(x || {});
        if (!f || t !== Object.keys(f)[0]) return false;
        if (t === 'M') return Object.keys(x.M).every((k) => sub(x.M[k], f.M[k]));
        if (t === 'L') { let k = 0; return x.L.every((e) => { while (k < f.L.length && !sub(e, f.L[k])) k++; return k++ < f.L.length; }); }
        return stable(norm(x)) === stable(norm(f));
      };
      const multiset = (items) => { const m = new Map(); for (const it of items) { const k = stable(it); m.set(k, (m.get(k) || 0) + 1); } return m; };
      const ma = multiset(a.Items), mb = multiset(b.Items);
      const used = new Set();
      const explain = (x, pass) => {
        const j = full.findIndex((f, k) => !used.has(k) && verdicts[k] && verdicts[k].dynalite !== null
          && verdicts[k].documented === pass && verdicts[k].dynalite !== pass && sub({ M: x }, { M: f }));
        if (j < 0) return false;
        used.add(j);
        return true;
      };
      let extraA = 0, extraB = 0;
      for (const [mine, other, pass, items] of [[ma, mb, true, a.Items], [mb, ma, false, b.Items]]) {
        const seen = new Map();
        for (const it of items) {
          const k = stable(it);
          seen.set(k, (seen.get(k) || 0) + 1);
          if (seen.get(k) <= (other.get(k) || 0)) continue;
          if (!explain(it, pass)) return false;
          if (pass) extraA++; else extraB++;
        }
      }
      if (!extraA && !extraB) return false;
      const rest = (x) => ({ ...x, Items: undefined, Count: undefined });
      return stable(rest(a)) === stable(rest(b)) && a.Count - b.Count === extraA - extraB;
    },
  },
  {
    name: 'the condition is checked before the update is applied: a failed condition, not the update\'s invalid path',
    doc: 'sem §7.3 ("... then the condition, then the write")',
    match(ctx) {
      const { c, i, st, dl, s } = ctx;
      if (s.op !== 'UpdateItem' || st.error !== 'ConditionalCheckFailedException' || dl.error !== 'ValidationException'
        || !/^The document path provided in the update expression is invalid for update/.test(msg(dl))) return false;
      const before = itemBefore(c, i);
      const r = before === null ? null : evalCondition(s.req, before);
      return !!r && r.documented === false;
    },
  },
  {
    name: 'a WriteRequest with both PutRequest and DeleteRequest is refused (dynalite runs one)',
    doc: 'AWS API Reference, WriteRequest ("You can only request one of these operations, not both, in a single WriteRequest")',
    match: (ctx) => ctx.s.op === 'BatchWriteItem' && ctx.st.error === 'ValidationException' && ctx.dl.ok
      && Object.values(reqOf(ctx).RequestItems || {}).some((l) => Array.isArray(l) && l.some((w) => w && w.PutRequest && w.DeleteRequest)),
  },
  {
    name: 'after a write that singletable refused under a rule above, what is stored is what was there before',
    doc: 'sem §7.3 (a refused request changes nothing); the rule that explained the refusal',
    match(ctx) {
      const { c, i, st, so, ao } = ctx;
      if (ctx.s.note !== 'stored' || !st.ok || !so || i < 1) return false;
      const w = i - 1, ws = c.steps[w];
      if (so[w].ok || !ws.compare) return false;
      const wctx = { c, s: ws, i: w, st: so[w], dl: ao[w], so, ao };
      if (!MATCHES.some((m) => m !== this && m.match(wctx))) return false;
      const before = (table, item) => {
        let last;
        for (let j = 0; j < w; j++) {
          const x = c.steps[j];
          if (x.op === 'PutItem' && !x.compare && x.req.TableName === table && keyOf(x.req) === keyOf({ TableName: table, Item: item })) last = x.req.Item;
        }
        return last;
      };
      const same = (a, b) => stable(norm({ M: a || {} })) === stable(norm({ M: b || {} }));
      if (ctx.s.op === 'GetItem') {
        const b = itemBefore(c, w);
        return b !== null && (b === undefined ? !st.body.Item : same(b, st.body.Item));
      }
      if (ctx.s.op === 'BatchGetItem') {
        return Object.entries(st.body.Responses || {}).every(([t, items]) => items.every((it) => same(before(t, it), it)))
          && Object.entries(ctx.s.req.RequestItems || {}).every(([t, e]) => (st.body.Responses[t] || []).length
            === e.Keys.filter((k) => before(t, k) !== undefined).length);
      }
      return false;
    },
  },
  {
    name: 'an arithmetic result of more than 38 significant digits is refused (dynalite stores it)',
    doc: 'sem §2.3 ("Up to 38 significant digits"; "A result over 38 digits (e.g. 1e50 + 1) is an error, not a rounded value, and AWS reports it with the overflow text"); DG Naming rules and data types, Number ("Numbers can have up to 38 digits of precision")',
    match(ctx) {
      const { s, st, dl, i, ao } = ctx;
      if (s.op !== 'UpdateItem' || !dl.ok || st.error !== 'ValidationException'
        || msg(st) !== 'Number overflow. Attempting to store a number with magnitude larger than supported range') return false;
      if (!/[+-]|\bADD\b/i.test(reqOf(ctx).UpdateExpression || '')) return false;
      // dynalite's result, in what it returned or in what it stored (the GetItem after)
      const next = ctx.c.steps[i + 1];
      const doc = (dl.body && dl.body.Attributes) || (next && next.note === 'stored' && ao[i + 1].ok && ao[i + 1].body.Item);
      const digits = (n) => String(n).replace(/^-/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
      const long = (v) => !!v && typeof v === 'object' && (v.N !== undefined ? digits(v.N) > 38
        : Object.values(v.M || {}).some(long) || (v.L || []).some(long));
      return !!doc && Object.values(doc).some(long);
    },
  },
  {
    name: 'NOT NOT condition is a condition (dynalite: a syntax error)',
    doc: 'sem §6.2 (condition ::= ... | NOT condition); DG Expressions.OperatorsAndFunctions, Syntax for condition expressions ("NOT condition")',
    match: (ctx) => /\bNOT\s+NOT\b/i.test(reqOf(ctx).ConditionExpression || reqOf(ctx).FilterExpression || '')
      && ctx.dl.error === 'ValidationException' && /Syntax error; Expected "\(" but "N" found/.test(msg(ctx.dl))
      && (ctx.st.ok || ctx.st.error === 'ConditionalCheckFailedException'),
  },
  {
    name: 'a malformed ResourceArn is a ValidationException (dynalite: AccessDeniedException)',
    doc: 'AWS API Reference, TagResource/UntagResource/ListTagsOfResource: ResourceArn must be a table ARN; errors of the request are ValidationException',
    match: (ctx) => reqOf(ctx).ResourceArn === 'foo' && ctx.st.error === 'ValidationException' && ctx.dl.error === 'AccessDeniedException',
  },
  {
    name: 'ConditionalOperator with fewer than two conditions is refused (dynalite accepts it)',
    doc: 'DynamoDB Local, AWS\'s own code (local.sh): "ConditionalOperator can only be used when Filter or Expected has two or more elements"; AWS API Reference, Query/Scan/PutItem.ConditionalOperator ("A logical operator to apply to the conditions in a ... map")',
    match: (ctx) => ctx.st.error === 'ValidationException' && /^ConditionalOperator can only be used when Filter or Expected has two or more elements/.test(msg(ctx.st))
      && reqOf(ctx).ConditionalOperator && Object.keys(reqOf(ctx).QueryFilter || reqOf(ctx).ScanFilter || reqOf(ctx).Expected || {}).length < 2,
  },
  {
    name: 'Expected: a ComparisonOperator given a value of a type it does not take is refused (DynamoDB Local and dynalite evaluate it)',
    doc: 'AWS API Reference, ExpectedAttributeValue.ComparisonOperator (e.g. "NOT_CONTAINS : ... AttributeValueList can contain only one AttributeValue element of type String, Number, or Binary (not a set type)", likewise LT, GE, BEGINS_WITH, IN, BETWEEN, CONTAINS)',
    match: (ctx) => ctx.st.error === 'ValidationException' && /ComparisonOperator (\w+) is not valid for (\w+) AttributeValue type/.test(msg(ctx.st))
      && !!reqOf(ctx).Expected && ctx.dl.error !== 'ValidationException',
  },
  // ---- DynamoDB Local (local.sh) ----
  {
    name: 'two actions of a TransactWriteItems on one item: a ValidationException for the whole request (DynamoDB Local evaluates them)',
    doc: 'sem §8.3 ("No two actions may target the same item (ConditionCheck included): ValidationException ... for the whole request with no CancellationReasons"); AWS API Reference, TransactWriteItems ("You can\'t target the same item with multiple operations within the same transaction")',
    match(ctx) {
      if (ctx.s.op !== 'TransactWriteItems' || ctx.st.error !== 'ValidationException' || !/^Transaction request cannot include multiple operations on one item/.test(msg(ctx.st))) return false;
      const seen = new Set();
      for (const a of reqOf(ctx).TransactItems || []) {
        const x = Object.values(a)[0] || {};
        const k = x.TableName + ' ' + keyOf({ TableName: x.TableName, Key: x.Key || x.Item });
        if (seen.has(k)) return true;
        seen.add(k);
      }
      return false;
    },
  },
  {
    name: 'an update of a TransactWriteItems that fails on the item it finds (ADD to a non-number, a number beyond 38 digits) is a ValidationError cancellation reason (DynamoDB Local: a ValidationException)',
    doc: 'AWS API Reference, TransactWriteItems, TransactionCanceledException: reason "ValidationError" with the messages "An operand in the update expression has an incorrect data type" and "Number overflow"; sem §8.3 (ValidationError reasons)',
    match: (ctx) => ctx.s.op === 'TransactWriteItems' && ctx.st.error === 'TransactionCanceledException'
      && ((ctx.st.body && ctx.st.body.CancellationReasons) || []).some((x) => x.Code === 'ValidationError')
      && ctx.dl.error === 'ValidationException' && /^(An operand in the update expression has an incorrect data type|DynamoDB only supports precision up to 38 digits|Number overflow)/.test(msg(ctx.dl)),
  },
];

// the control-plane operations' rules (CreateTable ... ListTagsOfResource)
REWRITES.push(...require('./known_tables').REWRITES);
MATCHES.push(...require('./known_tables').MATCHES);

module.exports = { REWRITES, MATCHES, evalCondition };
