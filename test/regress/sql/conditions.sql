-- conditions: every comparison, logical operator and function of DynamoDB's
-- condition language, the type rules, placeholders, and their errors
-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('cx');
SELECT singletable.put_item('cx', '{"pk": "p", "sk": "item", "s": "apple", "n": 10, "n2": 2.5, "b": {"$B": "AQID"},
  "t": true, "z": null, "l": [1, "two", {"$SS": ["x"]}, [3]], "m": {"k": "v", "deep": {"x": [10, 20]}},
  "ss": {"$SS": ["a", "b"]}, "ns": {"$NS": [1, 2]}, "bs": {"$BS": ["AQ=="]}, "e": "", "u": "é"}');
-- c(cond, vals): does the condition hold on the item? (a filter over the one item)
CREATE FUNCTION pg_temp.c(cond text, vals jsonb DEFAULT NULL, names jsonb DEFAULT NULL) RETURNS boolean
LANGUAGE sql AS $$
  SELECT count(*) = 1 FROM singletable.query('cx', 'p', '=', 'item', filter => cond, names => names, vals => vals)
$$;

-- tests
-- comparisons of same-typed values: S by bytes, N by value, B by bytes
SELECT pg_temp.c('s = :v', '{":v": "apple"}') AS s_eq, pg_temp.c('s < :v', '{":v": "apples"}') AS s_lt_prefix,
       pg_temp.c('s > :v', '{":v": "Zebra"}') AS s_gt_upper, pg_temp.c('u > :v', '{":v": "z"}') AS utf8_bytes,
       pg_temp.c('n = :v', '{":v": 10.0}') AS n_eq_scale, pg_temp.c('n = :v', '{":v": 1e1}') AS n_eq_exp,
       pg_temp.c('n > :v', '{":v": 9.99999999999999999999999999999999999}') AS n_gt_exact,
       pg_temp.c('n2 <= :v', '{":v": 2.5}') AS n_le, pg_temp.c('n >= :v', '{":v": -1}') AS n_ge,
       pg_temp.c('b < :v', '{":v": {"$B": "AQQ="}}') AS b_lt, pg_temp.c('n <> :v', '{":v": 11}') AS n_ne;
-- values of different types never compare true (only <> is true)
SELECT pg_temp.c('n = :v', '{":v": "10"}') AS n_eq_s, pg_temp.c('n < :v', '{":v": "17"}') AS n_lt_s,
       pg_temp.c('n <> :v', '{":v": "10"}') AS n_ne_s, pg_temp.c('b = :v', '{":v": "AQID"}') AS b_eq_s,
       pg_temp.c('t < :v', '{":v": 1}') AS bool_lt, pg_temp.c('l > :v', '{":v": 1}') AS list_gt;
-- a missing attribute: every comparison false, except <>
SELECT pg_temp.c('nope = :v', '{":v": 1}') AS eq, pg_temp.c('nope < :v', '{":v": 1}') AS lt,
       pg_temp.c('nope <> :v', '{":v": 1}') AS ne, pg_temp.c('nope = nada') AS two_missing_eq,
       pg_temp.c('nope <> nada') AS two_missing_ne, pg_temp.c('m.nope = :v', '{":v": 1}') AS nested,
       pg_temp.c('l[9] = :v', '{":v": 1}') AS out_of_range, pg_temp.c('s.x = :v', '{":v": 1}') AS through_scalar;
-- equality of lists (in order), maps (any order), sets (any order), nested values
SELECT pg_temp.c('l = :v', '{":v": [1, "two", {"$SS": ["x"]}, [3]]}') AS list_eq,
       pg_temp.c('l = :v', '{":v": ["two", 1, {"$SS": ["x"]}, [3]]}') AS list_order,
       pg_temp.c('m = :v', '{":v": {"deep": {"x": [10, 20]}, "k": "v"}}') AS map_eq,
       pg_temp.c('ss = :v', '{":v": {"$SS": ["b", "a"]}}') AS set_eq,
       pg_temp.c('ns = :v', '{":v": {"$NS": [2.0, 1]}}') AS ns_by_value,
       pg_temp.c('z = :v', '{":v": null}') AS null_eq, pg_temp.c('t = :v', '{":v": true}') AS bool_eq,
       pg_temp.c('e = :v', '{":v": ""}') AS empty_string;
-- paths: nested maps, list indexes, #names for reserved words and odd characters
SELECT pg_temp.c('m.deep.x[1] = :v', '{":v": 20}') AS nested_index, pg_temp.c('l[3][0] = :v', '{":v": 3}') AS index_index,
       pg_temp.c('#s = :v', '{":v": "apple"}', '{"#s": "s"}') AS name_placeholder,
       pg_temp.c('#m.#k = :v', '{":v": "v"}', '{"#m": "m", "#k": "k"}') AS two_names,
       pg_temp.c('#dot = :v', '{":v": 1}', '{"#dot": "m.k"}') AS dot_is_literal;
