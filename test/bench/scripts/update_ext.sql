-- update (TODO hook, not run yet): singletable.update_item setting one attribute of a random
-- existing item, returning the new item (return_values defaults to ALL_NEW).
-- ':' || 'v' spells the placeholder :v, because pgbench replaces ":name" even inside string literals.
\set c 10000000 + random(0, @NCOLL@ - 1)
\set j random(100, 199)
\set v random(0, 99999)
SELECT singletable.update_item('@TABLE@', 'USER#' || :c::text,
                               CASE WHEN :j::int < 130 THEN 'ORDER#' ELSE 'POST#' END || :j::text,
                               'SET #t = ' || ':' || 'v', names => '{"#t": "total"}',
                               vals => jsonb_build_object(':' || 'v', :v::int));
