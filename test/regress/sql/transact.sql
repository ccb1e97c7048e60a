-- transact: transact_write (TransactWriteItems) and transact_get (TransactGetItems):
-- all-or-nothing writes over several tables, cancellation reasons in action order
-- (without items in the error, with them from cancellation_reasons() for the same
-- role), every shape, limit and error of the request in DynamoDB's validation order,
-- ClientRequestTokens (replay, mismatch, expiry, per role, rolled back with the
-- transaction), privileges, transactional capacity and table_stats.
-- Concurrency (locks in canonical order, claims, a token in use) is in
-- test/isolation/specs/transact_*.spec, tokens across sessions and restarts in test/tap/t/003_tokens.pl.

-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('tw_acct');
SELECT singletable.create_table('tw_users', sort_key => NULL);
SELECT singletable.create_table('tw_num', partition_key_type => 'N', sort_key_type => 'N');
SELECT singletable.create_table('tw_bin', sort_key => NULL, partition_key_type => 'B');
CREATE TABLE tw_plain (id int);
SELECT singletable.put_item('tw_acct', '{"pk": "ACCT#1", "sk": "BALANCE", "n": 100, "name": "one"}');
SELECT singletable.put_item('tw_acct', '{"pk": "ACCT#2", "sk": "BALANCE", "n": 5, "name": "two"}');
SELECT singletable.put_item('tw_acct', '{"pk": "ACCT#1", "sk": "HOLD#1", "amount": 7}');
SELECT singletable.put_item('tw_users', '{"pk": "alice", "email": "a@example.com"}');
CREATE ROLE regress_st_tw_other;
CREATE ROLE regress_st_tw_limited;
GRANT SELECT, INSERT, UPDATE, DELETE ON tw_acct TO regress_st_tw_other;
GRANT SELECT, INSERT, UPDATE ON tw_users TO regress_st_tw_limited;
GRANT SELECT ON tw_acct TO regress_st_tw_limited;
-- a transact_write action on an item of tw_acct: ADD :d to n
CREATE FUNCTION pg_temp.add(pk text, d int, cond text DEFAULT NULL) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('Update', jsonb_strip_nulls(jsonb_build_object(
    'TableName', 'tw_acct', 'Key', jsonb_build_object('pk', pk, 'sk', 'BALANCE'),
    'UpdateExpression', 'ADD n :d', 'ConditionExpression', cond,
    'ExpressionAttributeValues', jsonb_build_object(':d', d) ||
      CASE WHEN cond IS NULL THEN '{}'::jsonb ELSE '{":min": 0}' END)))
$$;
CREATE FUNCTION pg_temp.balances() RETURNS TABLE (pk text, n numeric) LANGUAGE sql AS $$
  SELECT pk, (item->>'n')::numeric FROM tw_acct WHERE sk = 'BALANCE' ORDER BY pk
$$;
RESET client_min_messages;

-- tests

-- a transaction of Put, Update (ADD to a counter), Delete and ConditionCheck over two
-- tables: all applied, and the response lists the capacity of each table
SELECT singletable.transact_write('[
  {"Put": {"TableName": "tw_users", "Item": {"pk": "bob", "email": "b@example.com"},
           "ConditionExpression": "attribute_not_exists(pk)"}},
  {"Update": {"TableName": "tw_acct", "Key": {"pk": "ACCT#1", "sk": "BALANCE"},
              "UpdateExpression": "ADD n :d", "ConditionExpression": "n >= :amt",
              "ExpressionAttributeValues": {":d": -7, ":amt": 7}}},
  {"Delete": {"TableName": "tw_acct", "Key": {"pk": "ACCT#1", "sk": "HOLD#1"},
              "ConditionExpression": "amount = :amt", "ExpressionAttributeValues": {":amt": 7}}},
  {"ConditionCheck": {"TableName": "tw_users", "Key": {"pk": "alice"},
                      "ConditionExpression": "attribute_exists(email)"}}]');
