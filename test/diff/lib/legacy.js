// test/diff/lib/legacy.js: cases of DynamoDB's legacy (pre-expression) request parameters —
// AttributesToGet (GetItem, Query, Scan, BatchGetItem), KeyConditions, QueryFilter and
// ScanFilter with ConditionalOperator, Expected (the Exists/Value form and the
// ComparisonOperator form) with ConditionalOperator, AttributeUpdates (PUT, ADD, DELETE) —
// and UpdateItem with only a Key. singletable rewrites the legacy members into expressions
// (src/api/dynamodb_legacy.c); dynalite and DynamoDB Local implement them natively, so these cases
// check the rewrite's meaning against two independent implementations. Each case is counted
// under "<operation> (legacy)" so that the legacy forms get a TAP line of their own.
// Conditions name top-level attributes only (the legacy forms have no paths); their values are
// taken from the item they will meet, so that they are true about as often as false.
'use strict';
const { TABLES, genItem, genValue, genSet, genS, keyOf, pkValue, skValue, NUMBERS, whole } = require('./gen');

const NAMES = ['a', 'b', 'c', 'n', 's', 'l', 'm', 'ss', 'ns', 'flag', 'status', 'name', 'a.b', 'two words', 'nope'];
const step = (op, req, extra = {}) => ({ op, req, compare: true, ...extra });
const setup = (op, req) => ({ op, req, compare: false });
const scalar = (v) => v && (v.S !== undefined || v.N !== undefined || v.B !== undefined);

// A name of the item (often) or any other.
function attrName(r, item, keys) {
  const own = Object.keys(item || {}).filter((k) => !keys.includes(k));
  if (own.length && r.chance(0.75)) return r.pick(own);
  return r.chance(0.08) ? r.pick(keys) : r.pick(NAMES);
}

// A scalar value near v (v itself, a prefix, another number), or any scalar.
function scalarNear(r, v) {
  if (scalar(v) && r.chance(0.5)) return v;
  if (v && v.N !== undefined && r.chance(0.5)) return { N: r.pick(NUMBERS) };
  if (v && v.S !== undefined && r.chance(0.5)) return { S: whole(v.S.slice(0, r.int(v.S.length + 1))) || 'a' };
  if (v && (v.SS || v.NS) && r.chance(0.6)) return v.SS ? { S: r.pick(v.SS) } : { N: r.pick(v.NS) };
  return r.weighted([[genS(r), 45], [{ N: r.pick(NUMBERS) }, 45], [{ B: 'AQI=' }, 10]]);
}

// One Condition ({ComparisonOperator, AttributeValueList}) on attribute value v (undefined: absent).
// bad: now and then a request DynamoDB refuses (a wrong count or type of values).
function condition(r, v, { key = false } = {}) {
  const ops = key ? [['EQ', 20], ['LE', 10], ['LT', 10], ['GE', 10], ['GT', 10], ['BEGINS_WITH', 12], ['BETWEEN', 20], ['NE', 2]]
    : [['EQ', 14], ['NE', 10], ['LE', 6], ['LT', 6], ['GE', 6], ['GT', 6], ['NOT_NULL', 9], ['NULL', 9], ['CONTAINS', 9],
      ['NOT_CONTAINS', 9], ['BEGINS_WITH', 7], ['IN', 6], ['BETWEEN', 6]];
  const op = r.weighted(ops);
  let vals;
  if (op === 'NULL' || op === 'NOT_NULL') vals = [];
  else if (op === 'EQ' || op === 'NE') vals = [v && r.chance(0.4) && (scalar(v) || v.SS || v.NS || v.BS) ? v : scalarNear(r, v)];
  else if (op === 'BEGINS_WITH') {
    const s = v && v.S !== undefined ? v : { S: r.pick(['a', 'A', 'A#', 'POST', 'x']) };
    vals = [{ S: whole(s.S.slice(0, r.range(0, s.S.length))) || 'A' }];
  } else if (op === 'IN') {
    const first = scalarNear(r, v);
    const t = Object.keys(first)[0];
    vals = [first];
    for (let i = r.int(3); i > 0; i--) { const x = scalarNear(r, v); if (Object.keys(x)[0] === t) vals.push(x); }
  } else if (op === 'BETWEEN') {
    const a = scalarNear(r, v), b = scalarNear(r, v);
    vals = Object.keys(a)[0] === Object.keys(b)[0] ? sortPair(a, b, r.chance(0.05)) : [a, a];
  } else vals = [scalarNear(r, v)];
  if (r.chance(0.04)) vals = r.pick([[], [...vals, ...vals, genS(r)], [{ BOOL: true }], [{ L: [genS(r)] }]]);
  return { ComparisonOperator: op, AttributeValueList: vals };
}
function sortPair(a, b, reversed) {
  const t = Object.keys(a)[0];
  const x = a[t], y = b[t];
  const lt = t === 'N' ? Number(x) < Number(y) : t === 'S' ? Buffer.from(x) < Buffer.from(y) : Buffer.compare(Buffer.from(x, 'base64'), Buffer.from(y, 'base64')) < 0;
  return (lt !== reversed) ? [a, b] : [b, a];
}

