-- api_multikey: multi-attribute GSI keys (up to 4 HASH and 4 RANGE attributes, DynamoDB
-- since November 2025) through the DynamoDB API: CreateTable, UpdateTable, DescribeTable,
-- Query (KeyConditionExpression and KeyConditions), Scan, with DynamoDB's exception names
-- and messages. The KeySchema messages are DynamoDB's; the Query messages of a
-- multi-attribute key are DynamoDB Local 3.3.0's (docs/indexes.md)
SET client_min_messages = warning;
\set VERBOSITY default
\pset tuples_only on
\pset format unaligned
CREATE FUNCTION mk(op text, req jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT singletable.dynamodb(op, req) $$;
-- the error body only (the exception and DynamoDB's message)
CREATE FUNCTION mk_err(op text, req jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE d text;
BEGIN
  PERFORM singletable.dynamodb(op, req);
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN regexp_replace(d::jsonb ->> '__type', '.*#', '') || ': ' || (d::jsonb ->> 'message');
END $$;
-- a CreateTable request of table name with GSI gsi of the key schema ks (pairs name:type)
-- over AttributeDefinitions of every name in defs (S, or N for names starting with n)
CREATE FUNCTION mk_table(name text, ks text, defs text[], extra jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('TableName', name, 'BillingMode', 'PAY_PER_REQUEST',
    'AttributeDefinitions', (SELECT jsonb_agg(jsonb_build_object('AttributeName', d, 'AttributeType',
                                                                 CASE WHEN d LIKE 'n%' THEN 'N' ELSE 'S' END))
                               FROM unnest(defs) d),
    'KeySchema', '[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]'::jsonb,
    'GlobalSecondaryIndexes', jsonb_build_array(jsonb_build_object('IndexName', 'gsi', 'Projection', '{"ProjectionType": "ALL"}'::jsonb,
      'KeySchema', (SELECT jsonb_agg(jsonb_build_object('AttributeName', split_part(e, ':', 1), 'KeyType', split_part(e, ':', 2)) ORDER BY o)
                      FROM unnest(string_to_array(ks, ' ')) WITH ORDINALITY u(e, o))))) || extra $$;

-- 1. CreateTable: a GSI of 2 HASH and 2 RANGE attributes; the answer and DescribeTable
-- list every element in order, and every attribute's definition
SELECT jsonb_pretty(mk('CreateTable', mk_table('mk_orders', 'tenant:HASH region:HASH state:RANGE namount:RANGE',
                                             ARRAY['pk', 'sk', 'tenant', 'region', 'state', 'namount']))
                    -> 'TableDescription' -> 'GlobalSecondaryIndexes' -> 0 -> 'KeySchema');
SELECT jsonb_pretty(mk('DescribeTable', '{"TableName": "mk_orders"}') -> 'Table' -> 'AttributeDefinitions');
SELECT jsonb_pretty(mk('DescribeTable', '{"TableName": "mk_orders"}') -> 'Table' -> 'GlobalSecondaryIndexes' -> 0 -> 'KeySchema');
-- the index behind it: one btree over the 4 typed attributes and the table's keys
SELECT partition_key, partition_key_type, sort_key, sort_key_type FROM singletable.indexes WHERE index_name = 'gsi';
-- 4 HASH and 4 RANGE: the most
SELECT mk('CreateTable', mk_table('mk_wide', 'a:HASH b:HASH c:HASH d:HASH e:RANGE f:RANGE g:RANGE h:RANGE',
                                  ARRAY['pk', 'sk', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']))
         -> 'TableDescription' -> 'GlobalSecondaryIndexes' -> 0 -> 'KeySchema';
-- 2 HASH and no RANGE; 1 HASH and 3 RANGE
SELECT mk('CreateTable', mk_table('mk_hh', 'a:HASH b:HASH', ARRAY['pk', 'sk', 'a', 'b']))
         -> 'TableDescription' -> 'GlobalSecondaryIndexes' -> 0 -> 'KeySchema';
SELECT mk('CreateTable', mk_table('mk_hrrr', 'a:HASH b:RANGE c:RANGE nd:RANGE', ARRAY['pk', 'sk', 'a', 'b', 'c', 'nd']))
         -> 'TableDescription' -> 'GlobalSecondaryIndexes' -> 0 -> 'KeySchema';

-- 2. CreateTable's checks of a GSI's KeySchema, in DynamoDB's order
-- more than 4 HASH, more than 4 RANGE (also with 9 elements)
SELECT mk_err('CreateTable', mk_table('mk_bad', 'a:HASH b:HASH c:HASH d:HASH e:HASH', ARRAY['pk', 'sk', 'a', 'b', 'c', 'd', 'e']));
SELECT mk_err('CreateTable', mk_table('mk_bad', 'pk:HASH a:RANGE b:RANGE c:RANGE d:RANGE e:RANGE', ARRAY['pk', 'sk', 'a', 'b', 'c', 'd', 'e']));
SELECT mk_err('CreateTable', mk_table('mk_bad', 'a:HASH b:HASH c:HASH d:HASH e:RANGE f:RANGE g:RANGE h:RANGE pk:RANGE',
                                      ARRAY['pk', 'sk', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']));
-- the first element not HASH; a HASH after a RANGE
SELECT mk_err('CreateTable', mk_table('mk_bad', 'a:RANGE b:HASH', ARRAY['pk', 'sk', 'a', 'b']));
SELECT mk_err('CreateTable', mk_table('mk_bad', 'a:RANGE b:RANGE c:RANGE', ARRAY['pk', 'sk', 'a', 'b', 'c']));
SELECT mk_err('CreateTable', mk_table('mk_bad', 'a:HASH b:RANGE c:HASH', ARRAY['pk', 'sk', 'a', 'b', 'c']));
-- a name twice: among the HASH, between HASH and RANGE, among the RANGE; with 2 elements
-- HASH and RANGE, DynamoDB's older message
SELECT mk_err('CreateTable', mk_table('mk_bad', 'a:HASH a:HASH', ARRAY['pk', 'sk', 'a']));
SELECT mk_err('CreateTable', mk_table('mk_bad', 'a:HASH b:HASH a:RANGE', ARRAY['pk', 'sk', 'a', 'b']));
SELECT mk_err('CreateTable', mk_table('mk_bad', 'a:HASH b:RANGE b:RANGE', ARRAY['pk', 'sk', 'a', 'b']));
SELECT mk_err('CreateTable', mk_table('mk_bad', 'a:HASH a:RANGE', ARRAY['pk', 'sk', 'a']));
-- an attribute not defined; a defined attribute no key uses
SELECT mk_err('CreateTable', mk_table('mk_bad', 'a:HASH zz:HASH', ARRAY['pk', 'sk', 'a']));
SELECT mk_err('CreateTable', mk_table('mk_bad', 'a:HASH sk:RANGE zz:RANGE', ARRAY['pk', 'sk', 'a']));
SELECT mk_err('CreateTable', mk_table('mk_bad', 'a:HASH b:HASH', ARRAY['pk', 'sk', 'a', 'b', 'c']));
-- the constraints first: an unknown KeyType, an empty name, among more than 2 elements
SELECT mk_err('CreateTable', mk_table('mk_bad', 'a:HASH b:RANGE c:SORT', ARRAY['pk', 'sk', 'a', 'b', 'c']));
SELECT mk_err('CreateTable', mk_table('mk_bad', 'a:HASH b:RANGE :RANGE', ARRAY['pk', 'sk', 'a', 'b']));
-- the table's own key and an LSI's stay one HASH and one RANGE
SELECT mk_err('CreateTable', '{"TableName": "mk_bad", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}, {"AttributeName": "a", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}, {"AttributeName": "a", "KeyType": "RANGE"}]}');
SELECT mk_err('CreateTable', '{"TableName": "mk_bad", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "HASH"}]}');
SELECT mk_err('CreateTable', mk_table('mk_bad', 'a:HASH', ARRAY['pk', 'sk', 'a', 'b', 'c'],
  '{"LocalSecondaryIndexes": [{"IndexName": "lsi", "Projection": {"ProjectionType": "ALL"},
     "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "RANGE"}, {"AttributeName": "c", "KeyType": "RANGE"}]}]}'));
SELECT mk_err('CreateTable', mk_table('mk_bad', 'a:HASH', ARRAY['pk', 'sk', 'a', 'b'],
  '{"LocalSecondaryIndexes": [{"IndexName": "lsi", "Projection": {"ProjectionType": "ALL"},
     "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "HASH"}]}]}'));
-- nothing was created
SELECT count(*) FROM pg_class WHERE relname = 'mk_bad';

-- 3. UpdateTable: Create a multi-attribute GSI on an existing table (built at once:
-- ACTIVE in the next DescribeTable); its checks are CreateTable's, and AttributeDefinitions
-- defines each of its attributes, the table's own key attributes too
SELECT mk('CreateTable', '{"TableName": "mk_plain", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
SELECT mk_err('UpdateTable', '{"TableName": "mk_plain", "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "S"}, {"AttributeName": "c", "AttributeType": "S"}, {"AttributeName": "d", "AttributeType": "S"}, {"AttributeName": "e", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "gsi2", "Projection": {"ProjectionType": "ALL"}, "KeySchema": [
    {"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "RANGE"}, {"AttributeName": "c", "KeyType": "RANGE"},
    {"AttributeName": "d", "KeyType": "RANGE"}, {"AttributeName": "e", "KeyType": "RANGE"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}}]}');
SELECT mk_err('UpdateTable', '{"TableName": "mk_plain", "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "gsi2", "Projection": {"ProjectionType": "ALL"}, "KeySchema": [
    {"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "RANGE"}, {"AttributeName": "pk", "KeyType": "HASH"}]}}]}');
SELECT mk_err('UpdateTable', '{"TableName": "mk_plain", "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "gsi2", "Projection": {"ProjectionType": "ALL"}, "KeySchema": [
    {"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "HASH"}]}}]}');
SELECT mk_err('UpdateTable', '{"TableName": "mk_plain", "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "gsi2", "Projection": {"ProjectionType": "ALL"}, "KeySchema": [
    {"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "a", "KeyType": "HASH"}]}}]}');
SELECT mk('UpdateTable', '{"TableName": "mk_plain", "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "nb", "AttributeType": "N"}, {"AttributeName": "sk", "AttributeType": "S"}, {"AttributeName": "c", "AttributeType": "B"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "gsi2", "Projection": {"ProjectionType": "KEYS_ONLY"}, "KeySchema": [
    {"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "nb", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}, {"AttributeName": "c", "KeyType": "RANGE"}]}}]}')
       -> 'TableDescription' -> 'GlobalSecondaryIndexes' -> 0 -> 'KeySchema';
SELECT g -> 'IndexName', g -> 'IndexStatus', g -> 'KeySchema'
  FROM jsonb_array_elements(mk('DescribeTable', '{"TableName": "mk_plain"}') -> 'Table' -> 'GlobalSecondaryIndexes') g;
SELECT mk('DescribeTable', '{"TableName": "mk_plain"}') -> 'Table' -> 'AttributeDefinitions';
-- its items: types per attribute (N, B), KEYS_ONLY brings back every key attribute
SELECT mk('PutItem', '{"TableName": "mk_plain", "Item": {"pk": {"S": "p1"}, "sk": {"S": "s1"}, "a": {"S": "x"}, "nb": {"N": "1.50"}, "c": {"B": "AAE="}, "other": {"S": "o"}}}');
SELECT mk('PutItem', '{"TableName": "mk_plain", "Item": {"pk": {"S": "p2"}, "sk": {"S": "s1"}, "a": {"S": "x"}, "nb": {"N": "1.5"}, "c": {"B": "AAI="}}}');
SELECT mk('Query', '{"TableName": "mk_plain", "IndexName": "gsi2", "KeyConditionExpression": "a = :a AND nb = :n AND sk = :s AND c > :c",
  "ExpressionAttributeValues": {":a": {"S": "x"}, ":n": {"N": "1.5"}, ":s": {"S": "s1"}, ":c": {"B": "AAE="}}}');
SELECT mk_err('PutItem', '{"TableName": "mk_plain", "Item": {"pk": {"S": "p3"}, "sk": {"S": "s1"}, "a": {"S": "x"}, "nb": {"S": "1"}}}');

-- 4. Query a multi-attribute GSI: = on every HASH attribute, = on the RANGE attributes
-- before the last one with a condition, which may be a range
SELECT count(*) FROM (
  SELECT mk('PutItem', jsonb_build_object('TableName', 'mk_orders', 'Item', jsonb_build_object(
           'pk', jsonb_build_object('S', 'ORDER#' || lpad(i::text, 2, '0')), 'sk', '{"S": "A"}'::jsonb,
           'tenant', jsonb_build_object('S', 'T' || (i % 2)), 'region', '{"S": "eu"}'::jsonb,
           'state', jsonb_build_object('S', CASE WHEN i % 3 = 0 THEN 'paid' ELSE 'open' END),
           'namount', jsonb_build_object('N', ((i * 37) % 100)::text))))
    FROM generate_series(1, 24) i) s;
-- sparse: an item lacking one of the key attributes is not in the index
SELECT mk('PutItem', '{"TableName": "mk_orders", "Item": {"pk": {"S": "ORDER#99"}, "sk": {"S": "A"}, "tenant": {"S": "T0"}, "region": {"S": "eu"}, "state": {"S": "open"}}}');
-- the items of a query on mk_orders' gsi (names and values: those kce uses)
CREATE FUNCTION mk_q(kce text, extra jsonb DEFAULT '{}') RETURNS text LANGUAGE sql AS $$
  SELECT string_agg((i -> 'pk' ->> 'S') || '/' || (i -> 'state' ->> 'S') || '/' || (i -> 'namount' ->> 'N'), ' ' ORDER BY o)
    FROM jsonb_array_elements(mk('Query', jsonb_build_object('TableName', 'mk_orders', 'IndexName', 'gsi',
           'KeyConditionExpression', kce,
           'ExpressionAttributeNames', (SELECT jsonb_object_agg(key, value) FROM jsonb_each('{"#r": "region", "#s": "state"}')
                                         WHERE strpos(kce, key) > 0),
           'ExpressionAttributeValues', (SELECT jsonb_object_agg(key, value)
                                           FROM jsonb_each('{":t": {"S": "T0"}, ":r": {"S": "eu"}, ":s": {"S": "open"}, ":lo": {"N": "20"}, ":hi": {"N": "60"}, ":p": {"S": "pa"}}')
                                          WHERE kce ~ (key || '\M'))) || extra)
           -> 'Items') WITH ORDINALITY x(i, o) $$;
SELECT mk_q('tenant = :t AND #r = :r');
SELECT mk_q('tenant = :t AND #r = :r AND #s = :s');
SELECT mk_q('#s = :s AND #r = :r AND tenant = :t AND namount BETWEEN :lo AND :hi');
SELECT mk_q('tenant = :t AND #r = :r AND #s = :s AND namount > :lo', '{"ScanIndexForward": false}');
SELECT mk_q('tenant = :t AND #r = :r AND begins_with(#s, :p)');
SELECT mk_q('tenant = :t AND #r = :r AND #s >= :s');
SELECT mk_q('tenant = :t AND #r = :r AND #s = :s AND :hi > namount');
SELECT mk('Query', '{"TableName": "mk_orders", "IndexName": "gsi", "Select": "COUNT", "KeyConditionExpression": "tenant = :t AND #r = :r",
  "ExpressionAttributeNames": {"#r": "region"}, "ExpressionAttributeValues": {":t": {"S": "T0"}, ":r": {"S": "eu"}}}');
-- KeyConditions, the legacy form: up to 4 + 4 conditions on an index
SELECT mk('Query', '{"TableName": "mk_orders", "IndexName": "gsi", "KeyConditions": {
  "tenant": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "T0"}]}, "region": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "eu"}]},
  "state": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "paid"}]}, "namount": {"ComparisonOperator": "LT", "AttributeValueList": [{"N": "50"}]}}}') -> 'Count';
SELECT mk_err('Query', '{"TableName": "mk_orders", "IndexName": "gsi", "KeyConditions": {
  "tenant": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "T0"}]}, "region": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "eu"}]},
  "namount": {"ComparisonOperator": "LT", "AttributeValueList": [{"N": "50"}]}}}');
SELECT mk_err('Query', '{"TableName": "mk_orders", "IndexName": "gsi", "KeyConditions": {
  "tenant": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "T0"}]}}}');
-- at most 8 on an index
SELECT mk_err('Query', jsonb_build_object('TableName', 'mk_orders', 'IndexName', 'gsi', 'KeyConditions',
  (SELECT jsonb_object_agg('x' || i, '{"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "v"}]}'::jsonb) FROM generate_series(1, 9) i)));
-- on the table, KeyConditions stay at most 2
SELECT mk_err('Query', '{"TableName": "mk_orders", "KeyConditions": {
  "pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "T0"}]}, "sk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "A"}]},
  "tenant": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "T0"}]}}}');

