-- peel_off (issue 29, item 4): every item of one entity moved out of a single table into
-- its own new table, in steps that each are one transaction (begin, copy batches,
-- catch-up, cutover) or by the procedure that runs them all; the indexes the entity has
-- templates for and the TTL recreated; writes during the move logged and replayed; the
-- old table refusing the entity's keys afterwards; a move interrupted and resumed; every
-- error path.
SET client_min_messages = warning;
\set VERBOSITY terse

-- The posting app: posts of users, metrics and sources of posts, profiles
SELECT singletable.create_table('posting');
SELECT singletable.create_gsi('posting', 'gsi1', 'gsi1pk', 'gsi1sk');
SELECT singletable.create_lsi('posting', 'bypublish', 'publishAt');
SELECT singletable.enable_ttl('posting', 'ttl');
SELECT singletable.define_entity('posting', 'Metrics', pk => 'POST#{postId}', sk => 'METRICS#{capturedAt:timestamp}',
                                 indexes => '{"gsi1": {"pk": "MPOST#{postId}", "sk": "{capturedAt:timestamp}"}}',
                                 attributes => '{"views": "N"}');
SELECT singletable.define_entity('posting', 'Source', pk => 'POST#{postId}', sk => 'SOURCE#{sourceId}');
SELECT singletable.define_entity('posting', 'Post', pk => 'USER#{userId}', sk => 'POST#{postId}',
                                 indexes => '{"gsi1": {"pk": "STATUS#{status}", "sk": "{publishAt:timestamp}"},
                                              "bypublish": {"sk": "{publishAt:timestamp}"}}');
SELECT singletable.define_entity('posting', 'Profile', pk => 'USER#{userId}', sk => 'PROFILE');
-- 200 metrics (every fourth in gsi1), 20 sources, 20 profiles, 40 posts
SELECT count(singletable.put_item('posting', jsonb_build_object('pk', 'POST#p' || p,
         'sk', 'METRICS#2026-06-23T' || lpad(h::text, 2, '0') || ':12Z', 'views', p * h, 'ttl', 1798761600)
         || CASE WHEN h % 4 = 0 THEN jsonb_build_object('gsi1pk', 'MPOST#p' || p,
                                                        'gsi1sk', '2026-06-23T' || lpad(h::text, 2, '0') || ':12Z')
                 ELSE '{}' END))
  FROM generate_series(1, 20) p, generate_series(0, 9) h;
SELECT count(singletable.put_item('posting', jsonb_build_object('pk', 'POST#p' || p, 'sk', 'SOURCE#f' || p)))
  FROM generate_series(1, 20) p;
SELECT count(singletable.put_item('posting', jsonb_build_object('pk', 'USER#u' || u, 'sk', 'PROFILE', 'name', 'n' || u)))
  FROM generate_series(1, 20) u;
SELECT count(singletable.put_item('posting', jsonb_build_object('pk', 'USER#u' || u, 'sk', 'POST#p' || u || k,
         'status', 'approved', 'publishAt', '2026-06-2' || k || 'T09:00Z', 'gsi1pk', 'STATUS#approved',
         'gsi1sk', '2026-06-2' || k || 'T09:00Z')))
  FROM generate_series(1, 20) u, generate_series(1, 2) k;

-- Errors before anything is created
SELECT singletable.peel_off_begin(NULL, 'Metrics', 'posting_metrics');
SELECT singletable.peel_off_begin('posting', 'Metrics', 'posting_metrics', batch_size => 0);
SELECT singletable.peel_off_begin('nope', 'Metrics', 'posting_metrics');
CREATE TABLE plain (pk text PRIMARY KEY);
SELECT singletable.peel_off_begin('plain', 'Metrics', 'posting_metrics');
SELECT singletable.peel_off_begin('posting', 'Metric', 'posting_metrics');
SELECT singletable.peel_off_begin('posting', 'Metrics', 'plain');
CREATE ROLE regress_peel_other;
GRANT SELECT, INSERT, UPDATE, DELETE ON posting TO regress_peel_other;
SET ROLE regress_peel_other;
SELECT singletable.peel_off_begin('posting', 'Metrics', 'posting_metrics');
RESET ROLE;
CALL singletable.peel_off('posting', 'Metrics', 'posting_metrics', pause => -1);
SELECT singletable.peel_off_copy(12345);
SELECT count(*) AS no_new_table FROM pg_class WHERE relname = 'posting_metrics';

