-- dynamodb_posting: the SaaS posting app of the mission brief written entirely as
-- DynamoDB requests to singletable.dynamodb: CreateTable with GSI1, puts, each
-- access pattern as a Query with KeyConditionExpression, a conditional approval,
-- a counter, paging with ExclusiveStartKey, TTL on metrics
SET client_min_messages = warning;
CREATE SCHEMA ddb;
SET singletable.dynamodb_schema = ddb;
SELECT singletable.dynamodb('CreateTable', '{"TableName": "posting", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
                           {"AttributeName": "gsi1pk", "AttributeType": "S"}, {"AttributeName": "gsi1sk", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "GSI1",
     "KeySchema": [{"AttributeName": "gsi1pk", "KeyType": "HASH"}, {"AttributeName": "gsi1sk", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "ALL"}}]}') #>> '{TableDescription,TableStatus}' AS status;
SELECT singletable.dynamodb('UpdateTimeToLive', '{"TableName": "posting",
  "TimeToLiveSpecification": {"AttributeName": "expiresAt", "Enabled": true}}');
-- the items, each a PutItem
SELECT count(singletable.dynamodb('PutItem', jsonb_build_object('TableName', 'posting', 'Item', i))) AS items_written
  FROM unnest(ARRAY[
    '{"pk": {"S": "USER#u_1001"}, "sk": {"S": "PROFILE"}, "name": {"S": "Aiko"}, "plan": {"S": "pro"}}',
    '{"pk": {"S": "USER#u_1001"}, "sk": {"S": "POST#p_0017"}, "title": {"S": "Single-table on Postgres"}, "status": {"S": "approved"}, "publishAt": {"S": "2026-06-23T09:00:00Z"}, "gsi1pk": {"S": "STATUS#approved"}, "gsi1sk": {"S": "2026-06-23T09:00:00Z"}}',
    '{"pk": {"S": "USER#u_1001"}, "sk": {"S": "POST#p_0018"}, "title": {"S": "Key overloading"}, "status": {"S": "draft"}}',
    '{"pk": {"S": "USER#u_1001"}, "sk": {"S": "POST#p_0019"}, "title": {"S": "begins_with is a range"}, "status": {"S": "draft"}}',
    '{"pk": {"S": "USER#u_1001"}, "sk": {"S": "LIBRARY#HASHTAG#postgres"}, "tags": {"SS": ["#postgres", "#dynamodb"]}}',
    '{"pk": {"S": "USER#u_1001"}, "sk": {"S": "INTEG#GOOGLE"}, "account": {"S": "aiko@example.com"}}',
    '{"pk": {"S": "USER#u_1001"}, "sk": {"S": "INTEG#X#aiko_dev"}, "handle": {"S": "aiko_dev"}}',
    '{"pk": {"S": "USER#u_1001"}, "sk": {"S": "INTEG#X#aiko_news"}, "handle": {"S": "aiko_news"}}',
    '{"pk": {"S": "USER#u_1001"}, "sk": {"S": "SOURCE#FOLDER#fld_01"}, "name": {"S": "Campaign assets"}}',
    '{"pk": {"S": "USER#u_1001"}, "sk": {"S": "ANALYTICS#p_0017"}, "impressions": {"N": "4210"}, "likes": {"N": "233"}}',
    '{"pk": {"S": "USER#u_1002"}, "sk": {"S": "PROFILE"}, "name": {"S": "Ben"}, "plan": {"S": "free"}}',
    '{"pk": {"S": "USER#u_1002"}, "sk": {"S": "POST#p_0101"}, "title": {"S": "Launch checklist"}, "status": {"S": "approved"}, "publishAt": {"S": "2026-06-24T07:30:00Z"}, "gsi1pk": {"S": "STATUS#approved"}, "gsi1sk": {"S": "2026-06-24T07:30:00Z"}}',
    '{"pk": {"S": "POST#p_0017"}, "sk": {"S": "SOURCE#f_01"}, "file": {"S": "cover.png"}, "bytes": {"B": "iVBORw0KGgo="}}',
    '{"pk": {"S": "POST#p_0017"}, "sk": {"S": "SOURCE#f_02"}, "file": {"S": "draft.md"}}',
    '{"pk": {"S": "POST#p_0017"}, "sk": {"S": "METRICS#2026-06-23T10:00Z"}, "views": {"N": "120"}, "expiresAt": {"N": "4102444800"}}',
    '{"pk": {"S": "POST#p_0017"}, "sk": {"S": "METRICS#2026-06-23T11:00Z"}, "views": {"N": "310"}, "expiresAt": {"N": "4102444800"}}',
    '{"pk": {"S": "POST#p_0017"}, "sk": {"S": "METRICS#2026-06-23T12:00Z"}, "views": {"N": "540"}, "expiresAt": {"N": "4102444800"}}'
  ]::jsonb[]) i;

