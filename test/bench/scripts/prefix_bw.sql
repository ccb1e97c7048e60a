-- prefix: the same slice, prefix :x a bind parameter, singletable.begins_with
SELECT pk, sk, item FROM @TABLE@
 WHERE pk = :p AND singletable.begins_with(sk, :x)
 ORDER BY sk;