-- Begin: the new table with the entity's index (gsi1, not the LSI: Metrics has no
-- template for it), the TTL setting and the entity; the log triggers on the old table
SELECT singletable.peel_off_begin('posting', 'Metrics', 'posting_metrics', batch_size => 70) AS peel \gset
SELECT index_name, index_type, partition_key, sort_key FROM singletable.indexes
 WHERE table_name = 'posting_metrics'::regclass;
SELECT attribute_name FROM singletable.ttl WHERE table_name = 'posting_metrics'::regclass;
SELECT entity, pk_template, sk_template, index_templates, attributes FROM singletable.entities
 WHERE table_name = 'posting_metrics'::regclass;
SELECT tgname FROM pg_trigger WHERE tgrelid = 'posting'::regclass ORDER BY 1;
SELECT phase, items_copied, items_to_copy, percent_copied, log_pending FROM singletable.peel_off_progress;
-- the same arguments again: the same move; another entity of the table meanwhile: refused
SELECT singletable.peel_off_begin('posting', 'Metrics', 'posting_metrics') = :peel AS same_move;
SELECT singletable.peel_off_begin('posting', 'Source', 'posting_sources');
-- the cutover before the copy is done
SELECT singletable.peel_off_cutover(:peel);

-- Copy: batches in key order; writes meanwhile are logged (keys only), other entities not
SELECT singletable.peel_off_copy(:peel) AS copied;
SELECT last_pk, last_sk FROM singletable.peel_offs WHERE peel_id = :peel;
-- an item already copied updated, one ahead of the copy deleted, one behind it inserted,
-- one behind it deleted, a Source written (not logged)
SELECT singletable.update_item('posting', 'POST#p1', 'METRICS#2026-06-23T00:12Z', 'SET #v = :v',
                               names => '{"#v": "views"}', vals => '{":v": 999}') ->> 'views' AS views;
SELECT singletable.delete_item('posting', 'POST#p9', 'METRICS#2026-06-23T05:12Z');
SELECT singletable.put_item('posting', '{"pk": "POST#p1", "sk": "METRICS#2026-06-23T00:13Z", "views": 7}');
SELECT singletable.delete_item('posting', 'POST#p10', 'METRICS#2026-06-23T01:12Z');
SELECT singletable.put_item('posting', '{"pk": "POST#p1", "sk": "SOURCE#zz"}');
SELECT pk, sk FROM singletable.peel_off_log WHERE peel_id = :peel ORDER BY seq;
-- a plain UPDATE changing a key logs both keys
UPDATE posting SET sk = 'METRICS#2026-06-23T00:14Z', item = item || '{"sk": "METRICS#2026-06-23T00:14Z"}'
 WHERE pk = 'POST#p1' AND sk = 'METRICS#2026-06-23T00:13Z';
SELECT pk, sk FROM singletable.peel_off_log WHERE peel_id = :peel ORDER BY seq OFFSET 4;
-- the entity's items as the writes left them: what the new table must hold at the end
CREATE TABLE expected_metrics AS SELECT pk, sk, item FROM posting WHERE sk LIKE 'METRICS#%';

-- Interruption: the session ends here (nothing runs between steps); the procedure
-- called again with the same arguments resumes from the registry
\c
SET client_min_messages = warning;
\set VERBOSITY terse
CALL singletable.peel_off('posting', 'Metrics', 'posting_metrics', batch_size => 70);
SELECT phase, items_copied, items_to_copy, percent_copied, batches, log_pending, keys_replayed, items_deleted,
       copy_items_per_second > 0 AS has_rate, finished_at IS NOT NULL AS finished
  FROM singletable.peel_off_progress;

-- The result: every Metrics item in the new table as the writes left it, none in the old
SELECT count(*) AS metrics_moved FROM posting_metrics;
SELECT count(*) AS metrics_left FROM posting WHERE sk LIKE 'METRICS#%';
SELECT count(*) AS others_kept FROM posting;
SELECT (SELECT count(*) FROM (SELECT * FROM expected_metrics EXCEPT SELECT * FROM posting_metrics) a) AS missing,
       (SELECT count(*) FROM (SELECT * FROM posting_metrics EXCEPT SELECT * FROM expected_metrics) b) AS extra;
