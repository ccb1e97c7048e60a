-- batch: batch_get and batch_write, DynamoDB's BatchGetItem and BatchWriteItem
-- (DynamoDB API Reference: BatchGetItem, BatchWriteItem; capacity as DynamoDB charges it): shapes, limits and
-- errors, all-or-nothing validation, capacity per table, table_stats, TTL, B and N keys,
-- tables without sort key, GSIs kept, rights and row-level security, triggers, and the
-- statements each call runs (one per table and kind, index probes, never a scan).
-- Concurrency (a racing put_item, crossing batches, lock_timeout and UnprocessedItems,
-- rights before locks): test/isolation/specs/batch_put_race.spec.
-- The file runs with and without shared_preload_libraries = 'singletable'.

-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('bt');
SELECT singletable.create_gsi('bt', 'gsi1', 'gsi1pk', 'gsi1sk');
SELECT singletable.create_table('bn', 'id', NULL, 'N');
SELECT singletable.create_table('bb', 'pk', 'sk', 'B', 'N');
SELECT singletable.create_table('bttl');
SELECT singletable.enable_ttl('bttl', 'expiresAt');
SELECT singletable.create_table('bg');
-- the table whose plans are checked: 3,000 items, analyzed
SELECT singletable.create_table('bplan');
INSERT INTO bplan (pk, sk, item)
SELECT 'P#' || (i % 300), 'S#' || i, jsonb_build_object('pk', 'P#' || (i % 300), 'sk', 'S#' || i, 'n', i)
  FROM generate_series(1, 3000) i;
ANALYZE bplan;
CREATE ROLE regress_st_batch_reader;
CREATE ROLE regress_st_batch_deleter;
GRANT SELECT ON bt TO regress_st_batch_reader;
GRANT SELECT, DELETE ON bt TO regress_st_batch_deleter;
SELECT singletable.reset_stats();
RESET client_min_messages;

-- tests

-- batch_write over two tables: puts, a table without sort key (N key)
SELECT singletable.batch_write('{
  "bt": [{"PutRequest": {"Item": {"pk": "USER#1", "sk": "PROFILE", "name": "Ada", "gsi1pk": "EMAIL#ada", "gsi1sk": "USER#1"}}},
         {"PutRequest": {"Item": {"pk": "USER#1", "sk": "POST#1", "title": "t1"}}},
         {"PutRequest": {"Item": {"pk": "USER#2", "sk": "PROFILE", "name": "Bob"}}}],
  "bn": [{"PutRequest": {"Item": {"id": 1e3, "v": "thousand"}}},
         {"PutRequest": {"Item": {"id": -2.50, "v": "minus"}}}]}');
-- the response's ConsumedCapacity is last_consumed_capacity(), a list with one entry per
-- table, in request order (jsonb orders keys by length, then bytes)
SELECT singletable.last_consumed_capacity();
SELECT pk, sk, item FROM bt ORDER BY pk, sk;
SELECT id, item FROM bn ORDER BY id;
-- the GSI is maintained: the item put by batch_write is found by its index
SELECT pk, sk FROM singletable.query('bt', 'EMAIL#ada', index_name => 'gsi1');

-- batch_get: two tables, a missing key left out, items in request order, N keys by value
SELECT jsonb_pretty(singletable.batch_get('{
  "bt": {"Keys": [{"pk": "USER#2", "sk": "PROFILE"}, {"pk": "USER#9", "sk": "PROFILE"}, {"pk": "USER#1", "sk": "PROFILE"}]},
  "bn": {"Keys": [{"id": 1000}, {"id": -2.5}, {"id": 7}]}}'));
-- a table whose keys are all missing still has its (empty) list
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "NOBODY", "sk": "x"}]}}') -> 'Responses';
-- ProjectionExpression with ExpressionAttributeNames; key attributes only when projected
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "USER#1", "sk": "PROFILE"}, {"pk": "USER#2", "sk": "PROFILE"}],
                                      "ProjectionExpression": "#n, sk", "ExpressionAttributeNames": {"#n": "name"}}}') -> 'Responses';
