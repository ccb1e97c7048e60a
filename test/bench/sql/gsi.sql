-- test/bench/sql/gsi.sql: data of the secondary-index measurement of run.sh (BENCH_ONLY=gsi
-- runs only it). Needs setup.sql (bench_rows), loaded before this file.
--
-- The rows of setup.sql, where 1% of the items carry the key attributes of an index: in every
-- collection of 100 items, the item POST#199 is an approved post, queued for publishing
--   gsi1pk 'STATUS#approved', gsi1sk its publish time (N, Unix seconds), spread over the year
--                             1700000000 .. 1731535999 in an order unrelated to the table keys
-- and, with gsi2, the item POST#198 (another 1%) carries the keys of a second index (S, S)
--   gsi2pk 'CATEGORY#<0..99>', gsi2sk 'DUE#<7 digits>'.
-- No other item carries any of these attributes: the puts of the write test (scripts/gsi_put.sql)
-- overwrite only items ORDER#100 .. POST#197, and insert new items, all without them.

-- publish time of the approved post of collection c (10000000 <= c)
CREATE FUNCTION bench_publish_at(c int) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 1700000000 + (c::bigint * 2654435761) % 31536000;

CREATE FUNCTION bench_gsi_rows(ncoll int, gsi2 bool) RETURNS TABLE (pk text, sk text, item jsonb)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT r.pk, r.sk,
           CASE WHEN r.sk = 'POST#199'
                THEN r.item || jsonb_build_object('gsi1pk', 'STATUS#approved',
                                                  'gsi1sk', bench_publish_at(substr(r.pk, 6)::int))
                WHEN gsi2 AND r.sk = 'POST#198'
                THEN r.item || jsonb_build_object('gsi2pk', 'CATEGORY#' || (substr(r.pk, 6)::int % 100)::text,
                                                  'gsi2sk', 'DUE#' || lpad(((substr(r.pk, 6)::bigint * 40503) % 10000000)::text, 7, '0'))
                ELSE r.item
           END
      FROM bench_rows(ncoll) AS r;
END;
