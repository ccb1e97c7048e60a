-- begins_with: plain SQL with singletable.begins_with, its planner support
-- (index conditions for constants and bind parameters, selectivity), the
-- prefix successor for any UTF-8 prefix, and a 100,000-item collection
-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('bw');
SELECT singletable.create_table('bw_b', sort_key_type => 'B');
-- 100,000 items in one collection (USER#big) plus 2,000 small collections,
-- written set-based; 10 of the big collection's items start with POST#0042
INSERT INTO bw (pk, sk, item)
SELECT 'USER#big', s, jsonb_build_object('pk', 'USER#big', 'sk', s)
  FROM (SELECT 'POST#' || lpad((i / 10)::text, 5, '0') || '#' || (i % 10) AS s
          FROM generate_series(420, 429) i
        UNION ALL
        SELECT 'LIKE#' || lpad(i::text, 6, '0') FROM generate_series(1, 99990) i) x;
INSERT INTO bw (pk, sk, item)
SELECT 'USER#' || u, k, jsonb_build_object('pk', 'USER#' || u, 'sk', k)
  FROM generate_series(1, 2000) u, unnest(ARRAY['PROFILE', 'POST#00001', 'POST#00002']) k;
INSERT INTO bw_b (pk, sk, item)
SELECT 'P' || (i % 100), int4send(i), jsonb_build_object('pk', 'P' || (i % 100), 'sk', encode(int4send(i), 'base64'))
  FROM generate_series(1, 20000) i;
ANALYZE bw, bw_b;
-- a plan helper: the EXPLAIN lines, costs off
CREATE FUNCTION pg_temp.plan(q text, with_analyze boolean DEFAULT false) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE format('EXPLAIN (COSTS OFF%s) %s',
                          CASE WHEN with_analyze THEN ', ANALYZE, TIMING OFF, SUMMARY OFF' ELSE '' END, q)
  LOOP RETURN NEXT l; END LOOP;
END $$;
-- the planner's row estimate of the top plan node
CREATE FUNCTION pg_temp.est(q text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  RETURN (j -> 0 -> 'Plan' ->> 'Plan Rows')::numeric;
END $$;

-- tests
-- semantics: a byte-wise prefix test
SELECT s, p, singletable.begins_with(s, p)
  FROM (VALUES ('POST#1', 'POST#'), ('POST#1', 'POST#1'), ('POST', 'POST#'), ('post#1', 'POST#'),
               ('POST#1', ''), ('', ''), ('é', 'e'), ('éa', 'é'), (NULL, 'a'), ('a', NULL)) v(s, p);
SELECT singletable.begins_with('\x0102'::bytea, '\x01'::bytea), singletable.begins_with('\x0102'::bytea, '\x02'::bytea),
       singletable.begins_with('\x01'::bytea, '\x0102'::bytea), singletable.begins_with('\xff'::bytea, ''::bytea);

-- constant prefix: the index range [POST#, POST$) and no filter
SELECT pg_temp.plan($$SELECT item FROM bw WHERE pk = 'USER#7' AND singletable.begins_with(sk, 'POST#')$$);
-- bind parameters in a generic plan: still an index range, the upper bound computed at execution
SET plan_cache_mode = force_generic_plan;
PREPARE posts(text, text) AS SELECT sk FROM bw WHERE pk = $1 AND singletable.begins_with(sk, $2);
SELECT pg_temp.plan('EXECUTE posts(''USER#7'', ''POST#'')');
EXECUTE posts('USER#7', 'POST#');
EXECUTE posts('USER#big', 'POST#00042');
-- PostgreSQL's own starts_with under the same generic plan filters the whole collection
PREPARE posts_pg(text, text) AS SELECT sk FROM bw WHERE pk = $1 AND starts_with(sk, $2);
SELECT pg_temp.plan('EXECUTE posts_pg(''USER#7'', ''POST#'')');
RESET plan_cache_mode;

-- in a 100,000-item collection a prefix matching 10 items reads 10 rows, with no filter
SELECT pg_temp.plan($$SELECT item FROM bw WHERE pk = 'USER#big' AND singletable.begins_with(sk, 'POST#00042')$$, true);
SET plan_cache_mode = force_generic_plan;
PREPARE big(text, text) AS SELECT item FROM bw WHERE pk = $1 AND singletable.begins_with(sk, $2);
SELECT pg_temp.plan('EXECUTE big(''USER#big'', ''POST#00042'')', true);
-- the same through singletable.query
SELECT * FROM singletable.explain_query('bw', 'USER#big', 'begins_with', 'POST#00042', with_analyze => true);
RESET plan_cache_mode;
SELECT count(*) FROM singletable.query('bw', 'USER#big', 'begins_with', 'POST#00042');

-- selectivity: a constant prefix is estimated from the statistics, not guessed
SELECT pg_temp.est($$SELECT 1 FROM bw WHERE singletable.begins_with(sk, 'POST#00042')$$) BETWEEN 1 AND 200 AS rare_prefix_estimate,
       pg_temp.est($$SELECT 1 FROM bw WHERE singletable.begins_with(sk, 'LIKE#')$$) BETWEEN 80000 AND 120000 AS common_prefix_estimate,
       pg_temp.est($$SELECT 1 FROM bw_b WHERE singletable.begins_with(sk, '\x0000'::bytea)$$) BETWEEN 10000 AND 20000 AS bytea_prefix_estimate;

-- other uses: joins (prefix from another table), ORDER BY, backwards
CREATE TEMP TABLE wanted (pk text, prefix text);
INSERT INTO wanted VALUES ('USER#7', 'POST#'), ('USER#8', 'PROF');
SET enable_hashjoin = off; SET enable_mergejoin = off;
SELECT pg_temp.plan($$SELECT w.pk, b.sk FROM wanted w JOIN bw b ON b.pk = w.pk AND singletable.begins_with(b.sk, w.prefix)$$);
RESET enable_hashjoin; RESET enable_mergejoin;
SELECT w.pk, b.sk FROM wanted w JOIN bw b ON b.pk = w.pk AND singletable.begins_with(b.sk, w.prefix) ORDER BY 1, 2;
SELECT pg_temp.plan($$SELECT sk FROM bw WHERE pk = 'USER#7' AND singletable.begins_with(sk, 'POST#') ORDER BY sk DESC$$);

-- bytea: byte ranges, also for prefixes ending in 0xFF
SELECT pg_temp.plan($$SELECT item FROM bw_b WHERE pk = 'P1' AND singletable.begins_with(sk, '\x0000'::bytea)$$);
SELECT pg_temp.plan($$SELECT item FROM bw_b WHERE pk = 'P1' AND singletable.begins_with(sk, '\x00ff'::bytea)$$);
SELECT pg_temp.plan($$SELECT item FROM bw_b WHERE pk = 'P1' AND singletable.begins_with(sk, '\xffff'::bytea)$$);
SET plan_cache_mode = force_generic_plan;
PREPARE bytes(text, bytea) AS SELECT count(*) FROM bw_b WHERE pk = $1 AND singletable.begins_with(sk, $2);
SELECT pg_temp.plan('EXECUTE bytes(''P1'', ''\x0000'')');
EXECUTE bytes('P1', '\x0000');
EXECUTE bytes('P1', '\x000000');
RESET plan_cache_mode;
SELECT count(*) FROM bw_b WHERE pk = 'P1' AND singletable.begins_with(sk, '\x0000'::bytea);
INSERT INTO bw_b VALUES ('FF', '\xff', '{}'), ('FF', '\xff00', '{}'), ('FF', '\xffff', '{}'), ('FF', '\xfe', '{}');
SET plan_cache_mode = force_generic_plan;
EXECUTE bytes('FF', '\xff');
EXECUTE bytes('FF', '\xffff');
RESET plan_cache_mode;

-- the prefix successor for UTF-8: next code point, skipping surrogates, dropping
-- U+10FFFF; always valid UTF-8 (convert_to(…, 'UTF8') verifies it). A prefix with
-- no successor (empty or only U+10FFFF) gets itself followed by U+10FFFF repeated
-- past the longest indexable value, shown here as "+ N x U+10FFFF".
CREATE FUNCTION pg_temp.show_bound(p text) RETURNS text LANGUAGE sql AS $$
  SELECT CASE WHEN octet_length(u) > 64
              THEN CASE WHEN u = p || repeat(E'\U0010ffff', (octet_length(u) - octet_length(p)) / 4)
                        THEN encode(textsend(p), 'hex') || ' + ' || (octet_length(u) - octet_length(p)) / 4 || ' x U+10FFFF'
                        ELSE 'unexpected bound of ' || octet_length(u) || ' bytes' END
              ELSE encode(convert_to(u, 'UTF8'), 'hex') END
    FROM singletable.prefix_upper_bound(p) u $$;
SELECT p, encode(textsend(p), 'hex') AS prefix, pg_temp.show_bound(p) AS upper
  FROM (VALUES ('a'), ('POST#'), ('az'), (E'a\u007f'), (E'\u007f'), (E'a\u07ff'), (E'a\uffff'), (E'\uffff'),
               (E'a\ud7ff'::text), ('é'), ('日本'), ('😀'), (E'😀\U0010ffff'),
               (E'a\U0010ffff'), (E'a\U0010ffff\U0010ffff'), (E'\U0010ffff'), (E'\U0010ffff\U0010ffff'), ('')) v(p);
-- the bound without successor is above every string with the prefix short enough to index
SELECT singletable.prefix_upper_bound('') > repeat(E'\U0010ffff', 10000) COLLATE "C" AS empty_above,
       singletable.prefix_upper_bound(E'\U0010ffff') > repeat(E'\U0010ffff', 10000) COLLATE "C" AS max_above,
       singletable.prefix_upper_bound(E'\U0010ffff') > E'\U0010ffff' COLLATE "C" AS max_above_itself;
-- a bound that Latin-1 can hold converts to Latin-1 (U+007F's successor is U+0080,
-- a Latin-1 character). A bound can need a character the prefix does not: that of
-- 'ÿ' is U+0100, which Latin-1 lacks, so this holds only for such bounds.
SELECT p, encode(convert_to(singletable.prefix_upper_bound(p), 'LATIN1'), 'hex') AS latin1
  FROM (VALUES ('a'), (E'a\u007f'), ('é'), ('þ'), ('POST#')) v(p);
SELECT encode(singletable.prefix_upper_bound('\x01ff'::bytea), 'hex') AS b1,
       encode(singletable.prefix_upper_bound('\x0102'::bytea), 'hex') AS b2,
       octet_length(singletable.prefix_upper_bound('\xffff'::bytea)) AS b3_len;
-- prefixes at the edges of UTF-8 find exactly the strings that start with them
CREATE TEMP TABLE edge (pk text, sk text COLLATE "C", PRIMARY KEY (pk, sk));
INSERT INTO edge SELECT 'E', s FROM unnest(ARRAY[E'a\u007f', E'a\u007fz', E'a\u0080', E'a\ud7ff', E'a\ud7ffz',
  E'a\ue000', E'a\uffff', E'a\uffffz', E'a\U00010000', E'a\U0010ffff', E'a\U0010ffffz', 'b', E'\U0010ffff', E'\U0010ffff\U0010ffff']) s;
SET plan_cache_mode = force_generic_plan;
PREPARE edge_q(text) AS SELECT encode(textsend(sk), 'hex') FROM edge WHERE pk = 'E' AND singletable.begins_with(sk, $1) ORDER BY sk;
SELECT pg_temp.plan('EXECUTE edge_q(''a'')');
EXECUTE edge_q(E'a\u007f');
EXECUTE edge_q(E'a\ud7ff');
EXECUTE edge_q(E'a\uffff');
EXECUTE edge_q(E'a\U0010ffff');
EXECUTE edge_q(E'\U0010ffff');
EXECUTE edge_q('');
RESET plan_cache_mode;
SELECT encode(textsend(sk), 'hex') FROM edge WHERE pk = 'E' AND singletable.begins_with(sk, E'a\U0010ffff') ORDER BY sk;
SELECT pg_temp.plan($$SELECT sk FROM edge WHERE pk = 'E' AND singletable.begins_with(sk, E'a\U0010ffff')$$);

-- no index condition where a range would not be exact: a column under a
-- linguistic collation is filtered, not range-scanned (the answer stays right)
CREATE TEMP TABLE coll (pk text, sk text COLLATE "en-x-icu", PRIMARY KEY (pk, sk));
INSERT INTO coll SELECT 'C', s FROM unnest(ARRAY['a', 'B', 'b', 'ab', 'Ab']) s;
SELECT pg_temp.plan($$SELECT sk FROM coll WHERE pk = 'C' AND singletable.begins_with(sk, 'a')$$);
SELECT sk FROM coll WHERE pk = 'C' AND singletable.begins_with(sk, 'a') ORDER BY sk;

-- cleanup
DEALLOCATE ALL;
SELECT singletable.drop_table('bw'), singletable.drop_table('bw_b');