-- same key in two tables is not a duplicate; a table named with its schema
SELECT singletable.batch_get('{"public.bt": {"Keys": [{"pk": "USER#1", "sk": "POST#1"}]},
                               "bg": {"Keys": [{"pk": "USER#1", "sk": "POST#1"}]}}') -> 'Responses';

-- capacity of batch_get: each item rounded to 4 KB on its own, summed per table
-- (DynamoDB's example: 1.5 KB + 6.5 KB = 12 KB, 3 units), a missing item the minimum;
-- ConsistentRead false halves every unit
SELECT singletable.put_item('bg', jsonb_build_object('pk', 'CAP', 'sk', 'a', 'b', repeat('x', 1536 - 9)));
SELECT singletable.put_item('bg', jsonb_build_object('pk', 'CAP', 'sk', 'b', 'b', repeat('x', 6656 - 9)));
SELECT singletable.item_size(item) FROM bg WHERE pk = 'CAP' ORDER BY sk;
SELECT singletable.batch_get('{"bg": {"Keys": [{"pk": "CAP", "sk": "a"}, {"pk": "CAP", "sk": "b"}]}}') -> 'ConsumedCapacity';
SELECT singletable.batch_get('{"bg": {"Keys": [{"pk": "CAP", "sk": "a"}, {"pk": "CAP", "sk": "b"}, {"pk": "CAP", "sk": "none"}],
                                      "ConsistentRead": false},
                               "bt": {"Keys": [{"pk": "USER#1", "sk": "PROFILE"}], "ConsistentRead": true}}') -> 'ConsumedCapacity';
-- a projection changes nothing of the cost
SELECT singletable.batch_get('{"bg": {"Keys": [{"pk": "CAP", "sk": "b"}], "ProjectionExpression": "sk"}}');

-- capacity of batch_write: each put and delete rounded to 1 KB on its own and summed: a
-- put replacing a 3 KB item with a small one 3, a new 500-byte item 1, a delete of a 2 KB
-- item 2, of a missing item 1; a GSI entry written or removed is charged to the index
SELECT singletable.put_item('bt', jsonb_build_object('pk', 'W', 'sk', '1', 'b', repeat('x', 3000)));
SELECT singletable.put_item('bt', jsonb_build_object('pk', 'W', 'sk', '3', 'b', repeat('x', 2000), 'gsi1pk', 'G', 'gsi1sk', 'x'));
SELECT jsonb_pretty(singletable.batch_write(jsonb_build_object('bt', jsonb_build_array(
  jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', 'W', 'sk', '1'))),
  jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', 'W', 'sk', '2', 'b', repeat('y', 500), 'gsi1pk', 'G', 'gsi1sk', 'y'))),
  jsonb_build_object('DeleteRequest', jsonb_build_object('Key', jsonb_build_object('pk', 'W', 'sk', '3'))),
  jsonb_build_object('DeleteRequest', jsonb_build_object('Key', jsonb_build_object('pk', 'W', 'sk', '4')))))));
