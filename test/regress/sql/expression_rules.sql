-- expression_rules: DynamoDB's exact rules where they are easy to get wrong:
-- size() in UTF-16 code units, key attributes in filters and paths, a :value
-- as the first operand of begins_with/contains, DELETE and REMOVE paths, and
-- the SQLSTATE of arithmetic out of the number range
-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('xr');
SELECT singletable.create_table('xr_pk', sort_key => NULL);
-- é is 2 UTF-8 bytes and 1 UTF-16 unit; 𝄞 (U+1D11E) is 4 bytes and 2 units (a surrogate pair)
SELECT singletable.put_item('xr', '{"pk": "p", "sk": "item", "plain": "abc", "e": "é", "clef": "𝄞",
  "mixed": "aé𝄞", "blank": "", "b": {"$B": "AQID"}, "l": [1, 2], "m": {"k": 1}, "ss": {"$SS": ["x", "y"]}, "s": "apple"}');
SELECT singletable.put_item('xr_pk', '{"pk": "p", "v": 1}');
-- c(cond, vals): does the filter hold on the item? (a query over the one item)
CREATE FUNCTION pg_temp.c(cond text, vals jsonb DEFAULT NULL, names jsonb DEFAULT NULL) RETURNS boolean
LANGUAGE sql AS $$
  SELECT count(*) = 1 FROM singletable.query('xr', 'p', '=', 'item', filter => cond, names => names, vals => vals)
$$;
-- u(update, vals): update_item on xr p/item, returning the new item
CREATE FUNCTION pg_temp.u(upd text, vals jsonb DEFAULT NULL, sk text DEFAULT 'item') RETURNS jsonb
LANGUAGE sql AS $$
  SELECT singletable.update_item('xr', 'p', sk, upd, vals => vals, return_values => 'ALL_NEW')
$$;

-- tests
-- rule 11: size() of an S counts UTF-16 code units (é 1, 𝄞 2), of a B bytes, of L/M/sets elements
SELECT pg_temp.c('size(plain) = :v', '{":v": 3}') AS plain_3, pg_temp.c('size(e) = :v', '{":v": 1}') AS e_acute_1,
       pg_temp.c('size(clef) = :v', '{":v": 2}') AS clef_2, pg_temp.c('size(mixed) = :v', '{":v": 4}') AS mixed_4,
       pg_temp.c('size(blank) = :v', '{":v": 0}') AS blank_0, pg_temp.c('size(b) = :v', '{":v": 3}') AS binary_bytes_3,
       pg_temp.c('size(l) = :v AND size(m) = :w AND size(ss) = :v', '{":v": 2, ":w": 1}') AS elements;
-- ... and of a :value: size("é𝄞") = 3
SELECT pg_temp.c('size(:s) = :v', '{":s": "é𝄞", ":v": 3}') AS value_3;

-- rule 12: a query's filter may not use a key attribute, not even nested; the partition key is named first
SELECT pg_temp.c('pk = :v', '{":v": "p"}');
SELECT pg_temp.c('attribute_exists(#s)', NULL, '{"#s": "sk"}');
SELECT pg_temp.c('size(s) > :n OR begins_with(sk, :v)', '{":n": 1, ":v": "i"}');
SELECT pg_temp.c('sk = :v AND pk = :v', '{":v": "p"}');
SELECT pg_temp.c('pk.x = :v', '{":v": "p"}');
SELECT count(*) FROM singletable.query('xr_pk', 'p', filter => 'pk <> :v', vals => '{":v": "q"}');
-- ... a filter on other attributes is fine, and so is a key attribute in a projection
SELECT item FROM singletable.query('xr', 'p', filter => 's = :v', projection => 'pk, sk, s', vals => '{":v": "apple"}');
-- a path into a key attribute is invalid in every expression: condition, update, projection
SELECT singletable.put_item('xr', '{"pk": "p", "sk": "other"}', condition => 'attribute_not_exists(pk.x)');
SELECT singletable.delete_item('xr', 'p', 'item', condition => 'sk[0] = :v', vals => '{":v": "x"}');
SELECT pg_temp.u('SET a = sk[0]');
SELECT pg_temp.u('SET a = :v', '{":v": 1}') IS NOT NULL AS key_condition_ok, pg_temp.u('REMOVE a') ? 'a' AS removed;
SELECT singletable.update_item('xr', 'p', 'item', 'SET #k.x = :v', names => '{"#k": "sk"}', vals => '{":v": 1}');
SELECT singletable.get_item('xr', 'p', 'item', projection => 'pk.x');
SELECT * FROM singletable.query('xr', 'p', projection => 's, sk[1]');
-- updating a key attribute itself: DynamoDB's message
SELECT pg_temp.u('REMOVE pk');

