-- test/bench/sql/stored_size.sql: how fast the size of a stored item is (src/format/size.c, reached
-- through the internal singletable._stored_size) against singletable.item_size (the item
-- converted to values and validated), over 100,000 stored items of about 1 KB of mixed
-- types: strings, numbers of several shapes, BOOL, NULL, B, SS, NS, BS, a map with a list,
-- a list of maps. Not part of run.sh: a quick psql measurement with \timing.
--
-- Run it against any PostgreSQL 15 server with singletable installed (built without
-- assertions), e.g. from the repository root, as root, with a private installation:
--   make PG_CONFIG=$PG_CONFIG && make install PG_CONFIG=$PG_CONFIG
--   source test/lib.sh && st_start_server && psql -X -f test/bench/sql/stored_size.sql
-- (or ST_KEEP=1 to keep the server). Loading takes about 15 s; each timed query is run
-- three times, fast and slow alternating. The ratio is item_size's time over
-- _stored_size's; the first timed queries (a scan reading every item) are the cost both
-- share. The last query gives the same ratios from backend CPU time.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS singletable;
SELECT singletable.drop_table('bench_size') WHERE to_regclass('bench_size') IS NOT NULL;
SELECT singletable.create_table('bench_size');
SELECT setseed(0.5);
SELECT count(*) FROM (
  SELECT singletable.put_item('bench_size', jsonb_build_object(
    'pk', 'USER#' || (i % 1000),
    'sk', 'ORDER#' || lpad(i::text, 8, '0'),
    'type', 'order',
    'customer', md5(i::text),
    'email', md5((i * 7)::text) || '@example.com',
    'created', 1700000000 + i,
    'total', round((random() * 10000)::numeric, 2),
    'discount', -round((random() * 50)::numeric, 3),
    'rate', (random() * 1e-6)::numeric(20, 12),
    'qty', floor(random() * 20)::int,
    'paid', random() < 0.8,
    'note', NULL,
    'receipt', jsonb_build_object('$B', encode(sha256(i::text::bytea) || sha256((-i)::text::bytea), 'base64')),
    'tags', jsonb_build_object('$SS', jsonb_build_array('tag' || i % 5, 'x' || i % 13, 'y' || i % 17, 'é' || i % 3)),
    'ratings', jsonb_build_object('$NS', jsonb_build_array(i % 10, 10 + i % 10, 20.5 + i % 3, 1e20 + i)),
    'thumbs', jsonb_build_object('$BS', jsonb_build_array(encode(sha224(i::text::bytea), 'base64'),
                                                         encode(sha224((i + 1)::text::bytea), 'base64'))),
    'address', jsonb_build_object('street', md5((i * 3)::text), 'city', 'City ' || i % 100,
                                  'zip', lpad((i % 100000)::text, 5, '0'), 'country', 'JP',
                                  'geo', jsonb_build_array(round((random() * 180 - 90)::numeric, 6),
                                                           round((random() * 360 - 180)::numeric, 6))),
    'lines', (SELECT jsonb_agg(jsonb_build_object('sku', 'SKU-' || (i * 5 + j), 'name', md5((i * 5 + j)::text),
                                                  'price', round((random() * 100)::numeric, 2), 'qty', j,
                                                  'gift', j = 2))
              FROM generate_series(1, 5) j),
    'description', 'Größe ' || repeat(md5((i * 5)::text), 4) || ' 😀'))
  FROM generate_series(1, 100000) i) w;
VACUUM ANALYZE bench_size;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
-- the data: DynamoDB size and jsonb size of the items (not timed); both sizes agree on all
SELECT count(*) AS items, avg(singletable.item_size(item))::int AS avg_dynamodb_bytes,
       avg(pg_column_size(item))::int AS avg_jsonb_bytes,
       count(*) FILTER (WHERE singletable._stored_size(item) <> singletable.item_size(item)) AS mismatches
FROM bench_size;
\timing on
-- what both share: the scan, each item detoasted once (jsonb_typeof reads its argument)
SELECT count(jsonb_typeof(item)) FROM bench_size;
SELECT count(jsonb_typeof(item)) FROM bench_size;
SELECT sum(singletable._stored_size(item)) AS stored_size FROM bench_size;
SELECT sum(singletable.item_size(item)) AS item_size FROM bench_size;
SELECT sum(singletable._stored_size(item)) AS stored_size FROM bench_size;
SELECT sum(singletable.item_size(item)) AS item_size FROM bench_size;
SELECT sum(singletable._stored_size(item)) AS stored_size FROM bench_size;
SELECT sum(singletable.item_size(item)) AS item_size FROM bench_size;
\timing off
-- The same as backend CPU time (utime + stime of /proc/self/stat, 10 ms ticks; superuser),
-- which other processes of a shared machine disturb less than elapsed time: the least of
-- 3 rounds of 5 scans, in ms per scan of the 100,000 items.
CREATE FUNCTION pg_temp.cpu_ms(q text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
  c0 bigint;
  best numeric;
BEGIN
  FOR r IN 1 .. 3 LOOP
    c0 := (SELECT split_part(s, ' ', 14)::bigint + split_part(s, ' ', 15)::bigint FROM pg_read_file('/proc/self/stat') s);
    FOR k IN 1 .. 5 LOOP
      EXECUTE q;
    END LOOP;
    best := least(best, ((SELECT split_part(s, ' ', 14)::bigint + split_part(s, ' ', 15)::bigint
                          FROM pg_read_file('/proc/self/stat') s) - c0) * 10.0 / 5);
  END LOOP;
  RETURN best;
END $$;
SELECT round(scan_ms) AS scan_ms, round(stored_ms) AS stored_ms, round(item_size_ms) AS item_size_ms,
       round(item_size_ms / stored_ms, 1) AS ratio,
       round((item_size_ms - scan_ms) / (stored_ms - scan_ms), 1) AS ratio_without_scan
FROM (SELECT pg_temp.cpu_ms('SELECT count(jsonb_typeof(item)) FROM bench_size') AS scan_ms,
             pg_temp.cpu_ms('SELECT sum(singletable._stored_size(item)) FROM bench_size') AS stored_ms,
             pg_temp.cpu_ms('SELECT sum(singletable.item_size(item)) FROM bench_size') AS item_size_ms) t;
SELECT singletable.drop_table('bench_size');
