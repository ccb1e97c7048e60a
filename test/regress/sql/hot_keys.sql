-- hot_keys: the most accessed partition keys of a table, reads and writes
-- (singletable.hot_keys), what each operation records, the key's text (N canonical,
-- B base64, long keys truncated), track_hot_keys, reset_stats, and who may call it.
-- The file runs with and without shared_preload_libraries = 'singletable': nothing it
-- prints depends on the scope, which is compared with the setting instead. Every count
-- is exact here (fewer keys than counters); the sketch under load, its error bounds and
-- the windows: test/server/hot_keys.sh.

-- setup
SET client_min_messages = warning;
CREATE ROLE regress_st_hot_nobody;
CREATE ROLE regress_st_hot_reader;
SELECT singletable.create_table('hot_a');
SELECT singletable.create_table('hot_n', partition_key_type => 'N', sort_key => NULL);
SELECT singletable.create_table('hot_b', partition_key_type => 'B', sort_key => NULL);
CREATE TABLE hot_plain (pk text);
GRANT SELECT ON hot_a TO regress_st_hot_reader;
RESET client_min_messages;

-- tests

-- a full reset first: the sketches of earlier tests' tables go, and no key is counted
SELECT singletable.reset_stats();
SELECT count(*) AS keys_after_reset FROM singletable.hot_keys('hot_a');

-- the columns
SELECT proargnames, pg_catalog.pg_get_function_result(oid) AS result
  FROM pg_proc WHERE oid = 'singletable.hot_keys'::regproc;

-- single-item writes and reads: put, update, delete (also one whose condition fails),
-- get (also of a missing item), and a query of the table, each one access of its key
SELECT count(singletable.put_item('hot_a', jsonb_build_object('pk', 'USER#' || (i % 3), 'sk', i::text)) IS NULL)
  AS puts FROM generate_series(1, 9) i;
SELECT singletable.update_item('hot_a', 'USER#1', '1', 'SET v = :v', vals => '{":v": 1}');
SELECT singletable.delete_item('hot_a', 'USER#2', '2');
SELECT singletable.delete_item('hot_a', 'USER#2', '5', condition => 'attribute_not_exists(pk)');
SELECT singletable.get_item('hot_a', 'USER#1', '1') IS NOT NULL AS found;
SELECT singletable.get_item('hot_a', 'USER#1', '4') IS NOT NULL AS found;
SELECT singletable.get_item('hot_a', 'NOBODY', '1') IS NOT NULL AS found;
SELECT count(*) FROM singletable.query('hot_a', 'USER#0');
SELECT access, partition_key, count, error, round(share::numeric, 4) AS share, truncated
  FROM singletable.hot_keys('hot_a');

-- the scope follows the setting; window_start is at most two windows back
SELECT bool_and(scope = CASE WHEN current_setting('shared_preload_libraries') ~ 'singletable'
                             THEN 'shared' ELSE 'backend' END) AS scope_ok,
       bool_and(window_start BETWEEN now() - 2 * current_setting('singletable.hot_keys_window')::interval
                                 AND clock_timestamp()) AS window_ok
  FROM singletable.hot_keys('hot_a');

-- batches and transactions: each item (read) and each request or action (written)
SELECT singletable.batch_get('{"hot_a": {"Keys": [{"pk": "USER#0", "sk": "3"}, {"pk": "USER#0", "sk": "6"},
                                                  {"pk": "BATCH", "sk": "1"}]}}') IS NOT NULL AS ok;
SELECT singletable.batch_write('{"hot_a": [{"PutRequest": {"Item": {"pk": "BATCH", "sk": "1"}}},
                                           {"PutRequest": {"Item": {"pk": "BATCH", "sk": "2"}}},
                                           {"DeleteRequest": {"Key": {"pk": "USER#0", "sk": "9"}}}]}') IS NOT NULL AS ok;
SELECT singletable.transact_get('[{"Get": {"TableName": "hot_a", "Key": {"pk": "TX", "sk": "1"}}}]') IS NOT NULL AS ok;
SELECT singletable.transact_write('[{"Put": {"TableName": "hot_a", "Item": {"pk": "TX", "sk": "1"}}},
                                    {"ConditionCheck": {"TableName": "hot_a", "Key": {"pk": "BATCH", "sk": "1"},
                                                        "ConditionExpression": "attribute_exists(pk)"}}]') IS NOT NULL AS ok;
