-- scan: full reads of a table and of its indexes, filters, projections, pages,
-- parallel segments (disjoint, complete, one btree range each), plans, TTL, errors
-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('sc_app');
-- 60 users with 1..5 items each, and one large collection (a common value of pk);
-- odd items of users and every third event are in the sparse index gsi1
SELECT count(*) FROM (
  SELECT singletable.put_item('sc_app',
           jsonb_build_object('pk', 'USER#' || lpad(u::text, 2, '0'), 'sk', 'ITEM#' || i, 'n', i,
                              'title', 't' || u || '-' || i)
           || CASE WHEN i % 2 = 1
                   THEN jsonb_build_object('gsi1pk', 'STATUS#' || chr(65 + u % 6), 'gsi1sk', u * 10 + i)
                   ELSE '{}' END)
    FROM generate_series(1, 60) u, generate_series(1, u % 5 + 1) i
  UNION ALL
  SELECT singletable.put_item('sc_app',
           jsonb_build_object('pk', 'TENANT#big', 'sk', 'EVENT#' || lpad(i::text, 3, '0'), 'n', i % 10,
                              'title', 'e' || i)
           || CASE WHEN i % 3 = 0 THEN jsonb_build_object('gsi1pk', 'STATUS#Z', 'gsi1sk', i) ELSE '{}' END)
    FROM generate_series(1, 150) i) s;
SELECT singletable.create_gsi('sc_app', 'gsi1', 'gsi1pk', 'gsi1sk', sort_key_type => 'N',
                              projection => 'INCLUDE', non_key_attributes => ARRAY['title']);
SELECT singletable.create_lsi('sc_app', 'by-n', 'n', sort_key_type => 'N');
-- a partition-key-only table with N keys
SELECT singletable.create_table('sc_num', partition_key_type => 'N', sort_key => NULL);
SELECT count(*) FROM (
  SELECT singletable.put_item('sc_num', jsonb_build_object('pk', i * 1.5 - 100, 'even', i % 2 = 0))
    FROM generate_series(1, 200) i) s;
-- a table never analyzed
SELECT singletable.create_table('sc_nostats');
SELECT count(*) FROM (
  SELECT singletable.put_item('sc_nostats', jsonb_build_object('pk', 'P#' || i, 'sk', 'S'))
    FROM generate_series(1, 20) i) s;
-- statistics that nothing else changes while the tests run (tables this small are
-- analyzed from every row, so the bounds below are the same on every run)
ALTER TABLE sc_app SET (autovacuum_enabled = false);
ALTER TABLE sc_num SET (autovacuum_enabled = false);
ALTER TABLE sc_nostats SET (autovacuum_enabled = false);
ANALYZE sc_app, sc_num;
-- the btree order of the table and of gsi1, in plain SQL, to compare with
CREATE TEMP VIEW sc_table_order AS
  SELECT pk, sk, row_number() OVER (ORDER BY pk COLLATE "C", sk COLLATE "C") AS o FROM sc_app;
CREATE TEMP VIEW sc_index_order AS
  SELECT pk, sk, row_number() OVER (ORDER BY item->>'gsi1pk' COLLATE "C", (item->'gsi1sk')::numeric,
                                             pk COLLATE "C", sk COLLATE "C") AS o
    FROM sc_app WHERE item ? 'gsi1pk';

-- tests
-- a scan reads every item, in the order of the primary key
SELECT count(*) AS items,
       (SELECT array_agg(ARRAY[pk, sk] ORDER BY o) FROM singletable.scan('sc_app') WITH ORDINALITY s(pk, sk, item, o))
     = (SELECT array_agg(ARRAY[pk, sk] ORDER BY o) FROM sc_table_order) AS in_key_order
  FROM singletable.scan('sc_app');
