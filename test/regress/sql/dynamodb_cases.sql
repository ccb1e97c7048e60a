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
-- the SQL functions take the same rule (vals without a condition)
SELECT singletable.put_item('cases', '{"pk": "a", "sk": "b"}', vals => '{":v": "x"}');

-- cleanup (the regress tests share one database)
SELECT cases_ddb('DeleteTable', '{"TableName": "cases"}') IS NOT NULL AS deleted;
DROP FUNCTION cases_ddb(text, jsonb);
DROP FUNCTION cases_err(text, jsonb);
