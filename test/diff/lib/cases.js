// test/diff/lib/cases.js: the cases of a run. A case is plain JSON: an operation it is
// counted under (op) and steps, each a DynamoDB request document sent as is to every side;
// the responses of the steps marked compare are normalised and compared (lib/normalise.js),
// the teardown's are not. A value {"$from": [step, "Path.To.Member"]} in a request is
// replaced, on each side, by that member of the side's own response to an earlier step (a
// table's ARN, a LastEvaluatedKey); when the member is absent the field is left out.
// Every table a case creates is named dt_<letter><case id>..., so cases never share one,
// and item cases on the shared tables (lib/gen.js) each use a partition of their own.
'use strict';
const {
  genCase, TABLES, Rng, hash32, genItem, genValue, genS, Ctx, keyOf, pkValue, skValue,
} = require('./gen');
const { legacyCase, keyOnlyUpdateCase } = require('./legacy');

// The shared tables: gen.js's six, and dt_ix with two GSIs and an LSI for index queries.
const SHARED = {
  ...TABLES,
  dt_ix: {
    pk: 'pk', pkType: 'S', sk: 'sk', skType: 'S',
    attrs: { gpk: 'S', gsk: 'N', lsk: 'S' },
    gsis: [{ name: 'gs1', pk: 'gpk', sk: 'gsk', projection: { ProjectionType: 'ALL' } },
      { name: 'gs2', pk: 'gpk', projection: { ProjectionType: 'KEYS_ONLY' } }],
    lsis: [{ name: 'ls1', sk: 'lsk', projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['a'] } }],
  },
};

// CreateTable's request for a table described as in SHARED.
function createRequest(name, t) {
  const defs = { [t.pk]: t.pkType };
  const ks = [{ AttributeName: t.pk, KeyType: 'HASH' }];
  if (t.sk) { defs[t.sk] = t.skType; ks.push({ AttributeName: t.sk, KeyType: 'RANGE' }); }
  Object.assign(defs, t.attrs || {});
  const req = {
    TableName: name, BillingMode: 'PAY_PER_REQUEST', KeySchema: ks,
    AttributeDefinitions: Object.entries(defs).map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
  };
  const idx = (x, hash) => ({
    IndexName: x.name, Projection: x.projection,
    KeySchema: [{ AttributeName: hash, KeyType: 'HASH' }, ...(x.sk ? [{ AttributeName: x.sk, KeyType: 'RANGE' }] : [])],
  });
  if (t.gsis) req.GlobalSecondaryIndexes = t.gsis.map((g) => idx(g, g.pk));
  if (t.lsis) req.LocalSecondaryIndexes = t.lsis.map((l) => idx(l, t.pk));
  return req;
}

const step = (op, req, extra = {}) => ({ op, req, compare: true, ...extra });
const setup = (op, req) => ({ op, req, compare: false });
const from = (i, p, extra) => ({ $from: [i, p], ...(extra || {}) });
const dropTable = (name) => ({ op: 'DeleteTable', req: { TableName: name }, compare: false });

// ---- item operations on the shared tables (gen.js), as steps ----
function itemCase(seed, id, op) {
  const g = genCase(seed, id, op);
  const steps = g.setup.map((item) => setup('PutItem', { TableName: g.table, Item: item }));
  steps.push(step(g.op, g.params));
  if (['PutItem', 'UpdateItem', 'DeleteItem'].includes(g.op)) {
    steps.push(step('GetItem', { TableName: g.table, Key: g.key, ConsistentRead: true }, { note: 'stored' }));
  }
  return { op: g.op, table: g.table, steps };
}

// ---- Query on an index of dt_ix ----
function indexItems(r, id) {
  const t = SHARED.dt_ix, items = [];
  const gsks = [...Array(20).keys()].map((i) => String(i * 7 - 30 + (i % 3 ? 0.5 : 0)));
  for (let i = r.range(0, 8); i > 0; i--) {
    const item = genItem(r, t, { pk: { S: 'P#' + id }, sk: { S: 'S#' + i } });
    delete item.gpk; delete item.gsk; delete item.lsk;
    if (r.chance(0.85)) item.gpk = { S: 'G#' + id + (r.chance(0.2) ? 'b' : '') };
    if (r.chance(0.85)) item.gsk = { N: gsks.splice(r.int(gsks.length), 1)[0] };
    if (r.chance(0.8)) item.lsk = { S: 'L#' + String.fromCharCode(97 + i) + r.pick(['', 'x', 'y']) };
    if (r.chance(0.1)) item.gsk = { S: 'not a number' }; // refused: an index key of the wrong type
    items.push(item);
  }
  return items;
}

