-- prefix: the 30-item 'ORDER#' slice of the 100,000-item collection :p, constant prefix range
SELECT pk, sk, item FROM @TABLE@
 WHERE pk = :p AND sk >= 'ORDER#' AND sk < 'ORDER$'
 ORDER BY sk;