SELECT * FROM singletable.scan('sc_app', max_items => 3);
-- a scan of gsi1 reads the items in it, in index order, as the index projects them
SELECT count(*) AS entries,
       (SELECT array_agg(ARRAY[pk, sk] ORDER BY o) FROM singletable.scan('sc_app', index_name => 'gsi1') WITH ORDINALITY s(pk, sk, item, o))
     = (SELECT array_agg(ARRAY[pk, sk] ORDER BY o) FROM sc_index_order) AS in_index_order
  FROM singletable.scan('sc_app', index_name => 'gsi1');
SELECT * FROM singletable.scan('sc_app', index_name => 'gsi1', max_items => 3);
-- the LSI by-n orders each collection by n (ties by sk)
SELECT pk, sk, item->'n' AS n FROM singletable.scan('sc_app', index_name => 'by-n', max_items => 4);
-- N keys, no sort key
SELECT pk, sk, item FROM singletable.scan('sc_num', max_items => 3);

-- a scan's filter may read key attributes, also nested in functions
SELECT pk, sk FROM singletable.scan('sc_app', filter => 'pk = :p AND n >= :n', vals => '{":p": "USER#04", ":n": 3}');
SELECT pk, sk FROM singletable.scan('sc_app', filter => 'begins_with(sk, :s) AND size(pk) < :l',
                                    vals => '{":s": "ITEM#5", ":l": 8}');
SELECT pk, sk FROM singletable.scan('sc_app', index_name => 'gsi1', filter => 'gsi1pk = :g AND gsi1sk > :t',
                                    vals => '{":g": "STATUS#C", ":t": 300}');
SELECT pk FROM singletable.scan('sc_num', filter => 'pk BETWEEN :a AND :b', vals => '{":a": -1, ":b": 2}');
-- projection, with names; on an index after the index's projection (n is not in gsi1)
SELECT pk, sk, item FROM singletable.scan('sc_app', filter => '#p = :p', projection => 'sk, #t',
                                          names => '{"#p": "pk", "#t": "title"}', vals => '{":p": "USER#02"}');
SELECT pk, sk, item FROM singletable.scan('sc_app', index_name => 'gsi1', projection => 'title, n, gsi1sk', max_items => 2);

-- pages: max_items counts the items read; without a filter the last row continues the scan
CREATE TEMP TABLE sc_pages (kind text, page int, o bigint, pk text, sk text, item jsonb);
DO $$
DECLARE
  k jsonb;
  p int := 0;
  n int;
  last record;
BEGIN
  LOOP
    p := p + 1;
    INSERT INTO sc_pages SELECT 'table', p, o, s.pk, s.sk, s.item
      FROM singletable.scan('sc_app', max_items => 7, exclusive_start_key => k) WITH ORDINALITY s(pk, sk, item, o);
    GET DIAGNOSTICS n = ROW_COUNT;
    -- a page of 7 items evaluated continues at its last key; after the last page it is NULL
    k := singletable.last_evaluated_key();
    EXIT WHEN k IS NULL;
    SELECT pk, sk INTO last FROM sc_pages WHERE kind = 'table' AND page = p ORDER BY o DESC LIMIT 1;
    IF n <> 7 OR k <> jsonb_build_object('pk', last.pk, 'sk', last.sk) THEN
      RAISE EXCEPTION 'page % of % items ends at %, not at its last item', p, n, k;
    END IF;
  END LOOP;
END $$;
SELECT max(page) AS pages, count(*) AS rows, count(DISTINCT (pk, sk)) AS distinct_keys,
       (SELECT array_agg(ARRAY[pk, sk] ORDER BY page, o) FROM sc_pages WHERE kind = 'table')
     = (SELECT array_agg(ARRAY[pk, sk] ORDER BY o) FROM sc_table_order) AS every_item_once_in_order
  FROM sc_pages WHERE kind = 'table';