function indexQueryCase(r, id) {
  const items = indexItems(r, id);
  const steps = items.map((item) => setup('PutItem', { TableName: 'dt_ix', Item: item }));
  const index = r.weighted([['gs1', 45], ['gs2', 20], ['ls1', 30], ['nope', 5]]);
  const req = { TableName: 'dt_ix', IndexName: index };
  const vals = {};
  if (index === 'ls1') {
    vals[':p'] = { S: 'P#' + id };
    req.KeyConditionExpression = 'pk = :p';
    if (r.chance(0.6)) { vals[':l'] = { S: r.pick(['L#a', 'L#c', 'L#', 'L#d']) }; req.KeyConditionExpression += r.pick([' AND lsk >= :l', ' AND lsk < :l', ' AND begins_with(lsk, :l)']); }
  } else {
    vals[':g'] = { S: 'G#' + id };
    req.KeyConditionExpression = 'gpk = :g';
    if (index !== 'gs2' && r.chance(0.6)) {
      vals[':a'] = { N: String(r.range(-30, 40)) };
      if (r.chance(0.5)) { vals[':b'] = { N: String(r.range(0, 110)) }; req.KeyConditionExpression += ' AND gsk BETWEEN :a AND :b'; } else req.KeyConditionExpression += r.pick([' AND gsk > :a', ' AND gsk <= :a']);
    }
  }
  const sel = r.weighted([[null, 40], ['ALL_ATTRIBUTES', 15], ['ALL_PROJECTED_ATTRIBUTES', 15], ['SPECIFIC_ATTRIBUTES', 15], ['COUNT', 15]]);
  if (sel) req.Select = sel;
  if (sel === 'SPECIFIC_ATTRIBUTES' || (!sel && r.chance(0.2))) {
    if (r.chance(0.9)) req.ProjectionExpression = r.pick(['a', 'pk, sk', 'gsk, a, b', 'lsk', 'm.b[0], c']);
  }
  if (r.chance(0.3)) { vals[':f'] = genValue(r, 0); req.FilterExpression = r.pick(['attribute_exists(a)', 'a <> :f', 'size(b) > :f', 'attribute_not_exists(c) OR c = :f']); }
  if (req.FilterExpression && !req.FilterExpression.includes(':f')) delete vals[':f'];
  if (r.chance(0.15)) req.ConsistentRead = true;
  if (r.chance(0.4)) req.ScanIndexForward = r.chance(0.5);
  if (r.chance(0.1)) req.ReturnConsumedCapacity = r.pick(['TOTAL', 'INDEXES']);
  req.ExpressionAttributeValues = vals;
  // g2 has no sort key: the order of its items is undefined, so its results are sorted and not paged.
  const paged = index !== 'gs2' && r.chance(0.4);
  if (paged) req.Limit = r.range(1, 3);
  steps.push(step('Query', req, { sort: index === 'gs2' }));
  if (paged) {
    steps.push(step('Query', { ...req, ExclusiveStartKey: from(steps.length - 1, 'LastEvaluatedKey') }, { sort: false }));
  }
  return { op: 'Query', table: 'dt_ix', steps };
}

// ---- Scan: a table of the case's own ----
function scanCase(r, id) {
  const name = 'dt_s' + id;
  const withSk = r.chance(0.6), withGsi = r.chance(0.4);
  const t = { pk: 'pk', pkType: 'S', sk: withSk ? 'sk' : null, skType: withSk ? 'N' : null };
  if (withGsi) { t.attrs = { gk: 'S' }; t.gsis = [{ name: 'sgi', pk: 'gk', projection: r.chance(0.5) ? { ProjectionType: 'ALL' } : { ProjectionType: 'KEYS_ONLY' } }]; }
  const steps = [step('CreateTable', createRequest(name, t))];
  const n = r.range(0, 12), parts = r.range(1, 5);
  const items = [];
  for (let i = 0; i < n; i++) {
    const item = genItem(r, t, keyOf(t, { S: 'P#' + r.int(parts) }, { N: String(i) }));
    delete item.gk;
    if (withGsi && r.chance(0.7)) item.gk = { S: r.pick(['x', 'y']) };
    items.push(item);
  }
  for (const item of items) steps.push(setup('PutItem', { TableName: name, Item: item }));
  const req = { TableName: name };
  const ctx = new Ctx(r, items.length ? r.pick(items) : genItem(r, t, keyOf(t, { S: 'P#0' }, { N: '0' })), t);
  if (r.chance(0.4)) req.FilterExpression = ctx.cond(1);
  if (r.chance(0.25)) req.ProjectionExpression = ctx.projection();
  if (r.chance(0.1)) req.Select = 'COUNT';
  if (r.chance(0.15)) req.ConsistentRead = r.chance(0.5);
  if (r.chance(0.1)) req.ReturnConsumedCapacity = 'TOTAL';
  if (withGsi && r.chance(0.3)) req.IndexName = 'sgi';
  ctx.into(req);
  const mode = r.weighted([['one', 40], ['paged', 25], ['segments', 20], ['error', 15]]);
  if (mode === 'one') steps.push(step('Scan', req, { sort: true }));
  else if (mode === 'paged') steps.push(step('Scan', { ...req, Limit: r.range(1, 4) }, { kind: 'scanAll' }));
  else if (mode === 'segments') steps.push(step('Scan', { ...req, TotalSegments: r.range(1, 4) }, { kind: 'segments' }));
  else {
    const bad = r.pick([{ Segment: 0 }, { Segment: 2, TotalSegments: 2 }, { Segment: 0, TotalSegments: 0 },
      { Segment: -1, TotalSegments: 2 }, { TotalSegments: 1000001, Segment: 0 }, { Limit: 0 }, { IndexName: 'nope' },
      { ExclusiveStartKey: { nope: { S: 'x' } } }, { Select: 'SPECIFIC_ATTRIBUTES' }, { Select: 'BOGUS' },
      { TableName: 'dt_nope' + id }, { TotalSegments: 2 }]);
    steps.push(step('Scan', { ...req, ...bad }));
  }
  return { op: 'Scan', table: name, steps, teardown: [dropTable(name)] };
}