// A map of conditions on item, n of them, and ConditionalOperator (or none).
function conditionMap(r, item, keys, form) {
  const m = {};
  for (let i = r.weighted([[1, 50], [2, 35], [3, 15]]); i > 0; i--) {
    const name = attrName(r, item, keys);
    m[name] = form === 'expected' ? expected(r, item && item[name]) : condition(r, item && item[name]);
  }
  const op = Object.keys(m).length > 1 ? r.weighted([[null, 30], ['AND', 30], ['OR', 40]]) : r.weighted([[null, 85], ['AND', 5], ['OR', 10]]);
  return { map: m, op: r.chance(0.02) ? 'XOR' : op };
}

// One ExpectedAttributeValue: the Exists/Value form or the ComparisonOperator form.
function expected(r, v) {
  switch (r.weighted([['exists_false', 18], ['value', 18], ['exists_true_value', 10], ['op', 46], ['op_value', 4], ['bad', 4]])) {
    case 'exists_false': return { Exists: false };
    case 'value': return { Value: v && r.chance(0.6) ? v : scalarNear(r, v) };
    case 'exists_true_value': return { Exists: true, Value: v && r.chance(0.6) ? v : scalarNear(r, v) };
    case 'op': return condition(r, v);
    case 'op_value': { const c = condition(r, v); if (c.AttributeValueList.length === 1) return { ComparisonOperator: c.ComparisonOperator, Value: c.AttributeValueList[0] }; return c; }
    default: return r.pick([{ Exists: true }, { Exists: false, Value: genS(r) }, { Exists: true, ComparisonOperator: 'NULL' },
      { Value: genS(r), AttributeValueList: [genS(r)], ComparisonOperator: 'EQ' }, { AttributeValueList: [genS(r)] }, { ComparisonOperator: 'EQ' }]);
  }
}

// AttributesToGet: a few names, of the item or not.
function attributesToGet(r, item, keys) {
  const out = new Set();
  for (let i = r.range(1, 4); i > 0; i--) out.add(r.chance(0.15) ? r.pick(keys) : attrName(r, item, keys));
  const l = [...out];
  if (r.chance(0.03)) l.push(l[0]); // a duplicate: refused
  return l;
}

// AttributeUpdates on item: PUT, ADD, DELETE (with or without a Value).
function attributeUpdates(r, item, keys) {
  const u = {};
  for (let i = r.weighted([[1, 45], [2, 35], [3, 20]]); i > 0; i--) {
    const name = r.chance(0.04) ? r.pick(keys) : attrName(r, item, keys);
    const v = item && item[name];
    const act = r.weighted([[undefined, 10], ['PUT', 35], ['ADD', 30], ['DELETE', 25]]);
    const e = act ? { Action: act } : {};
    if (act === 'ADD') {
      e.Value = v && (v.SS || v.NS || v.BS) && r.chance(0.7) ? genSet(r, Object.keys(v)[0])
        : r.chance(0.6) ? { N: r.pick(NUMBERS.slice(0, 12)) } : r.chance(0.7) ? genSet(r, r.pick(['SS', 'NS', 'BS'])) : genValue(r, 0);
    } else if (act === 'DELETE') {
      if (r.chance(0.5)) e.Value = v && (v.SS || v.NS || v.BS) && r.chance(0.8) ? { [Object.keys(v)[0]]: [r.pick(Object.values(v)[0])] } : r.chance(0.8) ? genSet(r, r.pick(['SS', 'NS', 'BS'])) : genValue(r, 0);
    } else if (r.chance(0.97)) e.Value = genValue(r, 1);
    u[name] = e;
  }
  return u;
}