-- 5. the key condition's rules and DynamoDB Local 3.3.0's messages
CREATE FUNCTION mk_qerr(kce text) RETURNS text LANGUAGE sql AS $$
  SELECT mk_err('Query', jsonb_build_object('TableName', 'mk_wide', 'IndexName', 'gsi', 'KeyConditionExpression', kce,
                'ExpressionAttributeValues', '{":v": {"S": "v"}, ":n": {"N": "1"}}'::jsonb)) $$;
-- HASH attributes without a condition are named, else those with another operator
SELECT mk_qerr('a = :v');
SELECT mk_qerr('e = :v');
SELECT mk_qerr('a = :v AND b > :v AND c = :v');
SELECT mk_qerr('a = :v AND b > :v AND c < :v AND d = :v');
SELECT mk_qerr('a = :v AND b BETWEEN :v AND :v');
-- RANGE attributes before the last one with a condition: missing ones first, else non-equal ones
SELECT mk_qerr('a = :v AND b = :v AND c = :v AND d = :v AND g = :v');
SELECT mk_qerr('a = :v AND b = :v AND c = :v AND d = :v AND e = :v AND g > :v');
SELECT mk_qerr('a = :v AND b = :v AND c = :v AND d = :v AND e > :v AND f > :v AND g = :v');
SELECT mk_qerr('a = :v AND b = :v AND c = :v AND d = :v AND e > :v AND g = :v');
SELECT mk_qerr('a = :v AND b = :v AND c = :v AND d = :v AND e > :v AND f = :v');
-- the same attribute twice; an attribute outside the key; more conditions than key
-- attributes; checked in DynamoDB Local's order: the same attribute twice, too many
-- conditions, the HASH rule, the RANGE rule, an attribute outside the key
SELECT mk_qerr('a = :v AND b = :v AND c = :v AND d = :v AND e = :v AND e = :v');
SELECT mk_qerr('a = :v AND a = :v AND b = :v');
SELECT mk_qerr('a = :v AND pk = :v AND pk = :v');
SELECT mk_qerr('a = :v AND b = :v AND c = :v AND d = :v AND pk = :v');
SELECT mk_qerr('a = :v AND b = :v AND c = :v AND d = :v AND e = :v AND f = :v AND g = :v AND h = :v AND pk = :v');
SELECT mk_qerr('a = :v AND b = :v AND c = :v AND d = :v AND e = :v AND f = :v AND g = :v AND h = :v AND h = :v');
SELECT mk_qerr('a = :v AND pk = :v');
SELECT mk_qerr('pk = :v AND a = :v AND b = :v AND c = :v AND d = :v AND g = :v');
-- the expression's other rules are unchanged
SELECT mk_qerr('a = :v AND b = :v OR c = :v');
SELECT mk_qerr('a = :v AND b = :v AND c = :v AND d = :n');
SELECT mk_err('Query', '{"TableName": "mk_orders", "IndexName": "gsi", "KeyConditionExpression": "tenant = :t AND #r = :t AND #s = :t AND begins_with(namount, :n)",
  "ExpressionAttributeNames": {"#r": "region", "#s": "state"}, "ExpressionAttributeValues": {":t": {"S": "T0"}, ":n": {"N": "1"}}}');