SELECT singletable.last_consumed_capacity();
SELECT * FROM pg_temp.balances();
SELECT pk, sk FROM tw_acct ORDER BY pk, sk;
SELECT pk FROM tw_users ORDER BY pk;
-- a successful transaction leaves no cancellation reasons
SELECT singletable.cancellation_reasons() IS NULL AS no_reasons;

-- the same mix when the ConditionCheck fails: nothing is written (counter, put, delete)
SELECT singletable.put_item('tw_acct', '{"pk": "ACCT#1", "sk": "HOLD#2", "amount": 3}');
SELECT singletable.transact_write('[
  {"Put": {"TableName": "tw_users", "Item": {"pk": "carol"}, "ConditionExpression": "attribute_not_exists(pk)"}},
  {"Update": {"TableName": "tw_acct", "Key": {"pk": "ACCT#1", "sk": "BALANCE"},
              "UpdateExpression": "ADD n :d", "ExpressionAttributeValues": {":d": -3}}},
  {"Delete": {"TableName": "tw_acct", "Key": {"pk": "ACCT#1", "sk": "HOLD#2"}}},
  {"ConditionCheck": {"TableName": "tw_users", "Key": {"pk": "alice"},
                      "ConditionExpression": "attribute_not_exists(email)"}}]');
SELECT * FROM pg_temp.balances();
SELECT pk, sk FROM tw_acct WHERE sk LIKE 'HOLD#%' ORDER BY pk, sk;
SELECT pk FROM tw_users ORDER BY pk;
-- the cancelled transaction charged every action on its item (2 x), per table
SELECT singletable.last_consumed_capacity();

-- cancellation reasons in action order: the first, a middle and the last action failing,
-- and several at once
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#1', 1, 'n < :min'), pg_temp.add('ACCT#2', 1)));
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#1', 1), pg_temp.add('ACCT#2', 1, 'n < :min'),
                                                    pg_temp.add('ACCT#3', 1)));
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#1', 1), pg_temp.add('ACCT#2', 1, 'n < :min')));
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#1', 1, 'n < :min'), pg_temp.add('ACCT#2', 1),
                                                    pg_temp.add('ACCT#3', 1, 'n > :min')));
SELECT * FROM pg_temp.balances();
SELECT pk FROM tw_acct WHERE pk = 'ACCT#3';

