-- lsi: local secondary indexes (the table's partition key, another sort key)
-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('lsi_orders');
-- 3 customers with 6 orders each; orders by id in the table, by total and by date in the LSIs
SELECT count(*) FROM (
  SELECT singletable.put_item('lsi_orders',
           jsonb_build_object('pk', 'CUSTOMER#' || c, 'sk', 'ORDER#' || lpad(o::text, 3, '0'),
                              'total', (o * 37 + c * 11) % 50, 'placed', format('2026-0%s-1%sT10:00:00Z', 1 + (o * 5) % 6, o % 10))
           || CASE WHEN o = 6 THEN '{"note": "no total"}'::jsonb - 'total' ELSE '{}' END)
    FROM generate_series(1, 3) c, generate_series(1, 6) o) s;
SELECT singletable.put_item('lsi_orders', '{"pk": "CUSTOMER#1", "sk": "PROFILE", "name": "Ada"}');
UPDATE lsi_orders SET item = item - 'total' WHERE sk = 'ORDER#006';
-- other collections, so that the planner sees a real table
INSERT INTO lsi_orders SELECT 'CUSTOMER#' || (100 + i % 300), 'NOTE#' || i, jsonb_build_object('pk', 'CUSTOMER#' || (100 + i % 300), 'sk', 'NOTE#' || i)
  FROM generate_series(1, 3000) i;
ANALYZE lsi_orders;

-- tests
SELECT singletable.create_lsi('lsi_orders', 'by-total', 'total', 'N');
SELECT singletable.create_lsi('lsi_orders', 'by-placed', 'placed', projection => 'INCLUDE', non_key_attributes => ARRAY['total']);
\d lsi_orders_by-total_lsi
SELECT index_name, index_type, partition_key, partition_key_type, sort_key, sort_key_type, projection, pg_index, status
  FROM singletable.indexes WHERE table_name = 'lsi_orders'::regclass ORDER BY 1;
SELECT jsonb_pretty(singletable.describe_table('lsi_orders') - 'ItemCount' - 'TableSizeBytes' #- '{LocalSecondaryIndexes,0,IndexSizeBytes}'
         #- '{LocalSecondaryIndexes,0,ItemCount}' #- '{LocalSecondaryIndexes,1,IndexSizeBytes}' #- '{LocalSecondaryIndexes,1,ItemCount}');

-- a second order of one collection: by total (N), ties by the table's sort key; the profile
-- and the order without a total are not in the index (sparse)
SELECT pk, sk, item->'total' AS total FROM singletable.query('lsi_orders', 'CUSTOMER#1', index_name => 'by-total');
SELECT (SELECT array_agg(sk ORDER BY o) FROM singletable.query('lsi_orders', 'CUSTOMER#2', index_name => 'by-total') WITH ORDINALITY q(pk, sk, item, o))
     = (SELECT array_agg(sk ORDER BY (item->>'total')::numeric, sk COLLATE "C") FROM lsi_orders WHERE pk = 'CUSTOMER#2' AND item ? 'total')
       AS in_total_order;
SELECT sk, item->'total' AS total FROM singletable.query('lsi_orders', 'CUSTOMER#1', 'between', '10', '40', forward => false, index_name => 'by-total');
-- INCLUDE projection: the table's keys, the LSI's sort key and the listed attribute
SELECT item FROM singletable.query('lsi_orders', 'CUSTOMER#3', 'begins_with', '2026-0', max_items => 3, index_name => 'by-placed');
-- pagination: the start key holds pk, sk and the LSI's sort key
SELECT sk FROM singletable.query('lsi_orders', 'CUSTOMER#1', max_items => 2, index_name => 'by-total',
                                 exclusive_start_key => '{"pk": "CUSTOMER#1", "sk": "ORDER#003", "total": 22}');
-- the same through key_condition
SELECT sk FROM singletable.query('lsi_orders', key_condition => 'pk = :c AND #t >= :lo', names => '{"#t": "total"}',
                                 vals => '{":c": "CUSTOMER#1", ":lo": 30}', index_name => 'by-total');
-- the plan: one range of the LSI, for the continued page too
SELECT * FROM singletable.explain_query('lsi_orders', 'CUSTOMER#1', '>', '10', index_name => 'by-total');
SET plan_cache_mode = force_generic_plan;
SELECT * FROM singletable.explain_query('lsi_orders', 'CUSTOMER#1', index_name => 'by-total',
                                        exclusive_start_key => '{"pk": "CUSTOMER#1", "sk": "ORDER#002", "total": 22}');
RESET plan_cache_mode;
-- index_sql: plain SQL reaching the LSI, in its order
\pset format unaligned
SELECT singletable.index_sql('lsi_orders', 'by-total');
\pset format aligned
SELECT 'EXPLAIN (COSTS OFF) ' || replace(singletable.index_sql('lsi_orders', 'by-total'), '$1', quote_literal('CUSTOMER#1'))
       || ' LIMIT 2' \gexec
-- writes keep it current in the same transaction
BEGIN;
SELECT singletable.update_item('lsi_orders', 'CUSTOMER#1', 'ORDER#006', 'SET #t = :t', names => '{"#t": "total"}', vals => '{":t": 0}', return_values => 'NONE');
SELECT sk, item->'total' AS total FROM singletable.query('lsi_orders', 'CUSTOMER#1', max_items => 1, index_name => 'by-total');
ROLLBACK;

-- errors: a wrong-typed or oversized LSI sort key is refused and nothing is written
SELECT singletable.put_item('lsi_orders', '{"pk": "CUSTOMER#1", "sk": "ORDER#100", "total": "a lot"}');
SELECT singletable.update_item('lsi_orders', 'CUSTOMER#1', 'ORDER#001', 'SET placed = :p', vals => jsonb_build_object(':p', repeat('x', 1025)));
SELECT count(*) FROM lsi_orders WHERE sk = 'ORDER#100' OR length(item->>'placed') > 1000;
-- create_lsi refuses a table holding items it could not index
SELECT singletable.put_item('lsi_orders', '{"pk": "CUSTOMER#9", "sk": "ORDER#001", "rank": "first"}');
SELECT singletable.create_lsi('lsi_orders', 'by-rank', 'rank', 'N');
-- bad arguments
SELECT singletable.create_lsi('lsi_orders', 'by-total', 'weight', 'N');
-- the table's sort key as the LSI's is accepted, as DynamoDB accepts it: each collection
-- in the table's own order, every item in the index; the partition key is refused
SELECT singletable.create_lsi('lsi_orders', 'by-sk', 'sk');
SELECT sk FROM singletable.query('lsi_orders', 'CUSTOMER#1', '>', 'ORDER#001', index_name => 'by-sk');
SELECT singletable.drop_lsi('lsi_orders', 'by-sk');
SELECT singletable.create_lsi('lsi_orders', 'by-pk', 'pk');
SELECT singletable.create_lsi('lsi_orders', 'x', 'weight');
SELECT singletable.create_lsi('lsi_orders', 'by-weight', NULL);
SELECT singletable.create_lsi('lsi_orders', 'by-weight', 'weight', 'X');
SELECT singletable.create_lsi('lsi_orders', 'by-weight', 'weight', projection => 'KEYS_ONLY', non_key_attributes => ARRAY['a']);
SELECT singletable.create_table('lsi_flat', sort_key => NULL);
SELECT singletable.create_lsi('lsi_flat', 'by-weight', 'weight');
-- at most 5 LSIs a table
SELECT singletable.create_lsi('lsi_orders', 'lsi3', 'a3');
SELECT singletable.create_lsi('lsi_orders', 'lsi4', 'a4');
SELECT singletable.create_lsi('lsi_orders', 'lsi5', 'a5');
SELECT singletable.create_lsi('lsi_orders', 'lsi6', 'a6');
-- drop_lsi drops LSIs only, drop_gsi GSIs only
SELECT singletable.drop_gsi('lsi_orders', 'lsi5');
SELECT singletable.drop_lsi('lsi_orders', 'lsi5');
SELECT singletable.drop_lsi('lsi_orders', 'lsi5');
SELECT index_name FROM singletable.indexes WHERE table_name = 'lsi_orders'::regclass ORDER BY 1;
-- a renamed table keeps its LSIs
ALTER TABLE lsi_orders RENAME TO lsi_orders2;
SELECT count(*) FROM singletable.query('lsi_orders2', 'CUSTOMER#1', index_name => 'by-total');
ALTER TABLE lsi_orders2 RENAME TO lsi_orders;

-- cleanup
SELECT singletable.drop_table('lsi_flat');
SELECT singletable.drop_table('lsi_orders');
SELECT count(*) FROM singletable.indexes;