-- a complete key in any order
SELECT mk('Query', jsonb_build_object('TableName', 'mk_wide', 'IndexName', 'gsi', 'KeyConditionExpression',
          'h = :v AND g = :v AND f = :v AND e = :v AND d = :v AND c = :v AND b = :v AND a = :v',
          'ExpressionAttributeValues', '{":v": {"S": "v"}}'::jsonb));
-- one HASH and several RANGE attributes, or several HASH and no RANGE: a multi-attribute key too
SELECT mk_err('Query', '{"TableName": "mk_hrrr", "IndexName": "gsi", "KeyConditionExpression": "b = :v", "ExpressionAttributeValues": {":v": {"S": "v"}}}');
SELECT mk_err('Query', '{"TableName": "mk_hh", "IndexName": "gsi", "KeyConditionExpression": "a = :v", "ExpressionAttributeValues": {":v": {"S": "v"}}}');
SELECT mk_err('Query', '{"TableName": "mk_hrrr", "IndexName": "gsi", "KeyConditionExpression": "a = :v AND pk = :v", "ExpressionAttributeValues": {":v": {"S": "v"}}}');

-- 6. pages: LastEvaluatedKey holds every index key attribute and the table's keys, and
-- ExclusiveStartKey takes it back; the pages put together are the whole answer
CREATE TEMP TABLE mk_pages (page int, lek jsonb, pks text);
DO $$
DECLARE
  req jsonb := '{"TableName": "mk_orders", "IndexName": "gsi", "Limit": 3,
    "KeyConditionExpression": "tenant = :t AND #r = :r AND #s = :s AND namount >= :lo",
    "ExpressionAttributeNames": {"#r": "region", "#s": "state"},
    "ExpressionAttributeValues": {":t": {"S": "T1"}, ":r": {"S": "eu"}, ":s": {"S": "open"}, ":lo": {"N": "10"}}}';
  r jsonb;
  n int := 0;