SELECT singletable.get_item('posting_metrics', 'POST#p1', 'METRICS#2026-06-23T00:12Z') ->> 'views' AS updated;
SELECT singletable.get_item('posting_metrics', 'POST#p1', 'METRICS#2026-06-23T00:14Z') ->> 'views' AS rekeyed;
SELECT singletable.get_item('posting_metrics', 'POST#p1', 'METRICS#2026-06-23T00:13Z') AS old_key_gone;
SELECT singletable.get_item('posting_metrics', 'POST#p9', 'METRICS#2026-06-23T05:12Z') AS deleted_ahead;
SELECT singletable.get_item('posting_metrics', 'POST#p10', 'METRICS#2026-06-23T01:12Z') AS deleted_behind;
SELECT singletable.get_item('posting', 'POST#p1', 'SOURCE#zz') AS source_stays;
SELECT sk FROM singletable.query('posting_metrics', 'MPOST#p3', index_name => 'gsi1');
SELECT count(*) AS log_left FROM singletable.peel_off_log;
SELECT tgname FROM pg_trigger WHERE tgrelid = 'posting'::regclass ORDER BY 1;

-- After the cutover the old table refuses the entity's keys, naming the new table
\set VERBOSITY default
SELECT singletable.put_item('posting', '{"pk": "POST#p1", "sk": "METRICS#2026-06-23T00:12Z", "views": 1}');
SELECT singletable.update_item('posting', 'POST#p2', 'METRICS#2026-06-23T03:12Z', 'SET #v = :v',
                               names => '{"#v": "views"}', vals => '{":v": 1}');
SELECT singletable.dynamodb('PutItem', '{"TableName": "posting", "Item": {"pk": {"S": "POST#p1"}, "sk": {"S": "METRICS#2026-06-23T00:12Z"}}}');
INSERT INTO posting VALUES ('POST#p1', 'METRICS#2026-06-23T00:15Z', '{"pk": "POST#p1", "sk": "METRICS#2026-06-23T00:15Z"}');
\set VERBOSITY terse
-- a batch and a transaction holding such a write are refused whole
SELECT singletable.dynamodb('BatchWriteItem', '{"RequestItems": {"posting": [
    {"PutRequest": {"Item": {"pk": {"S": "POST#p1"}, "sk": {"S": "SOURCE#b1"}}}},
    {"PutRequest": {"Item": {"pk": {"S": "POST#p1"}, "sk": {"S": "METRICS#2026-06-23T00:16Z"}}}}]}}');
SELECT singletable.dynamodb('TransactWriteItems', '{"TransactItems": [
    {"Put": {"TableName": "posting", "Item": {"pk": {"S": "POST#p1"}, "sk": {"S": "SOURCE#t1"}}}},
    {"Put": {"TableName": "posting", "Item": {"pk": {"S": "POST#p1"}, "sk": {"S": "METRICS#2026-06-23T00:17Z"}}}}]}');
SELECT count(*) AS not_written FROM posting WHERE sk IN ('SOURCE#b1', 'SOURCE#t1');
-- other entities of the old table are written as before; the new table takes the entity
SELECT singletable.put_item('posting', '{"pk": "POST#p1", "sk": "SOURCE#f9"}');
SELECT singletable.put_item('posting_metrics', '{"pk": "POST#p1", "sk": "METRICS#2026-06-23T00:15Z", "views": 1}');
-- the move is done: again, or another move of the entity, is refused
CALL singletable.peel_off('posting', 'Metrics', 'posting_metrics');
SELECT singletable.peel_off_begin('posting', 'Metrics', 'posting_metrics2');
SELECT singletable.peel_off_copy(:peel) AS copy_after_done, singletable.peel_off_cutover(:peel) AS cutover_after_done;

