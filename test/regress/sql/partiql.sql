-- partiql: DynamoDB's PartiQL through singletable.dynamodb (ExecuteStatement,
-- BatchExecuteStatement, ExecuteTransaction) and singletable.partiql: every
-- statement form, the request each becomes (seen through its answers and its
-- capacity), every error path with its exception and message (in DETAIL)
SET client_min_messages = warning;
CREATE FUNCTION pq(stmt text, extra jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
  SELECT singletable.dynamodb('ExecuteStatement', jsonb_build_object('Statement', stmt) || extra) $$;

SELECT singletable.dynamodb('CreateTable', '{"TableName": "pqt",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
                           {"AttributeName": "g", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "gsi1", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}') IS NOT NULL AS created;
SELECT singletable.dynamodb('CreateTable', '{"TableName": "pqh",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}') IS NOT NULL AS created;

-- INSERT: literals of every kind, parameters; the answer has no items
SELECT pq($$INSERT INTO "pqt" VALUE {'pk': 'a', 'sk': 1, 'g': 'G1', 'n': -1.5e2, 'b': TRUE, 'z': NULL,
  'l': [1, 'two', [FALSE]], 'm': {'in': {'deep': 'x'}}, 'ss': <<'b', 'a'>>, 'ns': <<3, 1>>, 'it''s': 'quote'}$$);
SELECT pq($$INSERT INTO pqt VALUE {'pk': ?, 'sk': ?, 'x': ?}$$,
  '{"Parameters": [{"S": "a"}, {"N": "2"}, {"B": "AQI="}]}');
SELECT pq($$insert into "pqt" value {'pk': 'a', 'sk': 3, 'g': 'G1'};$$);
SELECT pq($$INSERT INTO "pqt" VALUE {'pk': 'b', 'sk': 1, 'x': 10}$$);
-- many items of other partitions: a key SELECT must not read them
SELECT count(pq(format($$INSERT INTO "pqt" VALUE {'pk': 'other%s', 'sk': %s, 'pad': '%s'}$$, i, i, repeat('p', 2000))))
  FROM generate_series(1, 40) i;
-- the item as stored: plain JSON
SELECT item FROM singletable.get_item('pqt', 'a', '1') item;

-- INSERT errors: the key exists (DuplicateItemException), a key attribute missing,
-- no such table, not a map, a set of mixed types
SELECT pq($$INSERT INTO "pqt" VALUE {'pk': 'a', 'sk': 1}$$);
SELECT pq($$INSERT INTO "pqt" VALUE {'pk': 'a'}$$);
SELECT pq($$INSERT INTO "nope" VALUE {'pk': 'a'}$$);
SELECT pq($$INSERT INTO "pqt" VALUE [1]$$);
SELECT pq($$INSERT INTO "pqt" VALUE {'pk': 'a', 'sk': 9, 's': <<'a', 1>>}$$);

-- SELECT: the partition key equal -> Query of its range only (0.5 capacity unit, not the table's)
SELECT pq($$SELECT * FROM "pqt" WHERE pk = 'a'$$, '{"ReturnConsumedCapacity": "TOTAL"}');
-- the whole table for comparison: a Scan reads the 40 wide items too
SELECT (pq($$SELECT * FROM "pqt"$$, '{"ReturnConsumedCapacity": "TOTAL"}')) -> 'ConsumedCapacity';
-- both keys equal -> GetItem; a projection
SELECT pq($$SELECT pk, m.in.deep, l[1] FROM "pqt" WHERE pk = 'a' AND sk = 1$$, '{"ReturnConsumedCapacity": "TOTAL"}');
-- a nested path answers under the name of its last step, as DynamoDB's PartiQL does; absent: left out
SELECT pq($$SELECT sk, m.in, l[2][0] FROM "pqt" WHERE pk = 'a'$$);
SELECT pq($$SELECT * FROM "pqt" WHERE 'a' = pk AND 9 = sk$$);
-- sort-key conditions: < <= > >= BETWEEN, reversed operands, ORDER BY DESC
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND sk > 1$$);
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND sk <= 2$$);
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND 2 < sk$$);
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND sk BETWEEN 2 AND 3 ORDER BY sk DESC$$);
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = ? ORDER BY sk DESC$$, '{"Parameters": [{"S": "a"}]}');
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' ORDER BY sk ASC$$);
-- a filter beside the key condition, on other attributes
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND g = 'G1' AND sk >= 1$$);
-- a global secondary index
SELECT pq($$SELECT pk, sk FROM "pqt"."gsi1" WHERE g = 'G1' ORDER BY g$$);
-- no key condition -> Scan with the WHERE as filter: operators and functions
SELECT pq($$SELECT pk, sk FROM "pqt" WHERE x = 10 OR (b = TRUE AND NOT n <> -150)$$);
SELECT pq($$SELECT pk, sk FROM "pqt" WHERE x IN [10, 11] OR sk IN (3)$$);
SELECT pq($$SELECT pk, sk FROM "pqt" WHERE begins_with(g, 'G') AND contains(ss, 'a')$$);
SELECT pq($$SELECT pk, sk FROM "pqt" WHERE attribute_type(x, 'B') AND size(x) = 2$$);
SELECT pq($$SELECT pk, sk FROM "pqt" WHERE g IS NOT MISSING AND z IS NULL$$);
SELECT pq($$SELECT pk, sk FROM "pqt" WHERE pk = 'b' AND g IS MISSING AND z IS NOT NULL$$);
SELECT pq($$SELECT pk, sk FROM "pqt" WHERE m.in.deep = 'x' AND l[2][0] = FALSE AND "it's" = 'quote'$$);
SELECT pq($$SELECT pk FROM "pqt" WHERE pk IN ['b', 'c'] AND z IS NOT NULL$$);
-- two range terms on the sort key: one key range of a Query (0.5 capacity unit, not
-- the Scan's 10): >= <= is BETWEEN; an excluded bound's item is read and left out
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND sk > 1 AND sk < 3$$, '{"ReturnConsumedCapacity": "TOTAL"}');
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND sk >= 1 AND sk <= 2$$, '{"ReturnConsumedCapacity": "TOTAL"}');
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND sk >= 1 AND sk < 3 ORDER BY sk DESC$$);
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND 3 >= sk AND 1 < sk$$);
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND sk < 3.0 AND sk > 1e0$$);
-- the projection without the sort key: still left out by it; an empty range (lo > hi, lo = hi excluded)
SELECT pq($$SELECT pk FROM "pqt" WHERE pk = 'a' AND sk > 1 AND sk <= 2$$);
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND sk > 3 AND sk < 1$$, '{"ReturnConsumedCapacity": "TOTAL"}');
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND sk > 2 AND sk <= 2$$);
-- with a filter; with Limit (the items evaluated: the excluded bound counts) and NextToken
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND sk > 1 AND sk <= 3 AND g = 'G1'$$);
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND sk > 1 AND sk <= 3$$, '{"Limit": 2}') - 'NextToken' AS page1,
       pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND sk > 1 AND sk <= 3$$, jsonb_build_object('NextToken',
          pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND sk > 1 AND sk <= 3$$, '{"Limit": 2}') ->> 'NextToken')) AS page2;