BEGIN
  LOOP
    r := singletable.dynamodb('Query', req);
    n := n + 1;
    INSERT INTO mk_pages SELECT n, r -> 'LastEvaluatedKey', (SELECT string_agg(i -> 'pk' ->> 'S', ' ') FROM jsonb_array_elements(r -> 'Items') i);
    EXIT WHEN r -> 'LastEvaluatedKey' IS NULL OR n > 10;
    req := req || jsonb_build_object('ExclusiveStartKey', r -> 'LastEvaluatedKey');
  END LOOP;
END $$;
SELECT page, pks, lek FROM mk_pages ORDER BY page;
SELECT string_agg(pks, ' ' ORDER BY page) = mk_q('tenant = :t AND #r = :r AND #s = :s AND namount >= :lo',
         '{"ExpressionAttributeValues": {":t": {"S": "T1"}, ":r": {"S": "eu"}, ":s": {"S": "open"}, ":lo": {"N": "10"}}}')
         AS pages_are_the_answer
  FROM (SELECT page, (SELECT string_agg(p || '/open/' || ((substr(p, 7)::int * 37) % 100), ' ')
                        FROM unnest(string_to_array(pks, ' ')) p) AS pks FROM mk_pages) x;
-- a start key without one of the index key attributes, or outside the key condition
SELECT mk_err('Query', '{"TableName": "mk_orders", "IndexName": "gsi", "KeyConditionExpression": "tenant = :t AND #r = :r",
  "ExpressionAttributeNames": {"#r": "region"}, "ExpressionAttributeValues": {":t": {"S": "T1"}, ":r": {"S": "eu"}},
  "ExclusiveStartKey": {"pk": {"S": "ORDER#01"}, "sk": {"S": "A"}, "tenant": {"S": "T1"}, "region": {"S": "eu"}, "namount": {"N": "37"}}}');
