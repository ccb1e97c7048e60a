-- put: the hand-written upsert of the same item (returns nothing)
\set c 10000000 + random(0, @NCOLL@ - 1)
\set j random(100, 199)
\set v random(0, 99999)
INSERT INTO @TABLE@ (pk, sk, item)
VALUES ('USER#' || :c::text,
        CASE WHEN :j::int < 130 THEN 'ORDER#' ELSE 'POST#' END || :j::text,
        jsonb_build_object(
            'pk', 'USER#' || :c::text,
            'sk', CASE WHEN :j::int < 130 THEN 'ORDER#' ELSE 'POST#' END || :j::text,
            'status', (ARRAY['pending', 'shipped', 'delivered'])[1 + :v::int % 3],
            'total', :v::int,
            'qty', 1 + :j::int % 5,
            'title', 'Item ' || :j::text || ' of user ' || :c::text,
            'created', '2024-05-01T12:00:00Z',
            'tags', '["gift", "express"]'::jsonb))
ON CONFLICT (pk, sk) DO UPDATE SET item = EXCLUDED.item;