-- BETWEEN (inclusive), IN
SELECT pg_temp.c('n BETWEEN :a AND :b', '{":a": 10, ":b": 20}') AS between_incl,
       pg_temp.c('n between :a and :b', '{":a": 11, ":b": 20}') AS between_out,
       pg_temp.c('s BETWEEN :a AND :b', '{":a": "a", ":b": "b"}') AS between_s,
       pg_temp.c('n BETWEEN :a AND :b', '{":a": "a", ":b": "b"}') AS between_types,
       pg_temp.c('n BETWEEN n2 AND :b', '{":b": 100}') AS between_path_bound,
       pg_temp.c('n IN (:a, :b)', '{":a": "10", ":b": 10}') AS in_mixed,
       pg_temp.c('n IN (:a)', '{":a": 11}') AS in_no, pg_temp.c('nope IN (:a)', '{":a": 11}') AS in_missing;
-- AND, OR, NOT and their precedence: a OR b AND c is a OR (b AND c)
SELECT pg_temp.c(':t = :t OR :t = :f AND :f = :t', '{":t": 1, ":f": 2}') AS or_binds_loosest,
       pg_temp.c('(:t = :t OR :t = :f) AND :f = :t', '{":t": 1, ":f": 2}') AS parens,
       pg_temp.c('NOT n = :v AND s = :s', '{":v": 11, ":s": "apple"}') AS not_binds_tight,
       pg_temp.c('NOT (n = :v AND s = :s)', '{":v": 10, ":s": "apple"}') AS not_group,
       pg_temp.c('not not attribute_exists(s)') AS double_not;
-- functions
SELECT pg_temp.c('attribute_exists(s)') AS exists_s, pg_temp.c('attribute_exists(m.deep.x[0])') AS exists_nested,
       pg_temp.c('attribute_exists(z)') AS exists_null, pg_temp.c('attribute_not_exists(nope)') AS not_exists,
       pg_temp.c('attribute_not_exists(l[0])') AS not_exists_present;
SELECT pg_temp.c('begins_with(s, :p)', '{":p": "app"}') AS bw_s, pg_temp.c('begins_with(s, :p)', '{":p": "apple pie"}') AS bw_longer,
       pg_temp.c('begins_with(b, :p)', '{":p": {"$B": "AQI="}}') AS bw_b, pg_temp.c('begins_with(b, :p)', '{":p": "AQ"}') AS bw_b_s,
       pg_temp.c('begins_with(n, :p)', '{":p": "1"}') AS bw_n, pg_temp.c('begins_with(s, e)') AS bw_path_empty;
SELECT pg_temp.c('contains(s, :v)', '{":v": "ppl"}') AS substring, pg_temp.c('contains(b, :v)', '{":v": {"$B": "Ag=="}}') AS bytes,
       pg_temp.c('contains(ss, :v)', '{":v": "a"}') AS in_ss, pg_temp.c('contains(ns, :v)', '{":v": 2.0}') AS in_ns,
       pg_temp.c('contains(ns, :v)', '{":v": "2"}') AS ns_wrong_type, pg_temp.c('contains(bs, :v)', '{":v": {"$B": "AQ=="}}') AS in_bs,
       pg_temp.c('contains(l, :v)', '{":v": {"$SS": ["x"]}}') AS list_has_set, pg_temp.c('contains(l, :v)', '{":v": [3]}') AS list_has_list,
       pg_temp.c('contains(m, :v)', '{":v": "k"}') AS map_never, pg_temp.c('contains(n, :v)', '{":v": 1}') AS number_never;
SELECT pg_temp.c('size(s) = :v', '{":v": 5}') AS size_s, pg_temp.c('size(u) = :v', '{":v": 1}') AS size_utf16_units,
       pg_temp.c('size(b) = :v', '{":v": 3}') AS size_b, pg_temp.c('size(l) = :v', '{":v": 4}') AS size_l,
       pg_temp.c('size(m) = :v', '{":v": 2}') AS size_m, pg_temp.c('size(ss) = :v', '{":v": 2}') AS size_set,
       pg_temp.c('size(n) = :v', '{":v": 2}') AS size_n_false, pg_temp.c('size(n) <> :v', '{":v": 2}') AS size_n_ne_false,
       pg_temp.c('size(:s) = :v', '{":v": 3, ":s": "abc"}') AS size_literal, pg_temp.c('size(s) > size(e)') AS size_both;

