-- Query as the SQL function: singletable.query of a random whole collection (begins_with
-- post#: the 30 items), as sign.js's Query
\set c random(0, 49)
SELECT * FROM singletable.query('bench', 'user#' || lpad(:c::text, 5, '0'), 'begins_with', 'post#');