-- ReturnValuesOnConditionCheckFailure ALL_OLD: the item is not in the error (DETAIL has
-- no Item) but cancellation_reasons() returns it; a missing item has no Item, and an
-- action that did not ask for it neither
SELECT singletable.transact_write('[
  {"ConditionCheck": {"TableName": "tw_acct", "Key": {"pk": "ACCT#2", "sk": "BALANCE"},
                      "ConditionExpression": "n > :v", "ExpressionAttributeValues": {":v": 1000},
                      "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
  {"Put": {"TableName": "tw_users", "Item": {"pk": "alice", "email": "new"},
           "ConditionExpression": "attribute_not_exists(pk)", "ReturnValuesOnConditionCheckFailure": "NONE"}},
  {"Delete": {"TableName": "tw_users", "Key": {"pk": "nobody"},
              "ConditionExpression": "attribute_exists(pk)", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
  {"Update": {"TableName": "tw_users", "Key": {"pk": "bob"}, "UpdateExpression": "SET seen = :t",
              "ConditionExpression": "attribute_not_exists(pk)", "ExpressionAttributeValues": {":t": true},
              "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}]');
SELECT jsonb_pretty(singletable.cancellation_reasons());
-- another role reads nothing of it; the role that made the call reads it again
SET ROLE regress_st_tw_other;
SELECT singletable.cancellation_reasons() IS NULL AS other_role_sees_nothing;
RESET ROLE;
SELECT jsonb_array_length(singletable.cancellation_reasons()) AS same_role_reads_again;
-- the next transact_write forgets them, also when it fails before it runs
SELECT singletable.transact_write('[]');
SELECT singletable.cancellation_reasons() IS NULL AS forgotten;

-- an update invalid for its item is a ValidationError reason, with DynamoDB's message;
-- the actions after it are not checked (None, although the last one's condition fails)
SELECT singletable.put_item('tw_users', '{"pk": "dave", "email": "d@example.com", "tags": ["a"]}');
SELECT singletable.transact_write('[
  {"ConditionCheck": {"TableName": "tw_users", "Key": {"pk": "alice"}, "ConditionExpression": "attribute_not_exists(pk)"}},
  {"Update": {"TableName": "tw_users", "Key": {"pk": "dave"}, "UpdateExpression": "SET email = email + :one",
              "ExpressionAttributeValues": {":one": 1}}},
  {"ConditionCheck": {"TableName": "tw_users", "Key": {"pk": "bob"}, "ConditionExpression": "attribute_not_exists(pk)"}}]');
SELECT singletable.cancellation_reasons();
SELECT singletable.transact_write('[
  {"Update": {"TableName": "tw_users", "Key": {"pk": "dave"}, "UpdateExpression": "SET missing_total = missing_total + :one",
              "ExpressionAttributeValues": {":one": 1}}}]');
SELECT singletable.transact_write('[
  {"Update": {"TableName": "tw_users", "Key": {"pk": "dave"}, "UpdateExpression": "SET tags[0].x = :one",
              "ExpressionAttributeValues": {":one": 1}}}]');
SELECT singletable.transact_write(jsonb_build_array(jsonb_build_object('Update', jsonb_build_object(
  'TableName', 'tw_users', 'Key', '{"pk": "dave"}'::jsonb, 'UpdateExpression', 'SET big = :b, big2 = :b',
  'ExpressionAttributeValues', jsonb_build_object(':b', repeat('x', 250000))))));
SELECT singletable.cancellation_reasons();
SELECT item FROM tw_users WHERE pk IN ('alice', 'dave') ORDER BY pk;
-- an update that writes nothing (REMOVE on a missing item) is valid
SELECT singletable.transact_write('[{"Update": {"TableName": "tw_users", "Key": {"pk": "nobody"},
  "UpdateExpression": "REMOVE email"}}]');
SELECT count(*) FROM tw_users WHERE pk = 'nobody';

-- invalid input: transact_items NULL, not an array, empty, more than 100 actions
SELECT singletable.transact_write(NULL);
SELECT singletable.transact_write('{"Put": {}}');
SELECT singletable.transact_write('[]');
SELECT singletable.transact_write((SELECT jsonb_agg(pg_temp.add('ACCT#' || i, 1)) FROM generate_series(1, 101) i));
-- 100 actions are allowed
SELECT singletable.transact_write((SELECT jsonb_agg(pg_temp.add('ACCT#' || i, 1)) FROM generate_series(1, 100) i))
       -> 'ConsumedCapacity' -> 0 ->> 'CapacityUnits' AS hundred_actions_units;
SELECT count(*) FROM tw_acct WHERE sk = 'BALANCE';
DELETE FROM tw_acct WHERE sk = 'BALANCE' AND pk NOT IN ('ACCT#1', 'ACCT#2');
-- invalid input: actions that are not objects of exactly one known member
SELECT singletable.transact_write('["Put"]');
SELECT singletable.transact_write('[{}]');
SELECT singletable.transact_write('[{"Put": {"TableName": "tw_users", "Item": {"pk": "x"}}, "Delete": {}}]');
SELECT singletable.transact_write('[{"Replace": {"TableName": "tw_users"}}]');
SELECT singletable.transact_write('[{"Get": {"TableName": "tw_users", "Key": {"pk": "x"}}}]');
SELECT singletable.transact_write('[{"Put": "tw_users"}]');
-- invalid input: an unknown member, or one of another kind of action
SELECT singletable.transact_write('[{"Put": {"TableName": "tw_users", "Item": {"pk": "x"}, "ConditionExpresion": "x"}}]');
SELECT singletable.transact_write('[{"Delete": {"TableName": "tw_users", "Key": {"pk": "x"}, "UpdateExpression": "SET a = :a"}}]');
-- invalid input: members of the wrong JSON type
SELECT singletable.transact_write('[{"Put": {"TableName": 7, "Item": {"pk": "x"}}}]');
SELECT singletable.transact_write('[{"Delete": {"TableName": "tw_users", "Key": "x"}}]');
SELECT singletable.transact_write('[{"Update": {"TableName": "tw_users", "Key": {"pk": "x"}, "UpdateExpression": ["SET a = :a"]}}]');
SELECT singletable.transact_write('[{"Put": {"TableName": "tw_users", "Item": {"pk": "x"}, "ExpressionAttributeValues": [1]}}]');
-- invalid input: required members missing (JSON null counts as missing)
SELECT singletable.transact_write('[{"Put": {"Item": {"pk": "x"}}}]');
SELECT singletable.transact_write('[{"Put": {"TableName": "tw_users"}}]');
SELECT singletable.transact_write('[{"Delete": {"TableName": "tw_users", "Key": null}}]');
SELECT singletable.transact_write('[{"Update": {"TableName": "tw_users", "Key": {"pk": "x"}}}]');
SELECT singletable.transact_write('[{"ConditionCheck": {"TableName": "tw_users", "Key": {"pk": "x"}}}]');
-- invalid input: ReturnValuesOnConditionCheckFailure other than NONE and ALL_OLD
SELECT singletable.transact_write('[{"Put": {"TableName": "tw_users", "Item": {"pk": "x"}, "ReturnValuesOnConditionCheckFailure": "ALL_NEW"}}]');
-- an optional member given as JSON null is absent
SELECT singletable.transact_write('[{"Put": {"TableName": "tw_users", "Item": {"pk": "erin"}, "ConditionExpression": null,
  "ReturnValuesOnConditionCheckFailure": null}}]');

-- invalid input: expressions, checked before tables: a syntax error in action 2 wins over
-- the missing table of action 1; an unused placeholder; names without an expression
SELECT singletable.transact_write('[
  {"Delete": {"TableName": "tw_missing", "Key": {"pk": "x"}}},
  {"ConditionCheck": {"TableName": "tw_users", "Key": {"pk": "x"}, "ConditionExpression": "attribute_exists("}}]');
SELECT singletable.transact_write('[{"ConditionCheck": {"TableName": "tw_users", "Key": {"pk": "x"},
  "ConditionExpression": "attribute_exists(pk)", "ExpressionAttributeValues": {":unused": 1}}}]');
SELECT singletable.transact_write('[{"Delete": {"TableName": "tw_users", "Key": {"pk": "x"},
  "ExpressionAttributeNames": {"#n": "name"}}}]');
