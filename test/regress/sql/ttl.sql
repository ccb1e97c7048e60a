-- ttl: enable_ttl/disable_ttl, ttl_sweep from a session, expired items hidden from reads
-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('ttl_app');
-- "now" as epoch seconds, for items that expired an hour ago, expire in an hour, or long ago
CREATE TEMP TABLE clock AS SELECT extract(epoch FROM now())::bigint AS now;
SELECT count(*) FROM (
  SELECT singletable.put_item('ttl_app', jsonb_build_object('pk', 'POST#p_17', 'sk', 'METRICS#' || lpad(i::text, 3, '0'),
           'views', i, 'expiresAt', CASE WHEN i <= 6 THEN (SELECT now FROM clock) - 3600 ELSE (SELECT now FROM clock) + 3600 END,
           'gsi1pk', 'METRICS', 'gsi1sk', i))
    FROM generate_series(1, 10) i) s;
-- never expire: no attribute, a string, more than five years ago, milliseconds by mistake
SELECT singletable.put_item('ttl_app', '{"pk": "POST#p_17", "sk": "SOURCE#f_1", "gsi1pk": "METRICS", "gsi1sk": 100}');
SELECT singletable.put_item('ttl_app', '{"pk": "POST#p_17", "sk": "SOURCE#f_2", "expiresAt": "2020-01-01"}');
SELECT singletable.put_item('ttl_app', jsonb_build_object('pk', 'POST#p_17', 'sk', 'SOURCE#f_3', 'expiresAt', (SELECT now FROM clock) - 6 * 366 * 86400));
SELECT singletable.put_item('ttl_app', jsonb_build_object('pk', 'POST#p_17', 'sk', 'SOURCE#f_4', 'expiresAt', (SELECT now FROM clock) * 1000));
SELECT singletable.create_gsi('ttl_app', 'gsi1', 'gsi1pk', 'gsi1sk', sort_key_type => 'N');
-- other collections without an expiry, so that the planner sees a real table
INSERT INTO ttl_app SELECT 'USER#' || i, 'PROFILE', jsonb_build_object('pk', 'USER#' || i, 'sk', 'PROFILE') FROM generate_series(1, 3000) i;

-- tests
SELECT singletable.enable_ttl('ttl_app', 'expiresAt');
SELECT table_name, attribute_name, ttl_index FROM singletable.ttl;
SELECT singletable.describe_table('ttl_app') -> 'TimeToLiveDescription' AS ttl;
\d ttl_app_ttl
-- expired items are hidden from every read before they are swept
SELECT count(*) AS all_items FROM ttl_app WHERE pk LIKE 'POST#%';
SELECT count(*) AS visible FROM singletable.query('ttl_app', 'POST#p_17');
SELECT count(*) AS visible_metrics FROM singletable.query('ttl_app', 'POST#p_17', 'begins_with', 'METRICS#');
SELECT count(*) AS including_expired FROM singletable.query('ttl_app', 'POST#p_17', include_expired => true);
SELECT sk FROM singletable.query('ttl_app', 'METRICS', index_name => 'gsi1');
SELECT count(*) AS index_including_expired FROM singletable.query('ttl_app', 'METRICS', index_name => 'gsi1', include_expired => true);
SELECT singletable.get_item('ttl_app', 'POST#p_17', 'METRICS#001') IS NULL AS expired_hidden,
       singletable.get_item('ttl_app', 'POST#p_17', 'METRICS#001', include_expired => true) ->> 'views' AS with_include_expired,
       singletable.get_item('ttl_app', 'POST#p_17', 'METRICS#007') ->> 'views' AS unexpired;
-- hidden items count as read for max_items (a page may come back short)
SELECT sk FROM singletable.query('ttl_app', 'POST#p_17', max_items => 8);
-- the items that never expire are all visible
SELECT sk FROM singletable.query('ttl_app', 'POST#p_17', 'begins_with', 'SOURCE#');
SELECT backlog FROM singletable.ttl_status;
-- ttl_status names the TTL index as the registry does, an index that exists
SELECT table_name, attribute_name, ttl_index, pg_typeof(ttl_index) AS type,
       ttl_index = (SELECT ttl_index FROM singletable.ttl WHERE table_name = 'ttl_app'::regclass) AS as_registered,
       (SELECT relkind FROM pg_class WHERE relname = ttl_index) AS relkind
  FROM singletable.ttl_status;

