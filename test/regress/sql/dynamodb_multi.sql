-- singletable.dynamodb: BatchGetItem, BatchWriteItem, TransactGetItems, TransactWriteItems
-- with DynamoDB's wire AttributeValues, over batch.c and transact.c (whose own tests,
-- batch.sql and transact.sql, cover their shapes, limits and errors)

-- tests
SET client_min_messages = warning;
SELECT singletable.dynamodb('CreateTable', '{"TableName": "multi", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
SELECT singletable.dynamodb('CreateTable', '{"TableName": "multi_b", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "B"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}') IS NOT NULL AS created;
RESET client_min_messages;

-- BatchWriteItem over two tables (a B key), with TOTAL capacity per table
SELECT singletable.dynamodb('BatchWriteItem', '{"RequestItems": {
  "multi": [{"PutRequest": {"Item": {"pk": {"S": "USER#1"}, "sk": {"S": "PROFILE"}, "n": {"N": "1"}}}},
            {"PutRequest": {"Item": {"pk": {"S": "USER#1"}, "sk": {"S": "POST#1"}, "tags": {"SS": ["b", "a"]}}}},
            {"PutRequest": {"Item": {"pk": {"S": "USER#1"}, "sk": {"S": "POST#9"}}}}],
  "multi_b": [{"PutRequest": {"Item": {"id": {"B": "AAEC"}, "pic": {"B": "/w=="}}}}]},
  "ReturnConsumedCapacity": "TOTAL"}');
SELECT singletable.dynamodb('BatchWriteItem', '{"RequestItems": {"multi": [{"DeleteRequest": {"Key": {"pk": {"S": "USER#1"}, "sk": {"S": "POST#9"}}}}]}}');
-- the items in the stored form, readable by SQL
SELECT pk, sk, item FROM multi ORDER BY pk, sk;
SELECT item FROM multi_b;
-- BatchGetItem: wire keys in, wire items out per table; a missing key is absent
SELECT singletable.dynamodb('BatchGetItem', '{"RequestItems": {
  "multi": {"Keys": [{"pk": {"S": "USER#1"}, "sk": {"S": "PROFILE"}}, {"pk": {"S": "USER#1"}, "sk": {"S": "POST#1"}},
                     {"pk": {"S": "USER#9"}, "sk": {"S": "X"}}], "ProjectionExpression": "sk, tags, n"},
  "multi_b": {"Keys": [{"id": {"B": "AAEC"}}]}}, "ReturnConsumedCapacity": "INDEXES"}');

