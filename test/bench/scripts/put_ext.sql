-- put: singletable.put_item overwriting one random existing item (return_values NONE: returns NULL)
\set c 10000000 + random(0, @NCOLL@ - 1)
\set j random(100, 199)
\set v random(0, 99999)
SELECT singletable.put_item('@TABLE@', jsonb_build_object(
    'pk', 'USER#' || :c::text,
    'sk', CASE WHEN :j::int < 130 THEN 'ORDER#' ELSE 'POST#' END || :j::text,
    'status', (ARRAY['pending', 'shipped', 'delivered'])[1 + :v::int % 3],
    'total', :v::int,
    'qty', 1 + :j::int % 5,
    'title', 'Item ' || :j::text || ' of user ' || :c::text,
    'created', '2024-05-01T12:00:00Z',
    'tags', '["gift", "express"]'::jsonb));
