-- Consumed capacity (singletable.last_consumed_capacity()) and 1 MB pages (query_page,
-- scan_page), by DynamoDB's rules (Developer Guide, "Read/write capacity mode"):
-- reads in 4 KB units (1 strongly consistent, 0.5 eventually), Query/Scan summing every
-- evaluated item and rounding once per page; writes in 1 KB units of max(before, after).

-- tests
SET client_min_messages = warning;
SELECT singletable.create_table('cap');
RESET client_min_messages;
-- nothing read yet in this session
SELECT singletable.last_consumed_capacity() IS NULL AS nothing_yet;

-- The seed's tenant: 200 users of 2 KB and 5,000 events of 1 KB under TENANT#acme
-- (item sizes exact: name bytes + value bytes, checked below with item_size)
INSERT INTO cap (pk, sk, item)
SELECT 'TENANT#acme', sk, jsonb_build_object('pk', 'TENANT#acme', 'sk', sk, 'body', repeat('u', 2048 - 28))
  FROM (SELECT 'USER#' || lpad(i::text, 4, '0') AS sk FROM generate_series(1, 200) i) u;
INSERT INTO cap (pk, sk, item)
SELECT 'TENANT#acme', sk, jsonb_build_object('pk', 'TENANT#acme', 'sk', sk, 'body', repeat('e', 1024 - 30))
  FROM (SELECT 'EVENT#' || lpad(i::text, 5, '0') AS sk FROM generate_series(1, 5000) i) e;
SELECT sum(singletable.item_size(item)) FILTER (WHERE sk LIKE 'USER#%') AS user_bytes,
       min(singletable.item_size(item)) FILTER (WHERE sk LIKE 'USER#%') AS user_size,
       min(singletable.item_size(item)) FILTER (WHERE sk LIKE 'EVENT#%') AS event_size
  FROM cap;
ANALYZE cap;

-- listing the users via begins_with evaluates 409,600 bytes (400 KB): 100 RCU strongly
-- consistent, 50 eventually consistent (the seed's "about 100 RCU eventually consistent"
-- is off by 2x)
SELECT count(*) FROM singletable.query('cap', 'TENANT#acme', 'begins_with', 'USER#');
SELECT singletable.last_consumed_capacity();
SELECT count(*) FROM singletable.query('cap', 'TENANT#acme', 'begins_with', 'USER#', consistent_read => false);
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS eventually_consistent;
-- filter and projection do not change what is evaluated
SELECT count(*) FROM singletable.query('cap', 'TENANT#acme', 'begins_with', 'USER#', filter => 'body = :x',
                                       vals => '{":x": "no"}', projection => 'sk');
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS filtered;
-- max_items bounds what is evaluated: 10 users of 2 KB are 20 KB, 5 units
SELECT count(*) FROM singletable.query('cap', 'TENANT#acme', 'begins_with', 'USER#', max_items => 10);
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS ten_users;
-- an empty range costs the minimum
SELECT count(*) FROM singletable.query('cap', 'TENANT#none');
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS empty;
-- the same through query_page: one page (400 KB < 1 MB), no LastEvaluatedKey
SELECT p - 'Items' AS page, jsonb_array_length(p -> 'Items') AS items
  FROM singletable.query_page('cap', 'TENANT#acme', 'begins_with', 'USER#') p;

-- The whole tenant, 5,529,600 bytes, in pages of 1 MB: each page ends with the item at
-- which its evaluated bytes reach 1,048,576 (1,024 events; then 904 events and 60 users)
CREATE TEMP TABLE cap_pages (page int, n int, scanned int, units numeric, lek jsonb, first_sk text, last_sk text);
DO $$
DECLARE
  k jsonb;
  p int := 0;
  r jsonb;