-- a condition on a write is checked against the current item, atomically with it
SELECT singletable.put_item('cx', '{"pk": "p", "sk": "new", "v": 1}', condition => 'attribute_not_exists(pk)');
SELECT singletable.put_item('cx', '{"pk": "p", "sk": "new", "v": 2}', condition => 'attribute_not_exists(pk)');
SELECT singletable.put_item('cx', '{"pk": "p", "sk": "new", "v": 2}', condition => 'v = :one', vals => '{":one": 1}', return_values => 'ALL_OLD');
SELECT singletable.delete_item('cx', 'p', 'new', condition => 'v = :one', vals => '{":one": 1}');
SELECT singletable.delete_item('cx', 'p', 'new', condition => 'v = :two', vals => '{":two": 2}', return_values => 'ALL_OLD');
SELECT singletable.delete_item('cx', 'p', 'new', condition => 'attribute_not_exists(pk)') IS NULL AS deleting_nothing;
-- the failure is SQLSTATE 23S01 with DynamoDB's error body in DETAIL; with ALL_OLD the
-- current item is read after the error with condition_check_failure_item()
SET client_min_messages = notice;
DO $$
DECLARE st text; msg text; det text;
BEGIN
  PERFORM singletable.put_item('cx', '{"pk": "p", "sk": "item"}', condition => 'attribute_not_exists(pk)',
                               return_values_on_condition_check_failure => 'ALL_OLD');
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
  RAISE NOTICE 'SQLSTATE %: %', st, msg;
  RAISE NOTICE 'DETAIL: %', det;
  RAISE NOTICE 'current item: %', singletable.condition_check_failure_item() -> 'm';
END $$;
DO $$
DECLARE st text; det text;
BEGIN
  PERFORM singletable.delete_item('cx', 'p', 'nothing', condition => 'attribute_exists(pk)',
                                  return_values_on_condition_check_failure => 'ALL_OLD');
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, det = PG_EXCEPTION_DETAIL;
  RAISE NOTICE 'SQLSTATE %, no current item: %', st, singletable.condition_check_failure_item();
END $$;
DO $$
BEGIN
  PERFORM singletable.put_item('cx', '{"pk": "p", "sk": "item"}', condition => 'attribute_not_exists(pk)');
EXCEPTION WHEN SQLSTATE '23S01' THEN
  RAISE NOTICE 'caught the conditional check failure by its SQLSTATE';
END $$;
SET client_min_messages = warning;
SELECT singletable.get_item('cx', 'p', 'item') ->> 's' AS unchanged;