SELECT mk_err('Query', '{"TableName": "mk_orders", "IndexName": "gsi", "KeyConditionExpression": "tenant = :t AND #r = :r",
  "ExpressionAttributeNames": {"#r": "region"}, "ExpressionAttributeValues": {":t": {"S": "T1"}, ":r": {"S": "eu"}},
  "ExclusiveStartKey": {"pk": {"S": "ORDER#01"}, "sk": {"S": "A"}, "tenant": {"S": "T1"}, "region": {"S": "us"}, "state": {"S": "open"}, "namount": {"N": "37"}}}');

-- 7. Scan of the index: in index order, sparse, pages with every key attribute
SELECT mk('Scan', '{"TableName": "mk_orders", "IndexName": "gsi", "Select": "COUNT"}');
SELECT mk('Scan', '{"TableName": "mk_orders", "Select": "COUNT"}');
SELECT r -> 'LastEvaluatedKey', (SELECT string_agg(i -> 'pk' ->> 'S', ' ') FROM jsonb_array_elements(r -> 'Items') i)
  FROM mk('Scan', '{"TableName": "mk_orders", "IndexName": "gsi", "Limit": 2}') r;
SELECT (SELECT string_agg(i -> 'pk' ->> 'S', ' ') FROM jsonb_array_elements(r -> 'Items') i)
  FROM mk('Scan', '{"TableName": "mk_orders", "IndexName": "gsi", "Limit": 2, "ExclusiveStartKey":
    {"pk": {"S": "ORDER#12"}, "sk": {"S": "A"}, "tenant": {"S": "T0"}, "region": {"S": "eu"}, "state": {"S": "open"}, "namount": {"N": "44"}}}') r;