// ---- CreateTable (valid and its validation errors), DescribeTable, DeleteTable ----
function tableSpec(r) {
  const t = { pk: 'pk', pkType: r.pick(['S', 'S', 'N', 'B']) };
  if (r.chance(0.7)) { t.sk = 'sk'; t.skType = r.pick(['S', 'N', 'B']); }
  t.attrs = {};
  if (r.chance(0.5)) {
    t.gsis = [];
    for (let i = r.range(1, 2); i > 0; i--) {
      const g = { name: 'gsi' + i, pk: 'g' + i + 'pk', projection: r.pick([{ ProjectionType: 'ALL' }, { ProjectionType: 'KEYS_ONLY' }, { ProjectionType: 'INCLUDE', NonKeyAttributes: ['a', 'b'] }]) };
      t.attrs[g.pk] = r.pick(['S', 'N']);
      if (r.chance(0.5)) { g.sk = 'g' + i + 'sk'; t.attrs[g.sk] = 'S'; }
      t.gsis.push(g);
    }
  }
  if (t.sk && r.chance(0.3)) { t.lsis = [{ name: 'lsi1', sk: 'lk', projection: { ProjectionType: r.pick(['ALL', 'KEYS_ONLY']) } }]; t.attrs.lk = 'N'; }
  return t;
}

function withBilling(r, req) {
  if (r.chance(0.35)) {
    req.BillingMode = r.chance(0.5) ? 'PROVISIONED' : undefined;
    if (req.BillingMode === undefined) delete req.BillingMode;
    const pt = { ReadCapacityUnits: r.range(1, 10), WriteCapacityUnits: r.range(1, 10) };
    req.ProvisionedThroughput = pt;
    for (const g of req.GlobalSecondaryIndexes || []) g.ProvisionedThroughput = { ...pt };
  }
  if (r.chance(0.2)) req.Tags = [{ Key: 'team', Value: 'diff' }, { Key: 'k' + r.int(9), Value: '' }];
  return req;
}

