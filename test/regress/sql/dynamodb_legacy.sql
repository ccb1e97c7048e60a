-- dynamodb_legacy: DynamoDB's legacy (non-expression) parameters in
-- singletable.dynamodb (src/api/dynamodb_legacy.c): AttributesToGet, KeyConditions,
-- QueryFilter, ScanFilter, Expected, AttributeUpdates, ConditionalOperator —
-- every comparison operator in each place, and each validation error
SET client_min_messages = warning;

-- setup
CREATE FUNCTION ddb(op text, req jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT singletable.dynamodb(op, req) $$;
-- the sort keys of a Query or Scan response, in order (Scan: sorted)
CREATE FUNCTION sks(r jsonb, sorted bool DEFAULT false) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(string_agg(x, ' ' ORDER BY CASE WHEN sorted THEN x END, o), '-')
  FROM jsonb_array_elements_text(jsonb_path_query_array(r, '$.Items[*].sk.S')) WITH ORDINALITY e(x, o) $$;
-- 'ok', or the DynamoDB exception and message of the error
CREATE FUNCTION outcome(op text, req jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  d text;
BEGIN
  PERFORM singletable.dynamodb(op, req);
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN split_part(d::jsonb ->> '__type', '#', 2) || ': ' || (d::jsonb ->> 'message');
END $$;

SELECT ddb('CreateTable', '{"TableName": "Legacy",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
  "BillingMode": "PAY_PER_REQUEST"}') -> 'TableDescription' -> 'TableStatus';
SELECT ddb('PutItem', '{"TableName": "Legacy", "Item": {"pk": {"S": "p"}, "sk": {"S": "a1"},
  "s": {"S": "apple"}, "n": {"N": "5"}, "b": {"B": "AQID"}, "ss": {"SS": ["x", "y"]}, "ns": {"NS": ["1", "2"]},
  "l": {"L": [{"S": "x"}, {"N": "1"}]}, "m": {"M": {"k": {"S": "v"}}}, "t": {"BOOL": true},
  "dotted.name": {"S": "d"}, "size": {"S": "reserved word"}}}');
SELECT ddb('PutItem', '{"TableName": "Legacy", "Item": {"pk": {"S": "p"}, "sk": {"S": "a2"},
  "s": {"S": "banana"}, "n": {"N": "10"}, "b": {"B": "AgM="}, "ss": {"SS": ["y", "z"]}, "ns": {"NS": ["2", "3"]},
  "l": {"L": [{"S": "y"}]}, "m": {"M": {"k": {"S": "w"}}}, "t": {"BOOL": false}}}');
SELECT ddb('PutItem', '{"TableName": "Legacy", "Item": {"pk": {"S": "p"}, "sk": {"S": "b1"},
  "s": {"S": "cherry"}, "n": {"N": "15"}, "ss": {"SS": ["x"]}}}');
-- b2 has none of the attributes the filters test
SELECT ddb('PutItem', '{"TableName": "Legacy", "Item": {"pk": {"S": "p"}, "sk": {"S": "b2"}}}');
SELECT ddb('PutItem', '{"TableName": "Legacy", "Item": {"pk": {"S": "q"}, "sk": {"S": "a1"}, "n": {"N": "5"}}}');

-- tests

-- AttributesToGet: GetItem, names that are reserved words or hold a dot (a literal character)
SELECT ddb('GetItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "a1"}},
  "AttributesToGet": ["s", "dotted.name", "size", "absent"]}');
-- Query, Scan (with Select SPECIFIC_ATTRIBUTES), BatchGetItem (one table with, one entry without)
SELECT ddb('Query', '{"TableName": "Legacy", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}},
  "AttributesToGet": ["n", "sk"], "Limit": 2}');
SELECT ddb('Scan', '{"TableName": "Legacy", "AttributesToGet": ["n"], "Select": "SPECIFIC_ATTRIBUTES",
  "ScanFilter": {"n": {"ComparisonOperator": "GE", "AttributeValueList": [{"N": "15"}]}}}');
SELECT ddb('BatchGetItem', '{"RequestItems": {"Legacy": {"Keys": [{"pk": {"S": "p"}, "sk": {"S": "a1"}}],
  "AttributesToGet": ["s", "t"], "ConsistentRead": true}}}');

