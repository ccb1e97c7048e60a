-- test/bench/sql/setup.sql: data generator of the benchmark (loaded by test/bench/run.sh into
-- its throwaway database; not part of the extension).
--
-- Data model: item collections of 100 items each, as a posting/ordering app would have them.
--   pk  'USER#<c>'       c = 10000000 + collection number, so every c has 8 digits and
--                        generation order = key order (rows are inserted in primary-key order)
--   sk  'ORDER#100' .. 'ORDER#129'   30 items: the begins_with('ORDER#') slice of a Query
--       'POST#130'  .. 'POST#199'    70 items
-- An item (about 200 bytes as jsonb) repeats its key attributes, as singletable requires:
--   {"pk": "USER#10000042", "sk": "ORDER#117", "qty": 3, "tags": ["gift", "express"],
--    "title": "Item 117 of user 10000042", "total": 5021, "status": "shipped",
--    "created": "2024-05-01T12:00:00Z"}
-- The pgbench scripts in test/bench/scripts/ build keys and items with the same expressions.

-- sort key of item j (100..199) of a collection
CREATE FUNCTION bench_sk(j int) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN j < 130 THEN 'ORDER#' ELSE 'POST#' END || j::text;

-- the item with key ('USER#' || c, bench_sk(j)) and "total" v
CREATE FUNCTION bench_item(c int, j int, v int) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jsonb_build_object(
    'pk', 'USER#' || c::text,
    'sk', CASE WHEN j < 130 THEN 'ORDER#' ELSE 'POST#' END || j::text,
    'status', (ARRAY['pending', 'shipped', 'delivered'])[1 + v % 3],
    'total', v,
    'qty', 1 + j % 5,
    'title', 'Item ' || j::text || ' of user ' || c::text,
    'created', '2024-05-01T12:00:00Z',
    'tags', '["gift", "express"]'::jsonb);

-- the rows (pk, sk, item) of ncoll collections of 100 items, in primary-key order
CREATE FUNCTION bench_rows(ncoll int) RETURNS TABLE (pk text, sk text, item jsonb)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT 'USER#' || c::text, bench_sk(j), bench_item(c, j, (c * 7 + j * 13) % 100000)
      FROM generate_series(10000000, 10000000 + ncoll - 1) AS c,
           generate_series(100, 199) AS j
     ORDER BY c, j;
END;

-- One collection of 100,000 items with a 30-item 'ORDER#' slice in the middle, for the
-- bind-parameter prefix test: 'EVENT#00000'..'EVENT#49984', 'ORDER#100'..'ORDER#129',
-- 'VISIT#00000'..'VISIT#49984' (49,985 + 30 + 49,985 items).
CREATE FUNCTION bench_wide_rows(pk text) RETURNS TABLE (pk text, sk text, item jsonb)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT pk, s.sk, jsonb_build_object('pk', pk, 'sk', s.sk, 'status', 'shipped', 'total', s.n,
                                        'title', 'Item ' || s.n::text, 'created', '2024-05-01T12:00:00Z')
      FROM (SELECT 'EVENT#' || lpad(n::text, 5, '0') AS sk, n FROM generate_series(0, 49984) AS n
            UNION ALL
            SELECT 'ORDER#' || n::text, n FROM generate_series(100, 129) AS n
            UNION ALL
            SELECT 'VISIT#' || lpad(n::text, 5, '0'), n FROM generate_series(0, 49984) AS n) AS s
     ORDER BY s.sk;
END;

-- The memory test's calls: a mix of get_item, put_item and query over table t with ncoll
-- collections, call numbers first .. first + n - 1 (each call is one of the three, in turn;
-- keys spread over the table by a multiplicative hash). Returns the number of calls made.
CREATE FUNCTION bench_mixed_calls(t text, ncoll int, first bigint, n int) RETURNS bigint
LANGUAGE sql VOLATILE
BEGIN ATOMIC
    -- coalesce: put_item returns NULL (return_values NONE), and every call must be counted
    SELECT count(coalesce(CASE g % 3
                   WHEN 0 THEN singletable.get_item(t, 'USER#' || k.c::text, bench_sk(k.j))
                   WHEN 1 THEN singletable.put_item(t, bench_item(k.c, k.j, (g % 100000)::int))
                   ELSE to_jsonb((SELECT count(*) FROM singletable.query(t, 'USER#' || k.c::text,
                                                                        'begins_with', 'ORDER#')))
                 END, 'null'::jsonb))
      FROM generate_series(first, first + n - 1) AS g,
           LATERAL (SELECT (10000000 + (g * 2654435761) % ncoll)::int AS c,
                           (100 + (g * 40503) % 100)::int AS j) AS k;
END;