-- TransactWriteItems: Update (ADD counter), Put, ConditionCheck, all or nothing, with a token
SELECT singletable.dynamodb('TransactWriteItems', '{"TransactItems": [
  {"Update": {"TableName": "multi", "Key": {"pk": {"S": "USER#1"}, "sk": {"S": "PROFILE"}},
              "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}},
  {"Put": {"TableName": "multi", "Item": {"pk": {"S": "USER#1"}, "sk": {"S": "POST#2"}}, "ConditionExpression": "attribute_not_exists(pk)"}},
  {"ConditionCheck": {"TableName": "multi_b", "Key": {"id": {"B": "AAEC"}}, "ConditionExpression": "attribute_exists(pic)"}}],
  "ClientRequestToken": "multi-1", "ReturnConsumedCapacity": "INDEXES"}');
-- the same token and request again: the first response, nothing written again (n stays 2)
SELECT singletable.dynamodb('TransactWriteItems', '{"TransactItems": [
  {"Update": {"TableName": "multi", "Key": {"pk": {"S": "USER#1"}, "sk": {"S": "PROFILE"}},
              "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}},
  {"Put": {"TableName": "multi", "Item": {"pk": {"S": "USER#1"}, "sk": {"S": "POST#2"}}, "ConditionExpression": "attribute_not_exists(pk)"}},
  {"ConditionCheck": {"TableName": "multi_b", "Key": {"id": {"B": "AAEC"}}, "ConditionExpression": "attribute_exists(pic)"}}],
  "ClientRequestToken": "multi-1"}');
SELECT item -> 'n' AS n FROM multi WHERE sk = 'PROFILE';
-- TransactGetItems: in order, a missing item as {}
SELECT singletable.dynamodb('TransactGetItems', '{"TransactItems": [
  {"Get": {"TableName": "multi", "Key": {"pk": {"S": "USER#1"}, "sk": {"S": "PROFILE"}}}},
  {"Get": {"TableName": "multi", "Key": {"pk": {"S": "USER#1"}, "sk": {"S": "NONE"}}}},
  {"Get": {"TableName": "multi_b", "Key": {"id": {"B": "AAEC"}}, "ProjectionExpression": "pic"}}]}');

-- errors
-- a failed condition cancels the whole transaction: TransactionCanceledException (23S02), its
-- reasons in action order, nothing written (n stays 2)
\set VERBOSITY terse
SELECT singletable.dynamodb('TransactWriteItems', '{"TransactItems": [
  {"Update": {"TableName": "multi", "Key": {"pk": {"S": "USER#1"}, "sk": {"S": "PROFILE"}},
              "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}},
  {"Put": {"TableName": "multi", "Item": {"pk": {"S": "USER#1"}, "sk": {"S": "POST#2"}}, "ConditionExpression": "attribute_not_exists(pk)"}}]}');
\set VERBOSITY default
DO $$
DECLARE det text;
BEGIN
  PERFORM singletable.dynamodb('TransactWriteItems', '{"TransactItems": [
    {"Update": {"TableName": "multi", "Key": {"pk": {"S": "USER#1"}, "sk": {"S": "PROFILE"}},
                "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}},
    {"Put": {"TableName": "multi", "Item": {"pk": {"S": "USER#1"}, "sk": {"S": "POST#2"}}, "ConditionExpression": "attribute_not_exists(pk)"}}]}');
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS det = PG_EXCEPTION_DETAIL;
  RAISE NOTICE '% %', SQLSTATE, det::jsonb -> 'CancellationReasons';
END $$;
SELECT item -> 'n' AS n FROM multi WHERE sk = 'PROFILE';
-- the reasons of failed conditions that asked for ALL_OLD carry their items in wire form (a B
-- key as B), in the client's DETAIL only
DO $$
DECLARE det text;
BEGIN
  PERFORM singletable.dynamodb('TransactWriteItems', '{"TransactItems": [
    {"ConditionCheck": {"TableName": "multi_b", "Key": {"id": {"B": "AAEC"}}, "ConditionExpression": "attribute_not_exists(pic)",
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
    {"Put": {"TableName": "multi", "Item": {"pk": {"S": "USER#1"}, "sk": {"S": "POST#3"}}}},
    {"Put": {"TableName": "multi", "Item": {"pk": {"S": "USER#1"}, "sk": {"S": "POST#1"}}, "ConditionExpression": "attribute_not_exists(pk)",
             "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
    {"Delete": {"TableName": "multi", "Key": {"pk": {"S": "USER#1"}, "sk": {"S": "POST#2"}}, "ConditionExpression": "attribute_not_exists(pk)"}}]}');
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS det = PG_EXCEPTION_DETAIL;
  RAISE NOTICE '% % %', SQLSTATE, det::jsonb ->> 'message', det::jsonb -> 'CancellationReasons';
END $$;
SELECT count(*) AS post3 FROM multi WHERE sk = 'POST#3';
-- the same token with another request: IdempotentParameterMismatchException (22S01)
SELECT singletable.dynamodb('TransactWriteItems', '{"TransactItems": [
  {"Delete": {"TableName": "multi", "Key": {"pk": {"S": "USER#1"}, "sk": {"S": "POST#2"}}}}], "ClientRequestToken": "multi-1"}');
-- an unknown table, a wire value of the wrong type, missing members, a bad ReturnConsumedCapacity
SELECT singletable.dynamodb('TransactWriteItems', '{"TransactItems": [{"Put": {"TableName": "nope", "Item": {"pk": {"S": "x"}}}}]}');
SELECT singletable.dynamodb('BatchWriteItem', '{"RequestItems": {"multi": [{"PutRequest": {"Item": {"pk": {"S": "x"}, "sk": {"N": 5}}}}]}}');
SELECT singletable.dynamodb('BatchGetItem', '{}');
SELECT singletable.dynamodb('TransactGetItems', '{}');
SELECT singletable.dynamodb('BatchGetItem', '{"RequestItems": {"multi": {"Keys": [{"pk": {"S": "USER#1"}, "sk": {"S": "PROFILE"}}]}}, "ReturnConsumedCapacity": "ALL"}');
-- over the count limits: refused by the operation before any item is converted
SELECT singletable.dynamodb('BatchWriteItem', jsonb_build_object('RequestItems', jsonb_build_object('multi',
  (SELECT jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item',
     jsonb_build_object('pk', jsonb_build_object('S', 'L'), 'sk', jsonb_build_object('S', i::text))))) FROM generate_series(1, 26) i))));
SELECT singletable.dynamodb('BatchGetItem', jsonb_build_object('RequestItems', jsonb_build_object('multi', jsonb_build_object('Keys',
  (SELECT jsonb_agg(jsonb_build_object('pk', jsonb_build_object('S', 'L'), 'sk', jsonb_build_object('S', i::text))) FROM generate_series(1, 101) i)))));
SELECT singletable.dynamodb('TransactWriteItems', jsonb_build_object('TransactItems',
  (SELECT jsonb_agg(jsonb_build_object('ConditionCheck', jsonb_build_object('TableName', 'multi', 'ConditionExpression', 'attribute_exists(pk)',
     'Key', jsonb_build_object('pk', jsonb_build_object('S', 'L'), 'sk', jsonb_build_object('S', i::text))))) FROM generate_series(1, 101) i)));
-- duplicate keys in a batch: the operations layer's check, DynamoDB's text
SELECT singletable.dynamodb('BatchGetItem', '{"RequestItems": {"multi": {"Keys": [{"pk": {"S": "USER#1"}, "sk": {"S": "PROFILE"}}, {"pk": {"S": "USER#1"}, "sk": {"S": "PROFILE"}}]}}}');

SET client_min_messages = warning;
-- the token would live 10 minutes (and show in transact.sql's view of the token table)
DELETE FROM singletable.client_request_tokens WHERE token = 'multi-1';
SELECT singletable.dynamodb('DeleteTable', '{"TableName": "multi"}') IS NOT NULL AS deleted;
SELECT singletable.dynamodb('DeleteTable', '{"TableName": "multi_b"}') IS NOT NULL AS deleted;