-- 8. the plan of such a query: one range of the GSI's btree with the whole key condition
SELECT * FROM singletable.explain_query('mk_orders', key_condition => 'tenant = :t AND #r = :r AND #s = :s AND namount BETWEEN :lo AND :hi',
                                        names => '{"#r": "region", "#s": "state"}',
                                        vals => '{":t": "T0", ":r": "eu", ":s": "open", ":lo": 20, ":hi": 60}', index_name => 'gsi');

-- 9. attribute names that need quoting in create_gsi's list (a comma, a double quote, spaces)
SELECT mk('CreateTable', '{"TableName": "mk_names", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
    {"AttributeName": "a,b", "AttributeType": "S"}, {"AttributeName": "q\"x", "AttributeType": "S"}, {"AttributeName": " s ", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "gsi", "Projection": {"ProjectionType": "ALL"}, "KeySchema": [
    {"AttributeName": "a,b", "KeyType": "HASH"}, {"AttributeName": "q\"x", "KeyType": "HASH"}, {"AttributeName": " s ", "KeyType": "RANGE"}]}]}')
         -> 'TableDescription' -> 'GlobalSecondaryIndexes' -> 0 -> 'KeySchema';
SELECT mk('PutItem', '{"TableName": "mk_names", "Item": {"pk": {"S": "p"}, "sk": {"S": "s"}, "a,b": {"S": "1"}, "q\"x": {"S": "2"}, " s ": {"S": "3"}}}');
SELECT mk('Query', '{"TableName": "mk_names", "IndexName": "gsi", "KeyConditionExpression": "#a = :one AND #q = :two AND #s > :zero",
  "ExpressionAttributeNames": {"#a": "a,b", "#q": "q\"x", "#s": " s "}, "ExpressionAttributeValues": {":one": {"S": "1"}, ":two": {"S": "2"}, ":zero": {"S": "0"}}}') -> 'Count';

-- cleanup
SELECT mk('DeleteTable', jsonb_build_object('TableName', t)) -> 'TableDescription' -> 'TableName'
  FROM unnest(ARRAY['mk_orders', 'mk_wide', 'mk_hh', 'mk_hrrr', 'mk_plain', 'mk_names']) t;
DROP FUNCTION mk_qerr(text);
DROP FUNCTION mk_q(text, jsonb);
DROP FUNCTION mk_table(text, text, text[], jsonb);
DROP FUNCTION mk_err(text, jsonb);
DROP FUNCTION mk(text, jsonb);