SELECT pk, sk, singletable.item_size(item) FROM bt WHERE pk = 'W' ORDER BY sk;
-- put_item charges the first of those puts the same: 3
SELECT singletable.put_item('bt', jsonb_build_object('pk', 'W', 'sk', '1', 'b', repeat('x', 3000)));
SELECT singletable.put_item('bt', '{"pk": "W", "sk": "1"}');
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS put_item_units;
-- puts that replace items of a table with a GSI: old and new entries charged per item
SELECT singletable.batch_write(jsonb_build_object('bt', jsonb_build_array(
  jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', 'W', 'sk', '2', 'gsi1pk', 'G2', 'gsi1sk', 'y'))))))
  -> 'ConsumedCapacity';

-- table_stats: one call per table and batch, items and bytes as single operations count them
SELECT table_name, index_name, operation, calls, items_read, items_returned, items_written,
       bytes_read, bytes_written, read_capacity_units, write_capacity_units
  FROM singletable.table_stats
 WHERE operation IN ('BatchGetItem', 'BatchWriteItem')
 ORDER BY table_name::text, index_name NULLS FIRST, operation;

-- B and N keys: a B partition key as base64 or {"$B": ...}, an N sort key by value
SELECT singletable.batch_write('{"bb": [{"PutRequest": {"Item": {"pk": "AAEC", "sk": 1e2, "v": 1}}},
                                        {"PutRequest": {"Item": {"pk": {"$B": "AAED"}, "sk": 5, "v": 2}}}]}') -> 'UnprocessedItems';
SELECT encode(pk, 'hex') AS pk, sk, item FROM bb ORDER BY pk, sk;
SELECT singletable.batch_get('{"bb": {"Keys": [{"pk": {"$B": "AAEC"}, "sk": 100}, {"pk": "AAED", "sk": 5.0}]}}') -> 'Responses';
SELECT singletable.batch_write('{"bb": [{"DeleteRequest": {"Key": {"pk": {"$B": "AAEC"}, "sk": 100.0}}}]}') -> 'ConsumedCapacity';
SELECT count(*) AS bb_left FROM bb;

-- TTL: an expired item is left out (but charged, as get_item charges it)
SELECT singletable.batch_write(jsonb_build_object('bttl', jsonb_build_array(
  jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', 'T', 'sk', 'old', 'expiresAt', extract(epoch FROM now())::bigint - 60))),
  jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', 'T', 'sk', 'new', 'expiresAt', extract(epoch FROM now())::bigint + 3600))))))
  -> 'UnprocessedItems';
SELECT jsonb_path_query_array(r, '$.Responses.bttl[*].sk') AS returned, r -> 'ConsumedCapacity' -> 0 -> 'CapacityUnits' AS units
  FROM singletable.batch_get('{"bttl": {"Keys": [{"pk": "T", "sk": "old"}, {"pk": "T", "sk": "new"}]}}') r;

-- the response limit: 16 MB (16,777,216 bytes) of items; 40 items of 409,600 bytes fit,
-- the 41st does not: it and every later key, of this table and of every table after it,
-- are UnprocessedKeys in the request's shape, and are neither read nor charged
INSERT INTO bg (pk, sk, item)
SELECT 'BIG', lpad(i::text, 2, '0'),
       jsonb_build_object('pk', 'BIG', 'sk', lpad(i::text, 2, '0'), 'b', repeat('z', 409600 - 2 - 3 - 2 - 2 - 1))
  FROM generate_series(1, 42) i;
SELECT DISTINCT singletable.item_size(item) FROM bg WHERE pk = 'BIG';
CREATE TEMP TABLE big_response AS
SELECT singletable.batch_get(jsonb_build_object(
         'bg', jsonb_build_object('Keys', (SELECT jsonb_agg(jsonb_build_object('pk', 'BIG', 'sk', lpad(i::text, 2, '0')) ORDER BY i)
                                             FROM generate_series(1, 42) i),
                                  'ConsistentRead', true, 'ProjectionExpression', 'sk, b'),
         'bt', jsonb_build_object('Keys', jsonb_build_array(jsonb_build_object('pk', 'USER#1', 'sk', 'PROFILE'))))) AS r;
SELECT jsonb_array_length(r #> '{Responses,bg}') AS returned,
       r #>> '{Responses,bg,0,sk}' AS first, r #>> '{Responses,bg,39,sk}' AS last,
       r -> 'Responses' -> 'bt' AS bt_returned,
       r -> 'UnprocessedKeys' AS unprocessed,
       r -> 'ConsumedCapacity' AS capacity
  FROM big_response;
-- the UnprocessedKeys are a request of their own: it returns the rest
SELECT jsonb_path_query_array(r2, '$.Responses.bg[*].sk') AS bg, r2 #> '{Responses,bt,0,name}' AS bt,
       r2 -> 'UnprocessedKeys' AS unprocessed
  FROM big_response, singletable.batch_get(r -> 'UnprocessedKeys') r2;
DELETE FROM bg WHERE pk = 'BIG';

-- the statements: one per table, an index probe of the primary key per key, never a
-- scan of the table, whatever the plan cache chooses. The counters of this transaction
-- (pg_stat_xact_user_tables) count what the real statements did, so this checks the kept
-- plans themselves rather than a copy of their SQL; the differences are taken because the
-- counters also hold what earlier transactions did before the statistics were flushed.
BEGIN;
SELECT seq_scan AS seq0, idx_scan AS idx0, n_tup_ins AS ins0, n_tup_upd AS upd0, n_tup_del AS del0
  FROM pg_stat_xact_user_tables WHERE relname = 'bplan' \gset
SET LOCAL plan_cache_mode = force_generic_plan;
SELECT jsonb_array_length(singletable.batch_get(jsonb_build_object('bplan', jsonb_build_object('Keys',
         (SELECT jsonb_agg(jsonb_build_object('pk', 'P#' || (i % 300), 'sk', 'S#' || i)) FROM generate_series(1, 100) i)))) #> '{Responses,bplan}') AS found;
SELECT seq_scan - :seq0 AS seq_scans, idx_scan - :idx0 AS index_scans FROM pg_stat_xact_user_tables WHERE relname = 'bplan';
SET LOCAL plan_cache_mode = force_custom_plan;
SELECT jsonb_array_length(singletable.batch_get(jsonb_build_object('bplan', jsonb_build_object('Keys',
         (SELECT jsonb_agg(jsonb_build_object('pk', 'P#' || (i % 300), 'sk', 'S#' || i)) FROM generate_series(101, 200) i)))) #> '{Responses,bplan}') AS found;
SELECT seq_scan - :seq0 AS seq_scans, idx_scan - :idx0 AS index_scans FROM pg_stat_xact_user_tables WHERE relname = 'bplan';
-- 10 deletes and 10 puts of existing items of one table (generic plans): both kinds are
-- first locked in key order (20 probes), the upsert probes once per item (its ON CONFLICT
-- check) and updates 10 rows, the delete probes once per key and deletes 10: 40 probes
SET LOCAL plan_cache_mode = force_generic_plan;
SELECT seq_scan AS seq0, idx_scan AS idx0 FROM pg_stat_xact_user_tables WHERE relname = 'bplan' \gset
SELECT singletable.batch_write(jsonb_build_object('bplan',
         (SELECT jsonb_agg(CASE WHEN i <= 10
                                THEN jsonb_build_object('DeleteRequest', jsonb_build_object('Key', jsonb_build_object('pk', 'P#' || (i % 300), 'sk', 'S#' || i)))
                                ELSE jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', 'P#' || (i % 300), 'sk', 'S#' || i, 'n', -i))) END)
            FROM generate_series(1, 20) i))) -> 'UnprocessedItems';
SELECT seq_scan - :seq0 AS seq_scans, idx_scan - :idx0 AS index_scans, n_tup_ins - :ins0 AS inserted,
       n_tup_upd - :upd0 AS updated, n_tup_del - :del0 AS deleted
  FROM pg_stat_xact_user_tables WHERE relname = 'bplan';
-- 25 puts only (20 new items, custom plans): no locking statement, 25 probes, 20 rows
-- inserted and 5 updated
SET LOCAL plan_cache_mode = force_custom_plan;
SELECT seq_scan AS seq0, idx_scan AS idx0, n_tup_ins AS ins0, n_tup_upd AS upd0 FROM pg_stat_xact_user_tables WHERE relname = 'bplan' \gset
SELECT singletable.batch_write(jsonb_build_object('bplan',
         (SELECT jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', 'P#' || (i % 300), 'sk', 'S#' || i))))
            FROM generate_series(2996, 3020) i))) -> 'UnprocessedItems';
SELECT seq_scan - :seq0 AS seq_scans, idx_scan - :idx0 AS index_scans, n_tup_ins - :ins0 AS inserted,
       n_tup_upd - :upd0 AS updated
  FROM pg_stat_xact_user_tables WHERE relname = 'bplan';
ROLLBACK;

-- the whole batch is rejected, nothing written, when any part is invalid: here the
-- second table's item has an empty GSI key (the first table's puts are valid)
SELECT singletable.batch_write('{"bn": [{"PutRequest": {"Item": {"id": 5}}}],
                                 "bt": [{"PutRequest": {"Item": {"pk": "REJ", "sk": "1"}}},
                                        {"PutRequest": {"Item": {"pk": "REJ", "sk": "2", "gsi1pk": "", "gsi1sk": "x"}}}]}');
SELECT (SELECT count(*) FROM bn WHERE id = 5) AS bn_written, (SELECT count(*) FROM bt WHERE pk = 'REJ') AS bt_written;
-- ... or a table is missing
SELECT singletable.batch_write('{"bn": [{"PutRequest": {"Item": {"id": 5}}}], "nope": [{"DeleteRequest": {"Key": {"pk": "a"}}}]}');
SELECT count(*) AS bn_written FROM bn WHERE id = 5;
-- the batch runs in the caller's transaction: a later error rolls all of it back
BEGIN;
SELECT singletable.batch_write('{"bn": [{"PutRequest": {"Item": {"id": 6}}}]}') -> 'UnprocessedItems';
SELECT 1 / 0;
ROLLBACK;
SELECT count(*) AS bn_written FROM bn WHERE id = 6;

-- invalid input: request_items NULL, not an object, naming no table
SELECT singletable.batch_get(NULL);
SELECT singletable.batch_write(NULL);
SELECT singletable.batch_get('[{"bt": {}}]');
SELECT singletable.batch_write('"bt"');
SELECT singletable.batch_get('{}');
SELECT singletable.batch_write('{}');
-- invalid input: batch_get's table request: not an object, no Keys, Keys not an array or
-- empty, members of the wrong type, an unknown member (also DynamoDB's legacy ones)
SELECT singletable.batch_get('{"bt": [{"pk": "a", "sk": "b"}]}');
SELECT singletable.batch_get('{"bt": {"ConsistentRead": true}}');
SELECT singletable.batch_get('{"bt": {"Keys": {"pk": "a", "sk": "b"}}}');
SELECT singletable.batch_get('{"bt": {"Keys": []}}');
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "a", "sk": "b"}], "ProjectionExpression": ["pk"]}}');
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "a", "sk": "b"}], "ProjectionExpression": "pk", "ExpressionAttributeNames": ["#n"]}}');
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "a", "sk": "b"}], "ConsistentRead": "true"}}');
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "a", "sk": "b"}], "AttributesToGet": ["pk"]}}');
-- invalid input: more than 100 keys in all (checked before any table is looked up)
SELECT singletable.batch_get(jsonb_build_object(
         'nope', jsonb_build_object('Keys', (SELECT jsonb_agg(jsonb_build_object('pk', 'p' || i, 'sk', 's')) FROM generate_series(1, 60) i)),
         'bt', jsonb_build_object('Keys', (SELECT jsonb_agg(jsonb_build_object('pk', 'p' || i, 'sk', 's')) FROM generate_series(1, 41) i))));