-- under a filter a page that stopped at max_items evaluated items returns those that
-- match; where it stopped is singletable.last_evaluated_key() (NULL after the last page):
-- every row of the result is an item
SELECT pk, sk, item FROM singletable.scan('sc_app', filter => 'n = :n', vals => '{":n": 4}', max_items => 40);
SELECT singletable.last_evaluated_key();
DO $$
DECLARE
  k jsonb;
  p int := 0;
  last record;
BEGIN
  LOOP
    p := p + 1;
    INSERT INTO sc_pages SELECT 'filtered', p, o, s.pk, s.sk, s.item
      FROM singletable.scan('sc_app', filter => 'n = :n', vals => '{":n": 4}', max_items => 40,
                            exclusive_start_key => k) WITH ORDINALITY s(pk, sk, item, o);
    k := singletable.last_evaluated_key();
    EXIT WHEN k IS NULL;
  END LOOP;
END $$;
SELECT max(page) AS pages, count(*) FILTER (WHERE item IS NULL) AS null_items,
       count(*) AS items, count(DISTINCT (pk, sk)) AS distinct_items,
       (SELECT count(*) FROM sc_app WHERE item->'n' = '4') AS matching
  FROM sc_pages WHERE kind = 'filtered';
-- without a sort key the LastEvaluatedKey is the partition key alone
SELECT pk, sk, item FROM singletable.scan('sc_num', filter => 'even = :t', vals => '{":t": true}', max_items => 3);
SELECT singletable.last_evaluated_key();
-- on an index the LastEvaluatedKey has the index keys and the table keys; paging segment
-- 1 of 3 of gsi1 with it reads exactly that segment
SELECT pk, sk, item FROM singletable.scan('sc_app', index_name => 'gsi1', filter => 'gsi1sk < :t', vals => '{":t": 0}',
                                          max_items => 10);
SELECT singletable.last_evaluated_key();
DO $$
DECLARE
  k jsonb;
  p int := 0;
  last record;
BEGIN
  LOOP
    p := p + 1;
    INSERT INTO sc_pages SELECT 'index segment', p, o, s.pk, s.sk, s.item
      FROM singletable.scan('sc_app', index_name => 'gsi1', filter => 'attribute_exists(title)', segment => 1,
                            total_segments => 3, max_items => 9, exclusive_start_key => k) WITH ORDINALITY s(pk, sk, item, o);
    k := singletable.last_evaluated_key();
    EXIT WHEN k IS NULL;
  END LOOP;
END $$;
SELECT max(page) AS pages, count(*) FILTER (WHERE pk IS NULL) AS null_keys,
       (SELECT array_agg(ARRAY[pk, sk] ORDER BY page, o) FROM sc_pages WHERE kind = 'index segment')
     = (SELECT array_agg(ARRAY[pk, sk] ORDER BY o)
          FROM singletable.scan('sc_app', index_name => 'gsi1', segment => 1, total_segments => 3) WITH ORDINALITY s(pk, sk, item, o))
       AS the_segment_exactly
  FROM sc_pages WHERE kind = 'index segment';
-- a start key need not be an item, and continues after it in btree order
SELECT pk, sk FROM singletable.scan('sc_app', max_items => 3, exclusive_start_key => '{"pk": "USER#07", "sk": "ITEM#0"}');
SELECT pk, sk, item->'gsi1sk' AS gsi1sk FROM singletable.scan('sc_app', index_name => 'gsi1', max_items => 3,
         exclusive_start_key => '{"gsi1pk": "STATUS#B", "gsi1sk": 400, "pk": "A", "sk": "A"}');
SELECT pk FROM singletable.scan('sc_num', max_items => 3, exclusive_start_key => '{"pk": 0}');

-- parallel scan: segment s of N reads one range of the leading key column; the segments
-- in order, concatenated, are the whole scan: disjoint, complete and in key order
SELECT n, seg, count(s.*) AS items, min(s.pk) AS first_pk, max(s.pk) AS last_pk
  FROM unnest(ARRAY[1, 4, 7]) n, generate_series(0, n - 1) seg
       LEFT JOIN LATERAL singletable.scan('sc_app', segment => seg, total_segments => n) s ON true
 GROUP BY n, seg ORDER BY n, seg;