-- still a Scan: a third key term, two lower bounds, bounds of two types
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND sk > 1 AND sk < 3 AND sk <> 2$$, '{"ReturnConsumedCapacity": "TOTAL"}');
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND sk > 1 AND sk >= 2$$, '{"ReturnConsumedCapacity": "TOTAL"}');
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a' AND sk > 1 AND sk < 'z'$$, '{"ReturnConsumedCapacity": "TOTAL"}');
-- IN on the partition key: a Query each value, in the list's order, a repeated value
-- read once (0.5 capacity unit a value read, not the Scan's 10)
SELECT pq($$SELECT pk, sk FROM "pqt" WHERE pk IN ['b', 'a', 'none', 'b']$$, '{"ReturnConsumedCapacity": "TOTAL"}');
SELECT pq($$SELECT pk, sk FROM "pqt" WHERE pk IN ('a', 'b') AND sk >= 2 AND sk < 3$$);
SELECT pq($$SELECT sk FROM "pqt" WHERE pk IN [?, ?] AND sk = 1 AND x = 10$$, '{"Parameters": [{"S": "a"}, {"S": "b"}]}');
SELECT pq($$SELECT pk, sk FROM "pqt" WHERE pk IN ['a', 'b'] ORDER BY sk DESC$$);
-- ORDER BY the partition key: the values in its order (as DynamoDB Local), a repeated one once
SELECT pq($$SELECT pk, sk FROM "pqt" WHERE pk IN ['b', 'a', 'b'] AND sk = 1 ORDER BY pk$$);
SELECT pq($$SELECT pk, sk FROM "pqt" WHERE pk IN ['a', 'b', 'a'] AND sk = 1 ORDER BY pk DESC$$);
SELECT pq($$SELECT pk FROM "pqt"."gsi1" WHERE g IN ['G1', 'G2']$$, '{"ReturnConsumedCapacity": "INDEXES"}');
-- Limit across the Queries and NextToken ({"$in": position, "key": ...}) through every page
WITH RECURSIVE pages(n, res) AS (
  SELECT 1, pq($$SELECT pk, sk FROM "pqt" WHERE pk IN ['a', 'b']$$, '{"Limit": 2}')
  UNION ALL
  SELECT n + 1, pq($$SELECT pk, sk FROM "pqt" WHERE pk IN ['a', 'b']$$, jsonb_build_object('Limit', 2, 'NextToken', res ->> 'NextToken'))
  FROM pages WHERE res ? 'NextToken' AND n < 5)
SELECT n, res -> 'Items' AS items, res ? 'NextToken' AS more FROM pages;
-- a token of another statement; more than 50 values: a Scan with the filter (10 units)
SELECT pq($$SELECT pk FROM "pqt" WHERE pk = 'a'$$, jsonb_build_object('NextToken',
  pq($$SELECT pk, sk FROM "pqt" WHERE pk IN ['a', 'b']$$, '{"Limit": 1}') ->> 'NextToken'));
SELECT pq($$SELECT pk FROM "pqt" WHERE pk IN ['a', 'b']$$, jsonb_build_object('NextToken',
  pq($$SELECT pk, sk FROM "pqt" WHERE pk = 'a'$$, '{"Limit": 1}') ->> 'NextToken'));
-- tokens made by hand: a position outside the list, not an integer; the second value from its start
CREATE FUNCTION pq_token(t text) RETURNS jsonb LANGUAGE sql AS $$
  SELECT pq($q$SELECT pk FROM "pqt" WHERE pk IN ['a', 'b']$q$, jsonb_build_object('NextToken', encode(convert_to(t, 'UTF8'), 'base64'))) $$;
SELECT pq_token('{"$in": 2}');
SELECT pq_token('{"$in": 1e30}');
SELECT pq_token('{"$in": -1}');
SELECT pq_token('{"$in": 0.5}');
SELECT pq_token('{"$in": "1"}');
SELECT pq_token('{"$in": 1}');
DROP FUNCTION pq_token(text);
SELECT pq(format($$SELECT pk FROM "pqt" WHERE pk IN [%s] AND sk = 1$$,
                 (SELECT string_agg(format('''v%s''', i), ', ') FROM generate_series(1, 50) i) || ', ''b'''),
          '{"ReturnConsumedCapacity": "TOTAL"}');
-- in a batch: not a single item
SELECT singletable.dynamodb('BatchExecuteStatement', $${"Statements": [
  {"Statement": "SELECT * FROM \"pqt\" WHERE pk IN ['a', 'b'] AND sk = 1"}]}$$);
-- Limit and NextToken: the pages of a Query
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a'$$, '{"Limit": 2}') - 'NextToken' AS page1,
       pq($$SELECT sk FROM "pqt" WHERE pk = 'a'$$, '{"Limit": 2}') ? 'NextToken' AS more;
SELECT pq($$SELECT sk FROM "pqt" WHERE pk = 'a'$$,
  jsonb_build_object('Limit', 2, 'NextToken', pq($$SELECT sk FROM "pqt" WHERE pk = 'a'$$, '{"Limit": 2}') ->> 'NextToken'));
SELECT pq($$SELECT * FROM "pqt" WHERE pk = 'a'$$, '{"ConsistentRead": true, "Limit": 1}') -> 'Items' -> 0 -> 'sk';

-- SELECT errors
SELECT pq($$SELEC * FROM "pqt"$$);
SELECT pq($$SELECT * FROM "pqt" WHERE$$);
SELECT pq($$SELECT * FROM "pqt" WHERE pk = 'a' extra$$);
SELECT pq($$SELECT * FROM "pqt" WHERE pk = 'unterminated$$);
SELECT pq($$SELECT * FROM "pqt" WHERE pk = ?$$);
SELECT pq($$SELECT * FROM "pqt" WHERE pk = ?$$, '{"Parameters": [{"S": "a"}, {"S": "b"}]}');
SELECT pq($$SELECT * FROM "pqt" WHERE pk = ?$$, '{"Parameters": [{"Q": "a"}]}');
SELECT pq($$SELECT * FROM "pqt" ORDER BY sk DESC$$);
SELECT pq($$SELECT * FROM "pqt" WHERE x = 5 ORDER BY sk DESC$$);
SELECT pq($$SELECT * FROM "pqt" WHERE pk = 'a' ORDER BY x$$);
SELECT pq($$SELECT * FROM "pqt"."nogsi" WHERE g = 'G'$$);
SELECT pq($$SELECT * FROM "pqt" WHERE pk = 'a' AND begins_with(sk, 1)$$);
SELECT pq($$SELECT * FROM "pqt" WHERE pk = 'a'$$, '{"Limit": 0}');
SELECT pq($$SELECT * FROM "pqt" WHERE pk = 'a'$$, '{"NextToken": "!!"}');
SELECT pq($$SELECT * FROM "pqt" WHERE x < MISSING$$);
SELECT pq($$SELECT pk FROM "pqt" WHERE g = MISSING AND pk = 'b'$$);
SELECT pq($$SELECT * FROM "pqt" WHERE pk = 'a' AND sk > 1 AND sk < 3 AND sk <> 2 ORDER BY sk$$);
SELECT pq($$EXISTS(SELECT * FROM "pqt" WHERE pk = 'a' AND sk = 1)$$);
SELECT pq('SELECT * FROM "pqt" WHERE ' || repeat('NOT ', 40) || 'x = 1');
SELECT singletable.dynamodb('ExecuteStatement', '{}');

-- UPDATE: SET (values, arithmetic, list_append, if_not_exists, set_add, set_delete), REMOVE, RETURNING
SELECT pq($$UPDATE "pqt" SET x = x + 1, y = 'new', l = [0] REMOVE z WHERE pk = 'b' AND sk = 1 RETURNING ALL NEW *$$);
SELECT pq($$UPDATE "pqt" SET l = list_append(l, [4]) WHERE pk = 'b' AND sk = 1 RETURNING MODIFIED NEW *$$);
SELECT pq($$UPDATE "pqt" SET c = if_not_exists(c, 0) - 1 WHERE pk = 'b' AND sk = 1 RETURNING MODIFIED NEW *$$);
SELECT pq($$UPDATE "pqt" SET ss = set_add(ss, <<'c'>>) SET ns = set_delete(ns, <<1>>) WHERE pk = 'a' AND sk = 1 RETURNING MODIFIED OLD *$$);
SELECT pq($$UPDATE "pqt" SET x = 11 WHERE pk = 'b' AND sk = 1 AND x = 11 RETURNING ALL OLD *$$);
SELECT pq($$UPDATE "pqt" SET x = ? WHERE pk = ? AND sk = ? AND x > ?$$,
  '{"Parameters": [{"N": "12"}, {"S": "b"}, {"N": "1"}, {"N": "5"}]}');
SELECT item->'x' FROM singletable.get_item('pqt', 'b', '1') item;
-- UPDATE errors: no full key, a failed condition, no such item, a key attribute set
SELECT pq($$UPDATE "pqt" SET x = 7 WHERE pk = 'b'$$);
SELECT pq($$UPDATE "pqt" SET x = 7 WHERE pk = 'b' AND sk > 1$$);
SELECT pq($$UPDATE "pqt" SET x = 7 WHERE pk = 'b' AND sk = 1 AND x = 99$$);
SELECT pq($$UPDATE "pqt" SET x = 7 WHERE pk = 'zz' AND sk = 1$$);
SELECT pq($$UPDATE "pqt" SET sk = 3 WHERE pk = 'b' AND sk = 1$$);
SELECT pq($$UPDATE "pqt" WHERE pk = 'b' AND sk = 1$$);

-- DELETE: of an absent item (no error), with a condition, RETURNING ALL OLD *
SELECT pq($$DELETE FROM "pqt" WHERE pk = 'zz' AND sk = 1$$);
SELECT pq($$DELETE FROM "pqt" WHERE pk = 'a' AND sk = 3 AND g = 'nope'$$);
SELECT pq($$DELETE FROM "pqt" WHERE pk = 'a' AND sk = 3 AND g = 'G1' RETURNING ALL OLD *$$);
SELECT pq($$DELETE FROM "pqt" WHERE pk = 'a'$$);
SELECT pq($$DELETE FROM "pqt" WHERE pk = 'a' AND sk = 2 RETURNING ALL NEW *$$);

-- singletable.partiql: every page of the items, in plain JSON
SELECT * FROM singletable.partiql($$SELECT pk, sk, x FROM "pqt" WHERE pk IN ['a', 'b'] AND sk < 3$$);
SELECT singletable.partiql($$SELECT sk FROM "pqt" WHERE pk = ?$$, '[{"S": "a"}]');
SELECT count(*) FROM singletable.partiql($$SELECT * FROM "pqt" WHERE begins_with(pk, 'other')$$);
SELECT * FROM singletable.partiql($$INSERT INTO "pqh" VALUE {'id': 'sql', 'v': <<1, 2>>}$$);
SELECT * FROM singletable.partiql($$UPDATE "pqh" SET w = 1 WHERE id = 'sql' RETURNING ALL NEW *$$);
SELECT * FROM singletable.partiql(NULL);
SELECT * FROM singletable.partiql($$INSERT INTO "pqh" VALUE {'id': 'sql'}$$);

-- BatchExecuteStatement: reads (GetItem only), per-statement errors
SELECT singletable.dynamodb('BatchExecuteStatement', $${"Statements": [
  {"Statement": "SELECT pk, x FROM \"pqt\" WHERE pk = 'b' AND sk = 1"},
  {"Statement": "SELECT * FROM \"pqt\" WHERE pk = ? AND sk = ?", "Parameters": [{"S": "none"}, {"N": "1"}]},
  {"Statement": "SELECT * FROM \"pqt\" WHERE pk = 'a'"},
  {"Statement": "SELECT * FROM \"nope\" WHERE pk = 'a'"},
  {"Statement": "SELEC"}], "ReturnConsumedCapacity": "TOTAL"}$$);
-- writes: each on its own (the failed ones change nothing)
SELECT singletable.dynamodb('BatchExecuteStatement', $${"Statements": [
  {"Statement": "INSERT INTO \"pqh\" VALUE {'id': 'q'}"},
  {"Statement": "INSERT INTO \"pqh\" VALUE {'id': 'sql'}"},
  {"Statement": "UPDATE \"pqh\" SET a = 1 WHERE id = 'none'"},
  {"Statement": "UPDATE \"pqh\" SET a = 1 WHERE id = 'q'"},
  {"Statement": "DELETE FROM \"pqh\" WHERE id = 'sql'"},
  {"Statement": "EXISTS(SELECT * FROM \"pqh\" WHERE id = 'q')"}]}$$);
SELECT * FROM singletable.partiql($$SELECT * FROM "pqh"$$);
-- batch errors: reads and writes mixed, none, more than 25
SELECT singletable.dynamodb('BatchExecuteStatement', $${"Statements": [
  {"Statement": "SELECT * FROM \"pqh\" WHERE id = 'q'"}, {"Statement": "INSERT INTO \"pqh\" VALUE {'id': 'r'}"}]}$$);
SELECT singletable.dynamodb('BatchExecuteStatement', '{"Statements": []}');
SELECT singletable.dynamodb('BatchExecuteStatement', '{}');
SELECT singletable.dynamodb('BatchExecuteStatement',
  jsonb_build_object('Statements', (SELECT jsonb_agg(jsonb_build_object('Statement', 'SELECT * FROM "pqh" WHERE id = ''q''')) FROM generate_series(1, 26))));

-- ExecuteTransaction: writes all or nothing, with EXISTS as a condition check
SELECT singletable.dynamodb('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "INSERT INTO \"pqh\" VALUE {'id': 't1'}"},
  {"Statement": "UPDATE \"pqh\" SET a = a + 1 WHERE id = 'q'"},
  {"Statement": "EXISTS(SELECT * FROM \"pqt\" WHERE pk = 'b' AND sk = 1 AND x = 12)"},
  {"Statement": "DELETE FROM \"pqt\" WHERE pk = 'a' AND sk = 2"}], "ClientRequestToken": "tok-1"}$$);