-- KeyConditions: EQ alone, then every operator DynamoDB allows on the sort key
SELECT sks(ddb('Query', '{"TableName": "Legacy", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}}}'));
SELECT op, sks(ddb('Query', jsonb_build_object('TableName', 'Legacy', 'KeyConditions', jsonb_build_object(
         'pk', '{"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}'::jsonb,
         'sk', jsonb_build_object('ComparisonOperator', op, 'AttributeValueList', avl)))))
FROM (VALUES ('EQ', '[{"S": "a2"}]'::jsonb), ('LE', '[{"S": "a2"}]'), ('LT', '[{"S": "a2"}]'),
             ('GE', '[{"S": "a2"}]'), ('GT', '[{"S": "a2"}]'), ('BEGINS_WITH', '[{"S": "b"}]'),
             ('BETWEEN', '[{"S": "a2"}, {"S": "b1"}]')) v(op, avl);
-- with ScanIndexForward, and with an expression of the caller's (the one mix DynamoDB allows):
-- placeholders of the caller's that look like the generated ones do not collide
SELECT sks(ddb('Query', '{"TableName": "Legacy", "ScanIndexForward": false,
  "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}},
  "FilterExpression": "#l0 > :l0 OR #l_1 = :l_1",
  "ExpressionAttributeNames": {"#l0": "n", "#l_1": "s"},
  "ExpressionAttributeValues": {":l0": {"N": "7"}, ":l_1": {"S": "apple"}}}'));

-- QueryFilter: every operator (b2 lacks every attribute: only NE and NULL match it;
-- NOT_CONTAINS does not, as in DynamoDB)
SELECT op, attr, sks(ddb('Query', jsonb_build_object('TableName', 'Legacy',
         'KeyConditions', '{"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}}'::jsonb,
         'QueryFilter', jsonb_build_object(attr, jsonb_build_object('ComparisonOperator', op, 'AttributeValueList', avl)))))
FROM (VALUES ('EQ', 'n', '[{"N": "10.0"}]'::jsonb), ('EQ', 'ss', '[{"SS": ["y", "x"]}]'),
             ('EQ', 'l', '[{"L": [{"S": "y"}]}]'), ('EQ', 'm', '[{"M": {"k": {"S": "v"}}}]'), ('EQ', 't', '[{"BOOL": false}]'),
             ('NE', 'n', '[{"N": "10"}]'), ('NE', 's', '[{"N": "10"}]'),
             ('LE', 'n', '[{"N": "10"}]'), ('LT', 'n', '[{"N": "10"}]'), ('GE', 'n', '[{"N": "10"}]'), ('GT', 'n', '[{"N": "10"}]'),
             ('LT', 's', '[{"S": "b"}]'), ('GT', 'b', '[{"B": "AQ=="}]'),
             ('NOT_NULL', 'ss', '[]'), ('NULL', 'ss', '[]'),
             ('CONTAINS', 's', '[{"S": "an"}]'), ('CONTAINS', 'ss', '[{"S": "x"}]'), ('CONTAINS', 'ns', '[{"N": "2"}]'),
             ('CONTAINS', 'l', '[{"S": "x"}]'), ('CONTAINS', 'b', '[{"B": "Ag=="}]'),
             ('NOT_CONTAINS', 'ss', '[{"S": "x"}]'), ('NOT_CONTAINS', 's', '[{"S": "an"}]'),
             ('BEGINS_WITH', 's', '[{"S": "ba"}]'), ('BEGINS_WITH', 'b', '[{"B": "AQ=="}]'),
             ('IN', 'n', '[{"N": "5"}, {"N": "15"}, {"N": "99"}]'), ('IN', 's', '[{"S": "cherry"}]'),
             ('BETWEEN', 'n', '[{"N": "5"}, {"N": "10"}]'), ('BETWEEN', 's', '[{"S": "b"}, {"S": "c"}]')) v(op, attr, avl);
-- several conditions: AND by default and with ConditionalOperator AND, OR with OR
SELECT c, sks(ddb('Query', jsonb_build_object('TableName', 'Legacy',
         'KeyConditions', '{"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}}'::jsonb,
         'QueryFilter', '{"n": {"ComparisonOperator": "GE", "AttributeValueList": [{"N": "10"}]},
                          "ss": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"S": "x"}]}}'::jsonb)
         || coalesce(jsonb_build_object('ConditionalOperator', c), '{}')))