SELECT n, count(*) AS items, count(DISTINCT (s.pk, s.sk)) AS distinct_keys,
       array_agg(ARRAY[s.pk, s.sk] ORDER BY seg, o)
     = (SELECT array_agg(ARRAY[pk, sk] ORDER BY o) FROM sc_table_order) AS segments_are_the_table
  FROM unnest(ARRAY[1, 4, 7]) n, generate_series(0, n - 1) seg,
       singletable.scan('sc_app', segment => seg, total_segments => n) WITH ORDINALITY s(pk, sk, item, o)
 GROUP BY n ORDER BY n;
-- the same over gsi1 (its leading column is gsi1pk: a segment never splits an index partition)
SELECT n, seg, count(s.*) AS entries, min(s.item->>'gsi1pk') AS first_gsi1pk, max(s.item->>'gsi1pk') AS last_gsi1pk
  FROM unnest(ARRAY[1, 4, 7]) n, generate_series(0, n - 1) seg
       LEFT JOIN LATERAL singletable.scan('sc_app', index_name => 'gsi1', segment => seg, total_segments => n) s ON true
 GROUP BY n, seg ORDER BY n, seg;
SELECT n, count(*) AS entries, count(DISTINCT (s.pk, s.sk)) AS distinct_keys,
       array_agg(ARRAY[s.pk, s.sk] ORDER BY seg, o)
     = (SELECT array_agg(ARRAY[pk, sk] ORDER BY o) FROM sc_index_order) AS segments_are_the_index
  FROM unnest(ARRAY[1, 4, 7]) n, generate_series(0, n - 1) seg,
       singletable.scan('sc_app', index_name => 'gsi1', segment => seg, total_segments => n) WITH ORDINALITY s(pk, sk, item, o)
 GROUP BY n ORDER BY n;
-- numeric bounds split evenly; many more segments than statistics: most are empty, none overlap
SELECT seg, count(s.*) AS items, min(s.pk::numeric) AS first, max(s.pk::numeric) AS last
  FROM generate_series(0, 3) seg LEFT JOIN LATERAL singletable.scan('sc_num', segment => seg, total_segments => 4) s ON true
 GROUP BY seg ORDER BY seg;
SELECT count(*) AS items, count(DISTINCT s.pk) AS distinct_keys, count(DISTINCT seg) AS nonempty_segments
  FROM generate_series(0, 999) seg, singletable.scan('sc_num', segment => seg, total_segments => 1000) s;
SELECT count(*) AS items FROM singletable.scan('sc_num', segment => 999999, total_segments => 1000000);
-- a filter and a start key within a segment
SELECT pk, sk FROM singletable.scan('sc_app', segment => 2, total_segments => 4, filter => 'n = :n', vals => '{":n": 5}');
SELECT pk, sk FROM singletable.scan('sc_app', segment => 2, total_segments => 4, max_items => 3,
                                    exclusive_start_key => '{"pk": "USER#30", "sk": "ITEM#1"}');

-- plans: one Index Scan of the btree, the segment's bounds and the start key in Index Cond
SET plan_cache_mode = force_custom_plan;
SELECT * FROM singletable.explain_scan('sc_app');
SELECT * FROM singletable.explain_scan('sc_app', segment => 0, total_segments => 4);
SELECT * FROM singletable.explain_scan('sc_app', segment => 1, total_segments => 4);
SELECT * FROM singletable.explain_scan('sc_app', segment => 3, total_segments => 4);
SELECT * FROM singletable.explain_scan('sc_app', segment => 2, total_segments => 4, max_items => 3,
                                       exclusive_start_key => '{"pk": "USER#30", "sk": "ITEM#1"}');