SELECT singletable.transact_write('[{"Update": {"TableName": "tw_users", "Key": {"pk": "x"}, "UpdateExpression": "SET a = :a"}}]');
-- invalid input: tables, after expressions: missing, not a singletable table
SELECT singletable.transact_write('[
  {"ConditionCheck": {"TableName": "tw_users", "Key": {"pk": "x"}, "ConditionExpression": "attribute_exists(pk)"}},
  {"Delete": {"TableName": "tw_missing", "Key": {"pk": "x"}}}]');
SELECT singletable.transact_write('[{"Delete": {"TableName": "tw_plain", "Key": {"pk": "x"}}}]');
-- invalid input: the key rules of expressions come with the table (an update of a key attribute)
SELECT singletable.transact_write('[{"Update": {"TableName": "tw_users", "Key": {"pk": "x"}, "UpdateExpression": "SET pk = :v",
  "ExpressionAttributeValues": {":v": "y"}}}]');
-- invalid input: keys, after tables: missing, extra, of the wrong type, empty, too long
SELECT singletable.transact_write('[{"Delete": {"TableName": "tw_acct", "Key": {"pk": "ACCT#1"}}}]');
SELECT singletable.transact_write('[{"Delete": {"TableName": "tw_acct", "Key": {"pk": "ACCT#1", "nosk": "x"}}}]');
SELECT singletable.transact_write('[{"Delete": {"TableName": "tw_users", "Key": {"pk": "x", "sk": "y"}}}]');
SELECT singletable.transact_write('[{"Delete": {"TableName": "tw_acct", "Key": {"pk": "ACCT#1", "sk": 1}}}]');
SELECT singletable.transact_write('[{"Delete": {"TableName": "tw_users", "Key": {"pk": ""}}}]');
SELECT singletable.transact_write(jsonb_build_array(jsonb_build_object('Delete', jsonb_build_object(
  'TableName', 'tw_users', 'Key', jsonb_build_object('pk', repeat('k', 2049))))));