// ---- the cases ----
const ITEM_TABLES = [['dt_ss', 50], ['dt_sn', 20], ['dt_p', 20], ['dt_nn', 10]];

// GetItem, PutItem, DeleteItem, UpdateItem of one key of a shared table, in the case's partition.
function writeCase(r, id, op) {
  const tn = r.weighted(ITEM_TABLES), t = TABLES[tn];
  const keys = [t.pk, t.sk].filter(Boolean);
  const key = keyOf(t, pkValue(t, id), t.sk ? skValue(r, t) : null);
  const current = r.chance(0.75) ? genItem(r, t, key) : null;
  const steps = current ? [setup('PutItem', { TableName: tn, Item: current })] : [];
  const like = current || genItem(r, t, key);
  const req = { TableName: tn };
  if (op === 'GetItem') {
    req.Key = key;
    req.AttributesToGet = attributesToGet(r, like, keys);
    if (r.chance(0.3)) req.ConsistentRead = r.chance(0.5);
    if (r.chance(0.05)) req.ProjectionExpression = 'a'; // mixed with an expression: refused
  } else if (op === 'PutItem') req.Item = genItem(r, t, key);
  else req.Key = key;
  if (op === 'UpdateItem') {
    if (r.chance(0.8)) req.AttributeUpdates = attributeUpdates(r, like, keys);
    else if (r.chance(0.1)) { req.UpdateExpression = 'SET a = :a'; req.ExpressionAttributeValues = { ':a': genS(r) }; }
  }
  if (op !== 'GetItem' && r.chance(op === 'UpdateItem' ? 0.45 : 0.9)) {
    const { map, op: co } = conditionMap(r, like, keys, 'expected');
    req.Expected = map;
    if (co) req.ConditionalOperator = co;
    if (r.chance(0.03)) req.ConditionExpression = 'attribute_exists(a)'; // mixed: refused
  }
  if (op === 'UpdateItem') req.ReturnValues = r.pick([undefined, 'NONE', 'ALL_OLD', 'UPDATED_OLD', 'ALL_NEW', 'UPDATED_NEW']);
  else if (op !== 'GetItem') req.ReturnValues = r.pick([undefined, 'NONE', 'ALL_OLD']);
  if (!req.ReturnValues) delete req.ReturnValues;
  if (req.Expected && r.chance(0.1)) req.ReturnValuesOnConditionCheckFailure = 'ALL_OLD';
  steps.push(step(op, req));
  if (op !== 'GetItem') steps.push(step('GetItem', { TableName: tn, Key: key, ConsistentRead: true }, { note: 'stored' }));
  return { op: op + ' (legacy)', table: tn, steps };
}

// UpdateItem with only a Key (and at most ReturnValues): creates the key-only item or keeps the one there.
function keyOnlyUpdateCase(r, id) {
  const tn = r.weighted(ITEM_TABLES), t = TABLES[tn];
  const key = keyOf(t, pkValue(t, id), t.sk ? skValue(r, t) : null);
  const steps = r.chance(0.5) ? [setup('PutItem', { TableName: tn, Item: genItem(r, t, key) })] : [];
  const req = { TableName: tn, Key: key };
  const rv = r.pick([undefined, 'NONE', 'ALL_OLD', 'ALL_NEW', 'UPDATED_OLD', 'UPDATED_NEW']);
  if (rv) req.ReturnValues = rv;
  if (r.chance(0.15)) req.AttributeUpdates = {};
  if (r.chance(0.1)) req.ReturnConsumedCapacity = 'TOTAL';
  steps.push(step('UpdateItem', req));
  steps.push(step('GetItem', { TableName: tn, Key: key, ConsistentRead: true }, { note: 'stored' }));
  return { op: 'UpdateItem (key only)', table: tn, steps };
}

