-- prefix: the same slice, prefix :x a bind parameter, PostgreSQL's starts_with
SELECT pk, sk, item FROM @TABLE@
 WHERE pk = :p AND starts_with(sk, :x)
 ORDER BY sk;
