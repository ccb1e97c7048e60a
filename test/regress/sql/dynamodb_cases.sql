-- dynamodb_cases: DynamoDB's answers in the cases of issue 28 (items 3 and 5), each
-- with DynamoDB's exception name and message (DynamoDB Local 3.3.0 and the
-- documentation agree on each unless noted)
SET client_min_messages = warning;
\set VERBOSITY default
\pset tuples_only on
\pset format unaligned
CREATE FUNCTION cases_ddb(op text, req jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT singletable.dynamodb(op, req) $$;
-- the error body only (the exception and DynamoDB's message)
CREATE FUNCTION cases_err(op text, req jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE d text;
BEGIN
  PERFORM singletable.dynamodb(op, req);
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN regexp_replace(d::jsonb ->> '__type', '.*#', '') || ': ' || (d::jsonb ->> 'message');
END $$;
SELECT cases_ddb('CreateTable', '{"TableName": "cases", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') IS NOT NULL AS created;

-- 1. ExpressionAttributeValues without an expression that takes values: the message
-- names ExpressionAttributeValues and the expressions that are null; with
-- ExpressionAttributeNames as well, the names' message (DynamoDB Local's order)
SELECT cases_err('PutItem', '{"TableName": "cases", "Item": {"pk": {"S": "a"}, "sk": {"S": "b"}}, "ExpressionAttributeValues": {":v": {"S": "x"}}}');
SELECT cases_err('PutItem', '{"TableName": "cases", "Item": {"pk": {"S": "a"}, "sk": {"S": "b"}}, "ExpressionAttributeValues": {":v": {"S": "x"}}, "ExpressionAttributeNames": {"#a": "x"}}');
SELECT cases_err('DeleteItem', '{"TableName": "cases", "Key": {"pk": {"S": "a"}, "sk": {"S": "b"}}, "ExpressionAttributeValues": {":v": {"S": "x"}}}');
SELECT cases_err('UpdateItem', '{"TableName": "cases", "Key": {"pk": {"S": "a"}, "sk": {"S": "b"}}, "ExpressionAttributeValues": {":v": {"S": "x"}}}');
SELECT cases_err('Query', '{"TableName": "cases", "ExpressionAttributeValues": {":v": {"S": "x"}}}');
SELECT cases_err('Scan', '{"TableName": "cases", "ExpressionAttributeValues": {":v": {"S": "x"}}}');
SELECT cases_err('Scan', '{"TableName": "cases", "ProjectionExpression": "pk", "ExpressionAttributeValues": {":v": {"S": "x"}}}');
SELECT cases_err('TransactWriteItems', '{"TransactItems": [{"Put": {"TableName": "cases", "Item": {"pk": {"S": "a"}, "sk": {"S": "b"}}, "ExpressionAttributeValues": {":v": {"S": "x"}}}}]}');
-- checked before the table is looked up
SELECT cases_err('PutItem', '{"TableName": "nosuch", "Item": {"pk": {"S": "a"}}, "ExpressionAttributeValues": {":v": {"S": "x"}}}');
-- after the members' constraints (DynamoDB Local's order)
SELECT cases_err('PutItem', '{"TableName": "n", "Item": {"pk": {"S": "a"}}, "ExpressionAttributeValues": {":v": {"S": "x"}}}');
-- the SQL functions take the same rule (vals without a condition)
SELECT singletable.put_item('cases', '{"pk": "a", "sk": "b"}', vals => '{":v": "x"}');

-- 2. operands: size() takes one (DynamoDB counts them all), list_append and
-- if_not_exists two; list_append only as a whole SET value, never nested in
-- another function; a parenthesised operand is valid (one pair: two are
-- redundant), and a parenthesised sum takes no further + or -
SELECT cases_ddb('PutItem', '{"TableName": "cases", "Item": {"pk": {"S": "p"}, "sk": {"S": "1"}, "b": {"S": "xy"}, "c": {"L": [{"S": "p"}, {"S": "q"}]}, "l": {"L": []}}}');
SELECT cases_err('PutItem', '{"TableName": "cases", "Item": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "ConditionExpression": "size(a, a) = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}');
SELECT cases_err('PutItem', '{"TableName": "cases", "Item": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "ConditionExpression": "size(a, size(b), c) = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}');
SELECT cases_err('PutItem', '{"TableName": "cases", "Item": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "ConditionExpression": "size(:v, :v) = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}');
SELECT cases_err('UpdateItem', '{"TableName": "cases", "Key": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "UpdateExpression": "SET l = list_append(list_append(l, :v), :v)", "ExpressionAttributeValues": {":v": {"L": [{"S": "x"}]}}}');
SELECT cases_err('UpdateItem', '{"TableName": "cases", "Key": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "UpdateExpression": "SET l = list_append(:v, (list_append(l, :v)))", "ExpressionAttributeValues": {":v": {"L": [{"S": "x"}]}}}');
SELECT cases_err('UpdateItem', '{"TableName": "cases", "Key": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "UpdateExpression": "SET l = if_not_exists(l, list_append(l, :v))", "ExpressionAttributeValues": {":v": {"L": [{"S": "x"}]}}}');
SELECT cases_err('UpdateItem', '{"TableName": "cases", "Key": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "UpdateExpression": "SET l = list_append(l, :v, :v)", "ExpressionAttributeValues": {":v": {"L": [{"S": "x"}]}}}');
SELECT cases_err('UpdateItem', '{"TableName": "cases", "Key": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "UpdateExpression": "SET l = list_append(:v)", "ExpressionAttributeValues": {":v": {"L": [{"S": "x"}]}}}');
SELECT cases_err('UpdateItem', '{"TableName": "cases", "Key": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "UpdateExpression": "SET l = if_not_exists(l, :v, :v)", "ExpressionAttributeValues": {":v": {"L": [{"S": "x"}]}}}');
SELECT cases_err('UpdateItem', '{"TableName": "cases", "Key": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "UpdateExpression": "SET l = size(l)"}');
SELECT cases_err('UpdateItem', '{"TableName": "cases", "Key": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "UpdateExpression": "SET l = attribute_exists(l)"}');
-- if_not_exists inside list_append stays valid
SELECT cases_ddb('UpdateItem', '{"TableName": "cases", "Key": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "UpdateExpression": "SET l = list_append(if_not_exists(l, :v), :v)", "ExpressionAttributeValues": {":v": {"L": [{"S": "x"}]}}, "ReturnValues": "UPDATED_NEW"}');
-- parenthesised operands in conditions and filters
SELECT cases_err('PutItem', '{"TableName": "cases", "Item": {"pk": {"S": "p"}, "sk": {"S": "1"}, "b": {"S": "xy"}, "c": {"L": [{"S": "p"}, {"S": "q"}]}, "l": {"L": []}}, "ConditionExpression": "(size(b)) = :v", "ExpressionAttributeValues": {":v": {"N": "2"}}}');
SELECT cases_err('PutItem', '{"TableName": "cases", "Item": {"pk": {"S": "p"}, "sk": {"S": "1"}, "b": {"S": "xy"}, "c": {"L": [{"S": "p"}, {"S": "q"}]}, "l": {"L": []}}, "ConditionExpression": "(:v = (b) AND (b) BETWEEN (:v) AND :v) AND (b) IN ((:v), :w) AND size((b)) = :n AND begins_with((b), :v)", "ExpressionAttributeValues": {":v": {"S": "xy"}, ":w": {"S": "z"}, ":n": {"N": "2"}}}');
SELECT cases_err('PutItem', '{"TableName": "cases", "Item": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "ConditionExpression": "((size(b))) = :v", "ExpressionAttributeValues": {":v": {"N": "2"}}}');
SELECT cases_err('PutItem', '{"TableName": "cases", "Item": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "ConditionExpression": "(a) = (a)"}');
SELECT cases_err('PutItem', '{"TableName": "cases", "Item": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "ConditionExpression": "begins_with((size(a)), :v)", "ExpressionAttributeValues": {":v": {"S": "x"}}}');
SELECT jsonb_array_length(cases_ddb('Query', '{"TableName": "cases", "KeyConditionExpression": "pk = :p", "FilterExpression": "(size(b)) = :n",
  "ExpressionAttributeValues": {":p": {"S": "p"}, ":n": {"N": "2"}}}') -> 'Items') AS filtered;
-- parenthesised operands in updates
SELECT cases_ddb('UpdateItem', '{"TableName": "cases", "Key": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "UpdateExpression": "SET b = (c[1]), n = (:n) + (:n), m = (:n + :n), o = (list_append(l, :l))",
  "ExpressionAttributeValues": {":n": {"N": "1"}, ":l": {"L": []}}, "ReturnValues": "UPDATED_NEW"}');
SELECT cases_err('UpdateItem', '{"TableName": "cases", "Key": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "UpdateExpression": "SET b = (:n + :n) + :n", "ExpressionAttributeValues": {":n": {"N": "1"}}}');
SELECT cases_err('UpdateItem', '{"TableName": "cases", "Key": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "UpdateExpression": "SET b = ((:n))", "ExpressionAttributeValues": {":n": {"N": "1"}}}');
SELECT cases_err('UpdateItem', '{"TableName": "cases", "Key": {"pk": {"S": "p"}, "sk": {"S": "1"}}, "UpdateExpression": "SET b = (c[1]) + :n", "ExpressionAttributeValues": {":n": {"N": "1"}}}');

-- 3. UpdateTable: a throughput that would not change (DynamoDB's text, as the
-- service answers it; DynamoDB Local says "The requested throughput value equals
-- the current value"), a GSI whose name exists, an attribute defined again
-- under another type (the table's key or an index's) are ValidationExceptions
SELECT cases_ddb('CreateTable', '{"TableName": "cases_prov", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
  "GlobalSecondaryIndexes": [{"IndexName": "gsi1", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"},
    "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}]}') IS NOT NULL AS created;
SELECT cases_err('UpdateTable', '{"TableName": "cases_prov", "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}');
SELECT cases_err('UpdateTable', '{"TableName": "cases_prov", "BillingMode": "PROVISIONED", "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}');
SELECT cases_ddb('UpdateTable', '{"TableName": "cases_prov", "ProvisionedThroughput": {"ReadCapacityUnits": 6, "WriteCapacityUnits": 5}}') IS NOT NULL AS updated;
SELECT cases_err('UpdateTable', '{"TableName": "cases_prov", "AttributeDefinitions": [{"AttributeName": "g", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "gsi1", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"},
    "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}}]}');
SELECT cases_err('UpdateTable', '{"TableName": "cases_prov", "AttributeDefinitions": [{"AttributeName": "g", "AttributeType": "N"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "gsi2", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"},
    "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}}]}');
SELECT cases_err('UpdateTable', '{"TableName": "cases_prov", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "B"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "gsi2", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"},
    "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}}]}');
-- the same type again is fine
SELECT cases_ddb('UpdateTable', '{"TableName": "cases_prov", "AttributeDefinitions": [{"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "pk", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "gsi2", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "pk", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"},
    "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}}]}') #> '{TableDescription,AttributeDefinitions}' AS defs;
SELECT cases_ddb('DeleteTable', '{"TableName": "cases_prov"}') IS NOT NULL AS deleted;

-- 4. a transaction action whose key or item does not match its table's key
-- schema cancels the transaction: TransactionCanceledException, that action's
-- reason ValidationError, the others None (DynamoDB: "There is a user error,
-- such as an invalid data format"); nothing is written
CREATE FUNCTION cases_cancel(op text, req jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE d text;
BEGIN
  PERFORM singletable.dynamodb(op, req);
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN regexp_replace(d::jsonb ->> '__type', '.*#', '') || ': ' || (d::jsonb ->> 'message') || ' ' || (d::jsonb -> 'CancellationReasons')::text;
END $$;
SELECT cases_cancel('TransactWriteItems', '{"TransactItems": [{"Put": {"TableName": "cases", "Item": {"pk": {"S": "t"}, "sk": {"S": "1"}}}},
  {"Put": {"TableName": "cases", "Item": {"pk": {"N": "1"}, "sk": {"S": "2"}}}}]}');
SELECT cases_cancel('TransactWriteItems', '{"TransactItems": [{"Delete": {"TableName": "cases", "Key": {"pk": {"S": "t"}}}},
  {"Put": {"TableName": "cases", "Item": {"pk": {"S": "t"}, "sk": {"S": "1"}}}}, {"ConditionCheck": {"TableName": "cases", "Key": {"pk": {"S": "t"}, "sk": {"B": "AA=="}}, "ConditionExpression": "attribute_exists(a)"}}]}');
SELECT cases_cancel('TransactWriteItems', '{"TransactItems": [{"Update": {"TableName": "cases", "Key": {"pk": {"S": "t"}, "sk": {"S": "1"}, "x": {"S": "y"}}, "UpdateExpression": "SET a = :v", "ExpressionAttributeValues": {":v": {"S": "1"}}}},
  {"Put": {"TableName": "cases", "Item": {"pk": {"S": "t"}, "sk": {"S": "2"}}}}]}');
SELECT cases_cancel('TransactWriteItems', '{"TransactItems": [{"ConditionCheck": {"TableName": "cases", "Key": {"pk": {"S": ""}, "sk": {"S": "1"}}, "ConditionExpression": "attribute_exists(a)"}}]}');
SELECT cases_cancel('TransactGetItems', '{"TransactItems": [{"Get": {"TableName": "cases", "Key": {"pk": {"S": "t"}, "sk": {"S": "1"}}}}, {"Get": {"TableName": "cases", "Key": {"pk": {"S": "t"}}}}]}');
SELECT cases_cancel('TransactGetItems', '{"TransactItems": [{"Get": {"TableName": "cases", "Key": {"pk": {"N": "1"}, "sk": {"S": "1"}}}}]}');
SELECT cases_ddb('Query', '{"TableName": "cases", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "t"}}, "Select": "COUNT"}') -> 'Count' AS written;
-- the SQL functions cancel the same way
SELECT singletable.transact_write('[{"Put": {"TableName": "cases", "Item": {"pk": "t", "sk": "1"}}}, {"Delete": {"TableName": "cases", "Key": {"pk": "t"}}}]');
SELECT singletable.cancellation_reasons();
SELECT singletable.transact_get('[{"Get": {"TableName": "cases", "Key": {"pk": "t", "sk": "1", "x": "y"}}}]');
DROP FUNCTION cases_cancel(text, jsonb);

-- 5. TableId (a UUID kept for the table's life) and, for PAY_PER_REQUEST,
-- BillingModeSummary.LastUpdateToPayPerRequestDateTime (the creation, then the
-- last switch to PAY_PER_REQUEST); a table made in SQL gets a TableId too
CREATE TEMP TABLE cases_desc AS
SELECT cases_ddb('CreateTable', '{"TableName": "cases_id", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}') -> 'TableDescription' AS d;
SELECT d ->> 'TableId' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' AS uuid,
       d #> '{BillingModeSummary,LastUpdateToPayPerRequestDateTime}' = d -> 'CreationDateTime' AS since_creation
  FROM cases_desc;
SELECT cases_ddb('UpdateTable', '{"TableName": "cases_id", "BillingMode": "PROVISIONED", "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}')
  #> '{TableDescription,BillingModeSummary}' AS provisioned;
SELECT cases_ddb('UpdateTable', '{"TableName": "cases_id", "BillingMode": "PAY_PER_REQUEST"}') IS NOT NULL AS updated;
SELECT t.d ->> 'TableId' = c.d ->> 'TableId' AS same_id,
       (t.d #>> '{BillingModeSummary,LastUpdateToPayPerRequestDateTime}')::numeric > (c.d ->> 'CreationDateTime')::numeric AS since_switch
  FROM (SELECT cases_ddb('DescribeTable', '{"TableName": "cases_id"}') -> 'Table' AS d) t, cases_desc c;
SELECT cases_ddb('DeleteTable', '{"TableName": "cases_id"}') IS NOT NULL AS deleted;
SELECT singletable.create_table('cases_sql') IS NOT NULL AS created;
SELECT (cases_ddb('DescribeTable', '{"TableName": "cases_sql"}') #>> '{Table,TableId}') = (cases_ddb('DescribeTable', '{"TableName": "cases_sql"}') #>> '{Table,TableId}') AS stable_id,
       (cases_ddb('DescribeTable', '{"TableName": "cases_sql"}') #>> '{Table,TableId}')::uuid IS NOT NULL AS uuid;
SELECT singletable.drop_table('cases_sql') IS NOT NULL AS dropped;

-- 6. tags of an ARN that names no table: DynamoDB's ResourceNotFoundException
-- naming the ARN (the service spells "ResourcArn"), for each tag operation
SELECT cases_err('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:ddblocal:000000000000:table/nosuch"}');
SELECT cases_err('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:us-east-1:123456789012:table/nosuch"}');
SELECT cases_err('TagResource', '{"ResourceArn": "arn:aws:dynamodb:ddblocal:000000000000:table/nosuch", "Tags": [{"Key": "a", "Value": "b"}]}');
SELECT cases_err('UntagResource', '{"ResourceArn": "arn:aws:dynamodb:ddblocal:000000000000:table/nosuch", "TagKeys": ["a"]}');
SELECT cases_ddb('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:ddblocal:000000000000:table/cases"}');

-- 7. a malformed request to a table that does not exist: the validation error,
-- not ResourceNotFoundException (expressions, placeholders, AttributeValues,
-- ReturnValues are checked without the table); a valid one: ResourceNotFound
SELECT cases_err('GetItem', '{"TableName": "nosuch", "Key": {"pk": {"S": "a"}}, "ProjectionExpression": "a,,b"}');
SELECT cases_err('PutItem', '{"TableName": "nosuch", "Item": {"pk": {"S": "a"}}, "ConditionExpression": "a = = b"}');
SELECT cases_err('PutItem', '{"TableName": "nosuch", "Item": {"pk": {"Q": "a"}}}');
SELECT cases_err('PutItem', '{"TableName": "nosuch", "Item": {"pk": {"S": "a"}}, "ReturnValues": "ALL_NEW"}');
SELECT cases_err('DeleteItem', '{"TableName": "nosuch", "Key": {"pk": {"S": "a"}}, "ConditionExpression": "size(a, a) = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}');
SELECT cases_err('UpdateItem', '{"TableName": "nosuch", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET a = :v"}');
SELECT cases_err('UpdateItem', '{"TableName": "nosuch", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET a = :v", "ExpressionAttributeValues": {":v": {"S": "x"}, ":w": {"S": "y"}}}');
SELECT cases_err('Scan', '{"TableName": "nosuch", "FilterExpression": "a = :v"}');
SELECT cases_err('Query', '{"TableName": "nosuch", "KeyConditionExpression": "pk = :v", "FilterExpression": "#x = :v", "ExpressionAttributeValues": {":v": {"S": "a"}}}');
-- a transaction's actions on tables that do not exist, likewise, before any table is opened
SELECT cases_err('TransactWriteItems', '{"TransactItems": [{"Put": {"TableName": "nosuch", "Item": {"pk": {"S": "a"}}}},
  {"Update": {"TableName": "nosuch2", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET a = :v"}}]}');
SELECT cases_err('TransactWriteItems', '{"TransactItems": [{"ConditionCheck": {"TableName": "nosuch", "Key": {"pk": {"S": "a"}}, "ConditionExpression": "a = = b"}}]}');
SELECT cases_err('TransactGetItems', '{"TransactItems": [{"Get": {"TableName": "nosuch", "Key": {"pk": {"S": "a"}}, "ProjectionExpression": "a,,b"}}]}');
SELECT cases_err('TransactWriteItems', '{"TransactItems": [{"Put": {"TableName": "nosuch", "Item": {"pk": {"S": "a"}}}}]}');
-- and a batch's entries for tables that do not exist
SELECT cases_err('BatchGetItem', '{"RequestItems": {"nosuch": {"Keys": [{"pk": {"Q": "a"}}]}}}');
SELECT cases_err('BatchGetItem', '{"RequestItems": {"nosuch": {"Keys": [{"pk": {"S": "a"}}], "ProjectionExpression": "a,,b"}}}');
SELECT cases_err('BatchGetItem', '{"RequestItems": {"nosuch": {"Keys": [{"pk": {"S": "a"}}], "ExpressionAttributeNames": {"#a": "a"}}}}');
SELECT cases_err('BatchWriteItem', '{"RequestItems": {"nosuch": [{"PutRequest": {"Item": {"pk": {"Q": "a"}}}}]}}');
SELECT cases_err('BatchWriteItem', '{"RequestItems": {"nosuch": [{"PutRequest": {"Item": {"pk": {"S": "a"}}}}]}}');
SELECT cases_err('UpdateItem', '{"TableName": "nosuch", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET a = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}}');
SELECT cases_err('Query', '{"TableName": "nosuch", "KeyConditionExpression": "pk = :v", "ExpressionAttributeValues": {":v": {"S": "a"}}}');

-- 12. a syntax error's near: text is DynamoDB's: the expression from the token before
-- the offending one to the end of the token after it (the messages DynamoDB answered
-- for these expressions, as its users reported them)
SELECT cases_err('Scan', '{"TableName": "cases", "FilterExpression": "a-b"}');
SELECT cases_err('PutItem', '{"TableName": "cases", "Item": {"pk": {"S": "a"}, "sk": {"S": "b"}}, "ConditionExpression": "a-b"}');
SELECT cases_err('UpdateItem', '{"TableName": "cases", "Key": {"pk": {"S": "a"}, "sk": {"S": "b"}}, "UpdateExpression": "INVALID SYNTAX HERE", "ExpressionAttributeValues": {":v": {"S": "v"}}}');
SELECT cases_err('UpdateItem', '{"TableName": "cases", "Key": {"pk": {"S": "a"}, "sk": {"S": "b"}}, "UpdateExpression": "SET hits = hits : incr"}');
SELECT cases_err('GetItem', '{"TableName": "cases", "Key": {"pk": {"S": "a"}, "sk": {"S": "b"}}, "ProjectionExpression": "!!"}');
SELECT cases_err('Query', '{"TableName": "cases", "KeyConditionExpression": "pk = :p AND ()", "ExpressionAttributeValues": {":p": {"S": "a"}}}');
SELECT cases_err('Scan', '{"TableName": "cases", "FilterExpression": "tenantAgent:abc123-x"}');

-- 13. an LSI whose sort key is the table's own is accepted; NonKeyAttributes names are
-- 1 to 255 characters; an index read names the table in ConsumedCapacity (0 units) too
SELECT cases_ddb('CreateTable', '{"TableName": "cases_lsi", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
  "LocalSecondaryIndexes": [{"IndexName": "own_sk", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                             "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "GlobalSecondaryIndexes": [{"IndexName": "byg", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}]}')
  #> '{TableDescription,LocalSecondaryIndexes,0,KeySchema}';
SELECT cases_ddb('PutItem', '{"TableName": "cases_lsi", "Item": {"pk": {"S": "a"}, "sk": {"S": "b"}, "g": {"S": "G"}, "x": {"N": "1"}}}');
SELECT cases_ddb('Query', '{"TableName": "cases_lsi", "IndexName": "own_sk", "KeyConditionExpression": "pk = :p AND sk > :s",
  "ExpressionAttributeValues": {":p": {"S": "a"}, ":s": {"S": "a"}}, "Select": "ALL_ATTRIBUTES", "ReturnConsumedCapacity": "INDEXES"}');
SELECT cases_ddb('Query', '{"TableName": "cases_lsi", "IndexName": "byg", "KeyConditionExpression": "g = :g",
  "ExpressionAttributeValues": {":g": {"S": "G"}}, "ReturnConsumedCapacity": "INDEXES"}') -> 'ConsumedCapacity';
SELECT cases_err('UpdateTable', jsonb_build_object('TableName', 'cases_lsi',
  'AttributeDefinitions', '[{"AttributeName": "h", "AttributeType": "S"}]'::jsonb,
  'GlobalSecondaryIndexUpdates', jsonb_build_array(jsonb_build_object('Create', jsonb_build_object('IndexName', 'byh',
    'KeySchema', '[{"AttributeName": "h", "KeyType": "HASH"}]'::jsonb,
    'Projection', jsonb_build_object('ProjectionType', 'INCLUDE', 'NonKeyAttributes', jsonb_build_array('ok', repeat('n', 256))))))));
SELECT cases_err('CreateTable', '{"TableName": "cases_nk", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "byg", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": [""]}}]}');
SELECT cases_ddb('DeleteTable', '{"TableName": "cases_lsi"}') IS NOT NULL AS deleted;

-- cleanup (the regress tests share one database)
SELECT cases_ddb('DeleteTable', '{"TableName": "cases"}') IS NOT NULL AS deleted;
DROP FUNCTION cases_ddb(text, jsonb);
DROP FUNCTION cases_err(text, jsonb);

