-- items: put_item, get_item, delete_item; key types; numbers; DynamoDB's size rules
-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('items_s');
SELECT singletable.create_table('items_n', partition_key => 'pk', sort_key => 'sk',
                                partition_key_type => 'N', sort_key_type => 'N');
SELECT singletable.create_table('items_b', partition_key_type => 'B', sort_key_type => 'B');
SELECT singletable.create_table('items_pk', sort_key => NULL);

-- tests
-- put returns NULL by default (return_values => 'NONE', as in DynamoDB), get reads it back
SELECT singletable.put_item('items_s', '{"pk": "USER#1", "sk": "PROFILE", "name": "Ada", "tags": ["a", "b"], "active": true, "nick": null, "addr": {"city": "Tokyo"}}');
SELECT singletable.get_item('items_s', 'USER#1', 'PROFILE');
-- put replaces the whole item: attributes not in the new item are gone
SELECT singletable.put_item('items_s', '{"pk": "USER#1", "sk": "PROFILE", "name": "Ada L."}', return_values => 'ALL_OLD');
SELECT singletable.get_item('items_s', 'USER#1', 'PROFILE');
-- return_values => 'ALL_OLD' on a new key returns NULL; 'NONE' on an existing one too
SELECT singletable.put_item('items_s', '{"pk": "USER#1", "sk": "RV"}', return_values => 'ALL_OLD') IS NULL AS new_key_no_old;
SELECT singletable.put_item('items_s', '{"pk": "USER#1", "sk": "RV", "v": 1}', return_values => 'NONE') IS NULL AS none_returns_null;
SELECT singletable.delete_item('items_s', 'USER#1', 'RV', return_values => 'NONE') IS NULL AS none_returns_null;
SELECT singletable.get_item('items_s', 'USER#1', 'RV') IS NULL AS deleted;
-- absent items
SELECT singletable.get_item('items_s', 'USER#1', 'NOPE') IS NULL AS absent;
SELECT singletable.get_item('items_s', 'USER#2', 'PROFILE') IS NULL AS absent;
-- delete returns the deleted item, then NULL
SELECT singletable.delete_item('items_s', 'USER#1', 'PROFILE', return_values => 'ALL_OLD');
SELECT singletable.delete_item('items_s', 'USER#1', 'PROFILE', return_values => 'ALL_OLD') IS NULL AS already_gone;
SELECT count(*) FROM items_s;

-- keys are compared by bytes: case, accents and emoji are distinct keys
SELECT singletable.put_item('items_s', jsonb_build_object('pk', k, 'sk', 'x'))
  FROM unnest(ARRAY['a', 'A', 'é', 'e', '😀', 'Ω']) k;
SELECT pk, convert_to(pk, 'UTF8') AS bytes FROM items_s ORDER BY pk;

-- N keys: canonical form, 1000 and 1e3 and 1000.0 are the same key
SELECT singletable.put_item('items_n', '{"pk": 1e3, "sk": 1.10, "v": "first"}');
SELECT singletable.put_item('items_n', '{"pk": 1000.0, "sk": 1.1, "v": "second"}', return_values => 'ALL_OLD');
SELECT singletable.get_item('items_n', '1000', '1.1');
SELECT singletable.get_item('items_n', '+1E+3', '11e-1');
SELECT singletable.get_item('items_n', '0001000.000', '1.100');
SELECT pk, sk FROM items_n;
-- N keys sort numerically, negative numbers included
SELECT singletable.put_item('items_n', jsonb_build_object('pk', 1, 'sk', v::numeric))
  FROM unnest(ARRAY['-10', '-1.5', '0', '2', '10', '1e2', '0.001', '99999999999999999999999999999999999999']) v;
SELECT sk FROM items_n WHERE pk = 1 ORDER BY sk;
-- canonical forms of numbers given as text
SELECT singletable.put_item('items_n', jsonb_build_object('pk', 2, 'sk', 1)) ;
SELECT k, singletable.get_item('items_n', '2', k) ->> 'sk' AS found
  FROM unnest(ARRAY['1', '1.0', '01', '+1', '1e0', '10E-1', '.1e1', '1.']) k;

-- numbers in non-key attributes come back in canonical form too
SELECT singletable.put_item('items_s', '{"pk": "n", "sk": "n", "a": 1.10, "b": 1e3, "c": [0.50, {"d": -0.0}], "e": 1E-130}');
SELECT singletable.get_item('items_s', 'n', 'n');

-- B keys: base64 in items and arguments, ordered by unsigned bytes
SELECT singletable.put_item('items_b', jsonb_build_object('pk', 'AQI=', 'sk', v))
  FROM unnest(ARRAY['AA==', 'fw==', 'gA==', '/w==', '//8=', 'AAA=']) v;
SELECT encode(sk, 'hex') AS sk_hex, item->>'sk' AS sk_base64 FROM items_b ORDER BY sk;
SELECT singletable.get_item('items_b', 'AQI=', '/w==');
SELECT singletable.delete_item('items_b', 'AQI=', 'AAA=', return_values => 'ALL_OLD');

