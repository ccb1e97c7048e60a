-- singletable.item_size(item): DynamoDB's size of an item in bytes, one rule per case.

-- tests
-- S: UTF-8 bytes of the name plus UTF-8 bytes of the value ("é" is 2 bytes)
SELECT singletable.item_size('{"pk": "USER#42"}') AS s_9, singletable.item_size('{"s": "é"}') AS s_3,
       singletable.item_size('{"e": ""}') AS empty_s_1;
-- N: 1 + ceil(significant digits / 2), +1 when the digit pairs straddle the point, +1 negative; 0 is 1
SELECT singletable.item_size('{"n": 0}') AS zero_2, singletable.item_size('{"n": 123}') AS n_4,
       singletable.item_size('{"n": 1e3}') AS thousand_3, singletable.item_size('{"n": -1.5}') AS neg_5,
       singletable.item_size('{"n": 12345678901234567890123456789012345678}') AS digits38_21;
-- BOOL and NULL: 1
SELECT singletable.item_size('{"t": true, "z": null}') AS bool_null_4;
-- B: decoded bytes
SELECT singletable.item_size('{"b": {"$B": "AAEC"}}') AS b_4;
-- L and M: 3 + per element 1 + value (+ name for M)
SELECT singletable.item_size('{"l": [1, "ab"]}') AS list_10, singletable.item_size('{"m": {"a": "xy"}}') AS map_8,
       singletable.item_size('{"l": []}') AS empty_list_4, singletable.item_size('{"m": {"a": {"b": [true]}}}') AS nested_16;
-- sets: the sum of their members
SELECT singletable.item_size('{"ss": {"$SS": ["a", "bc"]}}') AS ss_5, singletable.item_size('{"ns": {"$NS": [1, 100]}}') AS ns_6,
       singletable.item_size('{"bs": {"$BS": ["AA==", "AAE="]}}') AS bs_5;
-- the size of an item over the 409,600-byte limit is returned (it is the puts that refuse it)
SELECT singletable.item_size(jsonb_build_object('big', repeat('x', 409600))) AS over_409603;
-- it agrees with put_item's limit: 409,600 bytes fit, one more does not
SELECT singletable.create_table('sized');
SELECT singletable.item_size(jsonb_build_object('pk', 'p', 'sk', 's', 'v', repeat('x', 409600 - 7))) AS at_limit;
SELECT singletable.put_item('sized', jsonb_build_object('pk', 'p', 'sk', 's', 'v', repeat('x', 409600 - 7)));
SELECT singletable.put_item('sized', jsonb_build_object('pk', 'p', 'sk', 's', 'v', repeat('x', 409600 - 6)));
SELECT singletable.drop_table('sized');
-- NULL in, NULL out
SELECT singletable.item_size(NULL) IS NULL AS null_is_null;
-- invalid input: not an object, not in the encoding, too many attributes to be an item
SELECT singletable.item_size('[1, 2]');
SELECT singletable.item_size('"pk"');
SELECT singletable.item_size('{"b": {"$B": "!!"}}');
SELECT singletable.item_size('{"ss": {"$SS": []}}');
SELECT singletable.item_size('{"n": 1e200}');
SELECT singletable.item_size((SELECT jsonb_object_agg('a' || i, 1) FROM generate_series(1, 409601) i));
