-- wide_items: items with many attributes (linear-time conversion), items
-- refused before conversion because they cannot fit in 409,600 bytes, and the
-- SQLSTATEs of values that do not parse (base64: 22P02, numbers: 22003)
-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('wide');
SELECT singletable.create_table('wide_b', partition_key_type => 'B', sort_key_type => 'B');
-- runs stmt and returns its SQLSTATE, message and DETAIL (or that it succeeded)
CREATE FUNCTION wide_try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  st text;
  msg text;
  det text;
BEGIN
  EXECUTE stmt;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
  RETURN format('SQLSTATE %s: %s', st, msg) || coalesce(' -- DETAIL: ' || nullif(det, ''), '');
END $$;
-- items of n attributes a1..an whose values are numbers written 1.0, 2.0, ...:
-- not in stored form, so put_item converts them both ways
CREATE FUNCTION wide_item(sk text, n int) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('pk', 'W', 'sk', sk)
         || jsonb_object_agg('a' || i, i::numeric(10, 1))
  FROM generate_series(1, n) i
$$;
-- the same in stored form (canonical numbers)
CREATE FUNCTION wide_stored(sk text, n int) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('pk', 'W', 'sk', sk) || jsonb_object_agg('a' || i, i)
  FROM generate_series(1, n) i
$$;
-- 1,000,001 top-level attributes, and a nested map of 1,000,000 keys: built
-- here so that building them is not part of the statements under test
CREATE TEMP TABLE wide_huge AS
  SELECT jsonb_build_object('pk', 'W', 'sk', 'huge') || jsonb_object_agg('a' || i, '') AS item
  FROM generate_series(1, 999999) i;
CREATE TEMP TABLE wide_nested AS
  SELECT jsonb_build_object('pk', 'W', 'sk', 'nested', 'm', jsonb_object_agg('k' || i, '')) AS item
  FROM generate_series(1, 1000000) i;
-- one attribute of 27 MB: more jsonb than any valid item takes
CREATE TEMP TABLE wide_fat AS
  SELECT jsonb_build_object('pk', 'W', 'sk', 'fat', 's', repeat('x', 27000000)) AS item;

-- tests
-- 4,000 and 40,000 attributes: put, read back in stored form
SELECT singletable.put_item('wide', wide_item('4k', 4000)) IS NULL AS put_4k;
SELECT singletable.get_item('wide', 'W', '4k') = wide_stored('4k', 4000) AS same_4k;
SELECT singletable.put_item('wide', wide_item('40k', 40000)) IS NULL AS put_40k;
SELECT singletable.get_item('wide', 'W', '40k') = wide_stored('40k', 40000) AS same_40k;
-- already in stored form: stored as given
SELECT singletable.put_item('wide', wide_stored('40k', 40000), return_values => 'ALL_OLD')
       = wide_stored('40k', 40000) AS old_40k;
-- a wide item read whole by an update and written back
SELECT singletable.update_item('wide', 'W', '40k', 'SET a40001 = :v', vals => '{":v": 1}',
                               return_values => 'UPDATED_NEW');
SELECT (SELECT count(*) FROM jsonb_object_keys(singletable.get_item('wide', 'W', '40k'))) AS attrs_40k;
-- conditions comparing wide maps (sorted, not searched key by key)
SELECT singletable.put_item('wide', jsonb_build_object('pk', 'W', 'sk', 'm', 'm', wide_stored('m', 20000)))
       IS NULL AS put_map;
SELECT singletable.delete_item('wide', 'W', 'm', condition => 'm = :m',
                               vals => jsonb_build_object(':m', wide_stored('m', 20000)),
                               return_values => 'ALL_OLD') IS NOT NULL AS deleted_on_equal_map;

-- invalid input: more top-level attributes than fit in 409,600 bytes (each costs at least 1 byte)
SELECT wide_try($$SELECT singletable.put_item('wide', item) FROM wide_huge$$);
-- invalid input: a nested map of 1,000,000 keys, refused before its keys are converted
SET statement_timeout = '1s';
SELECT wide_try($$SELECT singletable.put_item('wide', item) FROM wide_nested$$);
RESET statement_timeout;
-- invalid input: more jsonb than a valid item can take, refused before conversion
SELECT wide_try($$SELECT singletable.put_item('wide', item) FROM wide_fat$$);
-- nothing of these was written
SELECT count(*) AS refused_written FROM wide WHERE sk IN ('huge', 'nested', 'fat');

-- invalid input: base64 that does not decode is 22P02, in B values, BS members and B keys
SELECT wide_try($$SELECT singletable.put_item('wide', '{"pk": "W", "sk": "b", "b": {"$B": "not base64!"}}')$$);
SELECT wide_try($$SELECT singletable.put_item('wide', '{"pk": "W", "sk": "b", "bs": {"$BS": ["AQ==", "A"]}}')$$);
SELECT wide_try($$SELECT singletable.put_item('wide_b', '{"pk": "AQI=", "sk": "not base64!"}')$$);
SELECT wide_try($$SELECT singletable.get_item('wide_b', 'AQI=', '*')$$);
-- line breaks (as encode() writes them) are skipped, but not more of them than base64 characters
SELECT singletable.put_item('wide', '{"pk": "W", "sk": "b", "b": {"$B": "AQID\nBAUG"}}') IS NULL AS put_b;
SELECT singletable.get_item('wide', 'W', 'b');
SELECT wide_try($$SELECT singletable.put_item('wide', '{"pk": "W", "sk": "b", "b": {"$B": "AQ==\n\n\n\n\n"}}')$$);
SELECT wide_try($$SELECT singletable.put_item('wide', '{"pk": "W", "sk": "b", "b": {"$B": "\n\n"}}')$$);
-- invalid input: numbers of more than 38 digits or out of range are 22003, syntax 22P02
SELECT wide_try($$SELECT singletable.put_item('wide', '{"pk": "W", "sk": "n", "n": 123456789012345678901234567890123456789}')$$);
SELECT wide_try($$SELECT singletable.put_item('wide', '{"pk": "W", "sk": "n", "n": 1e126}')$$);
SELECT wide_try($$SELECT singletable.put_item('wide', '{"pk": "W", "sk": "n", "n": {"$NS": [1, 1e-131]}}')$$);
SELECT wide_try($$SELECT singletable.update_item('wide', 'W', 'n', 'SET n = :v', vals => '{":v": 1e126}')$$);
