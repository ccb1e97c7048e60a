-- test/bench/sql/wide_put.sql: the wide-item measurement of run.sh (BENCH_ONLY=wide runs only
-- it). put_item of one item with 4,000 and with 40,000 top-level attributes a1..an, in two
-- forms: "stored" (numbers canonical: the item is stored as given after conversion to values)
-- and "rewrite" (numbers written 1.0, 2.0, ...: converted to values and written back to jsonb).
-- The items are built here once, stored uncompressed, so that a timed call neither builds nor
-- decompresses its argument.
SELECT singletable.create_table('wide_put');
CREATE TABLE wide_src (n int, form text, item jsonb, PRIMARY KEY (n, form));
ALTER TABLE wide_src ALTER item SET STORAGE EXTERNAL;
INSERT INTO wide_src
SELECT n, form, jsonb_build_object('pk', 'WIDE', 'sk', n || form)
       || (SELECT jsonb_object_agg('a' || i, CASE form WHEN 'stored' THEN i::numeric ELSE i::numeric(10, 1) END)
           FROM generate_series(1, n) i)
FROM unnest('{4000,40000}'::int[]) n, unnest('{stored,rewrite}'::text[]) form;

-- CPU seconds of this backend (utime + stime of /proc/self/stat, in clock ticks of 1/100 s)
CREATE FUNCTION bench_cpu_ticks() RETURNS bigint LANGUAGE sql AS $$
  SELECT split_part(s, ' ', 14)::bigint + split_part(s, ' ', 15)::bigint
  FROM pg_read_file('/proc/self/stat') s
$$;

-- "wall cpu": elapsed and backend CPU seconds per put_item of item (n, form), averaged over
-- reps calls in one transaction. CPU time is what the runner reports: unlike elapsed time it
-- does not count the time other processes of a shared machine take the CPU from the backend.
CREATE FUNCTION bench_wide_put(p_n int, p_form text, p_reps int) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  it jsonb;
  t0 timestamptz;
  c0 bigint;
BEGIN
  SELECT item INTO STRICT it FROM wide_src WHERE n = p_n AND form = p_form;
  PERFORM singletable.put_item('wide_put', it);   -- warm-up, not timed
  t0 := clock_timestamp();
  c0 := bench_cpu_ticks();
  FOR r IN 1 .. p_reps LOOP
    PERFORM singletable.put_item('wide_put', it);
  END LOOP;
  RETURN (extract(epoch FROM clock_timestamp() - t0) / p_reps) || ' ' ||
         ((bench_cpu_ticks() - c0) / 100.0 / p_reps);
END $$;
