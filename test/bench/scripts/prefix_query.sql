-- prefix: the same slice through singletable.query, prefix :x a bind parameter
SELECT * FROM singletable.query('@TABLE@', :p, 'begins_with', :x);