FROM (VALUES (NULL), ('AND'), ('OR')) v(c);
-- ConditionalOperator OR over a NOT_CONTAINS (a parenthesised pair) and a NULL
SELECT sks(ddb('Query', '{"TableName": "Legacy", "ConditionalOperator": "OR",
  "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}},
  "QueryFilter": {"ss": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "y"}]},
                  "n": {"ComparisonOperator": "NULL"}}}'));
-- the filter runs after Limit, as FilterExpression does: Count and ScannedCount
SELECT ddb('Query', '{"TableName": "Legacy", "Limit": 2, "Select": "COUNT",
  "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}},
  "QueryFilter": {"n": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "5"}]}}}') - 'LastEvaluatedKey';

-- ScanFilter: every operator, over both partitions (the filter may name key attributes)
SELECT op, attr, sks(ddb('Scan', jsonb_build_object('TableName', 'Legacy',
         'ScanFilter', jsonb_build_object(attr, jsonb_build_object('ComparisonOperator', op, 'AttributeValueList', avl)))), true)
FROM (VALUES ('EQ', 'n', '[{"N": "5"}]'::jsonb), ('NE', 'n', '[{"N": "5"}]'), ('LE', 'n', '[{"N": "10"}]'),
             ('LT', 'n', '[{"N": "10"}]'), ('GE', 'n', '[{"N": "10"}]'), ('GT', 'n', '[{"N": "10"}]'),
             ('NOT_NULL', 'n', '[]'), ('NULL', 'n', '[]'), ('CONTAINS', 'ss', '[{"S": "y"}]'),
             ('NOT_CONTAINS', 'ss', '[{"S": "y"}]'), ('BEGINS_WITH', 'sk', '[{"S": "b"}]'),
             ('IN', 'pk', '[{"S": "q"}, {"S": "r"}]'), ('BETWEEN', 'n', '[{"N": "6"}, {"N": "15"}]')) v(op, attr, avl);
SELECT sks(ddb('Scan', '{"TableName": "Legacy", "ConditionalOperator": "OR",
  "ScanFilter": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "q"}]},
                 "s": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "cherry"}]}}}'), true);

-- Expected, ComparisonOperator form: every operator as the condition of an UpdateItem
-- that changes nothing (a Key alone), on the item a1
SELECT op, attr, outcome('UpdateItem', jsonb_build_object('TableName', 'Legacy', 'Key', '{"pk": {"S": "p"}, "sk": {"S": "a1"}}'::jsonb,
         'Expected', jsonb_build_object(attr, jsonb_build_object('ComparisonOperator', op) ||
                                              CASE WHEN avl IS NULL THEN '{}' ELSE jsonb_build_object('AttributeValueList', avl) END)))
FROM (VALUES ('EQ', 'n', '[{"N": "5"}]'::jsonb), ('EQ', 'n', '[{"N": "6"}]'), ('NE', 'n', '[{"N": "5"}]'),
             ('NE', 'absent', '[{"N": "5"}]'), ('LE', 'n', '[{"N": "5"}]'), ('LT', 'n', '[{"N": "5"}]'),
             ('GE', 's', '[{"S": "apple"}]'), ('GT', 's', '[{"S": "apple"}]'),
             ('NOT_NULL', 'n', NULL), ('NOT_NULL', 'absent', NULL), ('NULL', 'absent', NULL), ('NULL', 'n', NULL),
             ('CONTAINS', 'ns', '[{"N": "1"}]'), ('CONTAINS', 'ns', '[{"N": "3"}]'),
             ('NOT_CONTAINS', 'ns', '[{"N": "3"}]'), ('NOT_CONTAINS', 'absent', '[{"N": "3"}]'),
             ('BEGINS_WITH', 's', '[{"S": "app"}]'), ('BEGINS_WITH', 's', '[{"S": "pp"}]'),
             ('IN', 's', '[{"S": "pear"}, {"S": "apple"}]'), ('IN', 's', '[{"S": "pear"}]'),
             ('BETWEEN', 'n', '[{"N": "5"}, {"N": "5"}]'), ('BETWEEN', 'n', '[{"N": "6"}, {"N": "7"}]')) v(op, attr, avl);