-- invalid input: syntax errors point at the token and its position
SELECT pg_temp.c('');
SELECT pg_temp.c('   ');
SELECT pg_temp.c('s = ');
SELECT pg_temp.c('s == :v', '{":v": 1}');
SELECT pg_temp.c('s = :v extra', '{":v": 1}');
SELECT pg_temp.c('_s = :v', '{":v": 1}');
SELECT pg_temp.c('1s = :v', '{":v": 1}');
SELECT pg_temp.c('s = "apple"');
SELECT pg_temp.c('s = 5');
SELECT pg_temp.c('l[-1] = :v', '{":v": 1}');
SELECT pg_temp.c('l[a] = :v', '{":v": 1}');
SELECT pg_temp.c('s = :v AND', '{":v": 1}');
SELECT pg_temp.c('(s = :v', '{":v": 1}');
SELECT pg_temp.c('s = :v)', '{":v": 1}');
SELECT pg_temp.c('((s = :v))', '{":v": 1}');
SELECT pg_temp.c('s IN ()', '{":v": 1}');
SELECT pg_temp.c('s BETWEEN :v', '{":v": 1}');
SELECT pg_temp.c('s');
SELECT pg_temp.c('s = :v ☃', '{":v": 1}');
-- functions: unknown, case-sensitive, misused, wrong arguments
SELECT pg_temp.c('dog(s)');
SELECT pg_temp.c('ATTRIBUTE_EXISTS(s)');
SELECT pg_temp.c('size(s)');
SELECT pg_temp.c('attribute_exists(s) = :v', '{":v": true}');
SELECT pg_temp.c('if_not_exists(s, :v) = :v', '{":v": 1}');
SELECT pg_temp.c('attribute_exists(:v)', '{":v": 1}');
SELECT pg_temp.c('attribute_exists(s, n)');
SELECT pg_temp.c('begins_with(s)');
SELECT pg_temp.c('begins_with(:v, s)', '{":v": "a"}');
SELECT pg_temp.c('begins_with(s, :v)', '{":v": 1}');
SELECT pg_temp.c('attribute_type(s, :t)', '{":t": "STRING"}');
SELECT pg_temp.c('attribute_type(s, :t)', '{":t": 1}');
SELECT pg_temp.c('attribute_type(s, n)');
SELECT pg_temp.c('size(:v) = :v', '{":v": 1}');
SELECT pg_temp.c('contains(s, s)');
SELECT pg_temp.c('s = s');
SELECT pg_temp.c('s IN (:a, s)', '{":a": 1}');
-- literal types that cannot be ordered, BETWEEN bounds
SELECT pg_temp.c('s < :v', '{":v": [1]}');
SELECT pg_temp.c('s >= :v', '{":v": true}');
SELECT pg_temp.c('s BETWEEN :a AND :b', '{":a": "b", ":b": "a"}');
SELECT pg_temp.c('s BETWEEN :a AND :b', '{":a": 1, ":b": "a"}');
SELECT pg_temp.c('s BETWEEN :a AND :b', '{":a": {"$SS": ["a"]}, ":b": "a"}');
-- reserved words need #names
SELECT pg_temp.c('status = :v', '{":v": 1}');
SELECT pg_temp.c('m.Name = :v', '{":v": 1}');
-- placeholders: undefined, unused, malformed, empty maps, names without expression
SELECT pg_temp.c('#x = :v', '{":v": 1}');
SELECT pg_temp.c('s = :w', '{":v": 1}');
SELECT pg_temp.c('s = :v', '{":v": 1, ":unused": 2}');
SELECT pg_temp.c('s = :v', '{":v": 1}', '{"#unused": "x"}');
SELECT pg_temp.c('s = :v', '{"v": 1}');
SELECT pg_temp.c('s = :v', '{":v": 1}', '{"#a.b": "x"}');
SELECT pg_temp.c('s = :v', '{":v": 1}', '{"#n": 5}');
SELECT pg_temp.c('s = :v', '{":v": 1}', '{}');
SELECT pg_temp.c('s = :v', '{}');
SELECT pg_temp.c('s = :v', '[1]');
SELECT pg_temp.c('s = :v', '{":v": {"$SS": []}}');
SELECT singletable.put_item('cx', '{"pk": "p", "sk": "x"}', vals => '{":v": 1}');
SELECT singletable.query('cx', 'p', names => '{"#n": "x"}');
-- limits: 4096 bytes, 300 operators, 100 IN operands, 255-byte placeholders, nesting
SELECT pg_temp.c('s = :v' || repeat(' ', 4090), '{":v": 1}') AS at_4096_bytes;
SELECT pg_temp.c('s = :v' || repeat(' ', 4091), '{":v": 1}');
SELECT pg_temp.c(repeat('s = :v OR ', 149) || 'NOT s = :v', '{":v": 1}') AS at_300_operators;
SELECT pg_temp.c(repeat('s = :v OR ', 150) || 'NOT s = :v', '{":v": 1}');
SELECT pg_temp.c('s IN (' || repeat(':v, ', 98) || ':v)', '{":v": 1}') AS in_99_values;
SELECT pg_temp.c('s IN (' || repeat(':v, ', 99) || ':v)', '{":v": 1}');
SELECT pg_temp.c('s = :' || repeat('v', 254), jsonb_build_object(':' || repeat('v', 254), 1)) AS placeholder_255_bytes;
SELECT pg_temp.c('s = :' || repeat('v', 255), jsonb_build_object(':' || repeat('v', 255), 1));
-- nesting: as deep as DynamoDB's 300 operators allow (each NOT and each group holds
-- one), also with little stack; deeper, the operator limit, redundant parentheses or
-- the nesting limit (twice the operators) refuse it before it costs more stack
SELECT pg_temp.c(repeat('NOT ', 70) || 's = :v', '{":v": 1}') AS not_70;
SELECT pg_temp.c(repeat('(s = :v AND ', 149) || 's = :v' || repeat(')', 149), '{":v": 1}') AS groups_149;
SET max_stack_depth = '100kB';
SELECT pg_temp.c(repeat('NOT ', 298) || 's = :v', '{":v": 1}') AS not_298;
SELECT pg_temp.c(repeat('(s = :v AND ', 149) || 's = :v' || repeat(')', 149), '{":v": 1}') AS groups_149;
RESET max_stack_depth;
SELECT pg_temp.c(repeat('NOT ', 300) || 's = :v', '{":v": 1}');
SELECT pg_temp.c(repeat('(', 400) || 's = :v' || repeat(')', 400), '{":v": 1}');
SELECT pg_temp.c(repeat('(', 2000) || 's = :v' || repeat(')', 2000), '{":v": 1}');
SELECT pg_temp.c('a' || repeat('.a', 40) || ' = :v', '{":v": 1}');

-- cleanup
SELECT singletable.drop_table('cx');
