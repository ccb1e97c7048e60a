-- update: singletable.update_item with a condition and an ADD counter on a random existing
-- item, returning the new item (return_values defaults to ALL_NEW). The condition holds for
-- every item of the benchmark (no item is "cancelled"), so every call writes.
-- ':' || 'one' spells the placeholder :one, because pgbench replaces ":name" even inside
-- string literals.
\set c 10000000 + random(0, @NCOLL@ - 1)
\set j random(100, 199)
SELECT singletable.update_item('@TABLE@', 'USER#' || :c::text,
                               CASE WHEN :j::int < 130 THEN 'ORDER#' ELSE 'POST#' END || :j::text,
                               'ADD #q ' || ':' || 'one', condition => '#s <> ' || ':' || 'cancelled',
                               names => '{"#q": "qty", "#s": "status"}',
                               vals => jsonb_build_object(':' || 'one', 1, ':' || 'cancelled', 'cancelled'));
