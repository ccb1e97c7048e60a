-- singletable.export_code (issue 29): a read request as a runnable program. The programs
-- run against the endpoint in test/gateway/test_export.py; here their text, the SQL one
-- run, and the errors.
SET client_min_messages = warning;
SELECT singletable.create_table('export_app', 'pk', 'sk', 'S', 'S') IS NOT NULL AS created;
SELECT singletable.define_entity('export_app', 'user', 'USER#{userId}', 'PROFILE');
SELECT singletable.define_entity('export_app', 'post', 'USER#{userId}', 'POST#{postId:int(4)}');
SELECT singletable.put_item('export_app', jsonb_build_object('pk', 'USER#u_1001', 'sk', 'POST#' || lpad(i::text, 4, '0'),
         'title', 'post ' || i, 'n', i)) FROM generate_series(1, 5) i;
SELECT singletable.put_item('export_app', '{"pk": "USER#u_1001", "sk": "PROFILE", "name": "Ada"}');

-- a Query by begins_with: the partition key's field is the input, the prefix a constant
SELECT singletable.export_code('export_app', '{"KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
  "ExpressionAttributeValues": {":p": {"S": "USER#u_1001"}, ":s": {"S": "POST#"}}, "Limit": 2}');
SELECT singletable.export_code('export_app', '{"KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
  "ExpressionAttributeValues": {":p": {"S": "USER#u_1001"}, ":s": {"S": "POST#"}}, "Limit": 2}', 'python');
SELECT singletable.export_code('export_app', '{"KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
  "ExpressionAttributeValues": {":p": {"S": "USER#u_1001"}, ":s": {"S": "POST#"}}, "Limit": 2}', 'sql');
-- the SQL program's statement, run (psql's variables set as its \set lines would)
\set userId 'u_1001'
SELECT item FROM singletable.query('public.export_app',
         key_condition => 'pk = :p AND begins_with(sk, :s)',
         vals => '{":p": "USER#u_1001", ":s": "POST#"}'::jsonb
           || jsonb_build_object(':p', 'USER#' || :'userId'::text));
-- GetItem: both keys composed of the templates' text and the inputs
SELECT singletable.export_code('export_app', '{"Key": {"pk": {"S": "USER#u_1001"}, "sk": {"S": "POST#0003"}},
  "ProjectionExpression": "title, #n", "ExpressionAttributeNames": {"#n": "n"}}', 'sql');
\set postId 0004
SELECT item FROM singletable.get_item('public.export_app', 'USER#' || :'userId'::text, 'POST#' || :'postId'::text,
         projection => 'title, #n',
         names => '{"#n": "n"}'::jsonb) AS item WHERE item IS NOT NULL;
-- a Scan with a filter: no key, nothing composed
SELECT singletable.export_code('export_app', '{"FilterExpression": "n > :n", "ExpressionAttributeValues": {":n": {"N": "3"}}}', 'javascript');

-- errors: a typo in a prefix (no entity's sort key begins so), a request DynamoDB
-- refuses, a write, another table's request, bad arguments
SELECT singletable.export_code('export_app', '{"KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
  "ExpressionAttributeValues": {":p": {"S": "USER#u_1001"}, ":s": {"S": "POSTS#"}}}');
-- also when the session's guard is off (export_code's check is its own)
SET singletable.prefix_check = off;
SELECT singletable.export_code('export_app', '{"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "USERS#u_1001"}}}');
SHOW singletable.prefix_check;
RESET singletable.prefix_check;
SELECT singletable.export_code('export_app', '{"KeyConditionExpression": "pk = :p"}');
SELECT singletable.export_code('export_app', '{"Item": {"pk": {"S": "a"}, "sk": {"S": "b"}}}');
SELECT singletable.export_code('export_app', '{"TableName": "other", "Key": {"pk": {"S": "a"}, "sk": {"S": "b"}}}');
SELECT singletable.export_code('export_app', '{}', 'ruby');
SELECT singletable.export_code('export_app', '[]');
SELECT singletable.export_code(NULL, '{}');
SELECT singletable.export_code('nosuch', '{"Key": {"pk": {"S": "a"}, "sk": {"S": "b"}}}');
-- nothing was written by the checks
SELECT count(*) FROM export_app;
SELECT singletable.drop_table('export_app');