-- the ComparisonOperator form with Value instead of AttributeValueList
SELECT outcome('DeleteItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "b2"}},
  "Expected": {"sk": {"ComparisonOperator": "EQ", "Value": {"S": "b1"}}}}');
-- Value/Exists form: Value alone is EQ; Exists true with a Value; Exists false
SELECT outcome('PutItem', '{"TableName": "Legacy", "Item": {"pk": {"S": "p"}, "sk": {"S": "a1"}, "s": {"S": "apple"}, "n": {"N": "5"}},
  "Expected": {"s": {"Value": {"S": "pear"}}}}');
SELECT outcome('PutItem', '{"TableName": "Legacy", "Item": {"pk": {"S": "p"}, "sk": {"S": "c1"}, "n": {"N": "1"}},
  "Expected": {"sk": {"Exists": false}}}');
SELECT outcome('PutItem', '{"TableName": "Legacy", "Item": {"pk": {"S": "p"}, "sk": {"S": "c1"}, "n": {"N": "2"}},
  "Expected": {"sk": {"Exists": false}}}');
SELECT outcome('PutItem', '{"TableName": "Legacy", "Item": {"pk": {"S": "p"}, "sk": {"S": "c1"}, "n": {"N": "2"}},
  "Expected": {"n": {"Exists": true, "Value": {"N": "1"}}}}');
SELECT ddb('GetItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "c1"}}}');
-- several conditions: AND fails if one fails, OR succeeds if one holds
SELECT c, outcome('DeleteItem', jsonb_build_object('TableName', 'Legacy', 'Key', '{"pk": {"S": "p"}, "sk": {"S": "c1"}}'::jsonb,
         'Expected', '{"n": {"Value": {"N": "1"}}, "sk": {"Exists": true, "Value": {"S": "c1"}}}'::jsonb,
         'ReturnValues', 'ALL_OLD') || coalesce(jsonb_build_object('ConditionalOperator', c), '{}'))
FROM (VALUES ('AND'), ('OR')) v(c);
SELECT ddb('GetItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "c1"}}}');
-- a failed condition can return the item (ReturnValuesOnConditionCheckFailure)
SELECT outcome('DeleteItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "b2"}},
  "Expected": {"n": {"ComparisonOperator": "NOT_NULL"}}, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}');

-- AttributeUpdates: PUT (and the default action), ADD to a number, a set and a list, DELETE of
-- set elements and of an attribute, with ReturnValues
SELECT ddb('UpdateItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "a2"}}, "ReturnValues": "ALL_NEW",
  "AttributeUpdates": {"s": {"Action": "PUT", "Value": {"S": "blueberry"}}, "new": {"Value": {"S": "default PUT"}},
    "n": {"Action": "ADD", "Value": {"N": "-2.5"}}, "ss": {"Action": "ADD", "Value": {"SS": ["w", "y"]}},
    "l": {"Action": "ADD", "Value": {"L": [{"N": "2"}]}}, "ns": {"Action": "DELETE", "Value": {"NS": ["2", "9"]}},
    "m": {"Action": "DELETE"}, "absent": {"Action": "DELETE"}}}');
-- ADD to absent attributes; deleting the last element of a set removes the attribute
SELECT ddb('UpdateItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "b1"}}, "ReturnValues": "UPDATED_NEW",
  "AttributeUpdates": {"count": {"Action": "ADD", "Value": {"N": "1"}}, "tags": {"Action": "ADD", "Value": {"SS": ["t"]}},
    "log": {"Action": "ADD", "Value": {"L": [{"S": "e"}]}}, "ss": {"Action": "DELETE", "Value": {"SS": ["x"]}}}}');
SELECT ddb('GetItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "b1"}}}');
-- an absent item is created with its key, with Expected on it
SELECT ddb('UpdateItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "d1"}}, "ReturnValues": "ALL_NEW",
  "Expected": {"pk": {"Exists": false}},
  "AttributeUpdates": {"count": {"Action": "ADD", "Value": {"N": "1"}}, "gone": {"Action": "DELETE"}}}');
SELECT outcome('UpdateItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "d1"}},
  "Expected": {"pk": {"Exists": false}}, "AttributeUpdates": {"count": {"Action": "ADD", "Value": {"N": "1"}}}}');
