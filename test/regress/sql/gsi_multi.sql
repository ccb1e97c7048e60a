-- gsi_multi: multi-attribute GSI keys (up to 4 partition and 4 sort attributes) and
-- key_condition, DynamoDB's KeyConditionExpression, on tables and indexes
-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('gm_bill');
-- invoices of 4 tenants in 2 regions: status, due date and amount
SELECT count(*) FROM (
  SELECT singletable.put_item('gm_bill',
           jsonb_build_object('pk', 'TENANT#' || t, 'sk', 'INVOICE#' || lpad(i::text, 3, '0'),
                              'tenant', 'T' || t, 'region', CASE WHEN t % 2 = 0 THEN 'eu' ELSE 'us' END,
                              'state', CASE WHEN i % 3 = 0 THEN 'paid' ELSE 'open' END,
                              'due', format('2026-%s-%sT00:00:00Z', lpad((1 + i % 12)::text, 2, '0'), lpad((1 + (t * i) % 28)::text, 2, '0')),
                              'amount', (t * 31 + i * 17) % 90))
    FROM generate_series(1, 4) t, generate_series(1, 12) i) s;
-- items that lack one of the key attributes are in no index
SELECT singletable.put_item('gm_bill', '{"pk": "TENANT#1", "sk": "PROFILE", "tenant": "T1", "region": "us"}');
ANALYZE gm_bill;

-- tests
-- partition (tenant, region), sort (state, due, amount): comma-separated, one type each
SELECT singletable.create_gsi('gm_bill', 'by-tenant-region', 'tenant, region', 'state,due,amount', sort_key_type => 'S,S,N');
\d "gm_bill_by-tenant-region_gsi"
SELECT partition_key, partition_key_type, sort_key, sort_key_type FROM singletable.indexes WHERE index_name = 'by-tenant-region';
SELECT jsonb_pretty(singletable.describe_table('gm_bill') -> 'GlobalSecondaryIndexes' -> 0 -> 'KeySchema');
SELECT singletable.describe_table('gm_bill') -> 'AttributeDefinitions';

-- equality on every partition attribute; no sort condition: the whole partition in index order
SELECT sk, item->>'state' AS state, item->>'due' AS due, item->'amount' AS amount
  FROM singletable.query('gm_bill', key_condition => 'tenant = :t AND #r = :r', names => '{"#r": "region"}',
                         vals => '{":t": "T2", ":r": "eu"}', index_name => 'by-tenant-region');
-- equality on the first sort attribute, a range on the second
SELECT sk, item->>'due' AS due
  FROM singletable.query('gm_bill', key_condition => 'tenant = :t AND #r = :r AND #s = :s AND due BETWEEN :a AND :b',
                         names => '{"#r": "region", "#s": "state"}',
                         vals => '{":t": "T1", ":r": "us", ":s": "open", ":a": "2026-03", ":b": "2026-08"}', index_name => 'by-tenant-region');
-- begins_with on the second, backwards
SELECT sk, item->>'due' AS due
  FROM singletable.query('gm_bill', key_condition => 'begins_with(due, :m) AND #s = :s AND #r = :r AND tenant = :t',
                         names => '{"#r": "region", "#s": "state"}',
                         vals => '{":t": "T3", ":r": "us", ":s": "open", ":m": "2026-0"}', forward => false, index_name => 'by-tenant-region');
-- all three sort attributes: = = and a range on the number; the reversed form ":v < x"
SELECT sk, item->'amount' AS amount
  FROM singletable.query('gm_bill', key_condition => 'tenant = :t AND #r = :r AND #s = :s AND due = :d AND :lo < amount',
                         names => '{"#r": "region", "#s": "state"}',
                         vals => '{":t": "T4", ":r": "eu", ":s": "paid", ":d": "2026-04-13T00:00:00Z", ":lo": 0}', index_name => 'by-tenant-region');
-- the results agree with plain SQL over the table, for every tenant and state
SELECT bool_and(a = b) AS all_agree FROM (
  SELECT t, s,
         (SELECT array_agg(sk ORDER BY o) FROM singletable.query('gm_bill', key_condition => 'tenant = :t AND #r = :r AND #s = :s',
                   names => '{"#r": "region", "#s": "state"}',
                   vals => jsonb_build_object(':t', 'T' || t, ':r', CASE WHEN t % 2 = 0 THEN 'eu' ELSE 'us' END, ':s', s),
                   index_name => 'by-tenant-region') WITH ORDINALITY q(pk, sk, item, o)) AS a,
         (SELECT array_agg(sk ORDER BY item->>'due' COLLATE "C", (item->>'amount')::numeric, pk COLLATE "C", sk COLLATE "C")
            FROM gm_bill WHERE item->>'tenant' = 'T' || t AND item->>'state' = s) AS b
    FROM generate_series(1, 4) t, unnest(ARRAY['open', 'paid']) s) x;