SELECT * FROM singletable.explain_scan('sc_app', index_name => 'gsi1', segment => 1, total_segments => 4);
SELECT * FROM singletable.explain_scan('sc_app', index_name => 'gsi1', max_items => 2,
                                       exclusive_start_key => '{"gsi1pk": "STATUS#B", "gsi1sk": 400, "pk": "A", "sk": "A"}');
SELECT * FROM singletable.explain_scan('sc_app', index_name => 'by-n', segment => 2, total_segments => 3);
SELECT * FROM singletable.explain_scan('sc_num', segment => 1, total_segments => 4);
RESET plan_cache_mode;
SET plan_cache_mode = force_generic_plan;
SELECT * FROM singletable.explain_scan('sc_app', segment => 1, total_segments => 4, max_items => 5);
SELECT * FROM singletable.explain_scan('sc_app', index_name => 'gsi1', segment => 1, total_segments => 4,
                                       exclusive_start_key => '{"gsi1pk": "STATUS#C", "gsi1sk": 1, "pk": "A", "sk": "A"}');
-- with ANALYZE: each segment reads its own rows only
SELECT seg, line FROM generate_series(0, 3) seg,
       singletable.explain_scan('sc_app', segment => seg, total_segments => 4, with_analyze => true) line
 WHERE line ~ 'Index Scan' ORDER BY seg;
-- scan's own kept plans give the same rows under a generic plan
SELECT count(*) AS items FROM generate_series(0, 3) seg, singletable.scan('sc_app', segment => seg, total_segments => 4);
RESET plan_cache_mode;

-- without statistics segment 0 reads everything and the others nothing
SELECT seg, count(s.*) AS items
  FROM generate_series(0, 2) seg LEFT JOIN LATERAL singletable.scan('sc_nostats', segment => seg, total_segments => 3) s ON true
 GROUP BY seg ORDER BY seg;
SELECT * FROM singletable.explain_scan('sc_nostats', segment => 0, total_segments => 3);
SELECT * FROM singletable.explain_scan('sc_nostats', segment => 1, total_segments => 3);
-- nor under row-level security (pg_stats hides the statistics then too)
CREATE ROLE regress_st_scan_reader;
GRANT SELECT ON sc_num TO regress_st_scan_reader;
ALTER TABLE sc_num ENABLE ROW LEVEL SECURITY;
CREATE POLICY sc_num_even ON sc_num FOR SELECT USING ((item->>'even')::boolean);
SET ROLE regress_st_scan_reader;
SELECT seg, count(s.*) AS items
  FROM generate_series(0, 1) seg LEFT JOIN LATERAL singletable.scan('sc_num', segment => seg, total_segments => 2) s ON true
 GROUP BY seg ORDER BY seg;
RESET ROLE;
ALTER TABLE sc_num DISABLE ROW LEVEL SECURITY;

-- TTL: expired items are left out unless include_expired, and count as read for max_items
SELECT singletable.create_table('sc_ttl');
CREATE TEMP TABLE sc_clock AS SELECT extract(epoch FROM now())::bigint AS now;
SELECT count(*) FROM (
  SELECT singletable.put_item('sc_ttl', jsonb_build_object('pk', 'P#' || i, 'sk', 'S',
           'expiresAt', (SELECT now FROM sc_clock) + CASE WHEN i % 3 = 0 THEN -3600 ELSE 3600 END))
    FROM generate_series(1, 9) i) s;
SELECT singletable.enable_ttl('sc_ttl', 'expiresAt');
SELECT pk FROM singletable.scan('sc_ttl');
SELECT count(*) AS including_expired FROM singletable.scan('sc_ttl', include_expired => true);
SELECT pk FROM singletable.scan('sc_ttl', max_items => 3);
SELECT pk FROM singletable.scan('sc_ttl', max_items => 3, exclusive_start_key => '{"pk": "P#3", "sk": "S"}');