SELECT * FROM singletable.partiql($$SELECT * FROM "pqh"$$);
-- the same token and request again: answered, not applied again
SELECT singletable.dynamodb('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "INSERT INTO \"pqh\" VALUE {'id': 't1'}"},
  {"Statement": "UPDATE \"pqh\" SET a = a + 1 WHERE id = 'q'"},
  {"Statement": "EXISTS(SELECT * FROM \"pqt\" WHERE pk = 'b' AND sk = 1 AND x = 12)"},
  {"Statement": "DELETE FROM \"pqt\" WHERE pk = 'a' AND sk = 2"}], "ClientRequestToken": "tok-1"}$$);
SELECT * FROM singletable.partiql($$SELECT a FROM "pqh" WHERE id = 'q'$$);
-- a failed condition cancels all: TransactionCanceledException with its reasons
SELECT singletable.dynamodb('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "INSERT INTO \"pqh\" VALUE {'id': 't2'}"},
  {"Statement": "INSERT INTO \"pqh\" VALUE {'id': 't1'}"}]}$$);
SELECT singletable.dynamodb('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "INSERT INTO \"pqh\" VALUE {'id': 't2'}"},
  {"Statement": "EXISTS(SELECT * FROM \"pqh\" WHERE id = 'q' AND a IS MISSING)"}]}$$);