-- partition-key-only tables take no sort key
SELECT singletable.put_item('items_pk', '{"pk": "only", "v": 1}');
SELECT singletable.put_item('items_pk', '{"pk": "only", "v": 2}', return_values => 'ALL_OLD');
SELECT singletable.get_item('items_pk', 'only');
SELECT singletable.delete_item('items_pk', 'only', return_values => 'ALL_OLD');

-- the largest keys DynamoDB allows, incompressible (random hex), alone and together
CREATE FUNCTION pg_temp.rnd(n int) RETURNS text LANGUAGE sql AS
  $$ SELECT left(string_agg(md5(random()::text || i), ''), n) FROM generate_series(1, n / 32 + 1) i $$;
SELECT singletable.put_item('items_pk', jsonb_build_object('pk', pg_temp.rnd(2048))) IS NULL AS pk_2048_ok;
SELECT singletable.put_item('items_s', jsonb_build_object('pk', pg_temp.rnd(1656), 'sk', pg_temp.rnd(1024))) IS NULL AS pk_1656_sk_1024_ok;
SELECT singletable.put_item('items_s', jsonb_build_object('pk', pg_temp.rnd(2048), 'sk', pg_temp.rnd(632))) IS NULL AS pk_2048_sk_632_ok;
SELECT singletable.put_item('items_s', jsonb_build_object('pk', pg_temp.rnd(1701), 'sk', pg_temp.rnd(979))) IS NULL AS combined_2680_ok;
-- one byte more than the combined limit: our error, never "index row size ... exceeds"
SELECT singletable.put_item('items_s', jsonb_build_object('pk', pg_temp.rnd(2048), 'sk', pg_temp.rnd(633)));
SELECT singletable.put_item('items_s', jsonb_build_object('pk', pg_temp.rnd(2048), 'sk', pg_temp.rnd(1024)));
-- multi-byte characters count in UTF-8 bytes: 683 x 3 bytes = 2049
SELECT singletable.put_item('items_pk', jsonb_build_object('pk', repeat('あ', 683)));
SELECT singletable.put_item('items_pk', jsonb_build_object('pk', repeat('あ', 682) || 'xx')) IS NULL AS utf8_2048_ok;
SELECT singletable.get_item('items_s', pg_temp.rnd(2048), pg_temp.rnd(1024));

-- item size: 400 KB = 409600 bytes by DynamoDB's rules
-- {"pk": "s", "sk": "s", "d": <string>} = (2+1) + (2+1) + (1 + len)
SELECT singletable.put_item('items_s', jsonb_build_object('pk', 's', 'sk', 's', 'd', repeat('x', 409600 - 7))) IS NULL AS exactly_400kb_ok;
SELECT singletable.put_item('items_s', jsonb_build_object('pk', 's', 'sk', 's', 'd', repeat('x', 409600 - 6)));
-- lists and maps: 3 bytes each plus 1 per element / name + 1 per entry
-- d = [ "x"*N ] -> 1 + 3 + 1 + N ; total 6 + 1 + 3 + 1 + N
SELECT singletable.put_item('items_s', jsonb_build_object('pk', 's', 'sk', 's', 'd', jsonb_build_array(repeat('x', 409600 - 11))), return_values => 'ALL_OLD') IS NOT NULL AS list_at_limit_ok;
SELECT singletable.put_item('items_s', jsonb_build_object('pk', 's', 'sk', 's', 'd', jsonb_build_array(repeat('x', 409600 - 10))));
-- d = {"k": "x"*N} -> 1 + 3 + 1 + 1 + N ; total 6 + 1 + 3 + 2 + N
SELECT singletable.put_item('items_s', jsonb_build_object('pk', 's', 'sk', 's', 'd', jsonb_build_object('k', repeat('x', 409600 - 12))), return_values => 'ALL_OLD') IS NOT NULL AS map_at_limit_ok;
SELECT singletable.put_item('items_s', jsonb_build_object('pk', 's', 'sk', 's', 'd', jsonb_build_object('k', repeat('x', 409600 - 11))));
-- a number's size: 1 + ceil(digits / 2) (+1 when pairs straddle the point, +1 when negative)
-- 12345 (3 bytes) + "d" (1) + keys (6) + s = 409600
SELECT singletable.put_item('items_s', jsonb_build_object('pk', 's', 'sk', 's', 'n', 12345, 'd', repeat('x', 409600 - 6 - 4 - 2)), return_values => 'ALL_OLD') IS NOT NULL AS number_size_ok;
SELECT singletable.put_item('items_s', jsonb_build_object('pk', 's', 'sk', 's', 'n', -12345, 'd', repeat('x', 409600 - 6 - 4 - 2)));

-- nesting: 31 maps around a value are accepted, 32 are not
SELECT singletable.put_item('items_s', jsonb_build_object('pk', 'deep', 'sk', '31', 'a',
  (SELECT repeat('{"a":', 31) || '1' || repeat('}', 31))::jsonb)) IS NULL AS depth_31_ok;