SELECT singletable.transact_write('[{"Put": {"TableName": "tw_acct", "Item": {"pk": "ACCT#9"}}}]');
SELECT singletable.transact_write('[{"Put": {"TableName": "tw_users", "Item": {"pk": 9}}}]');
-- N and B keys: canonical numbers (1.50 is 1.5), base64 text or {"$B": ...}
SELECT singletable.transact_write('[
  {"Put": {"TableName": "tw_num", "Item": {"pk": 1.50, "sk": 1e2, "v": 1}}},
  {"Put": {"TableName": "tw_bin", "Item": {"pk": "AQID", "v": 1}}}]') ? 'ConsumedCapacity' AS written;
SELECT singletable.transact_write('[
  {"Update": {"TableName": "tw_num", "Key": {"pk": 1.5, "sk": 100}, "UpdateExpression": "SET v = :v",
              "ConditionExpression": "v = :one", "ExpressionAttributeValues": {":v": 2, ":one": 1}}},
  {"ConditionCheck": {"TableName": "tw_bin", "Key": {"pk": {"$B": "AQID"}}, "ConditionExpression": "v = :one",
                      "ExpressionAttributeValues": {":one": 1}}}]') ? 'ConsumedCapacity' AS written;
SELECT pk, sk, item FROM tw_num;
SELECT singletable.transact_write('[{"Delete": {"TableName": "tw_bin", "Key": {"pk": "not base64!"}}}]');

-- invalid input: two actions on one item, also written differently (a number's scale, a
-- schema-qualified table name): the whole request, without reasons
SELECT singletable.transact_write('[
  {"ConditionCheck": {"TableName": "tw_users", "Key": {"pk": "alice"}, "ConditionExpression": "attribute_exists(pk)"}},
  {"Put": {"TableName": "tw_users", "Item": {"pk": "zed"}}},
  {"Delete": {"TableName": "tw_users", "Key": {"pk": "alice"}}}]');
SELECT singletable.transact_write('[
  {"Delete": {"TableName": "tw_num", "Key": {"pk": 1.5, "sk": 100}}},
  {"Put": {"TableName": "tw_num", "Item": {"pk": 1.50, "sk": 1E+2}}}]');
SELECT singletable.transact_write('[
  {"Delete": {"TableName": "public.tw_users", "Key": {"pk": "alice"}}},
  {"Put": {"TableName": "tw_users", "Item": {"pk": "alice"}}}]');
-- the same key in two tables is two items
SELECT singletable.transact_write('[
  {"Put": {"TableName": "tw_users", "Item": {"pk": "same"}}},
  {"Put": {"TableName": "tw_bin", "Item": {"pk": "c2FtZQ=="}}}]') ? 'ConsumedCapacity' AS written;