-- invalid input
SELECT * FROM singletable.scan(NULL);
SELECT * FROM singletable.scan('no_such_table');
SELECT * FROM singletable.scan('pg_class');
SELECT * FROM singletable.scan('sc_app', index_name => 'nope');
SELECT * FROM singletable.scan('sc_app', segment => 1);
SELECT * FROM singletable.scan('sc_app', total_segments => 4);
SELECT * FROM singletable.scan('sc_app', segment => 4, total_segments => 4);
SELECT * FROM singletable.scan('sc_app', segment => 0, total_segments => 0);
SELECT * FROM singletable.scan('sc_app', segment => 0, total_segments => 1000001);
SELECT * FROM singletable.scan('sc_app', segment => -1, total_segments => 4);
SELECT * FROM singletable.scan('sc_app', segment => 1000000, total_segments => 1000000);
SELECT * FROM singletable.scan('sc_app', segment => -1, total_segments => -1);
SELECT * FROM singletable.scan('sc_app', max_items => 0);
SELECT * FROM singletable.scan('sc_app', exclusive_start_key => '"USER#01"');
SELECT * FROM singletable.scan('sc_app', exclusive_start_key => '["USER#01", "ITEM#1"]');
SELECT * FROM singletable.scan('sc_app', exclusive_start_key => '{"pk": "USER#01"}');
SELECT * FROM singletable.scan('sc_app', exclusive_start_key => '{"pk": "USER#01", "n": 1}');
SELECT * FROM singletable.scan('sc_app', exclusive_start_key => '{"pk": "USER#01", "sk": 1}');
SELECT * FROM singletable.scan('sc_app', exclusive_start_key => '{"pk": "USER#01", "sk": "ITEM#1", "n": 1}');
SELECT * FROM singletable.scan('sc_num', exclusive_start_key => '{"pk": "one"}');
SELECT * FROM singletable.scan('sc_app', index_name => 'gsi1', exclusive_start_key => '{"pk": "USER#01", "sk": "ITEM#1"}');
SELECT * FROM singletable.scan('sc_app', index_name => 'gsi1',
                               exclusive_start_key => '{"gsi1pk": "STATUS#B", "gsi1sk": "400", "pk": "A", "sk": "A"}');
SELECT * FROM singletable.scan('sc_app', index_name => 'gsi1',
                               exclusive_start_key => '{"gsi1pk": "STATUS#B", "x": 400, "pk": "A", "sk": "A"}');
SELECT * FROM singletable.scan('sc_app', index_name => 'gsi1',
                               exclusive_start_key => '{"gsi1pk": "STATUS#B", "gsi1sk": 400, "pk": "", "sk": "A"}');
-- a start key of another segment
SELECT * FROM singletable.scan('sc_app', segment => 0, total_segments => 4,
                               exclusive_start_key => '{"pk": "USER#30", "sk": "ITEM#1"}');
SELECT * FROM singletable.scan('sc_nostats', segment => 1, total_segments => 3,
                               exclusive_start_key => '{"pk": "P#1", "sk": "S"}');
-- expressions and placeholders
SELECT * FROM singletable.scan('sc_app', vals => '{":v": 1}');
SELECT * FROM singletable.scan('sc_app', filter => 'n = :n', vals => '{":n": 1, ":unused": 2}');
SELECT * FROM singletable.scan('sc_app', filter => 'n = = :n', vals => '{":n": 1}');
SELECT * FROM singletable.scan('sc_app', filter => 'pk.x = :n', vals => '{":n": 1}');
SELECT * FROM singletable.explain_scan(NULL);
SELECT * FROM singletable.explain_scan('sc_app', segment => 1);

-- cleanup
DROP VIEW sc_table_order, sc_index_order;
SELECT singletable.drop_table('sc_app');
SELECT singletable.drop_table('sc_num');
SELECT singletable.drop_table('sc_nostats');
SELECT singletable.drop_table('sc_ttl');
DROP ROLE regress_st_scan_reader;