SELECT singletable.put_item('items_s', jsonb_build_object('pk', 'deep', 'sk', '32', 'a',
  (SELECT repeat('[', 32) || '1' || repeat(']', 32))::jsonb));

-- invalid input: every error names the table, attribute or limit, and writes nothing
-- return_values of put and delete: NONE or ALL_OLD only (DynamoDB's rule), never NULL
SELECT singletable.put_item('items_s', '{"pk": "rv", "sk": "rv"}', return_values => 'ALL_NEW');
SELECT singletable.put_item('items_s', '{"pk": "rv", "sk": "rv"}', return_values => NULL);
SELECT singletable.delete_item('items_s', 'rv', 'rv', return_values => 'UPDATED_OLD');
SELECT singletable.delete_item('items_s', 'rv', 'rv', return_values => NULL);
SELECT singletable.get_item('items_s', 'rv', 'rv') IS NULL AS nothing_written;
SELECT count(*) AS before FROM items_s \gset
SELECT singletable.put_item('items_s', NULL);
SELECT singletable.put_item(NULL, '{"pk": "a", "sk": "b"}');
SELECT singletable.put_item('items_s', '[1, 2]');
SELECT singletable.put_item('items_s', '"pk"');
SELECT singletable.put_item('items_s', '{"sk": "b"}');
SELECT singletable.put_item('items_s', '{"pk": "a"}');
SELECT singletable.put_item('items_s', '{"pk": "", "sk": "b"}');
SELECT singletable.put_item('items_s', '{"pk": "a", "sk": ""}');
SELECT singletable.put_item('items_s', '{"pk": 1, "sk": "b"}');
SELECT singletable.put_item('items_s', '{"pk": "a", "sk": true}');
SELECT singletable.put_item('items_s', '{"pk": "a", "sk": null}');
SELECT singletable.put_item('items_s', '{"pk": ["a"], "sk": "b"}');
SELECT singletable.put_item('items_s', '{"pk": {"S": "a"}, "sk": "b"}');
SELECT singletable.put_item('items_s', '{"pk": "a", "sk": "b", "": 1}');
SELECT singletable.put_item('items_n', '{"pk": "1", "sk": 1}');
SELECT singletable.put_item('items_n', '{"pk": 1, "sk": 123456789012345678901234567890123456789}');
SELECT singletable.put_item('items_n', '{"pk": 1, "sk": 1e126}');
SELECT singletable.put_item('items_n', '{"pk": 1, "sk": 1e-131}');
SELECT singletable.put_item('items_s', '{"pk": "a", "sk": "b", "n": 1.23456789012345678901234567890123456789}');
SELECT singletable.put_item('items_b', '{"pk": "AQI=", "sk": "not base64!"}');
SELECT singletable.put_item('items_b', '{"pk": "AQI", "sk": "AA=="}');
SELECT singletable.put_item('items_b', '{"pk": "", "sk": "AA=="}');
SELECT singletable.put_item('items_b', '{"pk": 1, "sk": "AA=="}');
SELECT singletable.put_item('no_such_table', '{"pk": "a", "sk": "b"}');
SELECT singletable.put_item('pg_class', '{"pk": "a", "sk": "b"}');
SELECT count(*) = :before AS nothing_written FROM items_s;

SELECT singletable.get_item('items_s', NULL, 'b');
SELECT singletable.get_item('items_s', 'a');
SELECT singletable.get_item('items_s', 'a', NULL);
SELECT singletable.get_item('items_s', '', 'b');
SELECT singletable.get_item('items_s', 'a', '');
SELECT singletable.get_item('items_pk', 'a', 'b');
SELECT singletable.get_item('items_n', 'abc', '1');
SELECT singletable.get_item('items_n', '1', 'NaN');
SELECT singletable.get_item('items_n', '1', 'Infinity');
SELECT singletable.get_item('items_n', '1', ' 1');
SELECT singletable.get_item('items_n', '1', '1e');
SELECT singletable.get_item('items_n', '1', '1.2.3');
SELECT singletable.get_item('items_n', '1', '');
SELECT singletable.get_item('items_b', '!!!!', 'AA==');
SELECT singletable.get_item('items_b', 'AQI=', '');
SELECT singletable.get_item('items_s', repeat('x', 2049), 'b');
SELECT singletable.get_item('items_s', 'a', repeat('x', 1025));
SELECT singletable.get_item(NULL, 'a', 'b');
SELECT singletable.get_item('no_such_table', 'a', 'b');

SELECT singletable.delete_item('items_s', 'a');
SELECT singletable.delete_item('items_s', NULL, 'b');
SELECT singletable.delete_item('items_pk', 'a', 'b');
SELECT singletable.delete_item('items_n', 'x', '1');
SELECT singletable.delete_item('no_such_table', 'a', 'b');
SELECT count(*) = :before AS nothing_deleted FROM items_s;

-- cleanup
SELECT singletable.drop_table(t) FROM unnest(ARRAY['items_s', 'items_n', 'items_b', 'items_pk']) t;
