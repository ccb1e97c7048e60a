-- The write guard (singletable.entity_check) and the typo guard (singletable.prefix_check)
-- on both worked examples: the posting app and the multi-tenant billing table.
SET client_min_messages = warning;

-- The posting app
SELECT singletable.create_table('app');
-- both settings default to warning
SHOW singletable.entity_check;
SHOW singletable.prefix_check;
SELECT singletable.create_gsi('app', 'GSI1', 'gsi1pk', 'gsi1sk');
SELECT singletable.define_entity('app', 'User', pk => 'USER#{userId}', sk => 'PROFILE',
                                 attributes => '{"name": "S"}');
SELECT singletable.define_entity('app', 'Post', pk => 'USER#{userId}', sk => 'POST#{postId:int(4)}',
                                 indexes => '{"GSI1": {"pk": "STATUS#{status}", "sk": "{publishAt:timestamp}"}}',
                                 attributes => '{"title": "S"}');
SELECT singletable.define_entity('app', 'PostSource', pk => 'POST#{postId:int(4)}', sk => 'SOURCE#{fileId}');
SELECT singletable.define_entity('app', 'PostMetrics', pk => 'POST#{postId:int(4)}', sk => 'METRICS#{capturedAt:timestamp}',
                                 attributes => '{"views": "N"}');

-- a table without entities is never checked
SELECT singletable.create_table('plain');
SELECT singletable.put_item('plain', '{"pk": "anything", "sk": "at all"}');
SELECT count(*) FROM singletable.query('plain', 'anything', 'begins_with', 'USERS#');

-- ============================================================ the write guard
-- items that fit: no message
SELECT singletable.put_item('app', '{"pk": "USER#u_1", "sk": "PROFILE", "name": "Ann"}');
SELECT singletable.put_item('app', '{"pk": "USER#u_1", "sk": "POST#0017", "title": "Hello",
                                     "gsi1pk": "STATUS#approved", "gsi1sk": "2026-06-23T09:12Z"}');
SELECT singletable.put_item('app', '{"pk": "POST#0017", "sk": "SOURCE#f_1"}');
SELECT singletable.put_item('app', '{"pk": "POST#0017", "sk": "METRICS#2026-06-23T09:12Z", "views": 3}');
SELECT singletable.update_item('app', 'POST#0017', 'METRICS#2026-06-23T09:12Z', 'SET #v = #v + :one',
                               names => '{"#v": "views"}', vals => '{":one": 1}');

-- warning (the default): a WARNING, and the item is written
-- (a) keys of no entity: the closest entity, by its templates
SELECT singletable.put_item('app', '{"pk": "USER#u_1", "sk": "POSTS#0018"}');
SELECT singletable.put_item('app', '{"pk": "USERS#u_1", "sk": "PROFILE"}');
SELECT singletable.put_item('app', '{"pk": "USER#u_1", "sk": "PROFILES"}');
-- (b) a field's value of another type or width
SELECT singletable.put_item('app', '{"pk": "USER#u_1", "sk": "POST#18"}');
SELECT singletable.put_item('app', '{"pk": "POST#0017", "sk": "METRICS#yesterday"}');
SELECT singletable.put_item('app', '{"pk": "POST#17", "sk": "SOURCE#f_2"}');
-- (c) a declared attribute of another type
SELECT singletable.put_item('app', '{"pk": "USER#u_2", "sk": "PROFILE", "name": 42}');
SELECT singletable.update_item('app', 'POST#0017', 'METRICS#2026-06-23T09:12Z', 'SET #v = :v',
                               names => '{"#v": "views"}', vals => '{":v": "many"}');
-- (d) an index key attribute against the entity's index template
SELECT singletable.put_item('app', '{"pk": "USER#u_1", "sk": "POST#0019", "gsi1pk": "STATE#approved", "gsi1sk": "2026-06-23T09:12Z"}');
SELECT singletable.put_item('app', '{"pk": "USER#u_1", "sk": "POST#0020", "gsi1pk": "STATUS#approved", "gsi1sk": "June 23rd"}');
-- update_item: the key of the item it creates
SELECT singletable.update_item('app', 'USER#u_1', 'DRAFT#1', 'SET title = :t', vals => '{":t": "x"}');
-- no item content in any message: the values above (u_1, 0018, Ann, many, June 23rd) appear nowhere
SELECT pk, sk FROM app ORDER BY pk, sk;
-- deletes are not checked
SELECT singletable.delete_item('app', 'USER#u_1', 'DRAFT#1');
SELECT singletable.delete_item('app', 'USER#u_1', 'POSTS#0018');

