// test/bench/gateway/workload.js: the benchmark's table and items, the same on every target:
// the posting app's shape (a user's posts in one item collection, pk user#N, sk post#NNNN),
// COLLECTIONS collections of ITEMS small items (about 300 bytes), read back by key (GetItem)
// and by collection (Query, begins_with on sk: the 30 items); PutItem writes new posts.
'use strict';
const TABLE = 'bench';
const COLLECTIONS = 50;
const ITEMS = 30;

const pad = (n, w) => String(n).padStart(w, '0');
const TITLE = 'A post about single-table design, n. ';
const BODY = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation.';

function item(pk, sk, n) {
  return {
    pk: { S: pk }, sk: { S: sk },
    title: { S: TITLE + n }, body: { S: BODY },
    likes: { N: String(n % 997) }, created: { S: '2026-11-30T12:00:00Z' },
    tags: { SS: ['postgres', 'dynamodb'] },
  };
}

const collection = (c) => 'user#' + pad(c, 5);
const postSk = (i) => 'post#' + pad(i, 4);

module.exports = {
  TABLE, COLLECTIONS, ITEMS,
  tableParams: {
    TableName: TABLE, BillingMode: 'PAY_PER_REQUEST',
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'S' }],
  },
  loadItems() {
    const out = [];
    for (let c = 0; c < COLLECTIONS; c++) for (let i = 0; i < ITEMS; i++) out.push(item(collection(c), postSk(i), c * ITEMS + i));
    return out;
  },
  randomCollection: () => collection(Math.floor(Math.random() * COLLECTIONS)),
  randomKey: () => ({ pk: { S: collection(Math.floor(Math.random() * COLLECTIONS)) }, sk: { S: postSk(Math.floor(Math.random() * ITEMS)) } }),
  putItem: (who, n) => item('writer#' + who, 'post#' + pad(n, 9), n),
  queryParams: (pk) => ({
    TableName: TABLE, KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
    ExpressionAttributeValues: { ':p': { S: pk }, ':s': { S: 'post#' } },
  }),
};
