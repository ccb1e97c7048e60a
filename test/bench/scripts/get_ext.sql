-- get: singletable.get_item of one random item of the table (@TABLE@, @NCOLL@ collections of 100 items)
\set c 10000000 + random(0, @NCOLL@ - 1)
\set j random(100, 199)
SELECT singletable.get_item('@TABLE@', 'USER#' || :c::text,
                            CASE WHEN :j::int < 130 THEN 'ORDER#' ELSE 'POST#' END || :j::text);