const INVALID_CREATE = {
  no_keyschema: (q) => { delete q.KeySchema; },
  no_attrdefs: (q) => { delete q.AttributeDefinitions; },
  unused_attrdef: (q) => { q.AttributeDefinitions.push({ AttributeName: 'unused', AttributeType: 'S' }); },
  undefined_key: (q) => { q.AttributeDefinitions = q.AttributeDefinitions.filter((d) => d.AttributeName !== 'pk'); },
  bad_type: (q) => { q.AttributeDefinitions[0].AttributeType = 'X'; },
  bool_type: (q) => { q.AttributeDefinitions[0].AttributeType = 'BOOL'; },
  two_hash: (q) => { q.KeySchema = [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'pk', KeyType: 'HASH' }]; },
  range_first: (q) => { q.KeySchema = [...q.KeySchema].reverse(); if (q.KeySchema.length === 1) q.KeySchema[0].KeyType = 'RANGE'; },
  bad_keytype: (q) => { q.KeySchema[0].KeyType = 'PARTITION'; },
  three_keys: (q) => { q.KeySchema.push({ AttributeName: 'x', KeyType: 'RANGE' }); q.AttributeDefinitions.push({ AttributeName: 'x', AttributeType: 'S' }); },
  short_name: (q) => { q.TableName = 'dt'; },
  bad_char: (q) => { q.TableName += '!'; },
  name_256: (q) => { q.TableName = 'dt_' + 'x'.repeat(253); },
  no_name: (q) => { delete q.TableName; },
  provisioned_no_pt: (q) => { q.BillingMode = 'PROVISIONED'; delete q.ProvisionedThroughput; for (const g of q.GlobalSecondaryIndexes || []) delete g.ProvisionedThroughput; },
  ppr_with_pt: (q) => { q.BillingMode = 'PAY_PER_REQUEST'; q.ProvisionedThroughput = { ReadCapacityUnits: 1, WriteCapacityUnits: 1 }; },
  zero_pt: (q) => { delete q.BillingMode; q.ProvisionedThroughput = { ReadCapacityUnits: 0, WriteCapacityUnits: 1 }; for (const g of q.GlobalSecondaryIndexes || []) g.ProvisionedThroughput = { ReadCapacityUnits: 1, WriteCapacityUnits: 1 }; },
  bad_billing: (q) => { q.BillingMode = 'FREE'; },
  dup_gsi: (q) => { q.AttributeDefinitions.push({ AttributeName: 'gx', AttributeType: 'S' }); const g = { IndexName: 'gsx', KeySchema: [{ AttributeName: 'gx', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }; q.GlobalSecondaryIndexes = [g, { ...g }]; if (q.ProvisionedThroughput) for (const x of q.GlobalSecondaryIndexes) x.ProvisionedThroughput = { ...q.ProvisionedThroughput }; },
  lsi_no_sk: (q) => { q.KeySchema = [q.KeySchema[0]]; q.AttributeDefinitions = q.AttributeDefinitions.filter((d) => d.AttributeName !== 'sk'); q.AttributeDefinitions.push({ AttributeName: 'lz', AttributeType: 'S' }); q.LocalSecondaryIndexes = [{ IndexName: 'lsz', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'lz', KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } }]; },
  lsi_other_hash: (q) => { q.AttributeDefinitions.push({ AttributeName: 'lz', AttributeType: 'S' }); q.LocalSecondaryIndexes = [{ IndexName: 'lsz', KeySchema: [{ AttributeName: 'lz', KeyType: 'HASH' }, { AttributeName: 'pk', KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } }]; },
  include_no_attrs: (q) => { q.AttributeDefinitions.push({ AttributeName: 'gx', AttributeType: 'S' }); q.GlobalSecondaryIndexes = [{ IndexName: 'gsx', KeySchema: [{ AttributeName: 'gx', KeyType: 'HASH' }], Projection: { ProjectionType: 'INCLUDE' } }]; delete q.ProvisionedThroughput; q.BillingMode = 'PAY_PER_REQUEST'; },
  keys_only_with_attrs: (q) => { q.AttributeDefinitions.push({ AttributeName: 'gx', AttributeType: 'S' }); q.GlobalSecondaryIndexes = [{ IndexName: 'gsx', KeySchema: [{ AttributeName: 'gx', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY', NonKeyAttributes: ['a'] } }]; delete q.ProvisionedThroughput; q.BillingMode = 'PAY_PER_REQUEST'; },
  empty_gsis: (q) => { q.GlobalSecondaryIndexes = []; },
  gsi_no_pt: (q) => { q.BillingMode = 'PROVISIONED'; q.ProvisionedThroughput = { ReadCapacityUnits: 1, WriteCapacityUnits: 1 }; q.AttributeDefinitions.push({ AttributeName: 'gx', AttributeType: 'S' }); q.GlobalSecondaryIndexes = [{ IndexName: 'gsx', KeySchema: [{ AttributeName: 'gx', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }]; },
  exists: null, // CreateTable twice: ResourceInUseException
};

function createCase(r, id) {
  const name = 'dt_c' + id;
  const spec = tableSpec(r);
  const req = withBilling(r, createRequest(name, spec));
  const steps = [];
  if (r.chance(0.45)) {
    const kind = r.pick(Object.keys(INVALID_CREATE));
    if (kind === 'exists') {
      steps.push(step('CreateTable', JSON.parse(JSON.stringify(req))));
      steps.push(step('CreateTable', req, { note: 'exists' }));
    } else {
      INVALID_CREATE[kind](req);
      steps.push(step('CreateTable', req, { note: kind }));
    }
  } else {
    steps.push(step('CreateTable', req));
    steps.push(step('DescribeTable', { TableName: name }));
  }
  return { op: 'CreateTable', table: name, steps, teardown: [dropTable(name), ...(req.TableName && req.TableName !== name ? [dropTable(req.TableName)] : [])] };
}

function describeCase(r, id) {
  const name = 'dt_d' + id;
  const kind = r.weighted([['exists', 70], ['missing', 20], ['bad_name', 10]]);
  const steps = [];
  if (kind === 'exists') {
    steps.push(setup('CreateTable', withBilling(r, createRequest(name, tableSpec(r)))));
    steps.push(step('DescribeTable', { TableName: name }));
  } else steps.push(step('DescribeTable', { TableName: kind === 'missing' ? name : r.pick(['d', 'dt_d' + id + '?', '']) }));
  return { op: 'DescribeTable', table: name, steps, teardown: [dropTable(name)] };
}

function deleteCase(r, id) {
  const name = 'dt_x' + id;
  const t = tableSpec(r);
  const steps = [];
  const kind = r.weighted([['exists', 75], ['missing', 15], ['bad_name', 10]]);
  if (kind === 'exists') {
    steps.push(setup('CreateTable', withBilling(r, createRequest(name, t))));
    for (let i = r.int(3); i > 0; i--) {
      const key = keyOf(t, { [t.pkType]: t.pkType === 'B' ? 'AQ==' : t.pkType === 'N' ? String(i) : 'p' + i }, t.sk ? { [t.skType]: t.skType === 'B' ? 'Ag==' : '1' } : null);
      steps.push(setup('PutItem', { TableName: name, Item: genItem(r, {}, key) }));
    }
    steps.push(step('DeleteTable', { TableName: name }));
    steps.push(step('DescribeTable', { TableName: name }, { note: 'after delete' }));
    steps.push(step('DeleteTable', { TableName: name }, { note: 'again' }));
  } else steps.push(step('DeleteTable', { TableName: kind === 'missing' ? name : r.pick(['d', 'dt_x' + id + '#']) }));
  return { op: 'DeleteTable', table: name, steps, teardown: [dropTable(name)] };
}

// ListTables: only the case's own tables are compared (names after dt_l<id>_ and up to the
// first that is not the case's): other cases create and drop tables at the same time.
function listCase(r, id) {
  const prefix = 'dt_l' + id + '_';
  const names = [...Array(r.range(1, 4)).keys()].map((i) => prefix + String.fromCharCode(97 + i));
  const steps = names.map((n) => setup('CreateTable', createRequest(n, { pk: 'pk', pkType: 'S' })));
  const kind = r.weighted([['page', 70], ['bad', 30]]);
  if (kind === 'page') {
    const limit = r.range(1, names.length);
    steps.push(step('ListTables', { ExclusiveStartTableName: prefix, Limit: limit }, { prefix }));
    steps.push(step('ListTables', { ExclusiveStartTableName: from(steps.length - 1, 'LastEvaluatedTableName'), Limit: r.range(1, 4) }, { prefix }));
  } else {
    steps.push(step('ListTables', r.pick([{ Limit: 0 }, { Limit: 101 }, { ExclusiveStartTableName: 'ab' }, { ExclusiveStartTableName: 'x'.repeat(256) },
      { ExclusiveStartTableName: prefix + '!' }, { Limit: 'two' }]), { prefix }));
  }
  return { op: 'ListTables', steps, teardown: names.map(dropTable) };
}

function updateTableCase(r, id) {
  const name = 'dt_u' + id;
  const t = { pk: 'pk', pkType: 'S', sk: 'sk', skType: 'S' };
  const kind = r.weighted([['create_gsi', 30], ['delete_gsi', 20], ['billing', 15], ['throughput', 10], ['error', 25]]);
  if (kind === 'delete_gsi') { t.attrs = { gx: 'S' }; t.gsis = [{ name: 'gsx', pk: 'gx', projection: { ProjectionType: 'ALL' } }]; }
  const create = createRequest(name, t);
  if (kind === 'throughput') { delete create.BillingMode; create.ProvisionedThroughput = { ReadCapacityUnits: 2, WriteCapacityUnits: 2 }; }
  const steps = [setup('CreateTable', create)];
  let req;
  if (kind === 'create_gsi') {
    req = { TableName: name, AttributeDefinitions: [{ AttributeName: 'gn', AttributeType: r.pick(['S', 'N']) }],
      GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'gsn', KeySchema: [{ AttributeName: 'gn', KeyType: 'HASH' }], Projection: { ProjectionType: r.pick(['ALL', 'KEYS_ONLY']) } } }] };
  } else if (kind === 'delete_gsi') req = { TableName: name, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'gsx' } }] };
  else if (kind === 'billing') req = { TableName: name, BillingMode: 'PROVISIONED', ProvisionedThroughput: { ReadCapacityUnits: 3, WriteCapacityUnits: 4 } };
  else if (kind === 'throughput') req = { TableName: name, ProvisionedThroughput: { ReadCapacityUnits: r.range(3, 9), WriteCapacityUnits: 2 } };
  else {
    req = r.pick([{ TableName: name }, { TableName: 'dt_nope' + id, BillingMode: 'PAY_PER_REQUEST' },
      { TableName: name, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'nope' } }] },
      { TableName: name, GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'gsn', KeySchema: [{ AttributeName: 'gn', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } } }] },
      { TableName: name, GlobalSecondaryIndexUpdates: [] },
      { TableName: name, BillingMode: 'PAY_PER_REQUEST', ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 } }]);
  }
  steps.push(step('UpdateTable', req));
  steps.push(step('DescribeTable', { TableName: name }, { note: 'after update' }));
  return { op: 'UpdateTable', table: name, steps, teardown: [dropTable(name)] };
}