-- the JSON API goes through the same operations
SELECT singletable.dynamodb('GetItem', '{"TableName": "hot_a", "Key": {"pk": {"S": "TX"}, "sk": {"S": "1"}}}') IS NOT NULL AS ok;
SELECT singletable.dynamodb('PutItem', '{"TableName": "hot_a", "Item": {"pk": {"S": "TX"}, "sk": {"S": "2"}}}') IS NOT NULL AS ok;
SELECT access, partition_key, count, error, round(share::numeric, 4) AS share
  FROM singletable.hot_keys('hot_a');

-- not recorded: a cancelled transaction, a scan, a call with invalid keys
SELECT singletable.transact_write('[{"Put": {"TableName": "hot_a", "Item": {"pk": "CANCELLED", "sk": "1"},
                                             "ConditionExpression": "attribute_exists(pk)"}}]');
SELECT count(*) FROM singletable.scan('hot_a');
SELECT singletable.get_item('hot_a', 'NO_SORT_KEY');
SELECT count(*) AS cancelled_or_invalid FROM singletable.hot_keys('hot_a')
  WHERE partition_key IN ('CANCELLED', 'NO_SORT_KEY');

-- the key's text: N in canonical form, B in base64; a key over 128 bytes is cut at a
-- character and marked truncated, while the whole key stays its identity
SELECT singletable.put_item('hot_n', '{"pk": 12.50}');
SELECT singletable.get_item('hot_n', '1.25e1') IS NOT NULL AS found;
SELECT singletable.put_item('hot_b', '{"pk": "AAEC"}');
SELECT singletable.get_item('hot_b', 'AAEC') IS NOT NULL AS found;
SELECT access, partition_key, count FROM singletable.hot_keys('hot_n');
SELECT access, partition_key, count FROM singletable.hot_keys('hot_b');
SELECT singletable.put_item('hot_a', jsonb_build_object('pk', repeat('é', 70) || 'x', 'sk', '1'));
SELECT singletable.put_item('hot_a', jsonb_build_object('pk', repeat('é', 70) || 'x', 'sk', '2'));
SELECT singletable.put_item('hot_a', jsonb_build_object('pk', repeat('é', 70) || 'y', 'sk', '1'));
SELECT count, length(partition_key) AS chars, octet_length(partition_key) AS bytes, truncated
  FROM singletable.hot_keys('hot_a') WHERE access = 'write' AND partition_key LIKE 'é%';

-- track_hot_keys = off records nothing
SET singletable.track_hot_keys = off;
SELECT singletable.get_item('hot_n', '7') IS NOT NULL AS found;
RESET singletable.track_hot_keys;
SELECT count(*) AS untracked FROM singletable.hot_keys('hot_n') WHERE partition_key = '7';

-- a role with SELECT on the table sees its hot keys
SET ROLE regress_st_hot_reader;
SELECT access, partition_key, count FROM singletable.hot_keys('hot_a') WHERE partition_key LIKE 'USER#%';
RESET ROLE;

-- reset_stats(table) empties that table's hot keys only; reset_stats() all of them
SELECT singletable.reset_stats('hot_a');
SELECT count(*) AS hot_a_keys FROM singletable.hot_keys('hot_a');
SELECT count(*) AS hot_n_keys FROM singletable.hot_keys('hot_n');
SELECT singletable.reset_stats();
SELECT count(*) AS hot_n_keys FROM singletable.hot_keys('hot_n');

-- invalid input: NULL, an unknown table, a table that is not an item-collection table
SELECT * FROM singletable.hot_keys(NULL);
SELECT * FROM singletable.hot_keys('hot_missing');
SELECT * FROM singletable.hot_keys('hot_plain');

-- invalid input: a role without SELECT on the table
SET ROLE regress_st_hot_nobody;
SELECT * FROM singletable.hot_keys('hot_a');
RESET ROLE;

-- cleanup
SET client_min_messages = warning;
SELECT singletable.drop_table('hot_a');
SELECT singletable.drop_table('hot_n');
SELECT singletable.drop_table('hot_b');
DROP TABLE hot_plain;
DROP ROLE regress_st_hot_nobody;
DROP ROLE regress_st_hot_reader;
