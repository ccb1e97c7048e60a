// test/legacy/dynalite_cross.js: singletable's legacy DynamoDB parameters (src/api/dynamodb_legacy.c)
// against dynalite, by hand: the same requests go to an in-memory dynalite and to
// singletable.dynamodb() on the server of PGHOST/PGPORT/PGDATABASE (extension installed; the
// script creates and drops the table XLegacy), and each response (items sorted, capacity
// dropped) or error (exception + message) is compared. Not part of the regression suite.
//
//   npm install --prefix /tmp/dl dynalite@4
//   source /tmp/devenv-NAME            # or export PGHOST, PGPORT, PGBIN
//   NODE_PATH=/tmp/dl/node_modules node test/legacy/dynalite_cross.js
//
// Known differences, where singletable follows AWS's documentation and tests run against AWS
// (see src/api/dynamodb_legacy.c): NOT_CONTAINS on an absent attribute is false; EQ takes an L
// value; ConditionalOperator OR holds when any condition holds (dynalite returns false as
// soon as the first condition is false). Later cases see the item state those leave.

const dynalite = require('dynalite');
const http = require('http');
const { execFileSync } = require('child_process');
const PSQL = process.env.PGBIN ? process.env.PGBIN + '/psql' : 'psql';
const T = 'XLegacy';