-- two names of one table share one ConsumedCapacity entry
SELECT singletable.transact_write('[
  {"Delete": {"TableName": "public.tw_users", "Key": {"pk": "same"}}},
  {"Delete": {"TableName": "tw_users", "Key": {"pk": "erin"}}}]');

-- invalid input: more than 4 MB of items together (11 items of 400 KB), refused before
-- anything is locked or written
SELECT singletable.transact_write((SELECT jsonb_agg(jsonb_build_object('Put', jsonb_build_object(
  'TableName', 'tw_users', 'Item', jsonb_build_object('pk', 'big' || i, 'data', repeat('d', 400000)))))
  FROM generate_series(1, 11) i));
SELECT count(*) FROM tw_users WHERE pk LIKE 'big%';

-- privileges: every table's rights are checked (before its lock) before any item is
-- locked or written; a ConditionCheck locks its item, which needs UPDATE
SET ROLE regress_st_tw_limited;
SELECT singletable.transact_write('[
  {"Put": {"TableName": "tw_users", "Item": {"pk": "frank"}}},
  {"Update": {"TableName": "tw_acct", "Key": {"pk": "ACCT#1", "sk": "BALANCE"}, "UpdateExpression": "ADD n :d",
              "ExpressionAttributeValues": {":d": 1}}}]');
SELECT singletable.transact_write('[
  {"Put": {"TableName": "tw_users", "Item": {"pk": "frank"}}},
  {"ConditionCheck": {"TableName": "tw_acct", "Key": {"pk": "ACCT#1", "sk": "BALANCE"},
                      "ConditionExpression": "attribute_exists(pk)"}}]');
SELECT singletable.transact_write('[{"Delete": {"TableName": "tw_users", "Key": {"pk": "alice"}}}]');
-- reading only needs SELECT
SELECT singletable.transact_get('[{"Get": {"TableName": "tw_acct", "Key": {"pk": "ACCT#2", "sk": "BALANCE"},
  "ProjectionExpression": "n"}}]') -> 'Responses';
RESET ROLE;
SELECT count(*) AS frank FROM tw_users WHERE pk = 'frank';

-- locks: one advisory lock per item (objsubid 21332), held to the end of the transaction
BEGIN;
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 1), pg_temp.add('ACCT#1', 1),
  '{"ConditionCheck": {"TableName": "tw_users", "Key": {"pk": "nobody"}, "ConditionExpression": "attribute_not_exists(pk)"}}'::jsonb))
  IS NOT NULL AS written;
SELECT locktype, objsubid, mode, granted, count(*) FROM pg_locks
 WHERE pid = pg_backend_pid() AND locktype = 'advisory' GROUP BY 1, 2, 3, 4;
COMMIT;
SELECT count(*) AS after_commit FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'advisory';

-- ClientRequestToken: the same request again returns the first response and writes
-- nothing (the counter moves once); the token is stored for the calling role
SELECT * FROM pg_temp.balances();
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 10)), 'token-1') AS first;
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 10)), 'token-1') AS replay;
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 10)), 'token-1') =
       (SELECT response FROM singletable.client_request_tokens WHERE token = 'token-1') AS replay_is_first_response;
SELECT * FROM pg_temp.balances();
SELECT role, token, octet_length(request_hash) AS hash_bytes, response ? 'ConsumedCapacity' AS has_response,
       created_at <= clock_timestamp() AS stamped
  FROM singletable.client_request_tokens;