function tagCase(r, id) {
  const name = 'dt_t' + id;
  const arn = from(0, 'TableDescription.TableArn');
  const missingArn = from(0, 'TableDescription.TableArn', { replace: [name, 'dt_nope' + id] });
  const steps = [setup('CreateTable', createRequest(name, { pk: 'pk', pkType: 'S' }))];
  const tags = [...Array(r.range(1, 4)).keys()].map((i) => ({ Key: r.pick(['team', 'env', 'k' + i, 'aws-like', 'é']), Value: r.pick(['', 'x', 'prod', 'v' + i]) }));
  const uniq = [...new Map(tags.map((t) => [t.Key, t])).values()];
  const op = r.weighted([['TagResource', 40], ['UntagResource', 30], ['ListTagsOfResource', 30]]);
  const kind = r.weighted([['ok', 75], ['error', 25]]);
  if (kind === 'ok') {
    if (op !== 'TagResource' || r.chance(0.3)) steps.push(setup('TagResource', { ResourceArn: arn, Tags: uniq }));
    if (op === 'TagResource') steps.push(step('TagResource', { ResourceArn: arn, Tags: r.chance(0.2) ? tags : uniq.map((t) => ({ ...t, Value: t.Value + '2' })) }));
    if (op === 'UntagResource') steps.push(step('UntagResource', { ResourceArn: arn, TagKeys: [uniq[0].Key, 'absent'] }));
    steps.push(step('ListTagsOfResource', { ResourceArn: arn }, { note: 'after' }));
  } else {
    const bad = {
      TagResource: [{ ResourceArn: arn, Tags: [] }, { ResourceArn: missingArn, Tags: uniq }, { ResourceArn: 'foo', Tags: uniq }, { ResourceArn: arn }],
      UntagResource: [{ ResourceArn: arn, TagKeys: [] }, { ResourceArn: missingArn, TagKeys: ['a'] }, { ResourceArn: 'foo', TagKeys: ['a'] }, { ResourceArn: arn }],
      ListTagsOfResource: [{ ResourceArn: missingArn }, { ResourceArn: 'foo' }, {}],
    };
    steps.push(step(op, r.pick(bad[op])));
  }
  return { op, table: name, steps, teardown: [dropTable(name)] };
}

function ttlCase(r, id) {
  const name = 'dt_ttl' + id;
  const steps = [setup('CreateTable', createRequest(name, { pk: 'pk', pkType: 'S' }))];
  steps.push(step('DescribeTimeToLive', r.pick([{ TableName: name }, { TableName: name }, { TableName: 'dt_nope' + id }, {}])));
  return { op: 'DescribeTimeToLive', table: name, steps, teardown: [dropTable(name)] };
}

