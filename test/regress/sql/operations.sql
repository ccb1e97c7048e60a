-- The operations layer's contract as SQL sees it: the error contract (DETAIL is
-- DynamoDB's error body), the failure item of a failed condition, start keys validated
-- as DynamoDB validates ExclusiveStartKey, writes that a trigger skipped or that
-- row-level security hides, and the planner's row estimate of query.

-- setup
SELECT singletable.create_table('ops');
SELECT singletable.create_table('ops_n', partition_key_type => 'N', sort_key_type => 'N');
SELECT singletable.create_table('ops_pk', sort_key => NULL);
SELECT singletable.put_item('ops', '{"pk": "A", "sk": "s1", "v": 1}');
SELECT singletable.put_item('ops', '{"pk": "A", "sk": "s2", "v": 2}');
SELECT singletable.put_item('ops', '{"pk": "A", "sk": "t1", "v": 3}');
SELECT singletable.put_item('ops_n', '{"pk": 1, "sk": 10}');
SELECT singletable.put_item('ops_n', '{"pk": 1, "sk": 20}');

-- Shows an error as SQLSTATE, message, and the DynamoDB exception and message of DETAIL.
CREATE FUNCTION ops_try(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE st text; msg text; det text;
BEGIN
  EXECUTE sql;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
  RETURN st || ' ' || msg || CASE WHEN det LIKE '{%' THEN
    ' | ' || (det::jsonb->>'__type') || ': ' || (det::jsonb->>'message') ELSE '' END;
END $$;

-- tests

-- the error contract: DETAIL is {"__type", "message"} with the SQLSTATE's exception
SELECT ops_try($$SELECT singletable.put_item('ops', '{"pk": "A", "sk": "s1"}', 'attribute_not_exists(pk)')$$);
SELECT ops_try($$SELECT singletable.get_item('ops', 'A')$$);
SELECT ops_try($$SELECT singletable.put_item('ops', '{"pk": "A", "sk": "s1"}', return_values => 'ALL_NEW')$$);
-- the exception of each SQLSTATE is one function of it
SELECT ops_try($$SELECT singletable.query('ops', 'A', 'between', 'b', 'a')$$);

-- a failed condition keeps the current item for condition_check_failure_item(), never in
-- the error: only with ALL_OLD, only until the next write, only for the same role
SELECT singletable.condition_check_failure_item();
SELECT ops_try($$SELECT singletable.put_item('ops', '{"pk": "A", "sk": "s1"}', 'v = :x', vals => '{":x": 9}', return_values_on_condition_check_failure => 'ALL_OLD')$$);
SELECT singletable.condition_check_failure_item();
SELECT singletable.condition_check_failure_item();
SELECT ops_try($$SELECT singletable.update_item('ops', 'A', 's2', 'SET v = :x', 'v = :x', vals => '{":x": 9}', return_values_on_condition_check_failure => 'ALL_OLD')$$);
SELECT singletable.condition_check_failure_item();
-- without ALL_OLD nothing is kept, and every write forgets the last failure
SELECT ops_try($$SELECT singletable.delete_item('ops', 'A', 't1', 'v = :x', vals => '{":x": 9}')$$);
SELECT singletable.condition_check_failure_item();
SELECT ops_try($$SELECT singletable.delete_item('ops', 'A', 't1', 'v = :x', vals => '{":x": 9}', return_values_on_condition_check_failure => 'ALL_OLD')$$);
SELECT singletable.condition_check_failure_item()->>'sk';
SELECT singletable.get_item('ops', 'A', 's1');
SELECT singletable.condition_check_failure_item();
SELECT singletable.put_item('ops', '{"pk": "A", "sk": "s9"}');
SELECT singletable.condition_check_failure_item();
-- the condition on an absent item failed: no item
SELECT ops_try($$SELECT singletable.update_item('ops', 'A', 'zz', 'SET v = :x', 'attribute_exists(pk)', vals => '{":x": 9}', return_values_on_condition_check_failure => 'ALL_OLD')$$);
SELECT singletable.condition_check_failure_item();
-- another role does not see the item a failed write of this role kept
CREATE ROLE regress_ops_other;
SELECT ops_try($$SELECT singletable.delete_item('ops', 'A', 't1', 'v = :x', vals => '{":x": 9}', return_values_on_condition_check_failure => 'ALL_OLD')$$);
SET ROLE regress_ops_other;
SELECT singletable.condition_check_failure_item();
RESET ROLE;
SELECT singletable.condition_check_failure_item()->>'sk';
SELECT singletable.delete_item('ops', 'A', 's9');

-- start keys: a key map is validated as DynamoDB validates ExclusiveStartKey
SELECT sk FROM singletable.query('ops', 'A', exclusive_start_key => '{"pk": "A", "sk": "s1"}');
SELECT sk FROM singletable.query('ops', 'A', 'begins_with', 's', exclusive_start_key => '{"pk": "A", "sk": "s1"}');
SELECT sk FROM singletable.query('ops', 'A', forward => false, exclusive_start_key => '{"pk": "A", "sk": "t1"}');
-- a start key need not be an existing item
SELECT sk FROM singletable.query('ops', 'A', exclusive_start_key => '{"pk": "A", "sk": "s10"}');
SELECT sk FROM singletable.query('ops_n', '1', exclusive_start_key => '{"pk": 1, "sk": 10}');
SELECT sk FROM singletable.query('ops_n', '1.0', exclusive_start_key => '{"pk": 1e0, "sk": 1e1}');
-- invalid: missing, extra or misnamed attributes, wrong types, not an object
SELECT ops_try($$SELECT * FROM singletable.query('ops', 'A', exclusive_start_key => '{"sk": "s1"}')$$);
SELECT ops_try($$SELECT * FROM singletable.query('ops', 'A', exclusive_start_key => '{"pk": "A", "sk": "s1", "v": 1}')$$);
SELECT ops_try($$SELECT * FROM singletable.query('ops', 'A', exclusive_start_key => '{"pk": "A", "SK": "s1"}')$$);
SELECT ops_try($$SELECT * FROM singletable.query('ops', 'A', exclusive_start_key => '{"pk": "A", "sk": 1}')$$);
SELECT ops_try($$SELECT * FROM singletable.query('ops_n', '1', exclusive_start_key => '{"pk": "1", "sk": 10}')$$);
SELECT ops_try($$SELECT * FROM singletable.query('ops', 'A', exclusive_start_key => '["A", "s1"]')$$);
SELECT ops_try($$SELECT * FROM singletable.query('ops', 'A', exclusive_start_key => '{}')$$);
-- invalid: another partition, outside the sort key condition, a table without sort key
SELECT ops_try($$SELECT * FROM singletable.query('ops', 'A', exclusive_start_key => '{"pk": "B", "sk": "s1"}')$$);
SELECT ops_try($$SELECT * FROM singletable.query('ops_n', '1', exclusive_start_key => '{"pk": 2, "sk": 10}')$$);
SELECT ops_try($$SELECT * FROM singletable.query('ops', 'A', 'begins_with', 's', exclusive_start_key => '{"pk": "A", "sk": "t1"}')$$);
SELECT ops_try($$SELECT * FROM singletable.query('ops', 'A', '>', 's2', exclusive_start_key => '{"pk": "A", "sk": "s2"}')$$);
SELECT ops_try($$SELECT * FROM singletable.query('ops_pk', 'A', exclusive_start_key => '{"pk": "A"}')$$);
SELECT ops_try($$SELECT * FROM singletable.query('ops', 'A', exclusive_start_sk => 's1', exclusive_start_key => '{"pk": "A", "sk": "s1"}')$$);

-- a BEFORE trigger that returns NULL skips the write: an error, never success
CREATE FUNCTION ops_skip() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
SELECT singletable.create_table('ops_trig');
SELECT singletable.put_item('ops_trig', '{"pk": "A", "sk": "old"}');
CREATE TRIGGER skip_insert BEFORE INSERT ON ops_trig FOR EACH ROW EXECUTE FUNCTION ops_skip();
SELECT ops_try($$SELECT singletable.put_item('ops_trig', '{"pk": "A", "sk": "new"}')$$);
SELECT ops_try($$SELECT singletable.put_item('ops_trig', '{"pk": "A", "sk": "new"}', 'attribute_not_exists(pk)')$$);
SELECT ops_try($$SELECT singletable.update_item('ops_trig', 'A', 'new', 'SET v = :v', vals => '{":v": 1}')$$);
DROP TRIGGER skip_insert ON ops_trig;
CREATE TRIGGER skip_update BEFORE UPDATE ON ops_trig FOR EACH ROW EXECUTE FUNCTION ops_skip();
SELECT ops_try($$SELECT singletable.put_item('ops_trig', '{"pk": "A", "sk": "old", "v": 2}')$$);
SELECT ops_try($$SELECT singletable.update_item('ops_trig', 'A', 'old', 'SET v = :v', vals => '{":v": 1}')$$);
SELECT pk, sk, item FROM singletable.query('ops_trig', 'A');
DROP TRIGGER skip_update ON ops_trig;

-- row-level security hiding the row that holds a key: a clear error at once, not 100
-- retries ending in 40001
CREATE ROLE regress_ops_tenant;
SELECT singletable.create_table('ops_rls');
SELECT singletable.put_item('ops_rls', '{"pk": "TENANT#other", "sk": "x", "v": 1}');
GRANT SELECT, INSERT, UPDATE, DELETE ON ops_rls TO regress_ops_tenant;
ALTER TABLE ops_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY own ON ops_rls USING (pk LIKE 'TENANT#mine%') WITH CHECK (true);
SET ROLE regress_ops_tenant;
SELECT singletable.put_item('ops_rls', '{"pk": "TENANT#mine", "sk": "x", "v": 1}', 'attribute_not_exists(pk)');
SELECT ops_try($$SELECT singletable.put_item('ops_rls', '{"pk": "TENANT#other", "sk": "x", "v": 2}', 'attribute_not_exists(pk)')$$);
SELECT ops_try($$SELECT singletable.update_item('ops_rls', 'TENANT#other', 'x', 'SET v = :v', vals => '{":v": 2}')$$);
SELECT singletable.get_item('ops_rls', 'TENANT#other', 'x');
RESET ROLE;
SELECT singletable.get_item('ops_rls', 'TENANT#other', 'x');

-- the planner's row estimate of query: max_items, else rows per partition key
CREATE FUNCTION ops_rows(sql text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE plan jsonb;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || sql INTO plan;
  RETURN (plan->0->'Plan'->>'Plan Rows')::numeric;
END $$;
SELECT ops_rows($$SELECT * FROM singletable.query('ops', 'A', max_items => 7)$$);
SELECT singletable.create_table('ops_big');
SELECT count(*) FROM generate_series(1, 2000) i,
  LATERAL singletable.put_item('ops_big', jsonb_build_object('pk', 'P#' || (i % 20), 'sk', 'S#' || i)) p;
ANALYZE ops_big;
SELECT ops_rows($$SELECT * FROM singletable.query('ops_big', 'P#1')$$) BETWEEN 50 AND 200 AS per_partition;
SELECT ops_rows($$SELECT * FROM singletable.query('ops_big', 'P#1', '=', 'S#1')$$);
SELECT ops_rows($$SELECT * FROM singletable.query('ops_big', 'P#1', 'begins_with', 'S#1')$$) < 100 AS range_is_smaller;
-- a caller without rights on the table gets no statistics-based estimate
SET ROLE regress_ops_other;
SELECT ops_rows($$SELECT * FROM singletable.query('ops_big', 'P#1')$$);
RESET ROLE;

-- cleanup
DROP OWNED BY regress_ops_other, regress_ops_tenant;
DROP ROLE regress_ops_other, regress_ops_tenant;
-- a change of the registry by plain SQL reaches the cache of this session too
SELECT singletable.get_item('ops', 'A', 's1');
BEGIN;
DELETE FROM singletable.tables WHERE table_name = 'ops'::regclass;
SELECT ops_try($$SELECT singletable.get_item('ops', 'A', 's1')$$);
ROLLBACK;
SELECT singletable.get_item('ops', 'A', 's1');
BEGIN;
UPDATE singletable.tables SET partition_key = 'sk', sort_key = 'pk' WHERE table_name = 'ops'::regclass;
SELECT singletable.describe_table('ops')->'KeySchema';
ROLLBACK;
SELECT singletable.describe_table('ops')->'KeySchema';

SELECT singletable.drop_table(t) FROM unnest(ARRAY['ops', 'ops_n', 'ops_pk', 'ops_trig', 'ops_rls', 'ops_big']) t;
