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
-- One item of every attribute type, sized by the rules of the Amazon DynamoDB Developer
-- Guide, "DynamoDB item sizes and formats"
-- (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html),
-- each size worked out by those rules in the column name:
--   S     name bytes + UTF-8 bytes of the value               "name": "Ann"         4 + 3 = 7
--   N     name + 1 byte per two significant digits + 1 byte   "age": 42             3 + 1 + 1 = 5
--                                                             "big": 123456         3 + 3 + 1 = 7
--   B     name + raw bytes (not the base64 text)              "img": 4 bytes        3 + 4 = 7
--   BOOL  name + 1 byte                                       "ok": true            2 + 1 = 3
--   NULL  name + 1 byte                                       "no": null            2 + 1 = 3
--   L     name + 3 + the elements, each 1 byte + its size     "tags": ["a", "bc"]   4 + 3 + (1 + 1) + (1 + 2) = 12
--   M     name + 3 + the elements, each 1 byte + its name
--         bytes + its size                                    "addr": {"zip": "12345"}  4 + 3 + (1 + 3 + 5) = 16
-- and the guide's worked example, {"shirt-color": "R", "shirt-size": "M"} = 23 bytes.
-- Sets (the guide gives no rule): the sum of the members' sizes, as DynamoDB reports it
-- (DynamoDB Developer Guide, "Item sizes and formats"), "ss": {"a", "bc"}   2 + 3 = 5.
SELECT singletable.item_size('{"name": "Ann"}') AS s_7,
       singletable.item_size('{"age": 42}') AS n_5,
       singletable.item_size('{"big": 123456}') AS n_7,
       singletable.item_size('{"img": {"$B": "AAECAw=="}}') AS b_7,
       singletable.item_size('{"ok": true}') AS bool_3,
       singletable.item_size('{"no": null}') AS null_3,
       singletable.item_size('{"tags": ["a", "bc"]}') AS l_12,
       singletable.item_size('{"addr": {"zip": "12345"}}') AS m_16,
       singletable.item_size('{"ss": {"$SS": ["a", "bc"]}}') AS ss_5,
       singletable.item_size('{"shirt-color": "R", "shirt-size": "M"}') AS guide_example_23;
-- all of them in one item: the sum, 7 + 5 + 7 + 7 + 3 + 3 + 12 + 16 + 5 = 65
SELECT singletable.item_size('{"name": "Ann", "age": 42, "big": 123456, "img": {"$B": "AAECAw=="}, "ok": true,
                               "no": null, "tags": ["a", "bc"], "addr": {"zip": "12345"}, "ss": {"$SS": ["a", "bc"]}}') AS every_type_65;
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