-- off: nothing
SET singletable.entity_check = off;
SELECT singletable.put_item('app', '{"pk": "USERS#u_9", "sk": "POSTS#1"}');
SELECT singletable.delete_item('app', 'USERS#u_9', 'POSTS#1');

-- error: an ERROR with SQLSTATE 22E01, nothing written
SET singletable.entity_check = error;
\set VERBOSITY default
SELECT singletable.put_item('app', '{"pk": "USER#u_3", "sk": "POSTS#0001"}');
\set VERBOSITY terse
SELECT singletable.put_item('app', '{"pk": "USER#u_3", "sk": "POST#1"}');
SELECT singletable.put_item('app', '{"pk": "USER#u_3", "sk": "PROFILE", "name": ["A"]}');
SELECT singletable.update_item('app', 'USER#u_3', 'PROFILES', 'SET #n = :n', names => '{"#n": "name"}', vals => '{":n": "A"}');
SELECT singletable.update_item('app', 'USER#u_1', 'PROFILE', 'SET #n = :n', names => '{"#n": "name"}', vals => '{":n": 1}');
SELECT singletable.put_item('app', '{"pk": "USER#u_3", "sk": "POST#0001", "gsi1pk": "STATUS#approved", "gsi1sk": "soon"}');
-- a batch with one bad item among good ones writes nothing
SELECT singletable.batch_write('{"app": [
  {"PutRequest": {"Item": {"pk": "USER#u_4", "sk": "PROFILE"}}},
  {"PutRequest": {"Item": {"pk": "USER#u_4", "sk": "POST#0001"}}},
  {"PutRequest": {"Item": {"pk": "USER#u_4", "sk": "POSTS#0002"}}}]}');
-- a transaction likewise (a Put, and an Update whose new item breaks a declared type)
SELECT singletable.transact_write('[
  {"Put": {"TableName": "app", "Item": {"pk": "USER#u_5", "sk": "PROFILE"}}},
  {"Put": {"TableName": "app", "Item": {"pk": "USER#u_5", "sk": "POST#12345"}}}]');
SELECT singletable.transact_write('[
  {"Put": {"TableName": "app", "Item": {"pk": "USER#u_5", "sk": "PROFILE"}}},
  {"Update": {"TableName": "app", "Key": {"pk": "USER#u_1", "sk": "POST#0017"},
              "UpdateExpression": "SET title = :t", "ExpressionAttributeValues": {":t": 7}}}]');
SELECT singletable.cancellation_reasons();
SELECT count(*) FROM app WHERE pk IN ('USER#u_3', 'USER#u_4', 'USER#u_5');
-- good items still go through in error mode
SELECT singletable.batch_write('{"app": [
  {"PutRequest": {"Item": {"pk": "USER#u_4", "sk": "PROFILE"}}},
  {"PutRequest": {"Item": {"pk": "USER#u_4", "sk": "POST#0001"}}}]}');
SELECT singletable.transact_write('[{"Put": {"TableName": "app", "Item": {"pk": "USER#u_5", "sk": "PROFILE"}}}]');
SELECT count(*) FROM app WHERE pk IN ('USER#u_4', 'USER#u_5');
-- the JSON API: ValidationException, SQLSTATE 22E01
SELECT singletable.dynamodb('PutItem', '{"TableName": "app", "Item": {"pk": {"S": "USER#u_6"}, "sk": {"S": "POSTS#1"}}}');
SELECT singletable.dynamodb('BatchWriteItem', '{"RequestItems": {"app": [
  {"PutRequest": {"Item": {"pk": {"S": "USER#u_6"}, "sk": {"S": "PROFILE"}}}},
  {"PutRequest": {"Item": {"pk": {"S": "USER#u_6"}, "sk": {"S": "POST#x"}}}}]}}');
