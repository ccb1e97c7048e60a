-- test/bench/sql/batch.sql: the inputs of the batch measurement (test/bench/run.sh,
-- BENCH_ONLY=batch), built once, so that every variant reads the same items from a table
-- instead of building them in its script (building JSON with nested jsonb functions costs
-- more than any of the statements measured): batch_reqs holds, for request id 1..1000, a
-- batch_write document of 25 puts and a batch_get document of 100 keys for table tab, and
-- the same keys and items as arrays for the hand-written statements and the single-item
-- calls. Keys are spread over the table (an item of its own collection each, of the
-- ncoll collections of bench_rows) and listed in key order.
CREATE FUNCTION bench_batch_requests(tab text, ncoll int) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    CREATE TABLE batch_reqs (
        id int PRIMARY KEY,
        write_req jsonb NOT NULL,   -- {tab: [{"PutRequest": {"Item": ...}}, ... 25]}
        pks text[] NOT NULL,        -- the 25 puts' keys and items
        sks text[] NOT NULL,
        items jsonb[] NOT NULL,
        get_req jsonb NOT NULL,     -- {tab: {"Keys": [{"pk": ..., "sk": ...}, ... 100]}}
        gpks text[] NOT NULL,       -- the 100 keys
        gsks text[] NOT NULL);
    WITH w AS (
        SELECT n, 'USER#' || c::text AS pk, bench_sk(j) AS sk, bench_item(c, j, (n * 31 + i) % 100000) AS item
          FROM generate_series(1, 1000) n, generate_series(0, 24) i,
               LATERAL (SELECT 10000000 + (n * 13 + i * 7919) % ncoll AS c, 100 + (n + i) % 100 AS j) k),
    g AS (
        SELECT n, 'USER#' || c::text AS pk, bench_sk(j) AS sk
          FROM generate_series(1, 1000) n, generate_series(0, 99) i,
               LATERAL (SELECT 10000000 + (n * 13 + i * 7919) % ncoll AS c, 100 + (n + i) % 100 AS j) k),
    wa AS (
        SELECT n, jsonb_build_object(tab, jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item', item))
                                                    ORDER BY pk COLLATE "C", sk COLLATE "C")) AS write_req,
               array_agg(pk ORDER BY pk COLLATE "C", sk COLLATE "C") AS pks,
               array_agg(sk ORDER BY pk COLLATE "C", sk COLLATE "C") AS sks,
               array_agg(item ORDER BY pk COLLATE "C", sk COLLATE "C") AS items
          FROM w GROUP BY n),
    ga AS (
        SELECT n, jsonb_build_object(tab, jsonb_build_object('Keys', jsonb_agg(jsonb_build_object('pk', pk, 'sk', sk)
                                                                               ORDER BY pk COLLATE "C", sk COLLATE "C"))) AS get_req,
               array_agg(pk ORDER BY pk COLLATE "C", sk COLLATE "C") AS gpks,
               array_agg(sk ORDER BY pk COLLATE "C", sk COLLATE "C") AS gsks
          FROM g GROUP BY n)
    INSERT INTO batch_reqs
    SELECT wa.n, wa.write_req, wa.pks, wa.sks, wa.items, ga.get_req, ga.gpks, ga.gsks
      FROM wa JOIN ga USING (n);
END $$;