-- an empty AttributeUpdates is an UpdateItem with a Key alone
SELECT ddb('UpdateItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "d1"}}, "AttributeUpdates": {}, "ReturnValues": "ALL_NEW"}');
-- ADD of a number to a string is the update's type error
SELECT outcome('UpdateItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "a1"}},
  "AttributeUpdates": {"s": {"Action": "ADD", "Value": {"N": "1"}}}}');

-- invalid input: legacy and expression parameters mixed
SELECT outcome('GetItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "a1"}}, "AttributesToGet": ["s"], "ProjectionExpression": "s"}');
SELECT outcome('Query', '{"TableName": "Legacy", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}},
  "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}}}');
SELECT outcome('Query', '{"TableName": "Legacy", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}},
  "AttributesToGet": ["s"], "QueryFilter": {"s": {"ComparisonOperator": "NULL"}}, "ProjectionExpression": "s", "FilterExpression": "attribute_exists(n)"}');
SELECT outcome('Scan', '{"TableName": "Legacy", "ScanFilter": {}, "ConditionalOperator": "OR", "FilterExpression": "attribute_exists(n)"}');
SELECT outcome('PutItem', '{"TableName": "Legacy", "Item": {"pk": {"S": "p"}, "sk": {"S": "x"}}, "Expected": {}, "ConditionExpression": "attribute_exists(n)"}');
SELECT outcome('UpdateItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "x"}}, "AttributeUpdates": {}, "Expected": {},
  "UpdateExpression": "SET n = :n", "ExpressionAttributeValues": {":n": {"N": "1"}}}');
SELECT outcome('DeleteItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "x"}}, "ConditionalOperator": "AND", "ConditionExpression": "attribute_exists(n)"}');
SELECT outcome('BatchGetItem', '{"RequestItems": {"Legacy": {"Keys": [{"pk": {"S": "p"}, "sk": {"S": "a1"}}], "AttributesToGet": ["s"], "ProjectionExpression": "s"}}}');
-- ExpressionAttributeNames / Values without an expression
SELECT outcome('GetItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "a1"}}, "AttributesToGet": ["s"], "ExpressionAttributeNames": {"#s": "s"}}');
SELECT outcome('PutItem', '{"TableName": "Legacy", "Item": {"pk": {"S": "p"}, "sk": {"S": "x"}}, "Expected": {}, "ExpressionAttributeValues": {":v": {"S": "s"}}}');
SELECT outcome('Query', '{"TableName": "Legacy", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}},
  "ProjectionExpression": "s", "ExpressionAttributeValues": {":v": {"S": "s"}}}');
SELECT outcome('UpdateItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "x"}}, "AttributeUpdates": {}, "ExpressionAttributeValues": {":v": {"S": "s"}}}');
SELECT outcome('BatchGetItem', '{"RequestItems": {"Legacy": {"Keys": [{"pk": {"S": "p"}, "sk": {"S": "a1"}}], "AttributesToGet": ["s"], "ExpressionAttributeNames": {"#s": "s"}}}}');

-- invalid input: the constraints of the legacy members (reported together)
SELECT outcome('Query', '{"TableName": "Legacy", "ConditionalOperator": "XOR",
  "KeyConditions": {"pk": {"ComparisonOperator": "eq", "AttributeValueList": [{"S": "p"}]}, "sk": {"AttributeValueList": []}},
  "QueryFilter": {"n": {"ComparisonOperator": "DOG"}}}');
SELECT outcome('Scan', '{"TableName": "Legacy", "ScanFilter": {"n": {"AttributeValueList": [{"N": "1"}]}}}');
SELECT outcome('PutItem', '{"TableName": "Legacy", "Item": {"pk": {"S": "p"}, "sk": {"S": "x"}}, "Expected": {"n": {"ComparisonOperator": "LIKE"}}}');
SELECT outcome('UpdateItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "x"}}, "AttributeUpdates": {"n": {"Action": "SET", "Value": {"N": "1"}}}}');
SELECT outcome('GetItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "a1"}}, "AttributesToGet": []}');
SELECT outcome('GetItem', jsonb_build_object('TableName', 'Legacy', 'Key', '{"pk": {"S": "p"}, "sk": {"S": "a1"}}'::jsonb,
  'AttributesToGet', (SELECT jsonb_agg('a' || i) FROM generate_series(1, 256) i))) ~ 'length less than or equal to 255';
SELECT outcome('BatchGetItem', '{"RequestItems": {"Legacy": {"Keys": [{"pk": {"S": "p"}, "sk": {"S": "a1"}}], "AttributesToGet": []}}}');
-- JSON of the wrong type
SELECT outcome('GetItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "a1"}}, "AttributesToGet": "s"}');
SELECT outcome('GetItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "a1"}}, "AttributesToGet": [1]}');
SELECT outcome('Scan', '{"TableName": "Legacy", "ScanFilter": {"n": "EQ"}}');
SELECT outcome('Scan', '{"TableName": "Legacy", "ScanFilter": {"n": {"ComparisonOperator": "EQ", "AttributeValueList": {"N": "1"}}}}');
SELECT outcome('PutItem', '{"TableName": "Legacy", "Item": {"pk": {"S": "p"}, "sk": {"S": "x"}}, "Expected": {"n": {"Exists": "no"}}}');

-- invalid input: DynamoDB's operand rules
-- the number of values of each operator
SELECT op, n, outcome('Scan', jsonb_build_object('TableName', 'Legacy', 'ScanFilter', jsonb_build_object('n',
         jsonb_build_object('ComparisonOperator', op, 'AttributeValueList', (SELECT coalesce(jsonb_agg(jsonb_build_object('N', i::text)), '[]') FROM generate_series(1, n) i)))))
FROM (VALUES ('EQ', 0), ('NE', 2), ('LE', 0), ('LT', 2), ('GE', 0), ('GT', 2), ('NULL', 1), ('NOT_NULL', 1),
             ('CONTAINS', 0), ('NOT_CONTAINS', 2), ('BEGINS_WITH', 0), ('IN', 0), ('BETWEEN', 1), ('BETWEEN', 3)) v(op, n);
-- the types each operator takes
SELECT op, outcome('Scan', jsonb_build_object('TableName', 'Legacy', 'ScanFilter', jsonb_build_object('n',
         jsonb_build_object('ComparisonOperator', op, 'AttributeValueList', avl))))
FROM (VALUES ('LT', '[{"SS": ["a"]}]'::jsonb), ('LE', '[{"L": []}]'), ('GT', '[{"M": {}}]'), ('GE', '[{"BOOL": true}]'),
             ('CONTAINS', '[{"NS": ["1"]}]'), ('NOT_CONTAINS', '[{"NULL": true}]'), ('BEGINS_WITH', '[{"N": "1"}]'),
             ('IN', '[{"BS": ["AQ=="]}]'), ('BETWEEN', '[{"L": []}, {"L": []}]'),
             ('IN', '[{"S": "a"}, {"N": "1"}]'), ('BETWEEN', '[{"S": "a"}, {"N": "1"}]'),
             ('BETWEEN', '[{"N": "10"}, {"N": "9"}]'), ('BETWEEN', '[{"S": "b"}, {"S": "a"}]')) v(op, avl);
-- a malformed value has the message of the legacy form
SELECT outcome('Scan', '{"TableName": "Legacy", "ScanFilter": {"ss": {"ComparisonOperator": "EQ", "AttributeValueList": [{"SS": []}]}}}');
SELECT outcome('PutItem', '{"TableName": "Legacy", "Item": {"pk": {"S": "p"}, "sk": {"S": "x"}}, "Expected": {"n": {"Value": {"N": "1e"}}}}');
SELECT outcome('UpdateItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "x"}}, "AttributeUpdates": {"n": {"Value": {"NULL": false}}}}');

-- invalid input: Expected's members
SELECT attr, outcome('PutItem', jsonb_build_object('TableName', 'Legacy', 'Item', '{"pk": {"S": "p"}, "sk": {"S": "x"}}'::jsonb,
         'Expected', jsonb_build_object(attr, cond)))
FROM (VALUES ('both', '{"Value": {"N": "1"}, "AttributeValueList": [{"N": "1"}], "ComparisonOperator": "EQ"}'::jsonb),
             ('exists_op', '{"Exists": true, "ComparisonOperator": "NULL"}'),
             ('no_value', '{"ComparisonOperator": "GT"}'),
             ('list_no_op', '{"AttributeValueList": [{"N": "1"}]}'),
             ('exists_null', '{}'),
             ('exists_true', '{"Exists": true}'),
             ('exists_false', '{"Exists": false, "Value": {"N": "1"}}'),
             ('op_value_count', '{"ComparisonOperator": "NULL", "Value": {"N": "1"}}')) v(attr, cond);

-- invalid input: KeyConditions
SELECT outcome('Query', '{"TableName": "Legacy", "KeyConditions": {}}');
SELECT outcome('Query', '{"TableName": "Legacy", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]},
  "sk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}, "n": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "1"}]}}}');
SELECT op, outcome('Query', jsonb_build_object('TableName', 'Legacy', 'KeyConditions', jsonb_build_object(
         'pk', '{"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}'::jsonb,
         'sk', jsonb_build_object('ComparisonOperator', op) || CASE WHEN op LIKE '%NULL' THEN '{}' ELSE '{"AttributeValueList": [{"S": "a"}]}' END::jsonb)))
FROM (VALUES ('NE'), ('NULL'), ('NOT_NULL'), ('CONTAINS'), ('NOT_CONTAINS'), ('IN')) v(op);
-- the key checks of KeyConditionExpression apply
SELECT outcome('Query', '{"TableName": "Legacy", "KeyConditions": {"sk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a1"}]}}}');
SELECT outcome('Query', '{"TableName": "Legacy", "KeyConditions": {"pk": {"ComparisonOperator": "GT", "AttributeValueList": [{"S": "p"}]}}}');
SELECT outcome('Query', '{"TableName": "Legacy", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "1"}]}}}');

-- invalid input: AttributesToGet
SELECT outcome('Query', '{"TableName": "Legacy", "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}},
  "AttributesToGet": ["s", "n", "t", "n", "s"]}');
SELECT outcome('BatchGetItem', '{"RequestItems": {"Legacy": {"Keys": [{"pk": {"S": "p"}, "sk": {"S": "a1"}}], "AttributesToGet": ["s", "s"]}}}');
SELECT sel, outcome('Scan', jsonb_build_object('TableName', 'Legacy', 'AttributesToGet', '["s"]'::jsonb, 'Select', sel))
FROM (VALUES ('ALL_ATTRIBUTES'), ('COUNT'), ('SPECIFIC_ATTRIBUTES')) v(sel);

-- invalid input: AttributeUpdates
SELECT attr, outcome('UpdateItem', jsonb_build_object('TableName', 'Legacy', 'Key', '{"pk": {"S": "p"}, "sk": {"S": "x"}}'::jsonb,
         'AttributeUpdates', jsonb_build_object(attr, upd)))
FROM (VALUES ('put_no_value', '{"Action": "PUT"}'::jsonb), ('default_no_value', '{}'),
             ('add_no_value', '{"Action": "ADD"}'), ('delete_string', '{"Action": "DELETE", "Value": {"S": "a"}}'),
             ('delete_list', '{"Action": "DELETE", "Value": {"L": []}}'), ('add_string', '{"Action": "ADD", "Value": {"S": "a"}}'),
             ('add_map', '{"Action": "ADD", "Value": {"M": {}}}'), ('sk', '{"Action": "PUT", "Value": {"S": "y"}}')) v(attr, upd);

-- ConditionalOperator needs two or more conditions (DynamoDB Local refuses one, an empty map or none)
SELECT outcome('Scan', '{"TableName": "Legacy", "ConditionalOperator": "AND", "ScanFilter": {"n": {"ComparisonOperator": "NULL"}}}');
SELECT outcome('UpdateItem', '{"TableName": "Legacy", "Key": {"pk": {"S": "p"}, "sk": {"S": "x"}}, "ConditionalOperator": "OR",
  "Expected": {"n": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "a"}]}}}');
SELECT outcome('Query', '{"TableName": "Legacy", "ConditionalOperator": "OR",
  "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}}}');

-- nothing above wrote an item it should not have
SELECT pk, sk FROM "Legacy" ORDER BY pk, sk;

-- clean up
SELECT ddb('DeleteTable', '{"TableName": "Legacy"}') #>> '{TableDescription,TableStatus}';
DROP FUNCTION ddb(text, jsonb);

