-- test/bench/sql/ttl.sql: data of the TTL measurement of run.sh (BENCH_ONLY=ttl runs only it).
-- Needs setup.sql (bench_rows), loaded before this file.
--
-- Table ttl_items, TTL attribute expiresAt (a Number of epoch seconds). `now` is the run's
-- clock, passed in by run.sh (epoch seconds at load time).
--   live items: setup.sql's collections of 100 items (ORDER#100 .. POST#199); the items with an
--               even sort key number carry an expiresAt in the future (now + 1 day .. now + 1
--               year + 1 day), the others none: half of the live items are in the TTL index.
--   expired items: in every collection, `per` items METRICS#<first> .. METRICS#<first+per-1>
--               (they sort before ORDER#, so a collection's expired items lie among its live
--               ones in the heap), expiresAt 1 minute .. 7 days in the past, in an order
--               unrelated to the keys (so the sweep, which reads the TTL index in expiry
--               order, visits the heap in random order, as a real backlog would make it).

-- the live rows of ncoll collections
CREATE FUNCTION bench_ttl_live_rows(ncoll int, now bigint) RETURNS TABLE (pk text, sk text, item jsonb)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT r.pk, r.sk,
           CASE WHEN right(r.sk, 3)::int % 2 = 0
                THEN r.item || jsonb_build_object('expiresAt',
                         now + 86400 + (substr(r.pk, 6)::bigint * 2654435761 + right(r.sk, 3)::bigint * 40503) % 31536000)
                ELSE r.item
           END
      FROM bench_rows(ncoll) AS r;
END;

-- the expired rows METRICS#<first> .. METRICS#<first + per - 1> of each of ncoll collections
CREATE FUNCTION bench_ttl_expired_rows(ncoll int, first int, per int, now bigint)
RETURNS TABLE (pk text, sk text, item jsonb)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT 'USER#' || c::text, 'METRICS#' || lpad(m::text, 3, '0'),
           jsonb_build_object(
               'pk', 'USER#' || c::text,
               'sk', 'METRICS#' || lpad(m::text, 3, '0'),
               'views', (c * 7 + m * 13) % 100000,
               'likes', (c * 11 + m * 17) % 1000,
               'title', 'Metrics ' || m::text || ' of user ' || c::text,
               'created', '2024-05-01T12:00:00Z',
               'expiresAt', now - 60 - (c::bigint * 2654435761 + m::bigint * 40503) % 604800)
      FROM generate_series(10000000, 10000000 + ncoll - 1) AS c,
           generate_series(first, first + per - 1) AS m
     ORDER BY c, m;
END;

-- Load: live and expired rows of ncoll collections in one INSERT, in primary-key order
-- (run.sh: INSERT INTO ttl_items SELECT * FROM bench_ttl_rows(...)).
CREATE FUNCTION bench_ttl_rows(ncoll int, per int, now bigint) RETURNS TABLE (pk text, sk text, item jsonb)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT s.pk, s.sk, s.item
      FROM (SELECT * FROM bench_ttl_live_rows(ncoll, now)
            UNION ALL
            SELECT * FROM bench_ttl_expired_rows(ncoll, 0, per, now)) AS s
     ORDER BY s.pk COLLATE "C", s.sk COLLATE "C";
END;
