-- dynamodb_text: the response of singletable.dynamodb_as as JSON text. GetItem, Query and Scan
-- write it directly (src/format/jsontext.c, the stored-to-wire walk of src/format/attrval.c with
-- a text output); every other operation prints dynamodb's jsonb. Either way the text is JSON a
-- strict parser accepts (json_in: RFC 8259, control characters escaped) and parses to the
-- jsonb singletable.dynamodb answers.
SET client_min_messages = warning;
-- same(op, request): dynamodb_as's text parses (strictly) and equals dynamodb's jsonb, with as
-- many members at the top as that jsonb (no member written twice)
CREATE FUNCTION same(op text, req text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  t text := singletable.dynamodb_as(NULL, op, req);
  j jsonb := singletable.dynamodb(op, req::jsonb);
BEGIN
  RETURN t::json IS NOT NULL AND t::jsonb = j
     AND (SELECT count(*) FROM json_object_keys(t::json)) = (SELECT count(*) FROM jsonb_object_keys(j));
END $$;

SELECT singletable.dynamodb('CreateTable', '{"TableName": "Texts", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
                           {"AttributeName": "g", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created;
-- an item of every type: S with quotes, backslashes, control characters JSON must escape (jsonb
-- has no \u0000) and DEL, which it need not, non-ASCII and non-BMP text, U+2028; names that need escaping
-- too (an empty one is refused); numbers at DynamoDB's extremes; B; the three sets; BOOL; NULL; empty S, L and M;
-- M and L nested, a map whose only key looks like a tag
SELECT singletable.dynamodb('PutItem', '{"TableName": "Texts", "Item": {"pk": {"S": "p"}, "sk": {"N": "1"}, "g": {"S": "G"},
  "quote": {"S": "say \"hi\" \\ back\\slash /"},
  "ctl": {"S": "x\u0001\u0007\b\t\n\u000b\f\r\u001b\u001f \u007f"},
  "uni": {"S": "é ü ß 中文 \ud83d\ude00 \u2028 \u00a0"},
  "na\"me\\ \n é": {"S": "odd name"},
  "empty": {"S": ""},
  "n1": {"N": "-0012.500"}, "n2": {"N": "99999999999999999999999999999999999999"},
  "n3": {"N": "1E-130"}, "n4": {"N": "9.9999999999999999999999999999999999999E+125"}, "n5": {"N": "-0"},
  "b": {"B": "AAEC/+8="}, "bempty": {"B": ""},
  "ss": {"SS": ["b", "a\"", "", "\n"]}, "ns": {"NS": ["10", "-1.5", "2e3"]}, "bs": {"BS": ["Ag==", "AQ=="]},
  "t": {"BOOL": true}, "f": {"BOOL": false}, "z": {"NULL": true},
  "l": {"L": [{"S": "x"}, {"N": "1"}, {"L": []}, {"M": {}}, {"L": [{"L": [{"BOOL": false}]}]}, {"NULL": true}]},
  "m": {"M": {"$B": {"S": "not a tag"}, "inner": {"M": {"k": {"SS": ["v"]}, "deeper": {"M": {"\t": {"BS": ["AA=="]}}}}}}},
  "tagged": {"M": {"$SS": {"N": "1"}}}, "emptym": {"M": {}}, "emptyl": {"L": []}}}')::text;
SELECT singletable.dynamodb('PutItem', '{"TableName": "Texts", "Item": {"pk": {"S": "p"}, "sk": {"N": "2"}, "g": {"S": "G"}, "v": {"N": "2"}}}')::text;
SELECT singletable.dynamodb('PutItem', '{"TableName": "Texts", "Item": {"pk": {"S": "p"}, "sk": {"N": "3"}, "v": {"N": "3"}, "s": {"S": "three"}}}')::text;
SELECT singletable.dynamodb('PutItem', '{"TableName": "Texts", "Item": {"pk": {"S": "q"}, "sk": {"N": "-1.5"}, "g": {"S": "G"}}}')::text;

-- GetItem: the text as written (compact, members in the stored order), and the same as dynamodb's
SELECT singletable.dynamodb_as(NULL, 'GetItem', '{"TableName": "Texts", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}}');
SELECT same('GetItem', '{"TableName": "Texts", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}}');
SELECT same('GetItem', '{"TableName": "Texts", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "ReturnConsumedCapacity": "TOTAL"}');
SELECT same('GetItem', '{"TableName": "Texts", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}, "ReturnConsumedCapacity": "INDEXES",
  "ProjectionExpression": "#q, l[4], m.#i, ss", "ExpressionAttributeNames": {"#q": "na\"me\\ \n é", "#i": "inner"}}');
SELECT singletable.dynamodb_as(NULL, 'GetItem', '{"TableName": "Texts", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}},
  "ProjectionExpression": "#q, l[4], m.#i", "ExpressionAttributeNames": {"#q": "na\"me\\ \n é", "#i": "inner"}}');
-- every ASCII character but NUL, in a name and in a value, exactly as escape_json writes it
-- (to_json(text) is escape_json)
SELECT singletable.dynamodb('PutItem', jsonb_build_object('TableName', 'Texts', 'Item',
  jsonb_build_object('pk', jsonb_build_object('S', 'ascii'), 'sk', jsonb_build_object('N', '1'),
                     a, jsonb_build_object('S', a || 'é中😀'))))::text
  FROM (SELECT string_agg(chr(c), '' ORDER BY c) a FROM generate_series(1, 127) c) x;
SELECT strpos(t, to_json(a)::text || ':{"S":' || to_json(a || 'é中😀')::text || '}') > 0 AS as_escape_json,
       same('GetItem', '{"TableName": "Texts", "Key": {"pk": {"S": "ascii"}, "sk": {"N": "1"}}}')
  FROM (SELECT string_agg(chr(c), '' ORDER BY c) a FROM generate_series(1, 127) c) x,
       singletable.dynamodb_as(NULL, 'GetItem', '{"TableName": "Texts", "Key": {"pk": {"S": "ascii"}, "sk": {"N": "1"}}}') t;
-- each byte JSON escapes, and its neighbours that it does not, after 0 to 17 plain bytes (strings
-- are scanned 8 bytes at a time): every name and value as escape_json writes it
SELECT singletable.dynamodb('PutItem', jsonb_build_object('TableName', 'Texts', 'Item',
  jsonb_build_object('pk', jsonb_build_object('S', 'bytes'), 'sk', jsonb_build_object('N', '1'))
  || (SELECT jsonb_object_agg(repeat('n', k) || c || k, jsonb_build_object('S', repeat('v', k) || c || repeat('é', k % 3) || 'z'))
        FROM generate_series(0, 17) k,
             unnest(ARRAY['"', '\', chr(1), chr(31), ' ', '!', '#', '[', ']', chr(127), 'é', '😀']) c)))::text;
SELECT count(*) AS attributes,
       bool_and(strpos(t, to_json(e.key)::text || ':{"S":' || to_json(e.value ->> 'S')::text || '}') > 0) AS as_escape_json
  FROM singletable.dynamodb_as(NULL, 'GetItem', '{"TableName": "Texts", "Key": {"pk": {"S": "bytes"}, "sk": {"N": "1"}}}') t,
       jsonb_each(t::jsonb -> 'Item') e;
SELECT same('GetItem', '{"TableName": "Texts", "Key": {"pk": {"S": "bytes"}, "sk": {"N": "1"}}}');
-- a missing item: {} (with capacity, only it)
SELECT singletable.dynamodb_as(NULL, 'GetItem', '{"TableName": "Texts", "Key": {"pk": {"S": "p"}, "sk": {"N": "9"}}}');
SELECT singletable.dynamodb_as(NULL, 'GetItem', '{"TableName": "Texts", "Key": {"pk": {"S": "p"}, "sk": {"N": "9"}}, "ReturnConsumedCapacity": "TOTAL"}');
SELECT same('GetItem', '{"TableName": "Texts", "Key": {"pk": {"S": "p"}, "sk": {"N": "9"}}, "ReturnConsumedCapacity": "INDEXES"}');

-- Query: the whole partition, projection, filter, backwards, pages, COUNT, capacity, an index
SELECT singletable.dynamodb_as(NULL, 'Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p AND sk > :z",
  "ExpressionAttributeValues": {":p": {"S": "p"}, ":z": {"N": "1"}}}');
SELECT same('Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}}}');
SELECT same('Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}},
  "ProjectionExpression": "sk, quote, ctl, m.#i.deeper, l[1]", "ExpressionAttributeNames": {"#i": "inner"}}');
SELECT same('Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}, ":v": {"N": "2"}},
  "FilterExpression": "v >= :v OR attribute_exists(ctl)"}');
SELECT same('Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}},
  "ScanIndexForward": false}');
SELECT singletable.dynamodb_as(NULL, 'Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}},
  "ScanIndexForward": false, "Limit": 1, "ProjectionExpression": "pk, sk, v"}');
SELECT same('Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}},
  "ScanIndexForward": false, "Limit": 2}');
SELECT same('Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}},
  "Limit": 1, "ExclusiveStartKey": {"pk": {"S": "p"}, "sk": {"N": "1"}}}');
-- a page that ends on the filter's last refusal: no Items left, a LastEvaluatedKey
SELECT singletable.dynamodb_as(NULL, 'Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}, ":n": {"S": "none"}},
  "Limit": 2, "FilterExpression": "s = :n"}');
SELECT singletable.dynamodb_as(NULL, 'Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}},
  "Select": "COUNT", "ReturnConsumedCapacity": "TOTAL"}');
SELECT same('Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}},
  "Select": "COUNT", "Limit": 2}');
SELECT same('Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}},
  "ReturnConsumedCapacity": "INDEXES"}');
SELECT same('Query', '{"TableName": "Texts", "IndexName": "byG", "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "G"}},
  "ReturnConsumedCapacity": "INDEXES", "Limit": 2}');
SELECT singletable.dynamodb_as(NULL, 'Query', '{"TableName": "Texts", "IndexName": "byG", "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "G"}},
  "Limit": 1, "ProjectionExpression": "pk, sk, g", "ReturnConsumedCapacity": "INDEXES"}');
-- nothing matches: "Items":[]
SELECT singletable.dynamodb_as(NULL, 'Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "none"}}}');

-- Scan: whole, by segments, paged, counted
SELECT same('Scan', '{"TableName": "Texts"}');
SELECT same('Scan', '{"TableName": "Texts", "Segment": 0, "TotalSegments": 2}'),
       same('Scan', '{"TableName": "Texts", "Segment": 1, "TotalSegments": 2}');
SELECT (singletable.dynamodb_as(NULL, 'Scan', '{"TableName": "Texts", "Segment": 0, "TotalSegments": 2, "Select": "COUNT"}')::jsonb -> 'Count')::int
     + (singletable.dynamodb_as(NULL, 'Scan', '{"TableName": "Texts", "Segment": 1, "TotalSegments": 2, "Select": "COUNT"}')::jsonb -> 'Count')::int AS both_segments;
SELECT same('Scan', '{"TableName": "Texts", "Limit": 2, "ReturnConsumedCapacity": "TOTAL", "FilterExpression": "attribute_exists(g)"}');
SELECT singletable.dynamodb_as(NULL, 'Scan', '{"TableName": "Texts", "Limit": 1, "ProjectionExpression": "pk, sk", "ReturnConsumedCapacity": "INDEXES"}');
SELECT same('Scan', '{"TableName": "Texts", "IndexName": "byG", "Select": "COUNT"}');

-- BatchGetItem (dynamodb's jsonb, printed): the same too
SELECT same('BatchGetItem', '{"RequestItems": {"Texts": {"Keys": [{"pk": {"S": "p"}, "sk": {"N": "1"}}, {"pk": {"S": "q"}, "sk": {"N": "-1.5"}},
  {"pk": {"S": "p"}, "sk": {"N": "9"}}]}}, "ReturnConsumedCapacity": "TOTAL"}');

-- B keys: plain base64 in stored items, {"B": ...} in the text (Item, Items, LastEvaluatedKey)
SELECT singletable.dynamodb('CreateTable', '{"TableName": "TextBlobs", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "B"}, {"AttributeName": "at", "AttributeType": "B"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}, {"AttributeName": "at", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
SELECT singletable.dynamodb('PutItem', '{"TableName": "TextBlobs", "Item": {"id": {"B": "AAE="}, "at": {"B": "AQ=="}, "other": {"B": "AAE="}}}')::text;
SELECT singletable.dynamodb('PutItem', '{"TableName": "TextBlobs", "Item": {"id": {"B": "AAE="}, "at": {"B": "Ag=="}, "s": {"S": "AAE="}}}')::text;
SELECT singletable.dynamodb_as(NULL, 'GetItem', '{"TableName": "TextBlobs", "Key": {"id": {"B": "AAE="}, "at": {"B": "AQ=="}}}');
SELECT singletable.dynamodb_as(NULL, 'Query', '{"TableName": "TextBlobs", "KeyConditionExpression": "id = :i", "ExpressionAttributeValues": {":i": {"B": "AAE="}},
  "Limit": 1}');
SELECT same('Query', '{"TableName": "TextBlobs", "KeyConditionExpression": "id = :i", "ExpressionAttributeValues": {":i": {"B": "AAE="}}}'),
       same('Scan', '{"TableName": "TextBlobs", "Limit": 1}'),
       same('BatchGetItem', '{"RequestItems": {"TextBlobs": {"Keys": [{"id": {"B": "AAE="}, "at": {"B": "Ag=="}}]}}}');

-- a page of 40 items of 40 attributes (jsonb's stride of 32 entries crossed in the binary form)
SELECT count(*) FROM generate_series(1, 40) i,
  LATERAL singletable.dynamodb('PutItem', jsonb_build_object('TableName', 'Texts', 'Item',
    jsonb_build_object('pk', jsonb_build_object('S', 'wide'), 'sk', jsonb_build_object('N', i::text))
    || (SELECT jsonb_object_agg('a' || j, jsonb_build_object('S', repeat(chr(1 + (i + j) % 200), j))) FROM generate_series(1, 38) j))) r;
SELECT same('Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "wide"}}}');
SELECT length(singletable.dynamodb_as(NULL, 'Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "wide"}}}')) > 40 * 38;

-- 1 MB pages: the text writer sizes the items it writes as the jsonb writer does (12 items of
-- 100,000 bytes: the page ends at the 11th, where 1 MB is reached, in both)
SELECT count(*) FROM generate_series(1, 12) i,
  LATERAL singletable.dynamodb('PutItem', jsonb_build_object('TableName', 'Texts', 'Item',
    jsonb_build_object('pk', jsonb_build_object('S', 'big'), 'sk', jsonb_build_object('N', i::text),
                       'x', jsonb_build_object('S', repeat('"', 100000))))) r;
SELECT same('Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "big"}}}');
SELECT r::jsonb - 'Items' AS page, jsonb_array_length(r::jsonb -> 'Items') AS items
  FROM singletable.dynamodb_as(NULL, 'Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "big"}}}') r;
SELECT same('Scan', '{"TableName": "Texts", "FilterExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "big"}}}');

-- the other operations print dynamodb's jsonb: the same (writes that answer the same twice)
SELECT singletable.dynamodb('PutItem', '{"TableName": "Texts", "Item": {"pk": {"S": "r"}, "sk": {"N": "1"}, "x": {"S": "a\"\\b"}}}')::text;
SELECT same('PutItem', '{"TableName": "Texts", "Item": {"pk": {"S": "r"}, "sk": {"N": "1"}, "x": {"S": "a\"\\b"}}, "ReturnValues": "ALL_OLD"}');
SELECT same('UpdateItem', '{"TableName": "Texts", "Key": {"pk": {"S": "r"}, "sk": {"N": "1"}}, "UpdateExpression": "SET y = :y",
  "ExpressionAttributeValues": {":y": {"SS": ["\n"]}}, "ReturnValues": "ALL_NEW"}');
SELECT singletable.dynamodb_as(NULL, 'UpdateItem', '{"TableName": "Texts", "Key": {"pk": {"S": "r"}, "sk": {"N": "1"}}, "UpdateExpression": "SET z = :z",
  "ExpressionAttributeValues": {":z": {"N": "5"}}, "ReturnValues": "UPDATED_NEW"}');
-- an error is raised as by dynamodb, nothing written
SELECT singletable.dynamodb_as(NULL, 'Query', '{"TableName": "Texts", "KeyConditionExpression": "pk = :p"}');
SELECT singletable.dynamodb_as(NULL, 'GetItem', '{"TableName": "NoTable", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}}');

SELECT singletable.dynamodb('DeleteTable', '{"TableName": "Texts"}') IS NOT NULL AS deleted,
       singletable.dynamodb('DeleteTable', '{"TableName": "TextBlobs"}') IS NOT NULL AS deleted;
DROP FUNCTION same(text, text);