-- all posts of a user
SELECT singletable.dynamodb('Query', '{"TableName": "posting", "KeyConditionExpression": "pk = :u AND begins_with(sk, :p)",
  "ExpressionAttributeValues": {":u": {"S": "USER#u_1001"}, ":p": {"S": "POST#"}}, "ProjectionExpression": "sk, title, #s",
  "ExpressionAttributeNames": {"#s": "status"}}');
-- the library, the X integrations, the folders
SELECT singletable.dynamodb('Query', '{"TableName": "posting", "KeyConditionExpression": "pk = :u AND begins_with(sk, :p)",
  "ExpressionAttributeValues": {":u": {"S": "USER#u_1001"}, ":p": {"S": "LIBRARY#"}}}');
SELECT singletable.dynamodb('Query', '{"TableName": "posting", "KeyConditionExpression": "pk = :u AND begins_with(sk, :p)",
  "ExpressionAttributeValues": {":u": {"S": "USER#u_1001"}, ":p": {"S": "INTEG#X#"}}, "ProjectionExpression": "handle"}');
SELECT singletable.dynamodb('Query', '{"TableName": "posting", "KeyConditionExpression": "pk = :u AND begins_with(sk, :p)",
  "ExpressionAttributeValues": {":u": {"S": "USER#u_1001"}, ":p": {"S": "SOURCE#FOLDER#"}}, "ProjectionExpression": "sk, #n",
  "ExpressionAttributeNames": {"#n": "name"}}');
-- the profile: GetItem, and a Query with =
SELECT singletable.dynamodb('GetItem', '{"TableName": "posting", "Key": {"pk": {"S": "USER#u_1002"}, "sk": {"S": "PROFILE"}}}');
SELECT singletable.dynamodb('Query', '{"TableName": "posting", "KeyConditionExpression": "pk = :u AND sk = :p",
  "ExpressionAttributeValues": {":u": {"S": "USER#u_1002"}, ":p": {"S": "PROFILE"}}, "Select": "COUNT"}');
-- the sources of a post (a B attribute comes back as {"B": ...})
SELECT singletable.dynamodb('Query', '{"TableName": "posting", "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
  "ExpressionAttributeValues": {":p": {"S": "POST#p_0017"}, ":s": {"S": "SOURCE#"}}}');
-- the latest metrics, newest first, two per page: paging with ExclusiveStartKey
SELECT singletable.dynamodb('Query', '{"TableName": "posting", "KeyConditionExpression": "pk = :p AND begins_with(sk, :m)",
  "ExpressionAttributeValues": {":p": {"S": "POST#p_0017"}, ":m": {"S": "METRICS#"}}, "ScanIndexForward": false, "Limit": 2,
  "ProjectionExpression": "sk, #v", "ExpressionAttributeNames": {"#v": "views"}}') AS page1 \gset
SELECT :'page1'::jsonb;
SELECT singletable.dynamodb('Query', jsonb_build_object('TableName', 'posting', 'KeyConditionExpression', 'pk = :p AND begins_with(sk, :m)',
  'ExpressionAttributeValues', '{":p": {"S": "POST#p_0017"}, ":m": {"S": "METRICS#"}}'::jsonb, 'ScanIndexForward', false, 'Limit', 2,
  'ProjectionExpression', 'sk, #v', 'ExpressionAttributeNames', '{"#v": "views"}'::jsonb,
  'ExclusiveStartKey', :'page1'::jsonb -> 'LastEvaluatedKey'));
-- metrics in a time window
SELECT singletable.dynamodb('Query', '{"TableName": "posting", "KeyConditionExpression": "pk = :p AND sk BETWEEN :a AND :b",
  "ExpressionAttributeValues": {":p": {"S": "POST#p_0017"}, ":a": {"S": "METRICS#2026-06-23T10:30Z"}, ":b": {"S": "METRICS#2026-06-23T11:59Z"}},
  "ProjectionExpression": "sk"}');