-- a replay is charged nothing: it leaves table_stats and the last capacity alone
SELECT calls FROM singletable.table_stats WHERE table_name = 'tw_acct'::regclass AND operation = 'TransactWriteItems';
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 10)), 'token-1') ? 'ConsumedCapacity' AS replay;
SELECT calls FROM singletable.table_stats WHERE table_name = 'tw_acct'::regclass AND operation = 'TransactWriteItems';
-- invalid input: the token with another request: IdempotentParameterMismatch
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 11)), 'token-1');
SELECT * FROM pg_temp.balances();
-- the same token of another role is another token
SET ROLE regress_st_tw_other;
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 10)), 'token-1') ? 'ConsumedCapacity' AS other_role_runs;
-- invalid input: the table is its owner's alone
SELECT count(*) FROM singletable.client_request_tokens;
RESET ROLE;
SELECT * FROM pg_temp.balances();
SELECT role, token FROM singletable.client_request_tokens ORDER BY 1, 2;
-- a cancelled or rolled-back call leaves no token: the retry runs
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 1, 'n < :min')), 'token-2');
BEGIN;
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 1)), 'token-3') ? 'ConsumedCapacity' AS written;
-- in the same transaction the token is claimed by this session already: a replay
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 1)), 'token-3') ? 'ConsumedCapacity' AS replay;
ROLLBACK;
SELECT token FROM singletable.client_request_tokens ORDER BY 1;
SELECT * FROM pg_temp.balances();
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 1)), 'token-3') ? 'ConsumedCapacity' AS retry_runs;
SELECT * FROM pg_temp.balances();
-- the token's limits: 1 to 36 characters (not bytes)
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 1)), '');
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 1)), repeat('t', 37));
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 1)), repeat('é', 36)) ? 'ConsumedCapacity' AS thirty_six_chars;
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 1)), repeat('é', 37));
-- expiry: 10 minutes after its call a token is a new token again (aged here by hand);
-- the next call with a token deletes up to 16 expired ones, oldest first
UPDATE singletable.client_request_tokens SET created_at = created_at - interval '11 minutes' WHERE token = 'token-1';
SELECT * FROM pg_temp.balances();
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 11)), 'token-1') ? 'ConsumedCapacity' AS runs_again;
SELECT * FROM pg_temp.balances();
SELECT role, token, created_at > clock_timestamp() - interval '1 minute' AS fresh
  FROM singletable.client_request_tokens ORDER BY 1, 2;
INSERT INTO singletable.client_request_tokens
SELECT 'regress_st_tw_other', 'old-' || i, '\x00', '{}', clock_timestamp() - interval '1 hour' + i * interval '1 second'
  FROM generate_series(1, 20) i;
SELECT singletable.transact_write(jsonb_build_array(pg_temp.add('ACCT#2', 1)), 'token-4') ? 'ConsumedCapacity' AS written;
SELECT count(*) AS old_left, min(token) AS oldest_left FROM singletable.client_request_tokens WHERE token LIKE 'old-%';
DELETE FROM singletable.client_request_tokens;

