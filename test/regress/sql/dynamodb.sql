-- dynamodb: singletable.dynamodb(operation, request), DynamoDB's JSON protocol:
-- the AttributeValue converter both ways, every operation's happy paths and its
-- validation errors (exception and message in DETAIL)
SET client_min_messages = warning;
-- responses without the figures that vary from run to run
CREATE FUNCTION ddb(op text, req jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT CASE WHEN r ? 'Table' OR r ? 'TableDescription' THEN
    (SELECT jsonb_object_agg(k, v #- '{CreationDateTime}' #- '{TableSizeBytes}' #- '{ItemCount}' #- '{TableId}'
       #- '{BillingModeSummary,LastUpdateToPayPerRequestDateTime}')
       FROM jsonb_each(r) e(k, v))
  ELSE r END
  FROM singletable.dynamodb(op, req) r $$;

-- CreateTable: a table with a GSI, as DynamoDB describes it (CREATING at first)
SELECT ddb('CreateTable', '{"TableName": "Things",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
                           {"AttributeName": "g", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "BillingMode": "PAY_PER_REQUEST"}');
-- an ordinary singletable table
SELECT table_name, partition_key, partition_key_type, sort_key, sort_key_type FROM singletable.tables WHERE table_name = '"Things"'::regclass;

-- the converter: every type in, the stored form, every type out
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"},
  "s": {"S": ""}, "n": {"N": "+0012.50e1"}, "b": {"B": "AQID"}, "t": {"BOOL": true}, "z": {"NULL": true},
  "ss": {"SS": ["b", "a", ""]}, "ns": {"NS": ["10", "-1.0", "2e0"]}, "bs": {"BS": ["Ag==", "AQ=="]},
  "l": {"L": [{"S": "x"}, {"N": "1"}, {"L": []}, {"M": {}}]},
  "m": {"M": {"$B": {"S": "not a tag"}, "inner": {"M": {"k": {"SS": ["v"]}}}}},
  "tagged": {"M": {"$SS": {"N": "1"}}}}}');
SELECT item FROM "Things" WHERE pk = 'a';
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": "a"}, "sk": {"N": "1.0"}}}');
-- JSON null members are absent: {"S": null, "N": "5"} is a number
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "2"}, "v": {"S": null, "N": "5"}}}');
SELECT item -> 'v' FROM "Things" WHERE pk = 'a' AND sk = 2;

-- malformed AttributeValues: ValidationException with DynamoDB's text
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"Q": "1"}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"S": "1", "N": "1"}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"NULL": false}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"SS": []}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"NS": []}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"BS": []}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"SS": ["a", "a"]}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"NS": ["1", "1.0"]}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"BS": ["AQ==", "AQ=="]}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"L": [{"M": {"y": {}}}]}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"N": "1e"}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"N": ""}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"N": "123456789012345678901234567890123456789"}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"N": "1e126"}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"N": "1e-131"}}}');
-- 32 levels of maps are too deep, 31 are not
SELECT ddb('PutItem', jsonb_build_object('TableName', 'Things', 'Item', jsonb_build_object('pk', '{"S": "deep"}'::jsonb, 'sk', '{"N": "1"}'::jsonb,
  'x', (repeat('{"M": {"a": ', 32) || '{"S": "v"}' || repeat('}}', 32))::jsonb)));
SELECT ddb('PutItem', jsonb_build_object('TableName', 'Things', 'Item', jsonb_build_object('pk', '{"S": "deep"}'::jsonb, 'sk', '{"N": "1"}'::jsonb,
  'x', (repeat('{"M": {"a": ', 31) || '{"S": "v"}' || repeat('}}', 31))::jsonb)));
-- in ExpressionAttributeValues, the message names the placeholder
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}},
  "ConditionExpression": "x = :v", "ExpressionAttributeValues": {":v": {"SS": []}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}},
  "ConditionExpression": "x = :v", "ExpressionAttributeValues": {":v": {"N": "x1"}}}');