-- the whole user collection in one query
SELECT jsonb_path_query_array(singletable.dynamodb('Query', '{"TableName": "posting", "KeyConditionExpression": "pk = :u",
  "ExpressionAttributeValues": {":u": {"S": "USER#u_1001"}}}'), '$.Items[*].sk.S') AS user_collection;
-- the scheduler: approved posts across users by publish time, on GSI1
SELECT singletable.dynamodb('Query', '{"TableName": "posting", "IndexName": "GSI1", "KeyConditionExpression": "gsi1pk = :s",
  "ExpressionAttributeValues": {":s": {"S": "STATUS#approved"}}, "ProjectionExpression": "gsi1sk, pk, sk, title"}');
-- the conditional approval: p_0019 goes from draft to approved, once
SELECT singletable.dynamodb('UpdateItem', '{"TableName": "posting", "Key": {"pk": {"S": "USER#u_1001"}, "sk": {"S": "POST#p_0019"}},
  "UpdateExpression": "SET #s = :approved, publishAt = :at, gsi1pk = :gpk, gsi1sk = :at",
  "ConditionExpression": "#s = :draft", "ExpressionAttributeNames": {"#s": "status"},
  "ExpressionAttributeValues": {":approved": {"S": "approved"}, ":draft": {"S": "draft"}, ":at": {"S": "2026-06-26T12:30:00Z"},
                                ":gpk": {"S": "STATUS#approved"}}, "ReturnValues": "UPDATED_NEW"}');
SELECT singletable.dynamodb('UpdateItem', '{"TableName": "posting", "Key": {"pk": {"S": "USER#u_1001"}, "sk": {"S": "POST#p_0019"}},
  "UpdateExpression": "SET #s = :approved", "ConditionExpression": "#s = :draft", "ExpressionAttributeNames": {"#s": "status"},
  "ExpressionAttributeValues": {":approved": {"S": "approved"}, ":draft": {"S": "draft"}},
  "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}');
SELECT jsonb_path_query_array(singletable.dynamodb('Query', '{"TableName": "posting", "IndexName": "GSI1", "KeyConditionExpression": "gsi1pk = :s AND gsi1sk > :t",
  "ExpressionAttributeValues": {":s": {"S": "STATUS#approved"}, ":t": {"S": "2026-06-24"}}}'), '$.Items[*].sk.S') AS approved_after_june_24;
-- a counter: ADD on the analytics roll-up, twice
SELECT singletable.dynamodb('UpdateItem', '{"TableName": "posting", "Key": {"pk": {"S": "USER#u_1001"}, "sk": {"S": "ANALYTICS#p_0017"}},
  "UpdateExpression": "ADD likes :one", "ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"}');
SELECT singletable.dynamodb('UpdateItem', '{"TableName": "posting", "Key": {"pk": {"S": "USER#u_1001"}, "sk": {"S": "ANALYTICS#p_0017"}},
  "UpdateExpression": "ADD likes :one", "ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "UPDATED_NEW",
  "ReturnConsumedCapacity": "TOTAL"}');
-- the table is an ordinary singletable table: the native functions read the same items
SELECT sk, item ->> 'likes' AS likes FROM singletable.query('ddb.posting', 'USER#u_1001', 'begins_with', 'ANALYTICS#');
SELECT singletable.dynamodb('DescribeTimeToLive', '{"TableName": "posting"}');
-- a draft deleted only while it is a draft
SELECT singletable.dynamodb('DeleteItem', '{"TableName": "posting", "Key": {"pk": {"S": "USER#u_1001"}, "sk": {"S": "POST#p_0018"}},
  "ConditionExpression": "#s = :d", "ExpressionAttributeNames": {"#s": "status"}, "ExpressionAttributeValues": {":d": {"S": "draft"}},
  "ReturnValues": "ALL_OLD"}');
SELECT singletable.dynamodb('ListTables', '{}');
SELECT singletable.dynamodb('DeleteTable', '{"TableName": "posting"}') #>> '{TableDescription,TableStatus}' AS status;
SELECT singletable.dynamodb('ListTables', '{}');
RESET singletable.dynamodb_schema;
DROP SCHEMA ddb;
