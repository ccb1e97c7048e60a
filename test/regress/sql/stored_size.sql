-- stored_size: the fast size of a stored item (src/format/size.c, reached through the internal
-- singletable._stored_size) equals singletable.item_size, the validating one, on
-- DynamoDB's own examples, on one item of every type, and on random items of every type
-- written with put_item and read back from their tables as stored.
-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('sz');
SELECT singletable.create_table('sz_b', partition_key_type => 'B', sort_key_type => 'B');
SELECT singletable.create_table('shirts', 'shirt-color', 'shirt-size');
-- runs stmt and returns its SQLSTATE and message (or that it succeeded)
CREATE FUNCTION pg_temp.try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  st text;
  msg text;
BEGIN
  EXECUTE stmt;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
  RETURN format('SQLSTATE %s: %s', st, msg);
END $$;
-- random generators (reproducible after setseed below)
CREATE FUNCTION pg_temp.rnd(n int) RETURNS int LANGUAGE sql AS $$ SELECT floor(random() * n)::int $$;
-- text of up to maxlen characters: ASCII, JSON escapes, 2-, 3- and 4-byte UTF-8, '$'
CREATE FUNCTION pg_temp.rnd_text(maxlen int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  chars text[] := ARRAY['a', 'b', 'z', 'Q', '0', '7', '#', ' ', '-', '"', '\', '/', E'\n', E'\t',
                        'é', 'ß', 'Ω', '中', '€', '😀', '𝄞', '$'];
  r text := '';
BEGIN
  FOR i IN 1 .. pg_temp.rnd(maxlen + 1) LOOP
    r := r || chars[1 + pg_temp.rnd(array_length(chars, 1))];
  END LOOP;
  RETURN r;
END $$;
-- a number of every shape: zero, negatives, 1 to 38 significant digits, trailing zeros,
-- the exponent of its first digit anywhere in DynamoDB's range -130 .. 125, written in
-- exponent notation with superfluous zeros (put_item stores the canonical form)
CREATE FUNCTION pg_temp.rnd_number() RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
  n int := CASE pg_temp.rnd(4) WHEN 0 THEN 38 - pg_temp.rnd(3) ELSE 1 + pg_temp.rnd(8) END;
  digits text := (1 + pg_temp.rnd(9))::text;
  e int := CASE pg_temp.rnd(6) WHEN 0 THEN -130 + pg_temp.rnd(10) WHEN 1 THEN 116 + pg_temp.rnd(10)
                               ELSE -6 + pg_temp.rnd(16) END;
BEGIN
  IF pg_temp.rnd(12) = 0 THEN
    RETURN 0;
  END IF;
  FOR i IN 2 .. n LOOP
    digits := digits || CASE WHEN pg_temp.rnd(3) = 0 THEN '0' ELSE pg_temp.rnd(10)::text END;
  END LOOP;
  RETURN (CASE WHEN pg_temp.rnd(3) = 0 THEN '-' ELSE '' END || left(digits, 1) || '.' || substr(digits, 2)
          || repeat('0', pg_temp.rnd(3)) || 'e' || e)::numeric;
END $$;
-- up to maxlen random bytes
CREATE FUNCTION pg_temp.rnd_bytes(maxlen int) RETURNS bytea LANGUAGE sql AS $$
  SELECT coalesce(decode(string_agg(lpad(to_hex(pg_temp.rnd(256)), 2, '0'), ''), 'hex'), '')
  FROM generate_series(1, pg_temp.rnd(maxlen + 1))
$$;
-- base64 as encode() writes it: a line break every 76 characters (put_item removes them)
CREATE FUNCTION pg_temp.b64(b bytea) RETURNS text LANGUAGE sql AS $$ SELECT encode(b, 'base64') $$;
-- how many members or elements: mostly a few, sometimes more than 32 (jsonb then stores
-- offsets instead of lengths in some entries)
CREATE FUNCTION pg_temp.rnd_count() RETURNS int LANGUAGE sql AS $$
  SELECT CASE WHEN pg_temp.rnd(10) = 0 THEN 33 + pg_temp.rnd(40) ELSE 1 + pg_temp.rnd(5) END
$$;
-- an attribute or map key name (never empty)
CREATE FUNCTION pg_temp.rnd_name() RETURNS text LANGUAGE sql AS $$
  SELECT (ARRAY['a', 'é', '$', 'Ω', '😀', 'k'])[1 + pg_temp.rnd(6)] || pg_temp.rnd_text(6)
$$;
-- a value of any type; containers only at depths below 4
CREATE FUNCTION pg_temp.rnd_value(depth int) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  k int := pg_temp.rnd(CASE WHEN depth < 4 THEN 13 ELSE 9 END);
BEGIN
  CASE k
    WHEN 0 THEN RETURN to_jsonb(pg_temp.rnd_text(12));
    WHEN 1 THEN RETURN to_jsonb(CASE WHEN pg_temp.rnd(8) = 0 THEN repeat(pg_temp.rnd_text(5), 400)
                                     ELSE pg_temp.rnd_text(3) END);
    WHEN 2 THEN RETURN to_jsonb(pg_temp.rnd_number());
    WHEN 3 THEN RETURN to_jsonb(pg_temp.rnd(2) = 0);
    WHEN 4 THEN RETURN 'null';
    WHEN 5 THEN RETURN jsonb_build_object('$B', pg_temp.b64(pg_temp.rnd_bytes(100)));
    WHEN 6 THEN RETURN jsonb_build_object('$SS', (SELECT jsonb_agg(s) FROM (
                  SELECT DISTINCT pg_temp.rnd_text(8) s FROM generate_series(1, pg_temp.rnd_count())) m));
    WHEN 7 THEN RETURN jsonb_build_object('$NS', (SELECT jsonb_agg(x) FROM (
                  SELECT DISTINCT pg_temp.rnd_number() x FROM generate_series(1, pg_temp.rnd_count())) m));
    WHEN 8 THEN RETURN jsonb_build_object('$BS', (SELECT jsonb_agg(pg_temp.b64(b)) FROM (
                  SELECT DISTINCT pg_temp.rnd_bytes(20) b FROM generate_series(1, pg_temp.rnd_count())) m));
    WHEN 9, 10 THEN RETURN coalesce((SELECT jsonb_agg(pg_temp.rnd_value(depth + 1))
                                     FROM generate_series(1, pg_temp.rnd_count() - 1)), '[]');
    WHEN 11 THEN RETURN coalesce((SELECT jsonb_object_agg(pg_temp.rnd_name(), pg_temp.rnd_value(depth + 1))
                                  FROM generate_series(1, pg_temp.rnd_count() - 1)), '{}');
    ELSE
      -- a map whose only key is a tag: written and stored as {"$M": {...}}
      RETURN jsonb_build_object('$M', jsonb_build_object((ARRAY['$B', '$SS', '$NS', '$BS', '$M'])[1 + pg_temp.rnd(5)],
                                                         pg_temp.rnd_value(depth + 1)));
  END CASE;
END $$;
-- an item: its keys and 1 to 12 attributes of any type, or sometimes more than 32
CREATE FUNCTION pg_temp.rnd_item(pk jsonb, sk jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('pk', pk, 'sk', sk)
         || (SELECT jsonb_object_agg(pg_temp.rnd_name(), pg_temp.rnd_value(1))
             FROM generate_series(1, CASE WHEN pg_temp.rnd(10) = 0 THEN 33 + pg_temp.rnd(30) ELSE 1 + pg_temp.rnd(12) END))
$$;
-- v nested depth levels deep in alternating maps and lists
CREATE FUNCTION pg_temp.nest(v jsonb, depth int) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1 .. depth LOOP
    v := CASE WHEN i % 2 = 0 THEN jsonb_build_array(v, i) ELSE jsonb_build_object('d', v, 'i', i) END;
  END LOOP;
  RETURN v;
END $$;
SELECT setseed(0.12);
SELECT count(*) FROM (SELECT singletable.put_item('sz', pg_temp.rnd_item(to_jsonb('P' || i % 37), to_jsonb('S' || i)))
                      FROM generate_series(1, 800) i) w;
SELECT count(*) FROM (SELECT singletable.put_item('sz', jsonb_build_object('pk', 'deep', 'sk', 'D' || i,
                                                  'v', pg_temp.nest(pg_temp.rnd_value(3), 28)))
                      FROM generate_series(1, 20) i) w;
-- B keys: plain base64 strings in the stored item
SELECT count(*) FROM (SELECT singletable.put_item('sz_b', pg_temp.rnd_item(to_jsonb(pg_temp.b64('\x01'::bytea || pg_temp.rnd_bytes(40))),
                                                                         to_jsonb(pg_temp.b64(int4send(i) || pg_temp.rnd_bytes(60)))))
                      FROM generate_series(1, 300) i) w;

-- tests
-- DynamoDB's example: {"shirt-color": "R", "shirt-size": "M"} is 23 bytes, also as stored
SELECT singletable.put_item('shirts', '{"shirt-color": "R", "shirt-size": "M"}');
SELECT item, singletable._stored_size(item) AS stored_23, singletable.item_size(item) AS item_size_23 FROM shirts;
-- DynamoDB's N examples: the size of the value (the attribute "n" adds 1 byte); the same
-- numbers written with exponents and superfluous zeros (w) have the same size
CREATE TEMP TABLE nums (v text, w text);
INSERT INTO nums VALUES ('0', '-0.000'), ('7', '7.00'), ('12', '1.2e1'), ('123', '0.123E3'), ('100', '1e2'),
  ('1200', '1.200e+3'), ('12000', '12E3'), ('0.5', '.50'), ('1.5', '15e-1'), ('-1', '-1.0');
SELECT count(*) FROM nums WHERE singletable.put_item('sz', jsonb_build_object('pk', 'num', 'sk', v, 'n', w::numeric)) IS NULL;
SELECT v AS n, w AS written, item->'n' AS stored, singletable._stored_size(item) AS item_bytes,
       singletable.item_size(item) AS item_size,
       singletable._stored_size(item) - singletable._stored_size(item - 'n') - 1 AS n_size,
       singletable._stored_size(jsonb_build_object('n', w::numeric)) - 1 AS unstored_n_size
FROM nums JOIN sz ON pk = 'num' AND sk = v ORDER BY v::numeric;
-- one value of every type, read back from the table: both sizes agree
CREATE TEMP TABLE vals (a text, v jsonb);
INSERT INTO vals VALUES ('s', '"é€😀"'), ('s_empty', '""'), ('n', '-12345678901234567890123456789012345678'),
  ('n_tiny', '1e-130'), ('n_huge', '9.9e125'), ('t', 'true'), ('z', 'null'), ('b', '{"$B": "AAEC"}'),
  ('b_empty', '{"$B": ""}'), ('b_pad2', '{"$B": "AA=="}'), ('b_pad1', '{"$B": "AAE="}'),
  ('ss', '{"$SS": ["a", "bc", "é", ""]}'), ('ns', '{"$NS": [1, 100, -0.5]}'), ('bs', '{"$BS": ["AA==", "AAE=", ""]}'),
  ('l', '[1, "ab", [], {}]'), ('l_empty', '[]'), ('m', '{"a": "xy", "b": {"c": [true]}}'), ('m_empty', '{}'),
  ('m_tag', '{"$M": {"$B": "not base64"}}'), ('m_tag_m', '{"$M": {"$M": {"$SS": ["x"]}}}'),
  ('m_dollar', '{"$B": 1, "$SS": 2}');
SELECT count(*) FROM vals WHERE singletable.put_item('sz', jsonb_build_object('pk', 'type', 'sk', a, a, v)) IS NULL;
SELECT a, item->a AS stored, singletable._stored_size(item) - 8 - 2 * length(a) AS value_size,
       singletable._stored_size(item) = singletable.item_size(item) AS same
FROM vals JOIN sz ON pk = 'type' AND sk = a ORDER BY a;
-- the random items cover every type (count of items holding one)
SELECT count(*) AS items, sum(singletable._stored_size(item)) AS total_bytes,
       max(singletable._stored_size(item)) AS largest,
       count(*) FILTER (WHERE item::text LIKE '%"$B"%') AS b, count(*) FILTER (WHERE item::text LIKE '%"$SS"%') AS ss,
       count(*) FILTER (WHERE item::text LIKE '%"$NS"%') AS ns, count(*) FILTER (WHERE item::text LIKE '%"$BS"%') AS bs,
       count(*) FILTER (WHERE item::text LIKE '%"$M"%') AS m_tag, count(*) FILTER (WHERE jsonb_path_exists(item, '$.** ? (@.type() == "number" && @ != 0 && @.abs() < 1e-100)')) AS n_tiny,
       count(*) FILTER (WHERE jsonb_path_exists(item, '$.** ? (@.type() == "number" && @.abs() > 1e100)')) AS n_huge,
       count(*) FILTER (WHERE jsonb_path_exists(item, '$.** ? (@.type() == "array" && @.size() > 32)')) AS array_33,
       count(*) FILTER (WHERE (SELECT count(*) FROM jsonb_object_keys(item)) > 32) AS attrs_33
FROM sz WHERE pk NOT IN ('num', 'type');
-- every random item: the same size both ways
SELECT count(*) AS items, count(*) FILTER (WHERE singletable._stored_size(item) <> singletable.item_size(item)) AS mismatches
FROM sz;
-- a few of them exactly
SELECT sk, singletable._stored_size(item) AS stored, singletable.item_size(item) AS item_size
FROM sz WHERE pk = 'P1' ORDER BY sk LIMIT 5;
-- the deep ones
SELECT count(*) AS deep, count(*) FILTER (WHERE singletable._stored_size(item) <> singletable.item_size(item)) AS mismatches,
       min(singletable._stored_size(item)) AS smallest
FROM sz WHERE pk = 'deep';
-- a number of one base-10000 digit (numeric's short format, one digit group: most stored
-- numbers) is sized by a path of its own (number_size in size.c): every such digit 1..9999
-- near 1, and digits with leading and trailing zeros in every position of the group at every
-- exponent of DynamoDB's range, both signs, the same size as item_size gives them
SELECT count(*) AS numbers,
       count(*) FILTER (WHERE singletable._stored_size(jsonb_build_object('n', v)) <>
                              singletable.item_size(jsonb_build_object('n', v))) AS mismatches
FROM (SELECT (s || d || 'e' || x)::numeric AS v
        FROM generate_series(1, 9999) d, generate_series(-4, 4, 4) x, unnest(ARRAY['', '-']) s
      UNION ALL
      SELECT (s || d || 'e' || x)::numeric
        FROM unnest(ARRAY[1, 7, 10, 99, 100, 1234, 5000, 9999]) d, generate_series(-134, 130) x,
             unnest(ARRAY['', '-']) s
       WHERE length(d::text) - 1 + x BETWEEN -130 AND 125) n;
-- out of DynamoDB's range, refused as the general path refuses it
SELECT pg_temp.try($$SELECT singletable._stored_size(jsonb_build_object('n', 1e126))$$);
SELECT pg_temp.try($$SELECT singletable._stored_size(jsonb_build_object('n', -5e-131))$$);
-- B keys count their decoded bytes: item_size counts them so when written {"$B": ...};
-- without b_keys they are strings, as item_size counts them
SELECT count(*) AS items,
       count(*) FILTER (WHERE singletable._stored_size(item, ARRAY['pk', 'sk']) <>
                              singletable.item_size(item || jsonb_build_object('pk', jsonb_build_object('$B', item->'pk'),
                                                                               'sk', jsonb_build_object('$B', item->'sk'))))
         AS b_key_mismatches,
       count(*) FILTER (WHERE singletable._stored_size(item) <> singletable.item_size(item)) AS as_string_mismatches,
       count(*) FILTER (WHERE singletable._stored_size(item, ARRAY['sk', NULL, 'pk']) <>
                              singletable._stored_size(item, ARRAY['pk', 'sk'])) AS order_and_null_mismatches
FROM sz_b;
SELECT singletable.put_item('sz_b', '{"pk": "AAEC", "sk": "AA==", "v": {"$B": "AAECAw=="}}');
SELECT singletable._stored_size(item, ARRAY['pk', 'sk']) AS b_keys_13, singletable._stored_size(item, ARRAY['pk']) AS pk_only_16,
       singletable._stored_size(item) AS as_strings_17
FROM sz_b WHERE pk = '\x000102';
-- NULL in, NULL out; b_keys NULL is no B keys
SELECT singletable._stored_size(NULL) IS NULL AS null_is_null, singletable._stored_size('{"pk": "AAEC"}', NULL) AS no_b_keys_6;
-- not in the stored form where the walk sees it: refused (it does not validate otherwise)
SELECT pg_temp.try($$SELECT singletable._stored_size('[1]')$$);
SELECT pg_temp.try($$SELECT singletable._stored_size('"pk"')$$);
SELECT pg_temp.try($$SELECT singletable._stored_size('{"b": {"$B": 5}}')$$);
SELECT pg_temp.try($$SELECT singletable._stored_size('{"b": {"$B": "AAE"}}')$$);
SELECT pg_temp.try($$SELECT singletable._stored_size('{"s": {"$SS": []}}')$$);
SELECT pg_temp.try($$SELECT singletable._stored_size('{"s": {"$NS": "1"}}')$$);
SELECT pg_temp.try($$SELECT singletable._stored_size('{"s": {"$NS": ["1"]}}')$$);
SELECT pg_temp.try($$SELECT singletable._stored_size('{"s": {"$SS": [1]}}')$$);
SELECT pg_temp.try($$SELECT singletable._stored_size('{"s": {"$BS": [true]}}')$$);
SELECT pg_temp.try($$SELECT singletable._stored_size('{"m": {"$M": [1]}}')$$);
SELECT pg_temp.try($$SELECT singletable._stored_size('{"n": 1e200}')$$);
SELECT pg_temp.try($$SELECT singletable._stored_size('{"n": 123456789012345678901234567890123456789}')$$);
SELECT pg_temp.try($$SELECT singletable._stored_size('{"pk": 1}', ARRAY['pk'])$$);
SELECT pg_temp.try($$SELECT singletable._stored_size('{"pk": "AA=="}', ARRAY['pk', 'sk', 'x'])$$);
-- it is internal: documented as such
SELECT obj_description('singletable._stored_size(jsonb, text[])'::regprocedure, 'pg_proc') LIKE 'Internal, %' AS internal;
-- the wire writer's count (singletable.dynamodb's Query and Scan size each item as they
-- write it in wire form, src/format/attrval.c): the same size as the walk above on every item
SELECT count(*) AS items, count(*) FILTER (WHERE singletable._wire_size(item) <> singletable._stored_size(item)) AS mismatches,
       sum(singletable._wire_size(item)) = sum(singletable._stored_size(item)) AS same_total
FROM sz;
SELECT count(*) AS items,
       count(*) FILTER (WHERE singletable._wire_size(item, ARRAY['pk', 'sk']) <> singletable._stored_size(item, ARRAY['pk', 'sk']))
         AS b_key_mismatches,
       count(*) FILTER (WHERE singletable._wire_size(item, ARRAY['sk']) <> singletable._stored_size(item, ARRAY['sk']))
         AS sk_only_mismatches,
       count(*) FILTER (WHERE singletable._wire_size(item) <> singletable._stored_size(item)) AS as_string_mismatches
FROM sz_b;
SELECT singletable._wire_size(item) AS wire_23 FROM shirts;
SELECT singletable._wire_size(NULL) IS NULL AS null_is_null, singletable._wire_size('{"pk": "AAEC"}', ARRAY['pk']) AS b_key_5;
-- and the same refusals of what is not in the stored form, with the same messages
SELECT v, b, pg_temp.try(format('SELECT singletable._wire_size(%L, %L)', v, b)) AS wire_size,
       pg_temp.try(format('SELECT singletable._wire_size(%L, %L)', v, b)) =
       pg_temp.try(format('SELECT singletable._stored_size(%L, %L)', v, b)) AS same
FROM (VALUES ('[1]', NULL), ('"pk"', NULL), ('{"b": {"$B": 5}}', NULL), ('{"b": {"$B": "AAE"}}', NULL),
             ('{"s": {"$SS": []}}', NULL), ('{"s": {"$NS": "1"}}', NULL), ('{"s": {"$NS": ["1"]}}', NULL),
             ('{"s": {"$SS": [1]}}', NULL), ('{"s": {"$BS": [true]}}', NULL), ('{"s": {"$BS": ["AAE"]}}', NULL),
             ('{"m": {"$M": [1]}}', NULL), ('{"l": [{"m": {"$M": "x"}}]}', NULL), ('{"n": 1e200}', NULL),
             ('{"n": 123456789012345678901234567890123456789}', NULL), ('{"s": {"$NS": [1e-200]}}', NULL),
             ('{"pk": 1}', '{pk}'), ('{"pk": "AAE"}', '{pk}'), ('{"pk": "AA=="}', '{pk,sk,x}')) AS t(v, b);
SELECT obj_description('singletable._wire_size(jsonb, text[])'::regprocedure, 'pg_proc') LIKE 'Internal, %' AS internal;

-- a number's size read off the numeric's base-10000 digits (numtext.c st_numeric_decimal)
-- equals the size of its text: every first-digit exponent of DynamoDB's range, digit counts
-- 1 to 38 with zeros inside and at the end (group borders of every alignment), both signs
SELECT count(*) AS numbers,
       count(*) FILTER (WHERE singletable._stored_size(jsonb_build_object('n', v)) <>
                              singletable.item_size(jsonb_build_object('n', v))) AS mismatches
FROM generate_series(-130, 125) AS e,
     (VALUES ('1'), ('9'), ('12'), ('105'), ('1234'), ('12345'), ('1000001'), ('123456789'),
             ('100000000000000000000000000000000000001'),
             ('12345678901234567890123456789012345678'), ('99999999999999999999999999999999999999'),
             ('10000000000000000000000000000000000000'), ('3000500070009')) AS d(digits),
     (VALUES (1), (-1)) AS s(sign),
     LATERAL (SELECT (s.sign * (('0.' || d.digits)::numeric * 10::numeric ^ (e + 1))) AS v) AS x
WHERE length(rtrim(d.digits, '0')) <= 38;
-- the borders: 38 digits at 10^125 and 10^-130 are numbers, one step beyond is refused
SELECT w, pg_temp.try(format('SELECT singletable._stored_size(jsonb_build_object(''n'', %s::numeric))', w)) AS stored,
       pg_temp.try(format('SELECT singletable.item_size(jsonb_build_object(''n'', %s::numeric))', w)) AS item
FROM (VALUES ('9.9999999999999999999999999999999999999e125'), ('1e126'), ('-1e126'),
             ('1e-130'), ('1e-131'), ('-1e-131'), ('0.000'), ('-0.0'),
             ('1.2345678901234567890123456789012345678'), ('1.23456789012345678901234567890123456789')) AS t(w);
-- cleanup
SELECT singletable.drop_table('sz');
SELECT singletable.drop_table('sz_b');
SELECT singletable.drop_table('shirts');
