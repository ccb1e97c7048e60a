// test/diff/lib/normalise.js: a response document in the form in which two sides' responses
// are compared. What DynamoDB leaves open or documents as varying is taken out:
//   - values no two servers share: TableArn/IndexArn/LatestStreamArn (replaced by "<arn>"),
//     TableId, CreationDateTime and the other *DateTime members;
//   - IndexSizeBytes, ItemCount, TableSizeBytes: "updated approximately every six hours"
//     (DescribeTable, AWS API reference TableDescription; dynamodb-semantics.md, tables);
//   - orders DynamoDB does not define: a Scan's items across partitions and a GSI's items
//     without a sort key (the step says sort), BatchGetItem's Responses, set members,
//     AttributeDefinitions, the index lists of a table description, tags, the per-table
//     ConsumedCapacity list of BatchGetItem/BatchWriteItem;
//   - numbers are compared by value (canonical text), base64 re-encoded.
// Error responses are compared by the exception's name (__type after '#'); the message is
// compared apart, for information (see harness.js).
'use strict';
const { norm, stable } = require('./values');

const DROP = new Set(['TableId', 'CreationDateTime', 'LastUpdateToPayPerRequestDateTime', 'LastIncreaseDateTime',
  'LastDecreaseDateTime', 'IndexSizeBytes', 'ItemCount', 'TableSizeBytes', 'LatestStreamLabel']);
const ARN = new Set(['TableArn', 'IndexArn', 'LatestStreamArn']);
const SCALAR = { S: 'string', N: 'string', B: 'string', BOOL: 'boolean' };

// Is o a typed AttributeValue ({"S": "x"}, {"L": [...]}, ...)?
function isAV(o) {
  if (!o || typeof o !== 'object' || Array.isArray(o)) return false;
  const ks = Object.keys(o);
  if (ks.length !== 1) return false;
  const [t] = ks, v = o[t];
  if (SCALAR[t]) return typeof v === SCALAR[t];
  if (t === 'NULL') return v === true;
  if (t === 'L') return Array.isArray(v);
  if (t === 'M') return !!v && typeof v === 'object' && !Array.isArray(v);
  if (t === 'SS' || t === 'NS' || t === 'BS') return Array.isArray(v) && v.every((x) => typeof x === 'string');
  return false;
}

const byStable = (a, b) => { const x = stable(a), y = stable(b); return x < y ? -1 : x > y ? 1 : 0; };
const byMember = (m) => (a, b) => String(a && a[m]).localeCompare(String(b && b[m]));

// opts: {sort: items in no defined order, prefix: ListTables of a case's own tables}
function normBody(body, opts = {}) {
  const walk = (v, key) => {
    if (Array.isArray(v)) {
      const a = v.map((x) => walk(x, null));
      if (key === 'Items' && opts.sort) return a.sort(byStable);
      if (key === 'AttributeDefinitions') return a.sort(byMember('AttributeName'));
      if (key === 'GlobalSecondaryIndexes' || key === 'LocalSecondaryIndexes' || key === 'Replicas') return a.sort(byMember('IndexName'));
      if (key === 'Tags') return a.sort(byMember('Key'));
      if (key === 'NonKeyAttributes') return a.sort();
      // BatchGetItem/BatchWriteItem: one ConsumedCapacity per table, in no documented order
      // (AWS API Reference, BatchGetItem/BatchWriteItem ConsumedCapacity: "Array of ConsumedCapacity objects")
      if (key === 'ConsumedCapacity') return a.sort(byMember('TableName'));
      return a;
    }
    if (v && typeof v === 'object') {
      if (isAV(v)) return norm(v);
      const o = {};
      for (const [k, x] of Object.entries(v)) {
        if (DROP.has(k)) continue;
        if (ARN.has(k)) { o[k] = '<arn>'; continue; }
        o[k] = walk(x, k);
        // BatchGetItem: {"Responses": {"table": [item, ...]}}, in no defined order
        if (k === 'Responses' && o[k] && !Array.isArray(o[k])) for (const t of Object.keys(o[k])) if (Array.isArray(o[k][t])) o[k][t].sort(byStable);
      }
      return o;
    }
    return v;
  };
  const out = walk(body, null);
  if (opts.prefix && out && Array.isArray(out.TableNames)) {
    out.TableNames = out.TableNames.filter((n) => n.startsWith(opts.prefix));
    if (out.LastEvaluatedTableName !== undefined && !String(out.LastEvaluatedTableName).startsWith(opts.prefix)) delete out.LastEvaluatedTableName;
  }
  return out;
}

// What is compared of one outcome: the exception's name, or the normalised document.
function signature(o, opts) {
  if (!o) return 'none';
  if (o.skipped) return stable({ skipped: o.skipped });
  // a cancelled transaction: also each reason's Code and Item (ALL_OLD), not its Message text
  if (!o.ok && o.error === 'TransactionCanceledException' && o.body && Array.isArray(o.body.CancellationReasons)) {
    return stable({ error: o.error, reasons: o.body.CancellationReasons.map((x) => ({ Code: x.Code, Item: x.Item ? normBody(x.Item) : undefined })) });
  }
  if (!o.ok) return stable({ error: o.error });
  return stable(normBody(o.body, opts));
}

module.exports = { normBody, signature, isAV };