-- invalid input: more tables than keys may be requested (refused before looking at any)
SELECT singletable.batch_get((SELECT jsonb_object_agg('t' || i, '{"Keys": [{"pk": "a"}]}'::jsonb) FROM generate_series(1, 101) i));
SELECT singletable.batch_write((SELECT jsonb_object_agg('t' || i, '[{"DeleteRequest": {"Key": {"pk": "a"}}}]'::jsonb) FROM generate_series(1, 26) i));
-- 100 keys are fine
SELECT jsonb_array_length(singletable.batch_get(jsonb_build_object(
         'bn', jsonb_build_object('Keys', (SELECT jsonb_agg(jsonb_build_object('id', i)) FROM generate_series(1, 60) i)),
         'bt', jsonb_build_object('Keys', (SELECT jsonb_agg(jsonb_build_object('pk', 'p' || i, 'sk', 's')) FROM generate_series(1, 40) i))))
       -> 'ConsumedCapacity') AS tables;
-- invalid input: a table that does not exist, or is not an item-collection table
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "a", "sk": "b"}]}, "nope": {"Keys": [{"pk": "a"}]}}');
SELECT singletable.batch_get('{"pg_class": {"Keys": [{"pk": "a"}]}}');
-- invalid input: a table named twice, under two spellings of its name
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "a", "sk": "1"}]}, "public.bt": {"Keys": [{"pk": "a", "sk": "2"}]}}');
-- invalid input: keys that do not match the schema: not an object, too few or too many
-- attributes, another attribute, of the wrong type (an N key given as a string, an S key
-- as a number), empty, too long
SELECT singletable.batch_get('{"bt": {"Keys": ["USER#1"]}}');
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "USER#1"}]}}');
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "USER#1", "sk": "PROFILE", "name": "Ada"}]}}');
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "USER#1", "sk": "PROFILE"}, {"pk": "USER#1", "name": "Ada"}]}}');
SELECT singletable.batch_get('{"bn": {"Keys": [{"id": "1000"}]}}');
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "USER#1", "sk": 1}]}}');
SELECT singletable.batch_get('{"bb": {"Keys": [{"pk": 1, "sk": 1}]}}');
SELECT singletable.batch_get('{"bb": {"Keys": [{"pk": "not base64!", "sk": 1}]}}');
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "", "sk": "PROFILE"}]}}');
SELECT singletable.batch_get(jsonb_build_object('bt', jsonb_build_object('Keys', jsonb_build_array(jsonb_build_object('pk', repeat('k', 2049), 'sk', 's')))));
-- invalid input: the same key twice (N keys by value: 1e3 is 1000)
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "USER#1", "sk": "PROFILE"}, {"pk": "USER#2", "sk": "PROFILE"}, {"pk": "USER#1", "sk": "PROFILE"}]}}');
SELECT singletable.batch_get('{"bn": {"Keys": [{"id": 1e3}, {"id": 1000.0}]}}');
-- invalid input: the projection: names without it, a name it does not use, a syntax error
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "USER#1", "sk": "PROFILE"}], "ExpressionAttributeNames": {"#n": "name"}}}');
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "USER#1", "sk": "PROFILE"}], "ProjectionExpression": "sk", "ExpressionAttributeNames": {"#n": "name"}}}');
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "USER#1", "sk": "PROFILE"}], "ProjectionExpression": "sk,,"}}');