-- the sweep's batch (the statement of src/ops/ttl.c): its candidates are the first items of one
-- range of the TTL index, in expiry order
ANALYZE ttl_app;
EXPLAIN (COSTS OFF)
DELETE FROM ttl_app WHERE ctid = ANY (ARRAY(
  SELECT ctid FROM ttl_app WHERE jsonb_typeof(item -> 'expiresAt') = 'number'
     AND (CASE WHEN jsonb_typeof(item -> 'expiresAt') = 'number' THEN (item -> 'expiresAt')::numeric END) < 1700000000
     AND (CASE WHEN jsonb_typeof(item -> 'expiresAt') = 'number' THEN (item -> 'expiresAt')::numeric END) >= 1500000000
   ORDER BY (CASE WHEN jsonb_typeof(item -> 'expiresAt') = 'number' THEN (item -> 'expiresAt')::numeric END)
   LIMIT 1000 FOR UPDATE SKIP LOCKED))
  RETURNING (CASE WHEN jsonb_typeof(item -> 'expiresAt') = 'number' THEN (item -> 'expiresAt')::numeric END);
SELECT singletable.ttl_sweep('ttl_app', max_items => 2);
SELECT singletable.ttl_sweep('ttl_app');
SELECT singletable.ttl_sweep('ttl_app');
SELECT count(*) AS all_items FROM ttl_app WHERE pk LIKE 'POST#%';
SELECT sk FROM ttl_app WHERE pk LIKE 'POST#%' ORDER BY sk;
SELECT count(*) AS gsi_entries FROM singletable.query('ttl_app', 'METRICS', index_name => 'gsi1', include_expired => true);
SELECT backlog FROM singletable.ttl_status;
-- sweeping every TTL table the caller may sweep; a batch size of one
SELECT singletable.put_item('ttl_app', jsonb_build_object('pk', 'POST#p_18', 'sk', 'METRICS#001', 'expiresAt', (SELECT now FROM clock) - 3600));
SELECT singletable.put_item('ttl_app', jsonb_build_object('pk', 'POST#p_18', 'sk', 'METRICS#002', 'expiresAt', (SELECT now FROM clock) - 3600));
SET singletable.ttl_batch_size = 1;
SELECT singletable.ttl_sweep();
RESET singletable.ttl_batch_size;
-- an item another transaction has locked is skipped, not waited for (see test/tap/t/ for two sessions)

-- errors
SELECT singletable.enable_ttl('ttl_app', 'other');
SELECT singletable.enable_ttl('ttl_app', NULL);
SELECT singletable.enable_ttl('ttl_app', '');
SELECT singletable.enable_ttl('ttl_app', repeat('a', 256));
SELECT singletable.enable_ttl('no_such_table', 'expiresAt');
SELECT singletable.enable_ttl(NULL, 'expiresAt');
SELECT singletable.ttl_sweep('ttl_app', 0);
SELECT singletable.ttl_sweep('no_such_table');
SELECT singletable.create_table('ttl_plain');
SELECT singletable.ttl_sweep('ttl_plain');
SELECT singletable.disable_ttl('ttl_plain');
SELECT singletable.enable_ttl('ttl_plain', 'pk');
SELECT singletable.enable_ttl('ttl_plain', 'sk');
SET singletable.ttl_batch_size = 0;
SET singletable.ttl_interval = 5;
SET singletable.nonexistent = 1;
-- only the owner enables or disables; sweeping needs SELECT and DELETE
CREATE ROLE ttl_reader;
GRANT SELECT ON ttl_app TO ttl_reader;
SET ROLE ttl_reader;
SELECT singletable.disable_ttl('ttl_app');
SELECT singletable.ttl_sweep('ttl_app');
SELECT singletable.ttl_sweep();
SELECT table_name, backlog FROM singletable.ttl_status;
RESET ROLE;

-- disable_ttl: nothing expires any more, the index is gone
SELECT singletable.disable_ttl('ttl_app');
SELECT count(*) FROM singletable.ttl;
SELECT count(*) FROM pg_class WHERE relname = 'ttl_app_ttl';
SELECT singletable.describe_table('ttl_app') ? 'TimeToLiveDescription' AS has_ttl;
-- dropping a TTL table removes its setting
SELECT singletable.enable_ttl('ttl_plain', 'expiresAt');
DROP TABLE ttl_plain;
SELECT count(*) FROM singletable.ttl;

-- cleanup
DROP OWNED BY ttl_reader;
DROP ROLE ttl_reader;
SELECT singletable.drop_table('ttl_app');
