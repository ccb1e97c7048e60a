-- gsi_concurrently: create_gsi(..., concurrently => true) builds the index in a background
-- worker with CREATE INDEX CONCURRENTLY, after the calling transaction commits
-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('gc_posts');
SELECT count(*) FROM (
  SELECT singletable.put_item('gc_posts', jsonb_build_object('pk', 'USER#' || u, 'sk', 'POST#' || p)
           || CASE WHEN p = 1 THEN jsonb_build_object('gsi1pk', 'STATUS#approved', 'gsi1sk', u) ELSE '{}' END)
    FROM generate_series(1, 20) u, generate_series(1, 3) p) s;
-- waits (polling, at most 60 s) until the build of an index has ended and its worker has
-- gone; returns its status. A procedure that commits between its polls: CREATE INDEX
-- CONCURRENTLY waits for every transaction with an older snapshot, which one long
-- polling statement would be.
CREATE PROCEDURE gc_wait(idx text, INOUT status text DEFAULT NULL) LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..600 LOOP
    SELECT i.status INTO status FROM singletable.indexes i WHERE index_name = idx;
    EXIT WHEN status IS DISTINCT FROM 'CREATING'
          AND NOT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'singletable index build');
    COMMIT;
    PERFORM pg_sleep(0.1);
    COMMIT;
  END LOOP;
  status := coalesce(status, 'no row');
END $$;

-- tests
-- inside a transaction: the row is CREATING, the call returns NULL (no index yet), reads
-- are refused, writes already check the index keys
BEGIN;
SELECT singletable.create_gsi('gc_posts', 'gsi1', 'gsi1pk', 'gsi1sk', sort_key_type => 'N', concurrently => true) IS NULL AS returns_null;
SELECT status FROM singletable.indexes WHERE index_name = 'gsi1';
SELECT g->>'IndexStatus' AS status, g->'Backfilling' AS backfilling
  FROM jsonb_array_elements(singletable.describe_table('gc_posts')->'GlobalSecondaryIndexes') g;
SAVEPOINT s;
SELECT * FROM singletable.query('gc_posts', 'STATUS#approved', index_name => 'gsi1');
ROLLBACK TO SAVEPOINT s;
SELECT singletable.put_item('gc_posts', '{"pk": "USER#99", "sk": "POST#1", "gsi1pk": "STATUS#approved", "gsi1sk": "soon"}');
ROLLBACK TO SAVEPOINT s;
-- the worker waits for this transaction: nothing is built yet
SELECT count(*) FROM pg_class WHERE relname = 'gc_posts_gsi1_gsi';
COMMIT;
CALL gc_wait('gsi1');
SELECT indisvalid, indisready FROM pg_index WHERE indexrelid = 'gc_posts_gsi1_gsi'::regclass;
SELECT count(*) FROM singletable.query('gc_posts', 'STATUS#approved', index_name => 'gsi1');
SELECT * FROM singletable.explain_query('gc_posts', 'STATUS#approved', '<=', '3', index_name => 'gsi1');
SELECT g->>'IndexStatus' AS status, g->'Backfilling' AS backfilling
  FROM jsonb_array_elements(singletable.describe_table('gc_posts')->'GlobalSecondaryIndexes') g;

-- a rolled-back create_gsi builds nothing and leaves nothing
BEGIN;
SELECT singletable.create_gsi('gc_posts', 'gsi2', 'gsi2pk', concurrently => true);
ROLLBACK;
CALL gc_wait('gsi2');
SELECT count(*) FROM pg_class WHERE relname = 'gc_posts_gsi2_gsi';

-- one index created or dropped at a time (DynamoDB's LimitExceededException): while gsi5
-- is CREATING, dropping or creating another index is refused at once and changes nothing
-- (test/isolation/specs/gsi_build_busy.spec: the same with the build running)
BEGIN;
SELECT singletable.create_gsi('gc_posts', 'gsi5', 'gsi1pk', concurrently => true) IS NULL AS returns_null;
SAVEPOINT s;
SELECT singletable.drop_gsi('gc_posts', 'gsi1');
ROLLBACK TO SAVEPOINT s;
SELECT singletable.create_gsi('gc_posts', 'gsi6', 'gsi1pk');
ROLLBACK TO SAVEPOINT s;
SELECT singletable.create_lsi('gc_posts', 'lsi6', 'gsi1sk');
ROLLBACK TO SAVEPOINT s;
SELECT singletable.dynamodb('UpdateTable', '{"TableName": "gc_posts", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "gsi1"}}]}');
ROLLBACK TO SAVEPOINT s;
SELECT singletable.dynamodb('UpdateTable', '{"TableName": "gc_posts", "AttributeDefinitions": [{"AttributeName": "x", "AttributeType": "S"}], "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "gsi6", "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}}]}');
ROLLBACK TO SAVEPOINT s;
COMMIT;
CALL gc_wait('gsi5');
SELECT index_name, status FROM singletable.indexes WHERE table_name = 'gc_posts'::regclass ORDER BY 1;
SELECT singletable.drop_gsi('gc_posts', 'gsi5');

-- items the index cannot hold: the build fails, the row says why, the btree index is gone
SELECT singletable.put_item('gc_posts', '{"pk": "USER#1", "sk": "POST#9", "gsi3pk": ""}');
SELECT singletable.create_gsi('gc_posts', 'gsi3', 'gsi3pk', concurrently => true);
CALL gc_wait('gsi3');
SELECT status, build_error FROM singletable.indexes WHERE index_name = 'gsi3';
SELECT count(*) FROM pg_class WHERE relname = 'gc_posts_gsi3_gsi';
SELECT g->>'IndexStatus' AS status, g->>'BuildError' AS error
  FROM jsonb_array_elements(singletable.describe_table('gc_posts')->'GlobalSecondaryIndexes') g WHERE g->>'IndexName' = 'gsi3';
SELECT * FROM singletable.query('gc_posts', 'x', index_name => 'gsi3');
SELECT singletable.drop_gsi('gc_posts', 'gsi3');
SELECT count(*) FROM singletable.indexes WHERE index_name = 'gsi3';

-- only the owner, and LSIs are built at once (create_lsi has no concurrently)
CREATE ROLE gc_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON gc_posts TO gc_writer;
SET ROLE gc_writer;
SELECT singletable.create_gsi('gc_posts', 'gsi4', 'a', concurrently => true);
RESET ROLE;

-- cleanup
DROP OWNED BY gc_writer;
DROP ROLE gc_writer;
DROP PROCEDURE gc_wait(text, text);
SELECT singletable.drop_table('gc_posts');