-- rule 13: begins_with and contains take a :value as first operand
SELECT pg_temp.c('begins_with(:v, s)', '{":v": "apple pie"}') AS value_begins_with_path,
       pg_temp.c('begins_with(:v, s)', '{":v": "pineapple"}') AS value_not_begins_with,
       pg_temp.c('begins_with(:v, :w)', '{":v": "abc", ":w": "ab"}') AS two_values,
       pg_temp.c('contains(:v, s)', '{":v": "pineapple"}') AS value_contains_path,
       pg_temp.c('contains(:v, :w)', '{":v": {"$SS": ["apple", "pear"]}, ":w": "pear"}') AS set_value_contains,
       pg_temp.c('contains(:v, s)', '{":v": ["apple"]}') AS list_value_contains;
-- ... a literal first operand of begins_with must be S or B, like the second
SELECT pg_temp.c('begins_with(:v, s)', '{":v": 1}');
-- ... attribute_exists still needs a path
SELECT pg_temp.c('attribute_exists(:v)', '{":v": 1}');

-- rule 14: DELETE on a path that cannot exist is invalid, as REMOVE is
SELECT pg_temp.u('DELETE s.x :v', '{":v": {"$SS": ["a"]}}');
SELECT pg_temp.u('DELETE s[0] :v', '{":v": {"$SS": ["a"]}}');
SELECT pg_temp.u('DELETE m[0] :v', '{":v": {"$SS": ["a"]}}');
SELECT pg_temp.u('DELETE nothing.x :v', '{":v": {"$SS": ["a"]}}');
-- ... but a missing attribute, map key or list index is a no-op
SELECT pg_temp.u('DELETE nothing :v, m.nothing :v, l[9] :v', '{":v": {"$SS": ["a"]}}') -> 'l' AS unchanged;
-- several DELETEs on elements of one list use the indexes of the list before the update
SELECT singletable.update_item('xr', 'p', 'sets', 'SET ls = :l', vals => '{":l": [{"$SS": ["a"]}, {"$SS": ["b", "c"]}, {"$SS": ["d"]}, {"$SS": ["e"]}]}',
                               return_values => 'NONE');
SELECT pg_temp.u('DELETE ls[0] :a, ls[1] :b, ls[2] :d', '{":a": {"$SS": ["a"]}, ":b": {"$SS": ["b"]}, ":d": {"$SS": ["d"]}}', 'sets') -> 'ls' AS emptied_sets_removed;
-- ... and so do REMOVE and DELETE together, and ADD after a REMOVE
SELECT singletable.update_item('xr', 'p', 'sets', 'SET ls = :l', vals => '{":l": [{"$SS": ["a"]}, {"$SS": ["b"]}, 5, {"$SS": ["d"]}]}',
                               return_values => 'NONE');
SELECT pg_temp.u('REMOVE ls[0] DELETE ls[1] :b ADD ls[2] :one', '{":b": {"$SS": ["b"]}, ":one": 1}', 'sets') -> 'ls' AS old_indexes;
-- REMOVE or DELETE of a nested path on an absent item is invalid too (and creates nothing)
SELECT singletable.update_item('xr', 'p', 'ghost', 'REMOVE l[0]');
SELECT singletable.update_item('xr', 'p', 'ghost', 'REMOVE m.k');
SELECT singletable.update_item('xr', 'p', 'ghost', 'DELETE l[0] :v', vals => '{":v": {"$SS": ["a"]}}');
SELECT singletable.update_item('xr', 'p', 'ghost', 'REMOVE a, b DELETE c :v', vals => '{":v": {"$SS": ["a"]}}') IS NULL AS top_level_no_op,
       singletable.get_item('xr', 'p', 'ghost') IS NULL AS still_absent;

-- arithmetic out of DynamoDB's number range is SQLSTATE 22003 (numeric_value_out_of_range)
SET client_min_messages = notice;
DO $$
DECLARE st text; msg text; det text;
BEGIN
  PERFORM singletable.update_item('xr', 'p', 'item', 'SET big = :a + :a', vals => '{":a": 9e125}');
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
  RAISE NOTICE 'SQLSTATE %: % (%)', st, msg, det;
END $$;
DO $$
DECLARE st text; msg text; det text;
BEGIN
  PERFORM singletable.update_item('xr', 'p', 'item', 'SET big = :a - :b', vals => '{":a": 1e50, ":b": 1}');
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
  RAISE NOTICE 'SQLSTATE %: % (%)', st, msg, det;
END $$;
DO $$
BEGIN
  PERFORM singletable.update_item('xr', 'p', 'item', 'SET big = :a ADD tally :a', vals => '{":a": 9e125}');
  PERFORM singletable.update_item('xr', 'p', 'item', 'ADD tally :a', vals => '{":a": 9e125}');
EXCEPTION WHEN numeric_value_out_of_range THEN
  RAISE NOTICE 'ADD out of range caught as numeric_value_out_of_range: %', SQLERRM;
END $$;
SET client_min_messages = warning;
SELECT singletable.get_item('xr', 'p', 'item') ? 'big' AS nothing_written;

-- cleanup
SELECT singletable.drop_table(t) FROM unnest(ARRAY['xr', 'xr_pk']) t;