// Query with KeyConditions (and QueryFilter, AttributesToGet, Select) on dt_ss or dt_sn.
function queryCase(r, id) {
  const tn = r.weighted([['dt_ss', 70], ['dt_sn', 30]]), t = TABLES[tn];
  const keys = [t.pk, t.sk];
  const pk = pkValue(t, id);
  const sks = new Map();
  for (let i = r.range(0, 7); i > 0; i--) { const s = skValue(r, t); sks.set(JSON.stringify(s), s); }
  const items = [...sks.values()].map((s) => genItem(r, t, keyOf(t, pk, s)));
  const steps = items.map((item) => setup('PutItem', { TableName: tn, Item: item }));
  const like = items.length ? r.pick(items) : genItem(r, t, keyOf(t, pk, skValue(r, t)));
  const kc = { [t.pk]: { ComparisonOperator: 'EQ', AttributeValueList: [pk] } };
  if (r.chance(0.75)) {
    const c = condition(r, like[t.sk], { key: true });
    if (t.skType === 'N' && c.ComparisonOperator === 'BEGINS_WITH') c.ComparisonOperator = 'GE';
    c.AttributeValueList = c.AttributeValueList.map((v) => (Object.keys(v)[0] === t.skType || r.chance(0.1) ? v : like[t.sk]));
    if (c.ComparisonOperator === 'BETWEEN' && c.AttributeValueList.length === 2 && Object.keys(c.AttributeValueList[0])[0] === Object.keys(c.AttributeValueList[1])[0]) c.AttributeValueList = sortPair(...c.AttributeValueList, false);
    kc[t.sk] = c;
  }
  if (r.chance(0.04)) kc.a = { ComparisonOperator: 'EQ', AttributeValueList: [genS(r)] }; // not a key: refused
  if (r.chance(0.03)) delete kc[t.pk];
  const req = { TableName: tn, KeyConditions: kc };
  if (r.chance(0.45)) {
    const { map, op } = conditionMap(r, like, keys, 'filter');
    for (const k of keys) delete map[k]; // a key attribute in QueryFilter is refused: rarely wanted
    if (Object.keys(map).length) req.QueryFilter = map;
    if (op && (req.QueryFilter || r.chance(0.2))) req.ConditionalOperator = op;
  }
  if (r.chance(0.35)) req.AttributesToGet = attributesToGet(r, like, keys);
  // with a filter the items returned must carry their keys (known.js finds them by key)
  if (req.AttributesToGet && req.QueryFilter) req.AttributesToGet = [...new Set([...req.AttributesToGet, ...keys])];
  const sel = r.weighted([[null, 70], ['ALL_ATTRIBUTES', 10], ['SPECIFIC_ATTRIBUTES', 10], ['COUNT', 10]]);
  if (sel) req.Select = sel;
  if (r.chance(0.35)) req.Limit = r.range(1, 4);
  if (r.chance(0.4)) req.ScanIndexForward = r.chance(0.5);
  if (r.chance(0.1)) req.ConsistentRead = true;
  if (r.chance(0.04)) { req.KeyConditionExpression = `${t.pk} = :p`; req.ExpressionAttributeValues = { ':p': pk }; } // mixed: refused
  steps.push(step('Query', req));
  if (req.Limit && r.chance(0.5)) steps.push(step('Query', { ...req, ExclusiveStartKey: { $from: [steps.length - 1, 'LastEvaluatedKey'] } }, { note: 'page 2' }));
  return { op: 'Query (legacy)', table: tn, steps, keyNames: keys, items };
}

