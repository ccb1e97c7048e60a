-- types: the jsonb encoding of the types JSON lacks (B, SS, NS, BS), the $M
-- escape for maps that look like tags, set rules, sizes of these types
-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('ty');

-- tests
-- every DynamoDB type in one item, written back in stored form: sets sorted,
-- numbers canonical, base64 canonical
SELECT singletable.put_item('ty', '{"pk": "all", "sk": "types",
  "s": "text", "n": 1.50, "b": {"$B": "AQID"}, "bool": true, "null": null,
  "l": [1, "a", {"$B": "/w=="}], "m": {"inner": {"$NS": [3, 1]}},
  "ss": {"$SS": ["pear", "apple"]}, "ns": {"$NS": [10, 2, 1.0e1, 3.5]}, "bs": {"$BS": ["Ag==", "AQ=="]}}');
SELECT singletable.put_item('ty', '{"pk": "all", "sk": "types",
  "s": "text", "n": 1.50, "b": {"$B": "AQID"}, "bool": true, "null": null,
  "l": [1, "a", {"$B": "/w=="}], "m": {"inner": {"$NS": [3, 1]}},
  "ss": {"$SS": ["pear", "apple"]}, "ns": {"$NS": [10, 2, 3.5]}, "bs": {"$BS": ["Ag==", "AQ=="]}}');
SELECT jsonb_pretty(singletable.get_item('ty', 'all', 'types'));

-- a map whose only key is a tag is written {"$M": {...}} and round-trips
SELECT singletable.put_item('ty', '{"pk": "esc", "sk": "1", "looks_binary": {"$M": {"$B": "not base64 at all"}},
  "looks_set": {"$M": {"$SS": 1}}, "two_keys": {"$B": 1, "other": 2}, "nested": {"$M": {"$M": {"x": 1}}}}');
SELECT singletable.get_item('ty', 'esc', '1');
-- the escape survives an update that reads and writes the map
SELECT singletable.update_item('ty', 'esc', '1', 'SET #c = looks_binary', names => '{"#c": "copy"}',
                                return_values => 'UPDATED_NEW');
-- attribute_type sees the real types
SELECT a, t, (SELECT count(*) FROM singletable.query('ty', 'all', '=', 'types',
                filter => format('attribute_type(#a, :t)'), names => jsonb_build_object('#a', a),
                vals => jsonb_build_object(':t', t))) AS matches
  FROM (VALUES ('s', 'S'), ('n', 'N'), ('b', 'B'), ('bool', 'BOOL'), ('null', 'NULL'), ('l', 'L'),
               ('m', 'M'), ('ss', 'SS'), ('ns', 'NS'), ('bs', 'BS'), ('s', 'N'), ('ss', 'S'), ('b', 'S')) v(a, t);

-- item size counts decoded bytes for B and members for sets (no per-member overhead)
-- "d": {"$B": 409593 bytes} + keys (6) + "d" (1) = 409600; line breaks of encode() are accepted
SELECT singletable.put_item('ty', jsonb_build_object('pk', 's', 'sk', 's', 'd',
  jsonb_build_object('$B', encode(convert_to(repeat('x', 409593), 'UTF8'), 'base64')))) IS NULL AS b_at_limit_ok;
SELECT singletable.put_item('ty', jsonb_build_object('pk', 's', 'sk', 's', 'd',
  jsonb_build_object('$B', encode(convert_to(repeat('x', 409594), 'UTF8'), 'base64'))));
-- SS of two members "ab", "cd" = 4 bytes
SELECT singletable.put_item('ty', jsonb_build_object('pk', 's', 'sk', 't', 'ss', '{"$SS": ["ab", "cd"]}'::jsonb,
  'pad', repeat('x', 409600 - 6 - 2 - 4 - 3))) IS NULL AS ss_size_ok;
SELECT singletable.put_item('ty', jsonb_build_object('pk', 's', 'sk', 't', 'ss', '{"$SS": ["ab", "cde"]}'::jsonb,
  'pad', repeat('x', 409600 - 6 - 2 - 4 - 3)));

-- B and NS as key-condition-free values in conditions: equality by value
SELECT singletable.put_item('ty', '{"pk": "all", "sk": "types"}',
  condition => 'b = :b AND ns = :ns AND ss = :ss AND n = :n',
  vals => '{":b": {"$B": "AQID"}, ":ns": {"$NS": [3.50, 2, 10]}, ":ss": {"$SS": ["apple", "pear"]}, ":n": 1.5}', return_values => 'ALL_OLD') IS NOT NULL AS equal_by_value;

-- invalid input: set rules, malformed tagged values; nothing is written
SELECT singletable.put_item('ty', '{"pk": "bad", "sk": "1", "s": {"$SS": []}}');
SELECT singletable.put_item('ty', '{"pk": "bad", "sk": "1", "s": {"$NS": []}}');
SELECT singletable.put_item('ty', '{"pk": "bad", "sk": "1", "s": {"$BS": []}}');
SELECT singletable.put_item('ty', '{"pk": "bad", "sk": "1", "s": {"$SS": ["a", "a"]}}');
SELECT singletable.put_item('ty', '{"pk": "bad", "sk": "1", "s": {"$NS": [1, 1.0]}}');
SELECT singletable.put_item('ty', '{"pk": "bad", "sk": "1", "s": {"$BS": ["AQ==", "AQ=="]}}');
SELECT singletable.put_item('ty', '{"pk": "bad", "sk": "1", "s": {"$SS": ["a", 1]}}');
SELECT singletable.put_item('ty', '{"pk": "bad", "sk": "1", "s": {"$NS": ["1"]}}');
SELECT singletable.put_item('ty', '{"pk": "bad", "sk": "1", "s": {"$SS": "a"}}');
SELECT singletable.put_item('ty', '{"pk": "bad", "sk": "1", "s": {"$B": "***"}}');
SELECT singletable.put_item('ty', '{"pk": "bad", "sk": "1", "s": {"$B": 12}}');
SELECT singletable.put_item('ty', '{"pk": "bad", "sk": "1", "s": {"$M": [1]}}');
SELECT singletable.put_item('ty', '{"pk": "bad", "sk": "1", "s": {"$NS": [1e200]}}');
SELECT singletable.put_item('ty', '{"$M": {"pk": "root", "sk": "1"}}') IS NULL AS root_escape_ok;
SELECT singletable.put_item('ty', '{"$SS": ["pk"]}');
SELECT singletable.put_item('ty', '{"pk": {"$B": "AQ=="}, "sk": "1"}');
SELECT count(*) FROM ty WHERE pk = 'bad';

-- cleanup
SELECT singletable.drop_table('ty');