-- wrong JSON types are SerializationException
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": 1}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": true}, "sk": {"N": "1"}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": "a", "sk": {"N": "1"}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"L": {}}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"M": []}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"BOOL": "yes"}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"B": "not base64!"}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": []}');
SELECT ddb('PutItem', '{"TableName": 5, "Item": {}}');
SELECT ddb('Query', '{"TableName": "Things", "KeyConditionExpression": "pk = :p", "Limit": "5"}');
-- key attributes of the wrong type
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"S": "1"}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}}}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": ""}, "sk": {"N": "1"}}}');
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": "a"}, "sk": {"S": "1"}}}');
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": "a"}}}');
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"S": "1"}}}');
-- an index key of the wrong type (the operations layer's check)
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "3"}, "g": {"N": "1"}}}');

-- the request itself
SELECT singletable.dynamodb('NoSuchOperation', '{}');
SELECT singletable.dynamodb(NULL, '{}');
SELECT singletable.dynamodb('GetItem', NULL);
SELECT singletable.dynamodb('GetItem', '[]');
-- batches and transactions check their requests themselves (dynamodb_multi.sql)
SELECT singletable.dynamodb('BatchGetItem', '{}');
SELECT singletable.dynamodb('TransactWriteItems', '{}');
-- constraint violations, collected as DynamoDB lists them
SELECT ddb('GetItem', '{}');
SELECT ddb('GetItem', '{"TableName": "a;", "ReturnConsumedCapacity": "ALL"}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {}, "ReturnValues": "SOME", "ReturnItemCollectionMetrics": "x", "ReturnValuesOnConditionCheckFailure": "NEW"}');
SELECT ddb('Query', '{"TableName": "Things", "KeyConditionExpression": "pk = :p", "Limit": 0, "Select": "SOME"}');
SELECT ddb('Scan', '{"TableName": "Things", "Segment": -1, "TotalSegments": 1000001}');
-- a missing table: ResourceNotFoundException
SELECT ddb('GetItem', '{"TableName": "Nothing", "Key": {"pk": {"S": "a"}}}');
-- legacy parameters become expressions (test/regress/sql/dynamodb_legacy.sql); mixed with them, an error
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributesToGet": ["s"], "ProjectionExpression": "s"}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "Expected": {"s": {"Exists": false}}}');
SELECT ddb('UpdateItem', '{"TableName": "Things", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "AttributeUpdates": {}}');
SELECT ddb('Query', '{"TableName": "Things", "KeyConditions": {}}');
SELECT ddb('Scan', '{"TableName": "Things", "ScanFilter": {}, "Select": "COUNT"}');

-- PutItem: ReturnValues, ReturnConsumedCapacity, a condition
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "2"}, "v": {"S": "new"}}, "ReturnValues": "ALL_OLD", "ReturnConsumedCapacity": "TOTAL"}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "2"}}, "ReturnValues": "ALL_NEW"}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "2"}, "v": {"S": "newer"}},
  "ConditionExpression": "v = :old", "ExpressionAttributeValues": {":old": {"S": "new"}}, "ReturnConsumedCapacity": "INDEXES"}');
-- a failed condition: the item only with ReturnValuesOnConditionCheckFailure ALL_OLD
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "2"}}, "ConditionExpression": "attribute_not_exists(pk)"}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "2"}}, "ConditionExpression": "attribute_not_exists(pk)",
  "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}');
-- expression errors are the operations layer's
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "2"}}, "ConditionExpression": "v = :x"}');
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "a"}, "sk": {"N": "2"}}, "ExpressionAttributeNames": {"#a": "a"}}');

-- GetItem: projection, a missing item, consistent read
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": "a"}, "sk": {"N": "2"}}, "ProjectionExpression": "#v, sk", "ExpressionAttributeNames": {"#v": "v"}}');
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": "a"}, "sk": {"N": "99"}}}');
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": "a"}, "sk": {"N": "2"}}, "ConsistentRead": false, "ReturnConsumedCapacity": "TOTAL"}');
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": "a"}, "sk": {"N": "2"}}, "ConsistentRead": "yes"}');