function dyn(port, op, req) {
  return new Promise((resolve) => {
    const body = JSON.stringify(req);
    const r = http.request({ port, method: 'POST', path: '/', headers: {
      'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.' + op,
      'X-Amz-Date': '20200101T000000Z',
      'Authorization': 'AWS4-HMAC-SHA256 Credential=a/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=abc' } },
      (res) => { let d = ''; res.on('data', (c) => d += c); res.on('end', () => {
        const j = JSON.parse(d || '{}');
        resolve(res.statusCode === 200 ? { ok: j } : { err: (j.__type || '').split('#')[1] + ': ' + (j.message || j.Message) });
      }); });
    r.end(body);
  });
}
function st(op, req) {
  try {
    const out = execFileSync(PSQL, ['-X', '-At', '-v', 'ON_ERROR_STOP=1', '-v', 'op=' + op, '-v', 'req=' + JSON.stringify(req)],
      { input: "SELECT singletable.dynamodb(:'op', :'req'::jsonb)", stdio: ['pipe', 'pipe', 'pipe'] }).toString();
    return { ok: JSON.parse(out) };
  } catch (e) {
    const m = /DETAIL:\s+(\{.*\})/.exec(e.stderr.toString());
    const j = m ? JSON.parse(m[1]) : { __type: '#?', message: e.stderr.toString() };
    return { err: j.__type.split('#')[1] + ': ' + j.message };
  }
}
function norm(r) {
  if (r.err) return r;
  const o = JSON.parse(JSON.stringify(r.ok));
  delete o.ConsumedCapacity;
  const sortAttr = (v) => { for (const t of ['SS', 'NS', 'BS']) if (v[t]) v[t].sort(); if (v.M) for (const k in v.M) sortAttr(v.M[k]); if (v.L) v.L.forEach(sortAttr); };
  const canon = (item) => { const k = Object.keys(item).sort(); const x = {}; k.forEach((a) => { sortAttr(item[a]); x[a] = item[a]; }); return x; };
  if (o.Items) o.Items = o.Items.map(canon).sort((a, b) => JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);
  if (o.Item) o.Item = canon(o.Item);
  if (o.Attributes) o.Attributes = canon(o.Attributes);
  if (o.Responses) for (const t in o.Responses) o.Responses[t] = o.Responses[t].map(canon).sort((a, b) => JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);
  if (o.UnprocessedKeys && !Object.keys(o.UnprocessedKeys).length) delete o.UnprocessedKeys;
  return { ok: canon(o) };
}
const K = (sk) => ({ pk: { S: 'p' }, sk: { S: sk } });
const KC = { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'p' }] } };
const setup = [
  ['CreateTable', { TableName: T, AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }], BillingMode: 'PAY_PER_REQUEST' }],
  ['PutItem', { TableName: T, Item: { ...K('a1'), s: { S: 'apple' }, n: { N: '5' }, ss: { SS: ['x', 'y'] }, l: { L: [{ S: 'x' }] } } }],
  ['PutItem', { TableName: T, Item: { ...K('a2'), s: { S: 'banana' }, n: { N: '10' }, ss: { SS: ['y', 'z'] } } }],
  ['PutItem', { TableName: T, Item: { ...K('b2') } }],
];
const cases = [
  ['GetItem AttributesToGet', 'GetItem', { TableName: T, Key: K('a1'), AttributesToGet: ['s', 'ss', 'absent'] }],
  ['BatchGetItem AttributesToGet', 'BatchGetItem', { RequestItems: { [T]: { Keys: [K('a1'), K('a2')], AttributesToGet: ['n'] } } }],
  ['Query KeyConditions BETWEEN', 'Query', { TableName: T, KeyConditions: { ...KC, sk: { ComparisonOperator: 'BETWEEN', AttributeValueList: [{ S: 'a1' }, { S: 'a9' }] } } }],
  ['Query KeyConditions BEGINS_WITH + AttributesToGet', 'Query', { TableName: T, KeyConditions: { ...KC, sk: { ComparisonOperator: 'BEGINS_WITH', AttributeValueList: [{ S: 'b' }] } }, AttributesToGet: ['sk'] }],
  ['QueryFilter NE (absent matches)', 'Query', { TableName: T, KeyConditions: KC, QueryFilter: { n: { ComparisonOperator: 'NE', AttributeValueList: [{ N: '5' }] } } }],
  ['QueryFilter NOT_CONTAINS on absent', 'Query', { TableName: T, KeyConditions: KC, QueryFilter: { ss: { ComparisonOperator: 'NOT_CONTAINS', AttributeValueList: [{ S: 'x' }] } } }],
  ['QueryFilter CONTAINS list member', 'Query', { TableName: T, KeyConditions: KC, QueryFilter: { l: { ComparisonOperator: 'CONTAINS', AttributeValueList: [{ S: 'x' }] } } }],
  ['QueryFilter IN', 'Query', { TableName: T, KeyConditions: KC, QueryFilter: { s: { ComparisonOperator: 'IN', AttributeValueList: [{ S: 'banana' }, { S: 'kiwi' }] } } }],
  ['QueryFilter EQ with an L value', 'Query', { TableName: T, KeyConditions: KC, QueryFilter: { l: { ComparisonOperator: 'EQ', AttributeValueList: [{ L: [{ S: 'x' }] }] } } }],
  ['ScanFilter OR', 'Scan', { TableName: T, ConditionalOperator: 'OR', ScanFilter: { n: { ComparisonOperator: 'GT', AttributeValueList: [{ N: '7' }] }, s: { ComparisonOperator: 'BEGINS_WITH', AttributeValueList: [{ S: 'ap' }] } } }],
  ['ScanFilter NULL', 'Scan', { TableName: T, ScanFilter: { n: { ComparisonOperator: 'NULL' } } }],
  ['Expected Exists false on an existing item', 'PutItem', { TableName: T, Item: K('a1'), Expected: { sk: { Exists: false } } }],
  ['Expected Value (EQ) holds', 'DeleteItem', { TableName: T, Key: K('zz'), Expected: { n: { ComparisonOperator: 'NULL' } } }],
  ['Expected OR', 'UpdateItem', { TableName: T, Key: K('a2'), ConditionalOperator: 'OR', Expected: { n: { Value: { N: '1' } }, s: { Value: { S: 'banana' } } }, AttributeUpdates: { c: { Action: 'ADD', Value: { N: '1' } } }, ReturnValues: 'ALL_NEW' }],
  ['AttributeUpdates every action', 'UpdateItem', { TableName: T, Key: K('a1'), ReturnValues: 'ALL_NEW', AttributeUpdates: {
    n: { Action: 'ADD', Value: { N: '2.5' } }, ss: { Action: 'DELETE', Value: { SS: ['x'] } }, s: { Action: 'DELETE' },
    t: { Value: { S: 'put' } }, l: { Action: 'ADD', Value: { L: [{ N: '1' }] } }, u: { Action: 'ADD', Value: { NS: ['1'] } } } }],
  ['AttributeUpdates creates an item', 'UpdateItem', { TableName: T, Key: K('new'), ReturnValues: 'ALL_NEW', AttributeUpdates: { c: { Action: 'ADD', Value: { N: '1' } } } }],
  ['error: EQ without values', 'Scan', { TableName: T, ScanFilter: { n: { ComparisonOperator: 'EQ', AttributeValueList: [] } } }],
  ['error: LT on SS', 'Scan', { TableName: T, ScanFilter: { n: { ComparisonOperator: 'LT', AttributeValueList: [{ SS: ['a'] }] } } }],
  ['error: BEGINS_WITH on N', 'Scan', { TableName: T, ScanFilter: { n: { ComparisonOperator: 'BEGINS_WITH', AttributeValueList: [{ N: '1' }] } } }],
  ['error: IN of two types', 'Scan', { TableName: T, ScanFilter: { n: { ComparisonOperator: 'IN', AttributeValueList: [{ N: '1' }, { S: 'a' }] } } }],
  ['error: BETWEEN reversed', 'Scan', { TableName: T, ScanFilter: { n: { ComparisonOperator: 'BETWEEN', AttributeValueList: [{ N: '9' }, { N: '1' }] } } }],
  ['error: unknown operator', 'Scan', { TableName: T, ScanFilter: { n: { ComparisonOperator: 'DOG', AttributeValueList: [{ N: '9' }] } } }],
  ['error: mixing', 'Query', { TableName: T, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p' } }, AttributesToGet: ['s'], ProjectionExpression: 's' }],
  ['KeyConditions with FilterExpression (allowed)', 'Query', { TableName: T, KeyConditions: KC, FilterExpression: 'attribute_exists(n)' }],
  ['error: duplicate AttributesToGet', 'GetItem', { TableName: T, Key: K('a1'), AttributesToGet: ['s', 's'] }],
  ['error: KeyConditions NE', 'Query', { TableName: T, KeyConditions: { ...KC, sk: { ComparisonOperator: 'NE', AttributeValueList: [{ S: 'a' }] } } }],
  ['error: KeyConditions empty', 'Query', { TableName: T, KeyConditions: {} }],
  ['error: Exists true without Value', 'PutItem', { TableName: T, Item: K('x'), Expected: { n: { Exists: true } } }],
  ['error: Exists false with Value', 'PutItem', { TableName: T, Item: K('x'), Expected: { n: { Exists: false, Value: { N: '1' } } } }],
  ['error: Value and AttributeValueList', 'PutItem', { TableName: T, Item: K('x'), Expected: { n: { ComparisonOperator: 'EQ', Value: { N: '1' }, AttributeValueList: [{ N: '1' }] } } }],
  ['error: PUT without Value', 'UpdateItem', { TableName: T, Key: K('x'), AttributeUpdates: { n: { Action: 'PUT' } } }],
  ['error: DELETE with an S value', 'UpdateItem', { TableName: T, Key: K('x'), AttributeUpdates: { n: { Action: 'DELETE', Value: { S: 'a' } } } }],
  ['error: ADD with an S value', 'UpdateItem', { TableName: T, Key: K('x'), AttributeUpdates: { n: { Action: 'ADD', Value: { S: 'a' } } } }],
  ['error: names without expressions', 'GetItem', { TableName: T, Key: K('a1'), AttributesToGet: ['s'], ExpressionAttributeNames: { '#s': 's' } }],
];
(async () => {
  const server = dynalite({ createTableMs: 0 });
  await new Promise((r) => server.listen(0, r));
  const port = server.address().port;
  st('DeleteTable', { TableName: T });
  for (const [op, req] of setup) { await dyn(port, op, req); st(op, req); }
  let agree = 0;
  for (const [name, op, req] of cases) {
    const a = norm(await dyn(port, op, req)), b = norm(st(op, req));
    const same = JSON.stringify(a) === JSON.stringify(b);
    if (same) agree++;
    console.log((same ? 'AGREE   ' : 'DIFFER  ') + name + (same ? '' : '\n    dynalite:    ' + JSON.stringify(a) + '\n    singletable: ' + JSON.stringify(b)));
  }
  console.log(`${agree} of ${cases.length} cases agree`);
  st('DeleteTable', { TableName: T });
  server.close();
})();
