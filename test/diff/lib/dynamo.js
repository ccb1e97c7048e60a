// test/diff/lib/dynamo.js: runs a case against a DynamoDB emulator with the AWS SDK and returns
// its outcome in the shape every side returns (see outcome() in harness.js).
'use strict';
const {
  DynamoDBClient, CreateTableCommand, PutItemCommand, GetItemCommand, DeleteItemCommand,
  UpdateItemCommand, QueryCommand,
} = require('@aws-sdk/client-dynamodb');
const { toSdk, fromSdk, mapObj } = require('./values');

const sdkItem = (item) => mapObj(item, toSdk);
const wireItem = (item) => (item ? mapObj(item, fromSdk) : null);

// The SDK's request parameters from the case's wire JSON ones (values carry bytes for B).
function sdkParams(p) {
  const q = { ...p };
  for (const k of ['Item', 'Key', 'ExclusiveStartKey', 'ExpressionAttributeValues']) {
    if (q[k]) q[k] = sdkItem(q[k]);
  }
  return q;
}

class DynamoSide {
  constructor(name, endpoint) {
    this.name = name;
    this.client = new DynamoDBClient({
      endpoint, region: 'us-east-1', maxAttempts: 1,
      credentials: { accessKeyId: 'difftest', secretAccessKey: 'difftest' },
    });
  }

  async createTables(tables) {
    for (const [name, t] of Object.entries(tables)) {
      const ks = [{ AttributeName: t.pk, KeyType: 'HASH' }];
      const ad = [{ AttributeName: t.pk, AttributeType: t.pkType }];
      if (t.sk) { ks.push({ AttributeName: t.sk, KeyType: 'RANGE' }); ad.push({ AttributeName: t.sk, AttributeType: t.skType }); }
      await this.client.send(new CreateTableCommand({
        TableName: name, KeySchema: ks, AttributeDefinitions: ad, BillingMode: 'PAY_PER_REQUEST',
      }));
    }
  }

  async put(table, item) {
    await this.client.send(new PutItemCommand({ TableName: table, Item: sdkItem(item) }));
  }

  async get(table, key) {
    const r = await this.client.send(new GetItemCommand({ TableName: table, Key: sdkItem(key), ConsistentRead: true }));
    return wireItem(r.Item);
  }

  // The operation of the case: {ok: true, ...} or {error: name, message, item?}.
  async run(c) {
    const p = sdkParams(c.params);
    try {
      switch (c.op) {
        case 'PutItem': return { ok: true, returned: wireItem((await this.client.send(new PutItemCommand(p))).Attributes) };
        case 'DeleteItem': return { ok: true, returned: wireItem((await this.client.send(new DeleteItemCommand(p))).Attributes) };
        case 'UpdateItem': return { ok: true, returned: wireItem((await this.client.send(new UpdateItemCommand(p))).Attributes) };
        case 'GetItem': return { ok: true, returned: wireItem((await this.client.send(new GetItemCommand({ ...p, ConsistentRead: true }))).Item) };
        case 'Query': {
          const r = await this.client.send(new QueryCommand({ ...p, ConsistentRead: true }));
          return { ok: true, items: (r.Items || []).map(wireItem), lastKey: wireItem(r.LastEvaluatedKey) };
        }
        default: throw new Error('unknown op ' + c.op);
      }
    } catch (e) {
      if (!e.$metadata && !e.$fault) throw e; // not an answer of the server: a bug of the harness
      return { error: e.name, message: e.message, item: e.Item ? wireItem(e.Item) : undefined };
    }
  }
}

module.exports = { DynamoSide };
