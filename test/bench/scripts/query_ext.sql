-- query: singletable.query of the 30-item begins_with('ORDER#') slice of a random collection
\set c 10000000 + random(0, @NCOLL@ - 1)
SELECT * FROM singletable.query('@TABLE@', 'USER#' || :c::text, 'begins_with', 'ORDER#');