-- pagination: the start key holds every index key attribute and the table's keys
CREATE TEMP TABLE gm_pages (page int, sk text);
DO $$
DECLARE
  start jsonb;
  n int;
  page int := 0;
  r record;
BEGIN
  LOOP
    n := 0;
    page := page + 1;
    FOR r IN SELECT * FROM singletable.query('gm_bill', key_condition => 'tenant = :t AND #r = :r AND #s = :s AND due > :d',
                            names => '{"#r": "region", "#s": "state"}', vals => '{":t": "T2", ":r": "eu", ":s": "open", ":d": "2026-02"}',
                            max_items => 2, exclusive_start_key => start, index_name => 'by-tenant-region') LOOP
      n := n + 1;
      INSERT INTO gm_pages VALUES (page, r.sk);
      start := jsonb_build_object('pk', r.pk, 'sk', r.sk, 'tenant', r.item->'tenant', 'region', r.item->'region',
                                  'state', r.item->'state', 'due', r.item->'due', 'amount', r.item->'amount');
    END LOOP;
    EXIT WHEN n < 2;
  END LOOP;
END $$;
SELECT (SELECT array_agg(sk ORDER BY page, ctid) FROM gm_pages)
     = (SELECT array_agg(sk ORDER BY o) FROM singletable.query('gm_bill', key_condition => 'tenant = :t AND #r = :r AND #s = :s AND due > :d',
                            names => '{"#r": "region", "#s": "state"}', vals => '{":t": "T2", ":r": "eu", ":s": "open", ":d": "2026-02"}',
                            index_name => 'by-tenant-region') WITH ORDINALITY q(pk, sk, item, o)) AS pages_in_order,
       (SELECT count(*) FROM gm_pages) AS items, (SELECT max(page) FROM gm_pages) AS pages;
-- plans: one index range with the whole key condition, custom and generic, and a continued page
SELECT * FROM singletable.explain_query('gm_bill', key_condition => 'tenant = :t AND #r = :r AND #s = :s AND begins_with(due, :m)',
                                        names => '{"#r": "region", "#s": "state"}', vals => '{":t": "T1", ":r": "us", ":s": "open", ":m": "2026-0"}',
                                        index_name => 'by-tenant-region');
SET plan_cache_mode = force_generic_plan;
SELECT * FROM singletable.explain_query('gm_bill', key_condition => 'tenant = :t AND #r = :r AND #s = :s AND due <= :d',
                                        names => '{"#r": "region", "#s": "state"}', vals => '{":t": "T1", ":r": "us", ":s": "open", ":d": "2026-09"}',
                                        index_name => 'by-tenant-region',
                                        exclusive_start_key => '{"pk": "TENANT#1", "sk": "INVOICE#001", "tenant": "T1", "region": "us", "state": "open", "due": "2026-02-02T00:00:00Z", "amount": 48}');
RESET plan_cache_mode;
-- writes: a missing attribute leaves the item out, a wrong-typed one is refused
SELECT singletable.put_item('gm_bill', '{"pk": "TENANT#1", "sk": "INVOICE#900", "tenant": "T1", "region": "us", "state": "open", "due": "2026-01-01"}');
SELECT count(*) FROM singletable.query('gm_bill', key_condition => 'tenant = :t AND #r = :r AND #s = :s AND due = :d',
                                       names => '{"#r": "region", "#s": "state"}', vals => '{":t": "T1", ":r": "us", ":s": "open", ":d": "2026-01-01"}',
                                       index_name => 'by-tenant-region');
SELECT singletable.put_item('gm_bill', '{"pk": "TENANT#1", "sk": "INVOICE#901", "tenant": "T1", "region": "us", "state": "open", "due": "2026-01-01", "amount": "ten"}');
SELECT singletable.update_item('gm_bill', 'TENANT#1', 'INVOICE#900', 'SET #r = :r', names => '{"#r": "region"}', vals => '{":r": ""}');
SELECT count(*) FROM gm_bill WHERE sk = 'INVOICE#901' OR item->>'region' = '';

-- key_condition on the table itself, the same as the positional form
SELECT sk FROM singletable.query('gm_bill', key_condition => 'pk = :p AND begins_with(sk, :s)', vals => '{":p": "TENANT#3", ":s": "INVOICE#01"}');
SELECT sk FROM singletable.query('gm_bill', key_condition => 'sk BETWEEN :a AND :b AND pk = :p', vals => '{":p": "TENANT#3", ":a": "INVOICE#002", ":b": "INVOICE#004"}',
                                 forward => false);