SELECT singletable.dynamodb('TransactWriteItems', '{"TransactItems": [
  {"Put": {"TableName": "app", "Item": {"pk": {"S": "USER#u_6"}, "sk": {"S": "PROFILE"}}}},
  {"Put": {"TableName": "app", "Item": {"pk": {"S": "USER#u_6"}, "sk": {"S": "PROFILE"}, "name": {"N": "1"}}}}]}');
SELECT count(*) FROM app WHERE pk = 'USER#u_6';
-- the JSON API in warning mode: a WARNING, the item is written
SET singletable.entity_check = warning;
SELECT singletable.dynamodb('PutItem', '{"TableName": "app", "Item": {"pk": {"S": "USER#u_6"}, "sk": {"S": "POSTS#1"}}}');
SELECT singletable.dynamodb('UpdateItem', '{"TableName": "app", "Key": {"pk": {"S": "USER#u_6"}, "sk": {"S": "PROFILE"}},
  "UpdateExpression": "SET #n = :n", "ExpressionAttributeNames": {"#n": "name"}, "ExpressionAttributeValues": {":n": {"BOOL": true}}}');
SELECT count(*) FROM app WHERE pk = 'USER#u_6';
-- the setting's values
SET singletable.entity_check = sometimes;

-- ============================================================ the typo guard
-- fits: no message
SELECT count(*) FROM singletable.query('app', 'USER#u_1', 'begins_with', 'POST#');
SELECT count(*) FROM singletable.query('app', 'USER#u_1', 'begins_with', 'PO');
SELECT count(*) FROM singletable.query('app', 'USER#u_1');
SELECT count(*) FROM singletable.query('app', 'POST#0017', 'begins_with', 'METRICS#2026-06');
-- the sort key typo, with its suggestion
SELECT count(*) FROM singletable.query('app', 'USER#u_1', 'begins_with', 'POSTS#');
SELECT count(*) FROM singletable.query('app', 'POST#0017', 'begins_with', 'METRIC#');
SELECT count(*) FROM singletable.query('app', 'POST#0017', 'begins_with', 'METRICS#yesterday');
-- a long prefix is quoted cut
SELECT count(*) FROM singletable.query('app', 'USER#u_1', 'begins_with', 'Q' || repeat('x', 100));
-- the partition key typo: only its type tag is quoted; a field of the wrong width is named
SELECT count(*) FROM singletable.query('app', 'USERS#u_1');
SELECT count(*) FROM singletable.query('app', 'POST#17', 'begins_with', 'SOURCE#');
SELECT count(*) FROM singletable.query('app', 'nodelimiter');
-- key_condition, query_page and explain_query alike
SELECT count(*) FROM singletable.query('app', key_condition => 'pk = :p AND begins_with(sk, :s)',
                                       vals => '{":p": "USER#u_1", ":s": "POSTS#"}');
SELECT singletable.query_page('app', 'USER#u_1', 'begins_with', 'POSTS#') -> 'Count';
SELECT count(*) > 0 FROM singletable.explain_query('app', 'USER#u_1', 'begins_with', 'POSTS#');
-- the GSI: its partition and sort key templates
SELECT count(*) FROM singletable.query('app', 'STATUS#approved', index_name => 'GSI1');
SELECT count(*) FROM singletable.query('app', 'STATUSES#approved', index_name => 'GSI1');
SELECT count(*) FROM singletable.query('app', key_condition => 'gsi1pk = :p AND begins_with(gsi1sk, :s)',
                                       vals => '{":p": "STATUS#approved", ":s": "June"}', index_name => 'GSI1');
-- the JSON API
SELECT singletable.dynamodb('Query', '{"TableName": "app", "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
  "ExpressionAttributeValues": {":p": {"S": "USER#u_1"}, ":s": {"S": "POSTS#"}}}') -> 'Count';
-- off: nothing; error: 22E02 and no rows
SET singletable.prefix_check = off;
SELECT count(*) FROM singletable.query('app', 'USER#u_1', 'begins_with', 'POSTS#');
SET singletable.prefix_check = error;
\set VERBOSITY default
SELECT count(*) FROM singletable.query('app', 'USER#u_1', 'begins_with', 'POSTS#');
\set VERBOSITY terse
SELECT count(*) FROM singletable.query('app', 'USERS#u_1');
SELECT singletable.dynamodb('Query', '{"TableName": "app", "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
  "ExpressionAttributeValues": {":p": {"S": "USER#u_1"}, ":s": {"S": "POSTS#"}}}');