-- transact_get: every item from one snapshot, in order, {} for a missing one, projected;
-- 2 x the read units of each item (4 KB units)
SELECT singletable.put_item('tw_users', jsonb_build_object('pk', 'wide', 'data', repeat('w', 5000)));
SELECT jsonb_pretty(singletable.transact_get('[
  {"Get": {"TableName": "tw_acct", "Key": {"pk": "ACCT#1", "sk": "BALANCE"}, "ProjectionExpression": "#n, n",
           "ExpressionAttributeNames": {"#n": "name"}}},
  {"Get": {"TableName": "tw_users", "Key": {"pk": "nobody"}}},
  {"Get": {"TableName": "tw_users", "Key": {"pk": "wide"}, "ProjectionExpression": "pk"}},
  {"Get": {"TableName": "tw_num", "Key": {"pk": 1.5, "sk": 100}}}]'));
SELECT singletable.last_consumed_capacity();
-- items past their TTL are hidden, as get_item hides them
SELECT singletable.enable_ttl('tw_users', 'exp');
SELECT singletable.put_item('tw_users', jsonb_build_object('pk', 'gone', 'exp', floor(extract(epoch FROM now())) - 100));
SELECT singletable.transact_get('[{"Get": {"TableName": "tw_users", "Key": {"pk": "gone"}}}]');
-- invalid input: the shapes of transact_get
SELECT singletable.transact_get(NULL);
SELECT singletable.transact_get('[]');
SELECT singletable.transact_get((SELECT jsonb_agg(jsonb_build_object('Get', jsonb_build_object('TableName', 'tw_users',
  'Key', jsonb_build_object('pk', 'k' || i)))) FROM generate_series(1, 101) i));
SELECT singletable.transact_get('[{"Put": {"TableName": "tw_users", "Item": {"pk": "x"}}}]');
SELECT singletable.transact_get('[{"Get": {"TableName": "tw_users", "Key": {"pk": "x"}, "ConditionExpression": "a = b"}}]');
SELECT singletable.transact_get('[{"Get": {"TableName": "tw_users"}}]');
SELECT singletable.transact_get('[{"Get": {"TableName": "tw_users", "Key": {"pk": "x"}, "ExpressionAttributeNames": {"#n": "n"}}}]');
SELECT singletable.transact_get('[{"Get": {"TableName": "tw_users", "Key": {"pk": "x"}, "ProjectionExpression": "a,"}}]');
SELECT singletable.transact_get('[{"Get": {"TableName": "tw_missing", "Key": {"pk": "x"}}}]');
SELECT singletable.transact_get('[{"Get": {"TableName": "tw_users", "Key": {"pk": "x"}}}, {"Get": {"TableName": "tw_users", "Key": {"pk": "x"}}}]');
-- invalid input: more than 4 MB of items read together
SELECT count(*) FROM (SELECT singletable.put_item('tw_users', jsonb_build_object('pk', 'big' || i, 'data', repeat('d', 400000)))
  FROM generate_series(1, 11) i) puts;
SELECT singletable.transact_get((SELECT jsonb_agg(jsonb_build_object('Get', jsonb_build_object('TableName', 'tw_users',
  'Key', jsonb_build_object('pk', 'big' || i)))) FROM generate_series(1, 11) i));
DELETE FROM tw_users WHERE pk LIKE 'big%';

-- capacity with a secondary index: only the table part is doubled; a ConditionCheck is
-- charged like a write of the item it read; a delete of a missing item 1 unit (x 2)
SELECT singletable.create_gsi('tw_acct', 'by-name', 'name') IS NOT NULL AS gsi;
SELECT singletable.transact_write('[
  {"Update": {"TableName": "tw_acct", "Key": {"pk": "ACCT#2", "sk": "BALANCE"}, "UpdateExpression": "SET #n = :n",
              "ExpressionAttributeNames": {"#n": "name"}, "ExpressionAttributeValues": {":n": "deux"}}},
  {"ConditionCheck": {"TableName": "tw_users", "Key": {"pk": "wide"}, "ConditionExpression": "attribute_exists(pk)"}},
  {"Delete": {"TableName": "tw_users", "Key": {"pk": "nobody"}}}]');
SELECT singletable.transact_write('[
  {"ConditionCheck": {"TableName": "tw_users", "Key": {"pk": "wide"}, "ConditionExpression": "attribute_exists(pk)"}}]')
  -> 'ConsumedCapacity' AS response_capacity \gset
SELECT singletable.last_consumed_capacity() = :'response_capacity'::jsonb AS response_is_last_capacity;

-- table_stats: TransactWriteItems and TransactGetItems rows per table (a cancelled call
-- counts its units and failed conditions)
SELECT table_name, index_name, operation, calls, items_written, write_capacity_units, read_capacity_units,
       conditional_check_failures
  FROM singletable.table_stats WHERE operation LIKE 'Transact%' ORDER BY 1, 2 NULLS FIRST, 3;

-- cleanup
SET client_min_messages = warning;
SELECT singletable.drop_table(t) FROM unnest(ARRAY['tw_acct', 'tw_users', 'tw_num', 'tw_bin']) t;
DROP TABLE tw_plain;
DROP ROLE regress_st_tw_other, regress_st_tw_limited;