SELECT count(*) FROM singletable.query('gm_bill', key_condition => '(pk = :p)', vals => '{":p": "TENANT#3"}');
SELECT * FROM singletable.explain_query('gm_bill', key_condition => 'pk = :p AND sk < :s', vals => '{":p": "TENANT#3", ":s": "INVOICE#005"}');
-- a single-attribute index is queried either way
SELECT singletable.create_gsi('gm_bill', 'by-state', 'state', 'amount', sort_key_type => 'N');
SELECT (SELECT array_agg(sk) FROM singletable.query('gm_bill', 'paid', '>=', '40', index_name => 'by-state'))
     = (SELECT array_agg(sk) FROM singletable.query('gm_bill', key_condition => '#s = :s AND amount >= :a', names => '{"#s": "state"}',
                                                    vals => '{":s": "paid", ":a": 40}', index_name => 'by-state')) AS same;

-- errors: key conditions DynamoDB refuses, with its messages
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :p OR sk = :p', vals => '{":p": "x"}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :p AND NOT sk = :p', vals => '{":p": "x"}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk <> :p', vals => '{":p": "x"}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk IN (:p)', vals => '{":p": "x"}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :p AND attribute_exists(sk)', vals => '{":p": "x"}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :p AND contains(sk, :p)', vals => '{":p": "x"}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :p AND size(sk) > :n', vals => '{":p": "x", ":n": 1}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :p AND sk.x = :p', vals => '{":p": "x"}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = sk');
SELECT * FROM singletable.query('gm_bill', key_condition => ':p = :p', vals => '{":p": "x"}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :p AND sk > :p AND sk < :p', vals => '{":p": "x"}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :p AND pk = :p', vals => '{":p": "x"}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'sk = :p', vals => '{":p": "x"}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk > :p', vals => '{":p": "x"}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :p AND due = :p', vals => '{":p": "x"}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :n', vals => '{":n": 1}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :p AND sk BETWEEN :p AND :n', vals => '{":p": "x", ":n": 1}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :p AND sk BETWEEN :b AND :a', vals => '{":p": "x", ":a": "a", ":b": "b"}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :p AND begins_with(:p, sk)', vals => '{":p": "x"}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :p AND BEGINS_WITH(sk, :p)', vals => '{":p": "x"}');
SELECT * FROM singletable.query('gm_bill', key_condition => ' ');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :p', vals => '{":p": ""}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :p', vals => '{":p": "x", ":q": "unused"}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'pk = :p');
SELECT * FROM singletable.query('gm_bill', 'TENANT#1', key_condition => 'pk = :p', vals => '{":p": "x"}');
SELECT * FROM singletable.query('gm_bill');
SELECT * FROM singletable.query('gm_bill', key_condition => 'amount >= :a AND #s = :s', names => '{"#s": "state"}',
                                vals => '{":s": "paid", ":a": "40"}', index_name => 'by-state');
-- a multi-attribute index: every partition attribute with =, sort attributes left to right
SELECT * FROM singletable.query('gm_bill', 'T1', index_name => 'by-tenant-region');
SELECT * FROM singletable.query('gm_bill', key_condition => 'tenant = :t', vals => '{":t": "T1"}', index_name => 'by-tenant-region');
SELECT * FROM singletable.query('gm_bill', key_condition => 'tenant = :t AND #r = :t AND due = :t', names => '{"#r": "region"}',
                                vals => '{":t": "T1"}', index_name => 'by-tenant-region');
SELECT * FROM singletable.query('gm_bill', key_condition => 'tenant = :t AND #r = :t AND #s > :t AND due = :t', names => '{"#r": "region", "#s": "state"}',
                                vals => '{":t": "T1"}', index_name => 'by-tenant-region');
SELECT * FROM singletable.query('gm_bill', key_condition => 'tenant = :t AND #r = :t AND #s = :t', names => '{"#r": "region", "#s": "state"}',
                                vals => '{":t": "T1"}', index_name => 'by-tenant-region',
                                exclusive_start_key => '{"pk": "TENANT#1", "sk": "INVOICE#001", "tenant": "T1", "region": "T1", "state": "other", "due": "x", "amount": 1}');
SELECT * FROM singletable.query('gm_bill', key_condition => 'tenant = :t AND #r = :t', names => '{"#r": "region"}',
                                vals => '{":t": "T1"}', index_name => 'by-tenant-region',
                                exclusive_start_key => '{"pk": "TENANT#1", "sk": "INVOICE#001", "tenant": "T1", "region": "T1"}');
-- create_gsi: at most 4 attributes a side, types matching them, names once
SELECT singletable.create_gsi('gm_bill', 'five', 'a,b,c,d,e');
SELECT singletable.create_gsi('gm_bill', 'types', 'a,b', partition_key_type => 'S,N,S');
SELECT singletable.create_gsi('gm_bill', 'twice', 'a,b', 'b');
SELECT singletable.create_gsi('gm_bill', 'empty', 'a,,b');
SELECT singletable.create_gsi('gm_bill', 'quote', '"a');
-- a quoted name may hold a comma
SELECT singletable.create_gsi('gm_bill', 'quoted', '"x,y", " z"');
SELECT partition_key FROM singletable.indexes WHERE index_name = 'quoted';

-- cleanup
SELECT singletable.drop_table('gm_bill');