-- UpdateItem: a counter, ReturnValues of every kind, a failed condition with the item
SELECT ddb('UpdateItem', '{"TableName": "Things", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "UpdateExpression": "ADD hits :one",
  "ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "ALL_NEW"}');
SELECT ddb('UpdateItem', '{"TableName": "Things", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "UpdateExpression": "ADD hits :one SET tags = :t",
  "ExpressionAttributeValues": {":one": {"N": "1"}, ":t": {"SS": ["x"]}}, "ReturnValues": "UPDATED_OLD"}');
SELECT ddb('UpdateItem', '{"TableName": "Things", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "UpdateExpression": "ADD tags :t",
  "ExpressionAttributeValues": {":t": {"SS": ["y"]}}, "ReturnValues": "UPDATED_NEW"}');
SELECT ddb('UpdateItem', '{"TableName": "Things", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "UpdateExpression": "REMOVE tags", "ReturnValues": "NONE"}');
SELECT ddb('UpdateItem', '{"TableName": "Things", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "UpdateExpression": "SET hits = :z",
  "ConditionExpression": "hits > :big", "ExpressionAttributeValues": {":z": {"N": "0"}, ":big": {"N": "100"}},
  "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}');
SELECT ddb('UpdateItem', '{"TableName": "Things", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "UpdateExpression": "SET pk = :z",
  "ExpressionAttributeValues": {":z": {"S": "d"}}}');
SELECT ddb('UpdateItem', '{"TableName": "Things", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "UpdateExpression": "SET a = :a", "ReturnValues": "ALL"}');
-- UpdateItem with only a Key: an absent item is created with its keys alone, an existing one
-- is kept as it is (and still charged a write); a condition applies; names without any
-- expression are refused
SELECT ddb('UpdateItem', '{"TableName": "Things", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "ReturnValues": "ALL_NEW"}');
SELECT ddb('UpdateItem', '{"TableName": "Things", "Key": {"pk": {"S": "keyonly"}, "sk": {"N": "7"}}, "ReturnValues": "ALL_NEW",
  "ReturnConsumedCapacity": "TOTAL"}');
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": "keyonly"}, "sk": {"N": "7"}}}');
SELECT ddb('UpdateItem', '{"TableName": "Things", "Key": {"pk": {"S": "keyonly"}, "sk": {"N": "7"}}, "ReturnValues": "UPDATED_NEW"}');
SELECT ddb('UpdateItem', '{"TableName": "Things", "Key": {"pk": {"S": "keyonly2"}, "sk": {"N": "7"}},
  "ConditionExpression": "attribute_exists(pk)"}');
SELECT ddb('UpdateItem', '{"TableName": "Things", "Key": {"pk": {"S": "keyonly2"}, "sk": {"N": "7"}},
  "ExpressionAttributeNames": {"#a": "a"}}');
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": "keyonly2"}, "sk": {"N": "7"}}}');
SELECT ddb('DeleteItem', '{"TableName": "Things", "Key": {"pk": {"S": "keyonly"}, "sk": {"N": "7"}}}');

-- DeleteItem: ReturnValues ALL_OLD, a condition, ReturnValues only NONE or ALL_OLD
SELECT ddb('DeleteItem', '{"TableName": "Things", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"}');
SELECT ddb('DeleteItem', '{"TableName": "Things", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "ConditionExpression": "attribute_not_exists(hits)"}');
SELECT ddb('DeleteItem', '{"TableName": "Things", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "ReturnValues": "ALL_OLD"}');
SELECT ddb('DeleteItem', '{"TableName": "Things", "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "ReturnValues": "ALL_OLD"}');
SELECT ddb('DeleteItem', '{"TableName": "Things"}');

-- Query: order, Limit and ExclusiveStartKey, Select, filter, projection, an index
SELECT count(*) FROM (SELECT ddb('PutItem', jsonb_build_object('TableName', 'Things', 'Item', jsonb_build_object(
  'pk', '{"S": "q"}'::jsonb, 'sk', jsonb_build_object('N', i::text), 'odd', jsonb_build_object('BOOL', i % 2 = 1),
  'g', jsonb_build_object('S', 'G' || (i % 2)))))
  FROM generate_series(1, 5) i) s;
SELECT ddb('Query', '{"TableName": "Things", "KeyConditionExpression": "pk = :p AND sk BETWEEN :a AND :b",
  "ExpressionAttributeValues": {":p": {"S": "q"}, ":a": {"N": "2"}, ":b": {"N": "4"}}, "ScanIndexForward": false,
  "ProjectionExpression": "sk", "Select": "SPECIFIC_ATTRIBUTES"}');
SELECT ddb('Query', '{"TableName": "Things", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "q"}},
  "Limit": 2, "ProjectionExpression": "sk"}');
SELECT ddb('Query', '{"TableName": "Things", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "q"}},
  "Limit": 2, "ProjectionExpression": "sk", "ExclusiveStartKey": {"pk": {"S": "q"}, "sk": {"N": "2"}}}');
SELECT ddb('Query', '{"TableName": "Things", "KeyConditionExpression": "pk = :p", "FilterExpression": "odd = :t",
  "ExpressionAttributeValues": {":p": {"S": "q"}, ":t": {"BOOL": true}}, "Select": "COUNT", "ReturnConsumedCapacity": "TOTAL"}');
SELECT ddb('Query', '{"TableName": "Things", "IndexName": "byG", "KeyConditionExpression": "g = :g",
  "ExpressionAttributeValues": {":g": {"S": "G1"}}, "Limit": 2}');
SELECT ddb('Query', '{"TableName": "Things", "IndexName": "byG", "KeyConditionExpression": "g = :g",
  "ExpressionAttributeValues": {":g": {"S": "G1"}}, "Limit": 2,
  "ExclusiveStartKey": {"g": {"S": "G1"}, "pk": {"S": "q"}, "sk": {"N": "3"}}}');
-- Query's errors
SELECT ddb('Query', '{"TableName": "Things"}');
SELECT ddb('Query', '{"TableName": "Things", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "q"}}, "Select": "SPECIFIC_ATTRIBUTES"}');
SELECT ddb('Query', '{"TableName": "Things", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "q"}}, "Select": "ALL_ATTRIBUTES", "ProjectionExpression": "sk"}');
SELECT ddb('Query', '{"TableName": "Things", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "q"}}, "Select": "ALL_PROJECTED_ATTRIBUTES"}');
SELECT ddb('Query', '{"TableName": "Things", "IndexName": "byG", "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "G1"}}, "Select": "ALL_ATTRIBUTES"}');
SELECT ddb('Query', '{"TableName": "Things", "IndexName": "byG", "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "G1"}}, "ConsistentRead": true}');
SELECT ddb('Query', '{"TableName": "Things", "IndexName": "nope", "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "G1"}}}');
SELECT ddb('Query', '{"TableName": "Things", "KeyConditionExpression": "pk = :p OR sk = :s", "ExpressionAttributeValues": {":p": {"S": "q"}, ":s": {"N": "1"}}}');
SELECT ddb('Query', '{"TableName": "Things", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"N": "1"}}}');
SELECT ddb('Query', '{"TableName": "Things", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "q"}}, "ExclusiveStartKey": {"pk": {"S": "other"}, "sk": {"N": "1"}}}');
SELECT ddb('Query', '{"TableName": "Things", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "q"}}, "ExclusiveStartKey": {"pk": {"S": "q"}}}');

-- Scan: parallel segments, Limit, Select COUNT, errors
SELECT ddb('Scan', '{"TableName": "Things", "FilterExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "q"}}, "Select": "COUNT"}');
SELECT (ddb('Scan', '{"TableName": "Things", "Segment": 0, "TotalSegments": 2, "Select": "COUNT"}') -> 'ScannedCount')::int
     + (ddb('Scan', '{"TableName": "Things", "Segment": 1, "TotalSegments": 2, "Select": "COUNT"}') -> 'ScannedCount')::int AS both_segments,
       ddb('Scan', '{"TableName": "Things", "Select": "COUNT"}') -> 'ScannedCount' AS whole;
SELECT ddb('Scan', '{"TableName": "Things", "Limit": 1, "ProjectionExpression": "pk, sk"}') - 'Items' AS page;
SELECT ddb('Scan', '{"TableName": "Things", "Segment": 1}');
SELECT ddb('Scan', '{"TableName": "Things", "TotalSegments": 2}');
SELECT ddb('Scan', '{"TableName": "Things", "Segment": 2, "TotalSegments": 2}');
SELECT ddb('Scan', '{"TableName": "Things", "Select": "ALL_PROJECTED_ATTRIBUTES"}');

-- B keys: plain base64 in stored items, {"B": ...} on the wire
SELECT ddb('CreateTable', '{"TableName": "Blobs", "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "B"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}], "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 2}}') #> '{TableDescription,ProvisionedThroughput}';
SELECT ddb('PutItem', '{"TableName": "Blobs", "Item": {"id": {"B": "AAE="}, "other": {"B": "AAE="}}}');
SELECT item FROM "Blobs";
SELECT ddb('GetItem', '{"TableName": "Blobs", "Key": {"id": {"B": "AAE="}}}');
SELECT ddb('Scan', '{"TableName": "Blobs", "Limit": 1}');
SELECT ddb('GetItem', '{"TableName": "Blobs", "Key": {"id": {"S": "AAE="}}}');
SELECT ddb('PutItem', '{"TableName": "Blobs", "Item": {"id": {"S": "AAE="}}}');
SELECT ddb('Scan', '{"TableName": "Blobs", "ExclusiveStartKey": {"id": {"S": "AAE="}}}');

-- ItemCollectionMetrics: on a table with a local secondary index
SELECT ddb('CreateTable', '{"TableName": "Coll", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}, {"AttributeName": "l", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
  "LocalSecondaryIndexes": [{"IndexName": "byL", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "l", "KeyType": "RANGE"}],
                             "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["x"]}}]}') #> '{TableDescription,LocalSecondaryIndexes}';
SELECT ddb('PutItem', '{"TableName": "Coll", "Item": {"pk": {"S": "p"}, "sk": {"S": "1"}, "l": {"N": "7"}}, "ReturnItemCollectionMetrics": "SIZE"}');
SELECT ddb('PutItem', '{"TableName": "Coll", "Item": {"pk": {"S": "p"}, "sk": {"S": "2"}}, "ReturnItemCollectionMetrics": "NONE"}');
SELECT ddb('Query', '{"TableName": "Coll", "IndexName": "byL", "KeyConditionExpression": "pk = :p AND l > :z",
  "ExpressionAttributeValues": {":p": {"S": "p"}, ":z": {"N": "0"}}, "ConsistentRead": true, "ReturnConsumedCapacity": "INDEXES"}');

-- the wire form is written as binary jsonb directly (src/format/jsonbw.c): an item of 40 attributes
-- and a page of 40 items cross jsonb's stride of 32 entries (an offset in place of a length);
-- what goes in comes back out (non-BMP text, keys and numbers' exact text included), and
-- the documents read by path and by their text alike
SELECT singletable.create_table('wide', sort_key_type => 'N') IS NOT NULL AS created;
CREATE TEMP TABLE wide_in AS
SELECT jsonb_build_object('pk', '{"S": "w"}'::jsonb, 'sk', '{"N": "0"}'::jsonb) || jsonb_object_agg('a' || i, CASE i % 8
    WHEN 0 THEN jsonb_build_object('S', 'x ' || i || ' ' || chr(128512) || chr(66376))
    WHEN 1 THEN jsonb_build_object('N', (i * 1.5)::text)
    WHEN 2 THEN jsonb_build_object('BOOL', i % 3 = 0)
    WHEN 3 THEN '{"NULL": true}'::jsonb
    WHEN 4 THEN jsonb_build_object('B', encode(convert_to(i::text, 'UTF8'), 'base64'))
    WHEN 5 THEN jsonb_build_object('L', jsonb_build_array('{"N": "-0.000000000000000000000000000000000000000000000001"}'::jsonb,
                  jsonb_build_object('M', jsonb_build_object(chr(128512), '{"SS": ["a", "b"]}'::jsonb))))
    WHEN 6 THEN '{"NS": ["-2.5", "10", "99999999999999999999999999999999999999"]}'::jsonb
    ELSE '{"BS": ["AQ==", "Ag=="]}'::jsonb END) AS item
  FROM generate_series(0, 39) i;
SELECT ddb('PutItem', jsonb_build_object('TableName', 'wide', 'Item', item)) FROM wide_in;
SELECT r -> 'Item' = w.item AS same, r::text::jsonb = r AS reparsed, r #> '{Item,a32}' AS a32, r #> '{Item,a37}' AS a37,
       r #> '{Item,a39}' AS a39, r #> '{Item,a33}' AS a33, r #> '{Item,a38}' AS a38
  FROM wide_in w, ddb('GetItem', '{"TableName": "wide", "Key": {"pk": {"S": "w"}, "sk": {"N": "0"}}}') r;
SELECT count(ddb('PutItem', jsonb_build_object('TableName', 'wide', 'Item', item || jsonb_build_object('sk', jsonb_build_object('N', s::text)))))
  FROM wide_in, generate_series(1, 39) s;
SELECT jsonb_array_length(r -> 'Items') AS n, r::text::jsonb = r AS reparsed,
       (SELECT bool_and(e - 'sk' = w.item - 'sk') FROM jsonb_array_elements(r -> 'Items') e) AS same,
       r #> '{Items,35,sk}' AS sk35, r #> '{Items,35,a32}' AS a32_of_35, r - 'Items' AS rest
  FROM wide_in w, ddb('Query', '{"TableName": "wide", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "w"}},
                                 "ScanIndexForward": false}') r;
SELECT jsonb_array_length(r -> 'Items') AS n, r - 'Items' AS rest
  FROM ddb('Query', '{"TableName": "wide", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "w"}},
                      "Limit": 34, "ReturnConsumedCapacity": "TOTAL"}') r;
SELECT singletable.drop_table('wide');

-- LastEvaluatedKey outlives the read's SPI memory: its names and values intact (found by the
-- dynalite differential test, cases 846 and 978: names were garbled by the response's own text)
SELECT ddb('CreateTable', '{"TableName": "Nums", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "acct", "AttributeType": "N"}, {"AttributeName": "seq", "AttributeType": "N"},
                           {"AttributeName": "g", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "acct", "KeyType": "HASH"}, {"AttributeName": "seq", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "seq", "KeyType": "RANGE"}],
                              "Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created;
SELECT ddb('PutItem', format('{"TableName": "Nums", "Item": {"acct": {"N": "1"}, "seq": {"N": "%s"}, "g": {"S": "x"}, "s": {"N": "5"}}}', i)::jsonb)
  FROM generate_series(1, 3) i;
SELECT ddb('Query', '{"TableName": "Nums", "KeyConditionExpression": "acct = :a", "FilterExpression": "s < :v", "Limit": 1,
  "Select": "COUNT", "ExpressionAttributeValues": {":a": {"N": "1"}, ":v": {"N": "1"}}}');
SELECT ddb('Query', '{"TableName": "Nums", "KeyConditionExpression": "acct = :a", "Limit": 2, "ProjectionExpression": "s",
  "ExpressionAttributeValues": {":a": {"N": "1"}}}');
SELECT ddb('Query', '{"TableName": "Nums", "IndexName": "byG", "KeyConditionExpression": "g = :g AND seq > :z",
  "FilterExpression": "attribute_not_exists(c) OR c = :f", "Limit": 2,
  "ExpressionAttributeValues": {":g": {"S": "x"}, ":z": {"N": "0"}, ":f": {"S": "y"}}}') - 'Items';
SELECT ddb('Scan', '{"TableName": "Nums", "IndexName": "byG", "Limit": 1, "Select": "COUNT"}');

-- ConsistentRead not given is DynamoDB's default, eventually consistent: half the units of true
-- (dynalite differential test, cases 27, 301 and 433)
SELECT r, ddb('GetItem', ('{"TableName": "Nums", "Key": {"acct": {"N": "1"}, "seq": {"N": "1"}}, "ReturnConsumedCapacity": "TOTAL"' || r || '}')::jsonb) -> 'ConsumedCapacity' AS get,
       ddb('Query', ('{"TableName": "Nums", "KeyConditionExpression": "acct = :a", "ExpressionAttributeValues": {":a": {"N": "1"}}, "ReturnConsumedCapacity": "TOTAL"' || r || '}')::jsonb) -> 'ConsumedCapacity' AS query,
       ddb('Scan', ('{"TableName": "Nums", "ReturnConsumedCapacity": "TOTAL"' || r || '}')::jsonb) -> 'ConsumedCapacity' AS scan
  FROM unnest(ARRAY['', ', "ConsistentRead": false', ', "ConsistentRead": true']) r;

-- Select ALL_ATTRIBUTES on an LSI fetches each whole item from the table; its projection gives
-- only the projected ones (sem §4.3; dynalite differential test, cases 332 and 537)
SELECT ddb('PutItem', '{"TableName": "Coll", "Item": {"pk": {"S": "p"}, "sk": {"S": "3"}, "l": {"N": "8"}, "x": {"S": "in"}, "y": {"S": "out"}}}');
SELECT s, ddb('Query', ('{"TableName": "Coll", "IndexName": "byL", "KeyConditionExpression": "pk = :p AND l > :z",
  "ExpressionAttributeValues": {":p": {"S": "p"}, ":z": {"N": "7"}}' || s || '}')::jsonb) -> 'Items' AS items
  FROM unnest(ARRAY['', ', "Select": "ALL_PROJECTED_ATTRIBUTES"', ', "Select": "ALL_ATTRIBUTES"']) s;

-- GetItem's Key: the usual form ({"S": ..} / {"N": ..} of exactly the key attributes) is read
-- directly, anything else by the generic converter; both find the same item or give the same error
SELECT ddb('PutItem', '{"TableName": "Things", "Item": {"pk": {"S": "kd"}, "sk": {"N": "70"}, "v": {"S": "found"}}}');
SELECT k, ddb('GetItem', ('{"TableName": "Things", "Key": ' || k || '}')::jsonb) #>> '{Item,v,S}' AS v
  FROM unnest(ARRAY['{"pk": {"S": "kd"}, "sk": {"N": "70"}}', '{"pk": {"S": "kd"}, "sk": {"N": "7e1"}}',
                    '{"pk": {"S": "kd"}, "sk": {"N": "+070.00"}}', '{"pk": {"S": "kd"}, "sk": {"N": "70", "S": null}}',
                    '{"pk": {"S": "kd", "B": null}, "sk": {"N": "70"}}', '{"pk": {"S": "kd"}, "sk": {"N": "71"}}']) k;
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"N": "1"}, "sk": {"N": "70"}}}');
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": "kd"}, "sk": {"S": "70"}}}');
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": "kd"}, "sk": {"N": "7x"}}}');
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": "kd"}, "sk": {"N": "70", "S": "70"}}}');
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": "kd"}, "s2": {"N": "70"}}}');
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": "kd"}, "sk": "70"}}');
SELECT ddb('GetItem', '{"TableName": "Things", "Key": {"pk": {"S": ""}, "sk": {"N": "70"}}}');

-- an N on the wire is numeric_out's text of the stored number (src/format/numtext.c reads the stored
-- numeric itself): integers across the base-10000 digits, fractions, trailing zeros of items
-- written in SQL, negative numbers and DynamoDB's extremes, in items, lists, maps and NS sets
SELECT singletable.create_table('numtext') IS NOT NULL AS created;
CREATE TEMP TABLE numtext_in AS
SELECT row_number() OVER () AS i, n FROM (
  SELECT unnest(ARRAY[0, 1, 9, 10, 99, 999, 1000, 9999, 10000, 10001, 99999999, 100000000, 12345678, -1, -10000,
                      9223372036854775808, 99999999999999999999999999999999999999, -99999999999999999999999999999999999999,
                      0.5, 0.05, 0.0001, 0.00001, 1.5, 1.50, 1.500, 1.0, 0.0, -0.0, -0.5, 123.456, 0.000100, 1000.0001,
                      1e-130, -1e-130, 1.5e-129, 9.9999999999999999999999999999999999999e125, -9.9999999999999999999999999999999999999e125,
                      1e125, 123456789.123456789e100, -1234567890123456789012345678901234567.8]::numeric[])
  UNION ALL
  -- 2,000 more, every display scale from 0 to 19 and magnitudes from 10^-19 to 10^5
  SELECT round(((g * 7919) % 100003)::numeric / 10::numeric ^ (g % 20), g % 20) * CASE WHEN g % 3 = 0 THEN -1 ELSE 1 END
    FROM generate_series(1, 2000) g) v(n);
INSERT INTO numtext (pk, sk, item)
SELECT 'n', lpad(i::text, 5, '0'),
       jsonb_build_object('pk', 'n', 'sk', lpad(i::text, 5, '0'), 'v', n, 'l', jsonb_build_array(n), 'm', jsonb_build_object('x', n))
  FROM numtext_in;
SELECT count(*) AS numbers,
       count(*) FILTER (WHERE e #>> '{v,N}' IS DISTINCT FROM n::text OR e #>> '{l,L,0,N}' IS DISTINCT FROM n::text
                           OR e #>> '{m,M,x,N}' IS DISTINCT FROM n::text) AS different
  FROM numtext_in, jsonb_array_elements(singletable.dynamodb('Query', '{"TableName": "numtext",
         "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "n"}}}') -> 'Items') e
 WHERE e #>> '{sk,S}' = lpad(i::text, 5, '0');
SELECT n::text AS sql, singletable.dynamodb('GetItem', jsonb_build_object('TableName', 'numtext',
         'Key', jsonb_build_object('pk', '{"S": "n"}'::jsonb, 'sk', jsonb_build_object('S', lpad(i::text, 5, '0'))))) #>> '{Item,v,N}' AS wire
  FROM numtext_in WHERE i IN (1, 12, 18, 20, 22, 26, 28, 33, 36, 39, 41) ORDER BY i;
SELECT ddb('PutItem', '{"TableName": "numtext", "Item": {"pk": {"S": "n"}, "sk": {"S": "ns"},
  "s": {"NS": ["-0.000100", "1e-130", "10000", "1.50", "-9.9999999999999999999999999999999999999E+125", "0"]}}}');
SELECT ddb('GetItem', '{"TableName": "numtext", "Key": {"pk": {"S": "n"}, "sk": {"S": "ns"}}}');
SELECT singletable.drop_table('numtext');

-- clean up
SELECT ddb('DeleteTable', jsonb_build_object('TableName', n)) #>> '{TableDescription,TableStatus}'
  FROM unnest(ARRAY['Things', 'Blobs', 'Coll', 'Nums']) n;
DROP FUNCTION ddb(text, jsonb);