SELECT * FROM singletable.partiql($$SELECT * FROM "pqh" WHERE id = 't2'$$);
-- reads: TransactGetItems
SELECT singletable.dynamodb('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "SELECT * FROM \"pqh\" WHERE id = 'q'"},
  {"Statement": "SELECT id FROM \"pqh\" WHERE id = 'none'"}]}$$);
-- transaction errors
SELECT singletable.dynamodb('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "SELECT * FROM \"pqh\" WHERE id = 'q'"}, {"Statement": "DELETE FROM \"pqh\" WHERE id = 'r'"}]}$$);
SELECT singletable.dynamodb('ExecuteTransaction', $${"TransactStatements": [{"Statement": "SELECT * FROM \"pqh\""}]}$$);
SELECT singletable.dynamodb('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "DELETE FROM \"pqh\" WHERE id = 'r'"}, {"Statement": "DELETE FROM \"pqh\" WHERE id = 'r'"}]}$$);
SELECT singletable.dynamodb('ExecuteTransaction', $${"TransactStatements": [{"Statement": "EXISTS(SELECT * FROM \"pqh\")"}]}$$);
SELECT singletable.dynamodb('ExecuteTransaction', '{"TransactStatements": []}');
SELECT singletable.dynamodb('ExecuteTransaction',
  jsonb_build_object('TransactStatements', (SELECT jsonb_agg(jsonb_build_object('Statement', format('DELETE FROM "pqh" WHERE id = ''%s''', i))) FROM generate_series(1, 101) i)));

-- DynamoDB's answers where DynamoDB Local differed (test/diff/partiql_local.py):
-- REMOVE takes one path a keyword; SET a = .. SET b = ..
SELECT pq($$INSERT INTO "pqh" VALUE {'id': 'd1', 'a': 1, 'b': 2, 'c': [1, 2], 'm': {'k': 1}}$$);
SELECT pq($$UPDATE "pqh" REMOVE a, b WHERE id = 'd1'$$);
SELECT pq($$UPDATE "pqh" REMOVE a REMOVE b SET x = 1 SET y = 2 WHERE id = 'd1' RETURNING ALL NEW *$$);
-- an update's overlapping paths: DynamoDB's message without UpdateItem's "Invalid UpdateExpression: "
SELECT pq($$UPDATE "pqh" SET c = [3] REMOVE c[0] WHERE id = 'd1'$$);
-- selected paths overlapping; key values of the wrong type; a key missing from an INSERT
SELECT pq($$SELECT c, c[0] FROM "pqh" WHERE id = 'd1'$$);
SELECT pq($$SELECT m.k, x, m FROM "pqh" WHERE id = 'd1'$$);
SELECT pq($$SELECT * FROM "pqt" WHERE pk = 'a' AND sk = 'x'$$);
SELECT pq($$UPDATE "pqt" SET x = 1 WHERE pk = 1 AND sk = 1$$);
SELECT pq($$INSERT INTO "pqt" VALUE {'pk': 'a', 'sk': 'x'}$$);
SELECT pq($$INSERT INTO "pqt" VALUE {'sk': 1}$$);
-- two equalities on one key attribute: DynamoDB's error, not a false condition
SELECT pq($$UPDATE "pqt" SET x = 1 WHERE pk = 'a' AND sk = 1 AND sk = 2$$);
SELECT pq($$DELETE FROM "pqt" WHERE pk = 'a' AND pk = 'b' AND sk = 1$$);
-- DELETE with a condition: an absent item is no error (nothing to delete), a present one is checked
SELECT pq($$DELETE FROM "pqh" WHERE id = 'absent' AND x = 1$$);
SELECT pq($$DELETE FROM "pqh" WHERE id = 'd1' AND x = 5$$);
SELECT pq($$DELETE FROM "pqh" WHERE id = 'd1' AND x = 1 RETURNING ALL OLD *$$);
-- a batch naming one item twice is refused as BatchGetItem and BatchWriteItem refuse it
SELECT singletable.dynamodb('BatchExecuteStatement', $${"Statements": [
  {"Statement": "SELECT * FROM \"pqh\" WHERE id = 'q'"}, {"Statement": "SELECT a FROM \"pqh\" WHERE id = ?", "Parameters": [{"S": "q"}]}]}$$);
SELECT singletable.dynamodb('BatchExecuteStatement', $${"Statements": [
  {"Statement": "INSERT INTO \"pqh\" VALUE {'id': 'd2'}"}, {"Statement": "DELETE FROM \"pqh\" WHERE id = 'd2'"}]}$$);
SELECT * FROM singletable.partiql($$SELECT * FROM "pqh" WHERE id = 'd2'$$);
-- a batch's and a transaction's reads answer nested paths in the item's structure (as a
-- ProjectionExpression); an item's ValidationError in a batch names its table
SELECT singletable.dynamodb('BatchExecuteStatement', $${"Statements": [
  {"Statement": "SELECT m.in.deep, l[1] FROM \"pqt\" WHERE pk = 'a' AND sk = 1"}]}$$);
SELECT singletable.dynamodb('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "SELECT m.in.deep, l[1] FROM \"pqt\" WHERE pk = 'a' AND sk = 1"}]}$$);
SELECT singletable.dynamodb('BatchExecuteStatement', $${"Statements": [
  {"Statement": "UPDATE \"pqh\" SET nope.k = 1 WHERE id = 'q'"}]}$$);
-- UPDATE or DELETE without WHERE: no key; a batch's read of an index: not one item
SELECT pq($$UPDATE "pqh" SET x = 1$$);
SELECT pq($$DELETE FROM "pqh"$$);
SELECT singletable.dynamodb('BatchExecuteStatement', $${"Statements": [
  {"Statement": "SELECT * FROM \"pqt\".\"nogsi\" WHERE g = 'G1'"}]}$$);
-- a transaction: RETURNING is refused; EXISTS needs a condition besides the key
SELECT singletable.dynamodb('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "UPDATE \"pqh\" SET a = 1 WHERE id = 'q' RETURNING ALL NEW *"}]}$$);
SELECT singletable.dynamodb('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "UPDATE \"pqh\" SET a = 1 WHERE id = 'q'"}, {"Statement": "EXISTS(SELECT * FROM \"pqt\" WHERE pk = 'b' AND sk = 1)"}]}$$);

-- an index of multi-attribute keys: its SELECT is a Scan of the index, the WHERE its filter
SELECT singletable.dynamodb('CreateTable', '{"TableName": "pq_multi", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "st", "AttributeType": "S"},
                           {"AttributeName": "d", "AttributeType": "S"}, {"AttributeName": "t", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "sched", "Projection": {"ProjectionType": "ALL"},
     "KeySchema": [{"AttributeName": "st", "KeyType": "HASH"}, {"AttributeName": "d", "KeyType": "RANGE"},
                   {"AttributeName": "t", "KeyType": "RANGE"}]}]}') IS NOT NULL AS created;
SELECT count(*) FROM singletable.partiql($$INSERT INTO "pq_multi" VALUE {'pk': 'a', 'st': 'approved', 'd': '2026-06-24', 't': '09:00'}$$)
  UNION ALL SELECT count(*) FROM singletable.partiql($$INSERT INTO "pq_multi" VALUE {'pk': 'b', 'st': 'approved', 'd': '2026-06-24', 't': '11:00'}$$)
  UNION ALL SELECT count(*) FROM singletable.partiql($$INSERT INTO "pq_multi" VALUE {'pk': 'c', 'st': 'draft', 'd': '2026-06-24'}$$);
SELECT * FROM singletable.partiql($$SELECT pk, t FROM "pq_multi"."sched" WHERE st = 'approved' AND d = '2026-06-24' AND t > '10:00'$$);
SELECT * FROM singletable.partiql($$SELECT pk FROM "pq_multi"."sched" WHERE st = 'approved'$$);
SELECT singletable.dynamodb('DeleteTable', '{"TableName": "pq_multi"}') IS NOT NULL AS dropped;

-- the token stays 10 minutes: removed, as the suites share the database
DELETE FROM singletable.client_request_tokens WHERE token = 'tok-1';
SELECT singletable.dynamodb('DeleteTable', '{"TableName": "pqt"}') IS NOT NULL AS dropped;
SELECT singletable.dynamodb('DeleteTable', '{"TableName": "pqh"}') IS NOT NULL AS dropped;
DROP FUNCTION pq(text, jsonb);
