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
// ctx = {c: the case, s: the step, st: singletable's outcome, dl: dynalite's outcome}.
'use strict';

const tableDesc = (doc) => doc && (doc.TableDescription || doc.Table);
const msg = (o) => String(o && o.message);

const REWRITES = [
  {
    name: 'dynalite adds TableThroughputModeSummary',
    doc: 'AWS API Reference, TableDescription: no such member',
    rewrite(doc, side) { const t = tableDesc(doc); if (side === 'dynalite' && t) delete t.TableThroughputModeSummary; },
  },
  {
    name: 'BillingMode: dynalite writes it as a top-level member; PROVISIONED is the default',
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
    name: 'Backfilling false on an index that is not being backfilled',
    doc: 'AWS API Reference, GlobalSecondaryIndexDescription.Backfilling (true only while an index added by UpdateTable is backfilled)',
    rewrite(doc) { const t = tableDesc(doc); for (const g of (t && t.GlobalSecondaryIndexes) || []) if (g.Backfilling === false) delete g.Backfilling; },
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

const reqOf = (ctx) => ctx.s.req || {};
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
    name: 'a ProjectionExpression with Select COUNT (or any Select but SPECIFIC_ATTRIBUTES) is refused',
    doc: 'sem §4.3 (AWS API Reference, Query.Select)',
    match: (ctx) => ctx.st.error === 'ValidationException' && /^Cannot specify the ProjectionExpression when choosing to get/.test(msg(ctx.st)),
  },
  {
    name: 'an UpdateItem of only REMOVE/DELETE actions on an absent item creates nothing (dynalite creates a key-only item)',
    doc: 'sem §6.5',
    match(ctx) {
      const { c, s, st, dl } = ctx;
      const upd = c.steps.find((x) => x.op === 'UpdateItem' && x.compare);
      if (!upd || !/^\s*(REMOVE|DELETE)\b/i.test(upd.req.UpdateExpression || '') || /\b(SET|ADD)\b/.test(upd.req.UpdateExpression)) return false;
      if (c.steps.some((x) => x.op === 'PutItem' && !x.compare && x.req.TableName === upd.req.TableName
        && JSON.stringify(Object.keys(upd.req.Key).sort().map((k) => x.req.Item[k])) === JSON.stringify(Object.keys(upd.req.Key).sort().map((k) => upd.req.Key[k])))) return false;
      const keyOnly = (i) => i && Object.keys(i).length === Object.keys(upd.req.Key).length;
      if (s === upd) return st.ok && dl.ok && !st.body.Attributes && keyOnly(dl.body.Attributes);
      return s.note === 'stored' && st.ok && dl.ok && !st.body.Item && keyOnly(dl.body.Item);
    },
  },
  {
    name: 'a malformed ResourceArn is a ValidationException (dynalite: AccessDeniedException)',
    doc: 'AWS API Reference, TagResource/UntagResource/ListTagsOfResource: ResourceArn must be a table ARN; errors of the request are ValidationException',
    match: (ctx) => reqOf(ctx).ResourceArn === 'foo' && ctx.st.error === 'ValidationException' && ctx.dl.error === 'AccessDeniedException',
  },
];

// the control-plane operations' rules (CreateTable ... ListTagsOfResource)
REWRITES.push(...require('./known_tables').REWRITES);
MATCHES.push(...require('./known_tables').MATCHES);

module.exports = { REWRITES, MATCHES };