function unknownCase(r) {
  const op = r.pick(['FooBar', 'getItem', 'DescribeBackup', 'ListGlobalTables', 'DynamoDB_20120810.GetItem', '']);
  return { op: 'unknown operation', steps: [step(op, { TableName: 'dt_ss' })] };
}

// ---- BatchGetItem / BatchWriteItem on the shared tables ----
function batchItems(r, id) {
  const ss = SHARED.dt_ss, p = SHARED.dt_p, out = [];
  const sks = ['A', 'B', 'C', 'D', 'E', 'F'];
  for (const sk of sks) if (r.chance(0.6)) out.push(['dt_ss', genItem(r, ss, keyOf(ss, { S: 'P#' + id }, { S: sk }))]);
  for (let i = 0; i < 3; i++) if (r.chance(0.6)) out.push(['dt_p', genItem(r, p, { pk: { S: 'P#' + id + '.' + i } })]);
  return out;
}
const ssKey = (id, sk) => ({ pk: { S: 'P#' + id }, sk: { S: sk } });
const pKey = (id, i) => ({ pk: { S: 'P#' + id + '.' + i } });

function batchGetCase(r, id) {
  const steps = batchItems(r, id).map(([t, item]) => setup('PutItem', { TableName: t, Item: item }));
  const ri = {};
  const ssKeys = ['A', 'B', 'C', 'D', 'E', 'F', 'Z'].filter(() => r.chance(0.5)).map((sk) => ssKey(id, sk));
  const pKeys = [0, 1, 2, 3].filter(() => r.chance(0.5)).map((i) => pKey(id, i));
  if (ssKeys.length || !pKeys.length) ri.dt_ss = { Keys: ssKeys.length ? ssKeys : [ssKey(id, 'A')] };
  if (pKeys.length) ri.dt_p = { Keys: pKeys };
  if (ri.dt_ss && r.chance(0.3)) { ri.dt_ss.ProjectionExpression = r.pick(['a, #s', 'pk, m.b[1]', 'sk, nope', '#s']); ri.dt_ss.ExpressionAttributeNames = { '#s': 'status' }; if (!ri.dt_ss.ProjectionExpression.includes('#s')) delete ri.dt_ss.ExpressionAttributeNames; }
  if (ri.dt_p && r.chance(0.3)) ri.dt_p.ConsistentRead = r.chance(0.5);
  const req = { RequestItems: ri };
  if (r.chance(0.1)) req.ReturnConsumedCapacity = r.pick(['TOTAL', 'INDEXES']);
  if (r.chance(0.3)) {
    const bad = r.pick(['dup', 'over100', 'empty', 'no_keys', 'missing_table', 'missing_sk', 'wrong_type', 'extra_attr', 'unused_names']);
    const t = ri.dt_ss || (ri.dt_ss = { Keys: [ssKey(id, 'A')] });
    if (bad === 'dup') t.Keys.push(t.Keys[0]);
    if (bad === 'over100') { t.Keys = [...Array(101).keys()].map((i) => ssKey(id, 'K' + i)); delete ri.dt_p; }
    if (bad === 'empty') req.RequestItems = {};
    if (bad === 'no_keys') t.Keys = [];
    if (bad === 'missing_table') req.RequestItems['dt_nope' + id] = { Keys: [{ pk: { S: 'x' } }] };
    if (bad === 'missing_sk') t.Keys.push({ pk: { S: 'P#' + id } });
    if (bad === 'wrong_type') t.Keys.push({ pk: { S: 'P#' + id }, sk: { N: '1' } });
    if (bad === 'extra_attr') t.Keys.push({ ...ssKey(id, 'Y'), a: { S: 'x' } });
    if (bad === 'unused_names') t.ExpressionAttributeNames = { '#u': 'a' };
  }
  steps.push(step('BatchGetItem', req, { sort: true }));
  return { op: 'BatchGetItem', steps };
}