BEGIN
  LOOP
    p := p + 1;
    r := singletable.query_page('cap', 'TENANT#acme', exclusive_start_key => k);
    INSERT INTO cap_pages
    VALUES (p, (r ->> 'Count')::int, (r ->> 'ScannedCount')::int, (r #>> '{ConsumedCapacity,CapacityUnits}')::numeric,
            r -> 'LastEvaluatedKey', r #>> '{Items,0,sk}', r -> 'Items' -> -1 ->> 'sk');
    k := r -> 'LastEvaluatedKey';
    EXIT WHEN k IS NULL OR p > 20;
  END LOOP;
END $$;
SELECT page, n, scanned, units, first_sk, last_sk, lek ->> 'sk' AS lek_sk FROM cap_pages ORDER BY page;
-- each page resumes exactly after the previous one's LastEvaluatedKey: every item once
SELECT sum(p.n) AS items, sum(p.units) AS units,
       bool_and(p.last_sk = p.lek ->> 'sk') FILTER (WHERE p.lek IS NOT NULL) AS page_ends_at_its_key,
       bool_and(nx.first_sk > p.lek ->> 'sk') FILTER (WHERE p.lek IS NOT NULL) AS next_page_starts_after
  FROM cap_pages p LEFT JOIN cap_pages nx ON nx.page = p.page + 1;
-- the same pages through the JSON API, whose Query sizes each item while it writes it in
-- wire form (not by the walk query_page uses): the same ends, counts and units, page by page
CREATE TEMP TABLE ddb_pages (page int, n int, scanned int, units numeric, lek jsonb);
DO $$
DECLARE
  k jsonb;
  p int := 0;
  r jsonb;
BEGIN
  LOOP
    p := p + 1;
    r := singletable.dynamodb('Query', jsonb_build_object('TableName', 'cap', 'KeyConditionExpression', 'pk = :p',
           'ExpressionAttributeValues', '{":p": {"S": "TENANT#acme"}}'::jsonb, 'ReturnConsumedCapacity', 'TOTAL',
           'ConsistentRead', true) || coalesce(jsonb_build_object('ExclusiveStartKey', k), '{}'));
    INSERT INTO ddb_pages
    VALUES (p, (r ->> 'Count')::int, (r ->> 'ScannedCount')::int, (r #>> '{ConsumedCapacity,CapacityUnits}')::numeric,
            r -> 'LastEvaluatedKey');
    k := r -> 'LastEvaluatedKey';
    EXIT WHEN k IS NULL OR p > 20;
  END LOOP;
END $$;
SELECT count(*) AS pages, count(*) FILTER (WHERE d.n = c.n AND d.scanned = c.scanned AND d.units = c.units
                                             AND d.lek IS NOT DISTINCT FROM
                                                 CASE WHEN c.lek IS NOT NULL
                                                      THEN jsonb_build_object('pk', jsonb_build_object('S', c.lek ->> 'pk'),
                                                                              'sk', jsonb_build_object('S', c.lek ->> 'sk')) END)
         AS same_as_query_page
  FROM ddb_pages d FULL JOIN cap_pages c USING (page);
-- the set-returning query streams every page and is charged as reading them all
SELECT count(*) FROM singletable.query('cap', 'TENANT#acme');
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS all_pages, singletable.last_evaluated_key() AS lek;
-- with max_items it reads one page of that many items and says where it stopped
SELECT count(*) FROM singletable.query('cap', 'TENANT#acme', max_items => 3);
SELECT singletable.last_evaluated_key();
-- max_items before 1 MB: query_page stops at max_items, LastEvaluatedKey even at the end
SELECT p ->> 'Count' AS count, p -> 'LastEvaluatedKey' AS lek
  FROM singletable.query_page('cap', 'TENANT#acme', 'begins_with', 'USER#', max_items => 200) p;
-- backwards, the page ends at the item reaching 1 MB from the other end (200 users, then 624 events)
SELECT p ->> 'Count' AS count, p #>> '{LastEvaluatedKey,sk}' AS lek_sk
  FROM singletable.query_page('cap', 'TENANT#acme', forward => false) p;

-- estimate_query agrees with what the query then consumed: without a size index it reads
-- the items of the range; with one it reads the index alone (after VACUUM, no heap fetch)
SELECT * FROM singletable.estimate_query('cap', 'TENANT#acme', 'begins_with', 'USER#');
SELECT singletable.create_size_index('cap');
VACUUM cap;
SELECT * FROM singletable.estimate_query('cap', 'TENANT#acme', 'begins_with', 'USER#');
SELECT * FROM singletable.estimate_query('cap', 'TENANT#acme');
SELECT * FROM singletable.estimate_query('cap', 'TENANT#acme', forward => false, max_items => 700);
SELECT count(*) FROM singletable.query('cap', 'TENANT#acme', forward => false, max_items => 700);
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS query_units;
-- an estimate is not an operation: the last capacity is still the query's
SELECT items FROM singletable.estimate_query('cap', 'TENANT#acme', 'begins_with', 'USER#');
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS still_the_query;
SELECT items, bytes, read_capacity_units FROM singletable.estimate_query('cap', 'TENANT#acme', 'between', 'EVENT#00100', 'EVENT#00199');
SELECT items, bytes, read_capacity_units FROM singletable.estimate_query('cap', 'TENANT#acme', '>', 'USER#0150', consistent_read => false);
SELECT items, bytes FROM singletable.estimate_query('cap', key_condition => 'pk = :p AND sk < :s',
                                                    vals => '{":p": "TENANT#acme", ":s": "EVENT#00011"}');
SELECT items, bytes FROM singletable.estimate_query('cap', 'TENANT#acme', 'begins_with', 'USER#',
                                                    exclusive_start_key => '{"pk": "TENANT#acme", "sk": "USER#0190"}');
-- rows changed since the VACUUM are checked in the heap, and a deleted one is not counted
SELECT singletable.delete_item('cap', 'TENANT#acme', 'USER#0200');
SELECT items, bytes, heap_fetches > 0 AS heap_checked FROM singletable.estimate_query('cap', 'TENANT#acme', 'begins_with', 'USER#');
SELECT singletable.put_item('cap', jsonb_build_object('pk', 'TENANT#acme', 'sk', 'USER#0200', 'body', repeat('u', 2048 - 28)));
-- the plain SQL of the same range cannot use the size index for an index-only scan
EXPLAIN (COSTS OFF) SELECT count(*), sum(singletable._stored_size(item)) FROM cap
 WHERE pk = 'TENANT#acme' AND sk >= 'USER#' AND sk < 'USER$';

-- Scan pages: the same 1 MB rule over the whole table
SELECT p ->> 'Count' AS count, p #>> '{LastEvaluatedKey,sk}' AS lek_sk, p #> '{ConsumedCapacity,CapacityUnits}' AS units
  FROM singletable.scan_page('cap') p;
-- the JSON API's Scan (which sizes each item while writing it in wire form) ends its first
-- page at the same item, with the same units
SELECT (d ->> 'Count') = (p ->> 'Count') AS same_count, d #>> '{LastEvaluatedKey,sk,S}' = p #>> '{LastEvaluatedKey,sk}' AS same_end,
       (d #>> '{ConsumedCapacity,CapacityUnits}')::numeric = (p #>> '{ConsumedCapacity,CapacityUnits}')::numeric AS same_units
  FROM singletable.scan_page('cap') p,
       singletable.dynamodb('Scan', '{"TableName": "cap", "ReturnConsumedCapacity": "TOTAL", "ConsistentRead": true}') d;
SELECT p ->> 'Count' AS count, p #> '{ConsumedCapacity,CapacityUnits}' AS units
  FROM singletable.scan_page('cap', consistent_read => false, max_items => 4) p;
SELECT count(*) FROM singletable.scan('cap');
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS scan_all;

-- GetItem: the item's size rounded up to 4 KB; a missing item costs the minimum
SELECT singletable.get_item('cap', 'TENANT#acme', 'USER#0001') IS NOT NULL AS found;
SELECT singletable.last_consumed_capacity();
SELECT singletable.get_item('cap', 'TENANT#acme', 'USER#0001', projection => 'sk', consistent_read => false);
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS eventually_consistent_get;
SELECT singletable.get_item('cap', 'TENANT#acme', 'USER#none');
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS missing_get;
SELECT singletable.put_item('cap', jsonb_build_object('pk', 'BIG', 'sk', 'A', 'body', repeat('b', 4096 - 12 + 1)));
SELECT singletable.get_item('cap', 'BIG', 'A') IS NOT NULL AS found;
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS one_byte_over_4k;

-- Writes: 1 KB units of the larger of the item before and after
SELECT singletable.put_item('cap', jsonb_build_object('pk', 'W', 'sk', '1', 'body', repeat('w', 1024 - 10)));
SELECT singletable.last_consumed_capacity();
SELECT singletable.put_item('cap', jsonb_build_object('pk', 'W', 'sk', '1', 'body', repeat('w', 3000)));
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS grown_to_3009_bytes;
-- replacing a 3 KB item with a small one still costs the old item's 3 units
SELECT singletable.put_item('cap', '{"pk": "W", "sk": "1"}');
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS shrunk;
SELECT singletable.update_item('cap', 'W', '1', 'SET body = :p', vals => jsonb_build_object(':p', repeat('w', 2500)),
                               return_values => 'NONE');
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS update_after_3_units;
SELECT singletable.update_item('cap', 'W', '1', 'REMOVE body');
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS update_before_3_units;
SELECT singletable.delete_item('cap', 'W', '1');
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS delete_small;
SELECT singletable.delete_item('cap', 'W', '1');
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS delete_missing;
SELECT singletable.delete_item('cap', 'BIG', 'A', return_values => 'ALL_OLD') IS NOT NULL AS deleted;
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS delete_4k;
-- a failed condition still costs: the current item's size, or 1 unit when there is none
SELECT singletable.put_item('cap', jsonb_build_object('pk', 'C', 'sk', '1', 'body', repeat('c', 2000)));
SELECT singletable.put_item('cap', '{"pk": "C", "sk": "1"}', 'attribute_not_exists(pk)');
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS failed_put;
SELECT singletable.delete_item('cap', 'C', '2', 'attribute_exists(pk)');
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS failed_delete_of_nothing;
SELECT singletable.update_item('cap', 'C', '1', 'SET n = :n', 'n > :n', vals => '{":n": 1}');
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS failed_update;
-- a conditional put that succeeds, replacing a 2 KB item with a small one
SELECT singletable.put_item('cap', '{"pk": "C", "sk": "1"}', 'attribute_exists(pk)');
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS conditional_put;

-- Secondary indexes: each index whose entry changes is charged on its projected entry
SELECT singletable.create_gsi('cap', 'byowner', 'owner', 'created', 'S', 'N', projection => 'KEYS_ONLY');
SELECT singletable.create_gsi('cap', 'bystate', 'state', projection => 'ALL');
SELECT singletable.create_lsi('cap', 'bysize', 'size', 'N', projection => 'INCLUDE', non_key_attributes => ARRAY['title']);
-- in no index: the table only
SELECT singletable.put_item('cap', '{"pk": "G", "sk": "1", "x": 1}');
SELECT singletable.last_consumed_capacity();
-- into all three
SELECT singletable.put_item('cap', jsonb_build_object('pk', 'G', 'sk', '1', 'owner', 'ann', 'created', 1,
                            'state', 'open', 'size', 5, 'title', 't', 'body', repeat('b', 1500)));
SELECT singletable.last_consumed_capacity();
-- a change outside every key and projection: the ALL index only (its entry changed)
SELECT singletable.update_item('cap', 'G', '1', 'SET body = :b', vals => '{":b": "short"}');
SELECT singletable.last_consumed_capacity();
-- an index key changes: that index is charged a delete and a put
SELECT singletable.update_item('cap', 'G', '1', 'SET created = :c', vals => '{":c": 2}');
SELECT singletable.last_consumed_capacity() -> 'GlobalSecondaryIndexes' AS gsis;
-- leaving an index
SELECT singletable.update_item('cap', 'G', '1', 'REMOVE #s', names => '{"#s": "state"}');
SELECT singletable.last_consumed_capacity() -> 'GlobalSecondaryIndexes' AS gsis;
-- a query of an index charges the index only, eventually consistent by default on a GSI
SELECT count(*) FROM singletable.query('cap', 'ann', index_name => 'byowner');
SELECT singletable.last_consumed_capacity();
SELECT count(*) FROM singletable.query('cap', 'G', index_name => 'bysize');
SELECT singletable.last_consumed_capacity();
SELECT count(*) FROM singletable.query('cap', 'G', index_name => 'bysize', consistent_read => false);
SELECT singletable.last_consumed_capacity() -> 'LocalSecondaryIndexes' AS lsi_eventually;
SELECT p - 'Items' FROM singletable.scan_page('cap', index_name => 'byowner') p;
-- a delete leaves every index it was in
SELECT singletable.delete_item('cap', 'G', '1');
SELECT singletable.last_consumed_capacity();

-- singletable.track_capacity = off (superusers): nothing is sized or counted, except that
-- a page still stops at 1 MB; an estimate still sizes
SET singletable.track_capacity = off;
SELECT count(*) FROM singletable.query('cap', 'TENANT#acme', 'begins_with', 'USER#');
SELECT singletable.last_consumed_capacity() IS NULL AS no_capacity;
SELECT p ->> 'Count' AS count, p ? 'ConsumedCapacity' AS has_capacity FROM singletable.query_page('cap', 'TENANT#acme') p;
SELECT singletable.put_item('cap', '{"pk": "T", "sk": "1"}');
SELECT singletable.delete_item('cap', 'T', '1');
SELECT items, bytes FROM singletable.estimate_query('cap', 'TENANT#acme', 'begins_with', 'USER#');
RESET singletable.track_capacity;
SELECT singletable.get_item('cap', 'TENANT#acme', 'USER#0001', projection => 'sk');

-- errors
-- a consistent read of a global secondary index (DynamoDB's ValidationException)
SELECT count(*) FROM singletable.query('cap', 'ann', index_name => 'byowner', consistent_read => true);
SELECT singletable.query_page('cap', 'ann', index_name => 'byowner', consistent_read => true);
SELECT count(*) FROM singletable.scan('cap', index_name => 'byowner', consistent_read => true);
-- a failed call leaves the last operation's capacity as it was
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS still_the_get;
-- query_page and scan_page validate their arguments as query and scan do
SELECT singletable.query_page('cap', 'TENANT#acme', max_items => 0);
SELECT singletable.query_page(NULL, 'TENANT#acme');
SELECT singletable.scan_page('cap', segment => 1);
SELECT singletable.query_page('cap', 'TENANT#acme', exclusive_start_key => '{"pk": "TENANT#other", "sk": "A"}');
-- size index: one per table, owner only; estimate_query on a GSI reads the items
SELECT singletable.create_size_index('cap');
SELECT singletable.create_size_index('no_such_table');
SELECT singletable.drop_size_index('cap');
SELECT singletable.drop_size_index('cap');
CREATE ROLE cap_reader;
GRANT SELECT ON cap TO cap_reader;
SET ROLE cap_reader;
SET singletable.track_capacity = off;
SELECT singletable.create_size_index('cap');
SELECT items FROM singletable.estimate_query('cap', 'TENANT#acme', 'begins_with', 'USER#');
RESET ROLE;
SELECT source FROM singletable.estimate_query('cap', 'ann', index_name => 'byowner');
SELECT singletable.estimate_query('cap', 'ann', index_name => 'byowner', consistent_read => true);
SELECT singletable.estimate_query('cap', 'TENANT#acme', filter => 'no_such = :v');
-- _replacing is internal: on its own it returns its second argument and keeps nothing
SELECT singletable._replacing('{"a": 1}', '{"b": 2}');

-- table_stats agrees with the operations: from a reset, 3 gets (one missing), 2 puts into
-- the GSI byowner, 1 failed conditional put, a query of the users and one of byowner
SELECT singletable.reset_stats('cap');
SELECT count(singletable.get_item('cap', 'TENANT#acme', sk)) AS found
  FROM (VALUES ('USER#0001'), ('USER#0002'), ('USER#none')) v(sk);
SELECT singletable.put_item('cap', jsonb_build_object('pk', 'S', 'sk', i::text, 'owner', 'sue', 'created', i))
  FROM generate_series(1, 2) i;
SELECT singletable.put_item('cap', '{"pk": "S", "sk": "1"}', 'attribute_not_exists(pk)');
SELECT count(*) FROM singletable.query('cap', 'TENANT#acme', 'begins_with', 'USER#', filter => 'body = :s',
                                       vals => '{":s": "USER#0007"}');
SELECT count(*) FROM singletable.query('cap', 'sue', index_name => 'byowner');
SELECT index_name, operation, calls, items_read, items_returned, items_written, bytes_read, bytes_written,
       read_capacity_units, write_capacity_units, conditional_check_failures
  FROM singletable.table_stats WHERE table_name = 'cap'::regclass ORDER BY index_name NULLS FIRST, operation;

SET client_min_messages = warning;
SELECT singletable.drop_table('cap');
DROP ROLE cap_reader;