SELECT count(*) FROM singletable.query('app', 'USER#u_1', 'begins_with', 'POST#');
SET singletable.prefix_check = warning;

-- plain SQL: begins_with's planner support warns at plan time, the plan is the index range
EXPLAIN (COSTS OFF) SELECT pk, sk FROM app WHERE pk = 'USER#u_1' AND singletable.begins_with(sk, 'POSTS#');
EXPLAIN (COSTS OFF) SELECT pk, sk FROM app WHERE pk = 'USER#u_1' AND singletable.begins_with(sk, 'POST#');
SELECT pk, sk FROM app WHERE pk = 'USER#u_1' AND singletable.begins_with(sk, 'POSTS#');
-- without the partition key: every entity's sort key counts
SELECT count(*) FROM app WHERE singletable.begins_with(sk, 'PROFILES');
SELECT count(*) FROM app WHERE singletable.begins_with(sk, 'PROFILE');
-- the partition key's typo, seen with the prefix
SELECT count(*) FROM app WHERE pk = 'USERS#u_1' AND singletable.begins_with(sk, 'POST#');
-- the GSI's expression columns
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT pk, sk FROM app
 WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'string'
   AND (item ->> 'gsi1pk') COLLATE "C" = 'STATUS#approved'
   AND singletable.begins_with((item ->> 'gsi1sk') COLLATE "C", 'June');
EXPLAIN (COSTS OFF) SELECT pk, sk FROM app
 WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'string'
   AND (item ->> 'gsi1pk') COLLATE "C" = 'STATUS#approved'
   AND singletable.begins_with((item ->> 'gsi1sk') COLLATE "C", '2026-06');
EXPLAIN (COSTS OFF) SELECT pk, sk FROM app
 WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'string'
   AND (item ->> 'gsi1pk') COLLATE "C" = 'STATE#approved'
   AND singletable.begins_with((item ->> 'gsi1sk') COLLATE "C", '2026-06');
RESET enable_seqscan;
-- a bind parameter is checked when known: not in a generic plan
PREPARE q(text) AS SELECT count(*) FROM app WHERE pk = 'USER#u_1' AND singletable.begins_with(sk, $1);
SET plan_cache_mode = force_generic_plan;
EXECUTE q('POSTS#');
SET plan_cache_mode = force_custom_plan;
EXECUTE q('POSTS#');
RESET plan_cache_mode;
DEALLOCATE q;
-- error mode refuses the plan
SET singletable.prefix_check = error;
SELECT count(*) FROM app WHERE pk = 'USER#u_1' AND singletable.begins_with(sk, 'POSTS#');
RESET singletable.prefix_check;
-- a table without entities: nothing
SELECT count(*) FROM plain WHERE pk = 'anything' AND singletable.begins_with(sk, 'USERS#');

-- ============================================================ the billing tenant
SELECT singletable.create_table('billing');
SELECT singletable.create_gsi('billing', 'GSI1', 'gsi1pk', 'gsi1sk');
SELECT singletable.define_entity('billing', 'User', pk => 'TENANT#{tenantId}', sk => 'USER#{userId}',
                                 indexes => '{"GSI1": {"pk": "ROLE#{role}", "sk": "{userId}"}}',
                                 attributes => '{"email": "S"}');
SELECT singletable.define_entity('billing', 'Invoice', pk => 'TENANT#{tenantId}', sk => 'INVOICE#{invoiceId}',
                                 indexes => '{"GSI1": {"pk": "STATUS#{status}", "sk": "{dueDate:date}"}}',
                                 attributes => '{"amount": "N"}');
SELECT singletable.define_entity('billing', 'Event', pk => 'TENANT#{tenantId}', sk => 'EVENT#{at:timestamp}');
SELECT singletable.put_item('billing', '{"pk": "TENANT#acme", "sk": "USER#u_3001", "email": "a@acme.test",
                                         "gsi1pk": "ROLE#admin", "gsi1sk": "u_3001"}');