-- A table without a sort key, moved in one CALL; the cutover at REPEATABLE READ refused
SELECT singletable.create_table('kv', 'id', NULL);
SELECT singletable.define_entity('kv', 'Session', pk => 'SESSION#{sid}');
SELECT singletable.define_entity('kv', 'Cart', pk => 'CART#{cid}');
SELECT count(singletable.put_item('kv', jsonb_build_object('id', k || '#' || i))) FROM generate_series(1, 30) i, unnest(ARRAY['SESSION', 'CART']) k;
SELECT singletable.peel_off_begin('kv', 'Session', 'kv_sessions', batch_size => 7) AS kvpeel \gset
SELECT singletable.peel_off_copy(:kvpeel) FROM generate_series(1, 6);
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT singletable.peel_off_cutover(:kvpeel);
ROLLBACK;
-- the procedure inside a transaction block cannot commit its batches
BEGIN;
CALL singletable.peel_off('kv', 'Session', 'kv_sessions');
ROLLBACK;
CALL singletable.peel_off('kv', 'Session', 'kv_sessions');
SELECT (SELECT count(*) FROM kv) AS kv_items, (SELECT count(*) FROM kv_sessions) AS sessions,
       (SELECT min(id) FROM kv_sessions) AS first_session;
SELECT singletable.put_item('kv', '{"id": "SESSION#1"}');

-- A CALL cancelled in the middle of its copy (statement_timeout during a pause): the
-- batches it committed stay; the next CALL resumes after the last key copied. The
-- table's owner is not a superuser: the registry's row security lets it write its rows.
CREATE ROLE regress_peel_owner;
GRANT CREATE ON SCHEMA public TO regress_peel_owner;
SET ROLE regress_peel_owner;
SELECT singletable.create_table('ev', 'pk', NULL);
SELECT singletable.define_entity('ev', 'Event', pk => 'EV#{id:int(3)}');
SELECT count(singletable.put_item('ev', jsonb_build_object('pk', 'EV#' || lpad(i::text, 3, '0')))) FROM generate_series(1, 100) i;
SET statement_timeout = '1s';
CALL singletable.peel_off('ev', 'Event', 'ev_events', batch_size => 10, pause => 0.3);
RESET statement_timeout;
SELECT phase, items_copied > 0 AND items_copied < 100 AS part_copied,
       (SELECT count(*) FROM ev_events) = items_copied AS new_table_has_them
  FROM singletable.peel_off_progress WHERE table_name = 'ev'::regclass;
-- a write meanwhile is logged; another role neither changes the registry row nor reads the log
SELECT singletable.put_item('ev', '{"pk": "EV#101"}');
SELECT count(*) AS log_rows_owner FROM singletable.peel_off_log;
RESET ROLE;
SET ROLE regress_peel_other;
WITH u AS (UPDATE singletable.peel_offs SET phase = 'done' WHERE table_name = 'ev'::regclass RETURNING 1)
SELECT count(*) AS rows_changed FROM u;
SELECT count(*) AS log_rows_other FROM singletable.peel_off_log;
RESET ROLE;
SET ROLE regress_peel_owner;
CALL singletable.peel_off('ev', 'Event', 'ev_events', batch_size => 10);
SELECT phase, items_copied, (SELECT count(*) FROM ev_events) AS moved, (SELECT count(*) FROM ev) AS left_in_old
  FROM singletable.peel_off_progress WHERE table_name = 'ev'::regclass;
SELECT singletable.drop_table('ev_events');
SELECT singletable.drop_table('ev');
RESET ROLE;
REVOKE CREATE ON SCHEMA public FROM regress_peel_owner;
DROP ROLE regress_peel_owner;

-- A running move whose new table is dropped loses its log triggers and registry row
SELECT singletable.peel_off_begin('kv', 'Cart', 'kv_carts') AS cartpeel \gset
SELECT count(*) AS log_triggers FROM pg_trigger WHERE tgrelid = 'kv'::regclass AND tgname LIKE '%\_log\_%';
SELECT singletable.drop_table('kv_carts');
SELECT count(*) AS log_triggers FROM pg_trigger WHERE tgrelid = 'kv'::regclass AND tgname LIKE '%\_log\_%';
SELECT entity FROM singletable.peel_offs WHERE table_name = 'kv'::regclass;
SELECT singletable.put_item('kv', '{"id": "CART#99"}');
-- dropping the old table takes its rows
SELECT singletable.drop_table('kv');
SELECT count(*) AS kv_rows FROM singletable.peel_offs WHERE table_name::text LIKE 'kv%';

-- cleanup
SELECT singletable.drop_table('posting');
SELECT singletable.drop_table('posting_metrics');
SELECT singletable.drop_table('kv_sessions');
DROP TABLE plain, expected_metrics;
DROP ROLE regress_peel_other;
SELECT count(*) AS registry_left FROM singletable.peel_offs;