function batchWriteCase(r, id) {
  const steps = batchItems(r, id).map(([t, item]) => setup('PutItem', { TableName: t, Item: item }));
  const ss = SHARED.dt_ss;
  const ri = { dt_ss: [], dt_p: [] };
  for (const sk of ['A', 'B', 'C', 'D', 'E', 'F', 'G']) {
    if (!r.chance(0.5)) continue;
    ri.dt_ss.push(r.chance(0.6) ? { PutRequest: { Item: genItem(r, ss, ssKey(id, sk)) } } : { DeleteRequest: { Key: ssKey(id, sk) } });
  }
  for (let i = 0; i < 4; i++) {
    if (!r.chance(0.4)) continue;
    ri.dt_p.push(r.chance(0.6) ? { PutRequest: { Item: genItem(r, SHARED.dt_p, pKey(id, i)) } } : { DeleteRequest: { Key: pKey(id, i) } });
  }
  if (!ri.dt_p.length) delete ri.dt_p;
  if (!ri.dt_ss.length) ri.dt_ss.push({ DeleteRequest: { Key: ssKey(id, 'A') } });
  const req = { RequestItems: ri };
  if (r.chance(0.1)) req.ReturnConsumedCapacity = 'TOTAL';
  if (r.chance(0.35)) {
    const bad = r.pick(['dup', 'dup_put_delete', 'over25', 'empty', 'empty_list', 'missing_table', 'missing_key', 'both', 'neither', 'bad_number']);
    const l = ri.dt_ss;
    if (bad === 'dup') l.push(JSON.parse(JSON.stringify(l[0])));
    if (bad === 'dup_put_delete') l.push({ PutRequest: { Item: genItem(r, ss, ssKey(id, 'A')) } }, { DeleteRequest: { Key: ssKey(id, 'A') } });
    if (bad === 'over25') { ri.dt_ss = [...Array(26).keys()].map((i) => ({ DeleteRequest: { Key: ssKey(id, 'K' + i) } })); delete ri.dt_p; }
    if (bad === 'empty') req.RequestItems = {};
    if (bad === 'empty_list') ri.dt_ss = [];
    if (bad === 'missing_table') ri['dt_nope' + id] = [{ DeleteRequest: { Key: { pk: { S: 'x' } } } }];
    if (bad === 'missing_key') l.push({ PutRequest: { Item: { pk: { S: 'P#' + id }, a: { S: 'x' } } } });
    if (bad === 'both') l.push({ PutRequest: { Item: genItem(r, ss, ssKey(id, 'H')) }, DeleteRequest: { Key: ssKey(id, 'H') } });
    if (bad === 'neither') l.push({});
    if (bad === 'bad_number') l.push({ PutRequest: { Item: { ...ssKey(id, 'I'), n: { N: '1E+126' } } } });
  }
  steps.push(step('BatchWriteItem', req));
  // What is stored afterwards: every key the case could have touched.
  const keys = { dt_ss: { Keys: ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I'].map((sk) => ssKey(id, sk)), ConsistentRead: true },
    dt_p: { Keys: [0, 1, 2, 3].map((i) => pKey(id, i)), ConsistentRead: true } };
  steps.push(step('BatchGetItem', { RequestItems: keys }, { sort: true, note: 'stored' }));
  return { op: 'BatchWriteItem', steps };
}

// ---- by hand against DynamoDB Local (local.sh): what dynalite lacks ----
function transactWriteCase(r, id) {
  const steps = batchItems(r, id).filter(([t]) => t === 'dt_ss').map(([t, item]) => setup('PutItem', { TableName: t, Item: item }));
  const acts = [];
  const sks = ['A', 'B', 'C', 'D', 'E', 'F'].filter(() => r.chance(0.5)).slice(0, 4);
  if (!sks.length) sks.push('A');
  const cond = () => r.pick([undefined, 'attribute_exists(pk)', 'attribute_not_exists(pk)', 'attribute_exists(a)', 'size(a) > :z']);
  for (const sk of sks) {
    const kind = r.pick(['Put', 'Update', 'Delete', 'ConditionCheck']);
    const a = { TableName: 'dt_ss', [kind === 'Put' ? 'Item' : 'Key']: kind === 'Put' ? genItem(r, SHARED.dt_ss, ssKey(id, sk)) : ssKey(id, sk) };
    if (kind === 'Update') { a.UpdateExpression = 'SET v = :v ADD n :one'; a.ExpressionAttributeValues = { ':v': genS(r), ':one': { N: '1' } }; }
    const ce = kind === 'ConditionCheck' ? cond() || 'attribute_exists(pk)' : cond();
    if (ce) { a.ConditionExpression = ce; if (ce.includes(':z')) a.ExpressionAttributeValues = { ...(a.ExpressionAttributeValues || {}), ':z': { N: '1' } }; }
    if (ce && r.chance(0.4)) a.ReturnValuesOnConditionCheckFailure = 'ALL_OLD'; // the failed ones' CancellationReasons carry Item
    acts.push({ [kind]: a });
  }
  const req = { TransactItems: acts };
  const mode = r.weighted([['plain', 50], ['replay', 15], ['mismatch', 15], ['error', 20]]);
  if (mode === 'replay' || mode === 'mismatch') req.ClientRequestToken = 'tok-' + id;
  if (mode === 'error') {
    const bad = r.pick(['same_item', 'empty', 'over100', 'missing_table']);
    if (bad === 'same_item') acts.push({ ConditionCheck: { TableName: 'dt_ss', Key: ssKey(id, sks[0]), ConditionExpression: 'attribute_exists(pk)' } });
    if (bad === 'empty') req.TransactItems = [];
    if (bad === 'over100') req.TransactItems = [...Array(101).keys()].map((i) => ({ Delete: { TableName: 'dt_ss', Key: ssKey(id, 'K' + i) } }));
    if (bad === 'missing_table') acts.push({ Delete: { TableName: 'dt_nope' + id, Key: { pk: { S: 'x' } } } });
  }
  steps.push(step('TransactWriteItems', req));
  if (mode === 'replay') steps.push(step('TransactWriteItems', req, { note: 'replayed' }));
  if (mode === 'mismatch') steps.push(step('TransactWriteItems', { ...req, TransactItems: [{ Delete: { TableName: 'dt_ss', Key: ssKey(id, 'Z') } }] }, { note: 'token reused' }));
  steps.push(step('BatchGetItem', { RequestItems: { dt_ss: { Keys: ['A', 'B', 'C', 'D', 'E', 'F', 'Z'].map((sk) => ssKey(id, sk)), ConsistentRead: true } } }, { sort: true, note: 'stored' }));
  return { op: 'TransactWriteItems', steps };
}

function transactGetCase(r, id) {
  const steps = batchItems(r, id).map(([t, item]) => setup('PutItem', { TableName: t, Item: item }));
  const gets = ['A', 'B', 'C', 'Z'].filter(() => r.chance(0.6)).map((sk) => ({ Get: { TableName: 'dt_ss', Key: ssKey(id, sk) } }));
  if (r.chance(0.5)) gets.push({ Get: { TableName: 'dt_p', Key: pKey(id, r.int(4)), ProjectionExpression: 'pk, a' } });
  if (!gets.length || r.chance(0.15)) gets.push(r.pick([{ Get: { TableName: 'dt_nope' + id, Key: { pk: { S: 'x' } } } }, { Get: { TableName: 'dt_ss', Key: { pk: { S: 'x' } } } }]));
  steps.push(step('TransactGetItems', { TransactItems: r.chance(0.05) ? [] : gets }));
  return { op: 'TransactGetItems', steps };
}

function ttlUpdateCase(r, id) {
  const name = 'dt_ttl' + id;
  const steps = [setup('CreateTable', createRequest(name, { pk: 'pk', pkType: 'S' }))];
  const spec = (on, attr) => ({ TableName: name, TimeToLiveSpecification: { Enabled: on, AttributeName: attr } });
  const kind = r.pick(['enable', 'enable_twice', 'disable_unset', 'enable_disable', 'missing_table', 'bad_attr']);
  if (kind === 'enable' || kind === 'enable_twice' || kind === 'enable_disable') steps.push(step('UpdateTimeToLive', spec(true, 'exp')));
  if (kind === 'enable_twice') steps.push(step('UpdateTimeToLive', spec(true, r.pick(['exp', 'other']))));
  if (kind === 'enable_disable') steps.push(step('UpdateTimeToLive', spec(false, 'exp')));
  if (kind === 'disable_unset') steps.push(step('UpdateTimeToLive', spec(false, 'exp')));
  if (kind === 'missing_table') steps.push(step('UpdateTimeToLive', { ...spec(true, 'exp'), TableName: 'dt_nope' + id }));
  if (kind === 'bad_attr') steps.push(step('UpdateTimeToLive', spec(true, '')));
  steps.push(step('DescribeTimeToLive', { TableName: name }, { note: 'after' }));
  return { op: 'UpdateTimeToLive', table: name, steps, teardown: [dropTable(name)] };
}

// The kinds and their shares of a run.
const KINDS = [
  ['PutItem', 11], ['UpdateItem', 20], ['DeleteItem', 7], ['GetItem', 7], ['Query', 12],
  ['QueryIndex', 6], ['Scan', 7], ['BatchGetItem', 5], ['BatchWriteItem', 5], ['CreateTable', 6],
  ['DescribeTable', 2], ['DeleteTable', 2], ['ListTables', 2], ['UpdateTable', 2.5], ['Tags', 3],
  ['DescribeTimeToLive', 1.5], ['unknown', 1],
];
// Drawn first, from a generator of their own, so that the other cases stay what they were
// before these kinds existed: the legacy parameters (lib/legacy.js) and UpdateItem with only a Key.
const LATER_KINDS = [['Legacy', 9], ['UpdateKeyOnly', 2], [null, 89]];

// local.sh: what dynalite lacks, and the legacy parameters (DynamoDB Local is AWS's own code).
const LOCAL_KINDS = [['TransactWriteItems', 45], ['TransactGetItems', 15], ['UpdateTimeToLive', 10], ['Legacy', 30], ['UpdateKeyOnly', 5]];

// local: the cases of local.sh (operations dynalite lacks) instead.
function makeCase(seed, id, local) {
  const r = new Rng(hash32('kind:' + seed + ':' + id));
  const later = local ? null : new Rng(hash32('later:' + seed + ':' + id)).weighted(LATER_KINDS);
  const kind = r.weighted(local ? LOCAL_KINDS : KINDS);
  let c;
  switch (later || kind) {
    case 'PutItem': case 'UpdateItem': case 'DeleteItem': case 'GetItem': case 'Query': c = itemCase(seed, id, kind); break;
    case 'QueryIndex': c = indexQueryCase(r, id); break;
    case 'Scan': c = scanCase(r, id); break;
    case 'BatchGetItem': c = batchGetCase(r, id); break;
    case 'BatchWriteItem': c = batchWriteCase(r, id); break;
    case 'CreateTable': c = createCase(r, id); break;
    case 'DescribeTable': c = describeCase(r, id); break;
    case 'DeleteTable': c = deleteCase(r, id); break;
    case 'ListTables': c = listCase(r, id); break;
    case 'UpdateTable': c = updateTableCase(r, id); break;
    case 'Tags': c = tagCase(r, id); break;
    case 'DescribeTimeToLive': c = ttlCase(r, id); break;
    case 'TransactWriteItems': c = transactWriteCase(r, id); break;
    case 'TransactGetItems': c = transactGetCase(r, id); break;
    case 'UpdateTimeToLive': c = ttlUpdateCase(r, id); break;
    case 'Legacy': c = legacyCase(r, id, createRequest); break;
    case 'UpdateKeyOnly': c = keyOnlyUpdateCase(r, id); break;
    default: c = unknownCase(r);
  }
  return { id, seed, kind: later || kind, ...c };
}

module.exports = { makeCase, SHARED, createRequest, genS };
