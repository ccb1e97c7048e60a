-- GetItem as the SQL function: singletable.get_item of a random loaded item (workload.js: 50
-- collections user#00000..user#00049 of 30 items post#0000..post#0029), as sign.js's GetItem
\set c random(0, 49)
\set i random(0, 29)
SELECT singletable.get_item('bench', 'user#' || lpad(:c::text, 5, '0'), 'post#' || lpad(:i::text, 4, '0'));