SELECT singletable.put_item('billing', '{"pk": "TENANT#acme", "sk": "INVOICE#2026-0014", "amount": 120,
                                         "gsi1pk": "STATUS#open", "gsi1sk": "2026-07-01"}');
SELECT singletable.put_item('billing', '{"pk": "TENANT#acme", "sk": "EVENT#2026-06-23T09:12Z"}');
-- the write guard
SELECT singletable.put_item('billing', '{"pk": "TENANT#acme", "sk": "INVOICE#2026-0015", "amount": "120.00"}');
SELECT singletable.put_item('billing', '{"pk": "TENANT#acme", "sk": "INVOICE#2026-0016", "gsi1pk": "STATUS#open", "gsi1sk": "July"}');
SELECT singletable.put_item('billing', '{"pk": "TENANT#acme", "sk": "EVENT#2026-06-23 09:12"}');
SELECT singletable.put_item('billing', '{"pk": "TENANTS#acme", "sk": "USER#u_3002"}');
SELECT singletable.put_item('billing', '{"pk": "TENANT#acme", "sk": "USR#u_3002"}');
SET singletable.entity_check = error;
SELECT singletable.transact_write('[
  {"Put": {"TableName": "billing", "Item": {"pk": "TENANT#acme", "sk": "USER#u_3003"}}},
  {"Put": {"TableName": "billing", "Item": {"pk": "TENANT#acme", "sk": "INVOICE#2026-0017", "amount": "1"}}}]');
SELECT singletable.batch_write('{"billing": [
  {"PutRequest": {"Item": {"pk": "TENANT#acme", "sk": "USER#u_3004"}}},
  {"PutRequest": {"Item": {"pk": "TENANT#acme", "sk": "EVENTS#1"}}}]}');
SELECT count(*) FROM billing WHERE sk IN ('USER#u_3003', 'USER#u_3004', 'INVOICE#2026-0017');
RESET singletable.entity_check;
-- the typo guard: USERS# for USER#, TENANTS#acme for TENANT#acme
SELECT count(*) FROM singletable.query('billing', 'TENANT#acme', 'begins_with', 'USERS#');
SELECT count(*) FROM singletable.query('billing', 'TENANTS#acme');
SELECT count(*) FROM singletable.query('billing', 'TENANT#acme', 'begins_with', 'INVOICES#');
SELECT count(*) FROM singletable.query('billing', 'TENANT#acme', 'begins_with', 'X');
SELECT singletable.dynamodb('Query', '{"TableName": "billing", "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
  "ExpressionAttributeValues": {":p": {"S": "TENANT#acme"}, ":s": {"S": "USERS#"}}}') -> 'Count';
SELECT singletable.dynamodb('Query', '{"TableName": "billing", "KeyConditionExpression": "pk = :p",
  "ExpressionAttributeValues": {":p": {"S": "TENANTS#acme"}}}') -> 'Count';
-- the overloaded GSI1: STATUS#open and ROLE#admin both fit, STATE#open does not; a due date
-- begins with digits
SELECT count(*) FROM singletable.query('billing', 'STATUS#open', index_name => 'GSI1');
SELECT count(*) FROM singletable.query('billing', 'ROLE#admin', index_name => 'GSI1');
SELECT count(*) FROM singletable.query('billing', 'STATE#open', index_name => 'GSI1');
SELECT count(*) FROM singletable.query('billing', 'STATUS#open', 'begins_with', '2026-0', index_name => 'GSI1');
SELECT count(*) FROM singletable.query('billing', 'STATUS#open', 'begins_with', 'July', index_name => 'GSI1');
SELECT count(*) FROM singletable.query('billing', 'ROLE#admin', 'begins_with', 'u_', index_name => 'GSI1');
-- plain SQL
EXPLAIN (COSTS OFF) SELECT sk FROM billing WHERE pk = 'TENANT#acme' AND singletable.begins_with(sk, 'USERS#');
SELECT sk FROM billing WHERE pk = 'TENANT#acme' AND singletable.begins_with(sk, 'USER#');

DROP TABLE app, plain, billing;