// Scan with ScanFilter and AttributesToGet on a table of the case's own, page by page.
function scanCase(r, id, createRequest) {
  const name = 'dt_sl' + id;
  const t = { pk: 'pk', pkType: 'S', sk: 'sk', skType: 'N' };
  const steps = [setup('CreateTable', createRequest(name, t))];
  const items = [];
  for (let i = r.range(0, 10); i > 0; i--) items.push(genItem(r, t, { pk: { S: 'P#' + r.int(3) }, sk: { N: String(i) } }));
  for (const item of items) steps.push(setup('PutItem', { TableName: name, Item: item }));
  const like = items.length ? r.pick(items) : genItem(r, t, { pk: { S: 'P#0' }, sk: { N: '0' } });
  const req = { TableName: name };
  if (r.chance(0.8)) {
    const { map, op } = conditionMap(r, like, ['pk', 'sk'], 'filter');
    req.ScanFilter = map;
    if (op) req.ConditionalOperator = op;
  }
  if (r.chance(0.35)) req.AttributesToGet = attributesToGet(r, like, ['pk', 'sk']);
  if (req.AttributesToGet && req.ScanFilter) req.AttributesToGet = [...new Set([...req.AttributesToGet, 'pk', 'sk'])];
  if (r.chance(0.08)) req.Select = r.pick(['COUNT', 'SPECIFIC_ATTRIBUTES', 'ALL_ATTRIBUTES']);
  if (r.chance(0.03)) req.FilterExpression = 'attribute_exists(a)'; // mixed: refused
  if (r.chance(0.4)) steps.push(step('Scan', { ...req, Limit: r.range(1, 4) }, { kind: 'scanAll' }));
  else steps.push(step('Scan', req, { sort: true }));
  return { op: 'Scan (legacy)', table: name, steps, keyNames: ['pk', 'sk'], items, teardown: [{ op: 'DeleteTable', req: { TableName: name }, compare: false }] };
}

// BatchGetItem with AttributesToGet on dt_ss and dt_p.
function batchGetCase(r, id) {
  const ss = TABLES.dt_ss, p = TABLES.dt_p, steps = [];
  const put = (tn, item) => { steps.push(setup('PutItem', { TableName: tn, Item: item })); return item; };
  const ssItems = ['A', 'B', 'C', 'D'].filter(() => r.chance(0.6)).map((sk) => put('dt_ss', genItem(r, ss, { pk: { S: 'P#' + id }, sk: { S: sk } })));
  const pItems = [0, 1].filter(() => r.chance(0.6)).map((i) => put('dt_p', genItem(r, p, { pk: { S: 'P#' + id + '.' + i } })));
  const ri = {
    dt_ss: { Keys: ['A', 'B', 'C', 'D', 'Z'].filter(() => r.chance(0.5)).map((sk) => ({ pk: { S: 'P#' + id }, sk: { S: sk } })) },
    dt_p: { Keys: [0, 1, 2].filter(() => r.chance(0.5)).map((i) => ({ pk: { S: 'P#' + id + '.' + i } })) },
  };
  if (!ri.dt_ss.Keys.length) ri.dt_ss.Keys.push({ pk: { S: 'P#' + id }, sk: { S: 'A' } });
  if (!ri.dt_p.Keys.length) delete ri.dt_p;
  ri.dt_ss.AttributesToGet = attributesToGet(r, ssItems[0] || genItem(r, ss, {}), ['pk', 'sk']);
  if (ri.dt_p && r.chance(0.5)) ri.dt_p.AttributesToGet = attributesToGet(r, pItems[0] || genItem(r, p, {}), ['pk']);
  if (r.chance(0.05)) ri.dt_ss.ProjectionExpression = 'a'; // mixed: refused
  steps.push(step('BatchGetItem', { RequestItems: ri }, { sort: true }));
  return { op: 'BatchGetItem (legacy)', steps };
}

const LEGACY_KINDS = [['GetItem', 12], ['PutItem', 14], ['DeleteItem', 10], ['UpdateItem', 24], ['Query', 20], ['Scan', 12], ['BatchGetItem', 8]];

function legacyCase(r, id, createRequest) {
  const k = r.weighted(LEGACY_KINDS);
  if (k === 'Query') return queryCase(r, id);
  if (k === 'Scan') return scanCase(r, id, createRequest);
  if (k === 'BatchGetItem') return batchGetCase(r, id);
  return writeCase(r, id, k);
}

module.exports = { legacyCase, keyOnlyUpdateCase };