-- invalid input: batch_write's table requests: not an array, empty
SELECT singletable.batch_write('{"bt": {"PutRequest": {"Item": {"pk": "a", "sk": "b"}}}}');
SELECT singletable.batch_write('{"bt": []}');
-- invalid input: more than 25 requests in all (before any table is looked up)
SELECT singletable.batch_write(jsonb_build_object(
         'nope', (SELECT jsonb_agg(jsonb_build_object('DeleteRequest', jsonb_build_object('Key', jsonb_build_object('pk', 'x' || i)))) FROM generate_series(1, 20) i),
         'bt', (SELECT jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', 'x' || i, 'sk', 's')))) FROM generate_series(1, 6) i)));
-- invalid input: a write request that is not an object, has neither or both kinds, an
-- unknown kind, a PutRequest without Item or with more, a DeleteRequest without Key, an
-- Item or Key that is not an object
SELECT singletable.batch_write('{"bt": ["PutRequest"]}');
SELECT singletable.batch_write('{"bt": [{}]}');
SELECT singletable.batch_write('{"bt": [{"PutRequest": {"Item": {"pk": "a", "sk": "b"}}, "DeleteRequest": {"Key": {"pk": "a", "sk": "b"}}}]}');
SELECT singletable.batch_write('{"bt": [{"UpdateRequest": {"Key": {"pk": "a", "sk": "b"}}}]}');
SELECT singletable.batch_write('{"bt": [{"PutRequest": {}}]}');
SELECT singletable.batch_write('{"bt": [{"PutRequest": {"Item": {"pk": "a", "sk": "b"}, "ConditionExpression": "attribute_not_exists(pk)"}}]}');
SELECT singletable.batch_write('{"bt": [{"DeleteRequest": {}}]}');
SELECT singletable.batch_write('{"bt": [{"DeleteRequest": {"Item": {"pk": "a", "sk": "b"}}}]}');
SELECT singletable.batch_write('{"bt": [{"PutRequest": "item"}]}');
SELECT singletable.batch_write('{"bt": [{"DeleteRequest": {"Key": ["a", "b"]}}]}');
-- invalid input: a table that does not exist, a table named twice
SELECT singletable.batch_write('{"nope": [{"DeleteRequest": {"Key": {"pk": "a"}}}]}');
SELECT singletable.batch_write('{"bn": [{"DeleteRequest": {"Key": {"id": 1}}}], "public.bn": [{"DeleteRequest": {"Key": {"id": 2}}}]}');
-- invalid input: items and keys that do not match the schema (BatchWriteItem's own text:
-- "The provided key element does not match the schema", also for a missing key in an item)
SELECT singletable.batch_write('{"bt": [{"PutRequest": {"Item": {"pk": "a"}}}]}');
SELECT singletable.batch_write('{"bt": [{"PutRequest": {"Item": {"pk": "a", "sk": 1}}}]}');
SELECT singletable.batch_write('{"bn": [{"PutRequest": {"Item": {"id": "1"}}}]}');
SELECT singletable.batch_write('{"bb": [{"PutRequest": {"Item": {"pk": 1, "sk": 1}}}]}');
SELECT singletable.batch_write('{"bt": [{"DeleteRequest": {"Key": {"pk": "a"}}}]}');
SELECT singletable.batch_write('{"bn": [{"DeleteRequest": {"Key": {"id": 1, "sk": "x"}}}]}');
SELECT singletable.batch_write('{"bt": [{"PutRequest": {"Item": {"pk": "", "sk": "b"}}}]}');
-- invalid input: item rules as put_item applies them: an item over 400 KB, a number out of
-- range, a GSI key of the wrong type
SELECT singletable.batch_write(jsonb_build_object('bt', jsonb_build_array(
         jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', 'a', 'sk', 'b', 'big', repeat('x', 409600)))))));
SELECT singletable.batch_write('{"bt": [{"PutRequest": {"Item": {"pk": "a", "sk": "b", "n": 1e200}}}]}');
SELECT singletable.batch_write('{"bt": [{"PutRequest": {"Item": {"pk": "a", "sk": "b", "gsi1pk": 5, "gsi1sk": "x"}}}]}');
-- invalid input: the same key twice: two puts, a put and a delete (N keys by value)
SELECT singletable.batch_write('{"bt": [{"PutRequest": {"Item": {"pk": "a", "sk": "b", "v": 1}}}, {"PutRequest": {"Item": {"pk": "a", "sk": "b", "v": 2}}}]}');
SELECT singletable.batch_write('{"bn": [{"PutRequest": {"Item": {"id": 10}}}, {"PutRequest": {"Item": {"id": 11}}}, {"DeleteRequest": {"Key": {"id": 1e1}}}]}');
-- the same key in two tables is fine
SELECT singletable.batch_write('{"bt": [{"PutRequest": {"Item": {"pk": "same", "sk": "key"}}}], "bg": [{"PutRequest": {"Item": {"pk": "same", "sk": "key"}}}]}')
  -> 'UnprocessedItems';

-- rights: every table is opened with the privileges its requests need, checked before
-- its lock (test/isolation/specs/batch_put_race.spec shows that no lock is waited for)
SET ROLE regress_st_batch_reader;
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "USER#1", "sk": "PROFILE"}]}}') -> 'Responses';
-- invalid input: a reader cannot put or delete, nor read a table it has no right on
SELECT singletable.batch_write('{"bt": [{"PutRequest": {"Item": {"pk": "x", "sk": "y"}}}]}');
SELECT singletable.batch_write('{"bt": [{"DeleteRequest": {"Key": {"pk": "x", "sk": "y"}}}]}');
SELECT singletable.batch_get('{"bt": {"Keys": [{"pk": "USER#1", "sk": "PROFILE"}]}, "bn": {"Keys": [{"id": 1}]}}');
RESET ROLE;
SET ROLE regress_st_batch_deleter;
-- DELETE and SELECT suffice for deletes ...
SELECT singletable.batch_write('{"bt": [{"DeleteRequest": {"Key": {"pk": "same", "sk": "key"}}}]}') -> 'UnprocessedItems';
-- invalid input: ... but a put in the same batch needs INSERT and UPDATE: nothing is written
SELECT singletable.batch_write('{"bt": [{"DeleteRequest": {"Key": {"pk": "USER#2", "sk": "PROFILE"}}}, {"PutRequest": {"Item": {"pk": "x", "sk": "y"}}}]}');
RESET ROLE;
SELECT count(*) AS kept FROM bt WHERE pk = 'USER#2';
-- row-level security: rows the policy hides are read and deleted as if absent
GRANT SELECT, INSERT, UPDATE, DELETE ON bt TO regress_st_batch_reader;
ALTER TABLE bt ENABLE ROW LEVEL SECURITY;
CREATE POLICY bt_users ON bt USING (pk LIKE 'USER#%');
SET ROLE regress_st_batch_reader;
SELECT r -> 'Responses' AS responses, r -> 'ConsumedCapacity' -> 0 -> 'CapacityUnits' AS units
  FROM singletable.batch_get('{"bt": {"Keys": [{"pk": "USER#1", "sk": "PROFILE"}, {"pk": "W", "sk": "1"}]}}') r;
SELECT singletable.batch_write('{"bt": [{"DeleteRequest": {"Key": {"pk": "W", "sk": "1"}}}]}') -> 'ConsumedCapacity';
-- invalid input: a put of an item the policy does not allow
SELECT singletable.batch_write('{"bt": [{"PutRequest": {"Item": {"pk": "W", "sk": "1", "v": "mine"}}}]}');
RESET ROLE;
SELECT pk, sk, item FROM bt WHERE pk = 'W' AND sk = '1';
DROP POLICY bt_users ON bt;
ALTER TABLE bt DISABLE ROW LEVEL SECURITY;
REVOKE INSERT, UPDATE, DELETE ON bt FROM regress_st_batch_reader;

-- triggers: a BEFORE trigger that skips a row fails the batch (as put_item does); one
-- that changes a put's key too, since the put would not be the one charged
CREATE FUNCTION batch_skip() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.sk = 'skip' THEN RETURN NULL; END IF;
  IF NEW.sk = 'move' THEN NEW.sk := 'moved'; END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER batch_skip BEFORE INSERT OR UPDATE ON bg FOR EACH ROW EXECUTE FUNCTION batch_skip();
-- invalid input: a skipped insert, a changed key
SELECT singletable.batch_write('{"bg": [{"PutRequest": {"Item": {"pk": "TRG", "sk": "a"}}}, {"PutRequest": {"Item": {"pk": "TRG", "sk": "skip"}}}]}');
SELECT singletable.batch_write('{"bg": [{"PutRequest": {"Item": {"pk": "TRG", "sk": "move"}}}]}');
SELECT count(*) AS written FROM bg WHERE pk = 'TRG';
DROP TRIGGER batch_skip ON bg;
-- a constraint of the user's fails with its own error, without the row (item content)
ALTER TABLE bg ADD CONSTRAINT bg_small CHECK (pg_column_size(item) < 100) NOT VALID;
SELECT singletable.batch_write(jsonb_build_object('bg', jsonb_build_array(
         jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', 'CHK', 'sk', 'a', 'secret', repeat('s', 200)))))));
ALTER TABLE bg DROP CONSTRAINT bg_small;

-- cleanup
SET client_min_messages = warning;
DROP FUNCTION batch_skip() CASCADE;
SELECT singletable.drop_table(t) FROM unnest(ARRAY['bt', 'bn', 'bb', 'bttl', 'bg', 'bplan']) t;
DROP ROLE regress_st_batch_reader;
DROP ROLE regress_st_batch_deleter;
