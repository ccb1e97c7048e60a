-- Entity views (create_entity_views, drop_entity_views): one typed view per entity,
-- conditions on its fields as index ranges of pk/sk or of a GSI (constants and bind
-- parameters in generic plans), writes through the item operations, views that follow
-- the entities; on both worked examples, the posting app and the billing tenant.
SET client_min_messages = warning;

-- The billing table: a tenant's users, invoices, events and credits; GSI1 overloaded
SELECT singletable.create_table('billing');
SELECT singletable.create_gsi('billing', 'GSI1', 'gsi1pk', 'gsi1sk');
SELECT singletable.define_entity('billing', 'User', pk => 'TENANT#{tenantId}', sk => 'USER#{userId}',
                                 indexes => '{"GSI1": {"pk": "ROLE#{role}", "sk": "{userId}"}}',
                                 attributes => '{"email": "S", "active": "BOOL"}');
SELECT singletable.define_entity('billing', 'Invoice', pk => 'TENANT#{tenantId}', sk => 'INVOICE#{invoiceId}',
                                 indexes => '{"GSI1": {"pk": "STATUS#{status}", "sk": "{dueDate:date}"}}',
                                 attributes => '{"amount": "N", "lines": "L"}');
SELECT singletable.define_entity('billing', 'Event', pk => 'TENANT#{tenantId}', sk => 'EVENT#{at:timestamp}');
SELECT singletable.define_entity('billing', 'Credit', pk => 'TENANT#{tenantId}', sk => 'CREDIT#{seq:int(6)}#{issuedOn:date}');

-- Errors before any view: unknown table, a table without entities, a bad schema, not the owner
SELECT singletable.create_entity_views('nope');
SELECT singletable.create_entity_views(NULL);
SELECT singletable.create_table('empty');
SELECT singletable.create_entity_views('empty');
SELECT singletable.create_entity_views('billing', schema => 'no_such_schema');
CREATE ROLE regress_st_view_stranger;
SET ROLE regress_st_view_stranger;
SELECT singletable.create_entity_views('billing');
SELECT singletable.drop_entity_views('billing');
RESET ROLE;
-- a relation that is not one of its views holds a view's name
CREATE TABLE billing_event (x int);
SELECT singletable.create_entity_views('billing');
DROP TABLE billing_event;

-- One view per entity: <table>_<entity in snake_case>
SELECT v::text AS view FROM singletable.create_entity_views('billing') v ORDER BY 1;
SELECT table_name, view_schema FROM singletable.entity_views;
\d billing_invoice
\d billing_credit

-- The decoders are strict: NULL for a key of another shape, or a field whose text is not
-- the one its value is written with (a leading zero of an int, an upper-case uuid)
SELECT singletable.key_field_int('N#007', 'N#{n:int(3)}', 'n') AS padded,
       singletable.key_field_int('N#007', 'N#{n:int}', 'n') AS leading_zero,
       singletable.key_field_uuid('U#A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 'U#{u:uuid}', 'u') AS upper_uuid,
       singletable.key_field_timestamp('T#2026-06-23T09:12:30.250Z', 'T#{t:timestamp}', 't') AS ts,
       singletable.key_field_text('X#1', 'N#{n}', 'n') AS other_shape,
       singletable.key_matches('N#007', 'N#{n:int(3)}') AS matches;
SELECT singletable.key_field_text('N#007', 'N#{n:int(3)}', 'n');
SELECT singletable.key_field_text('N#007', 'N#{n:int(3)}', 'm');
SELECT singletable.key_compose('TENANT#{t}#U#{n:int(4)}', 'acme', 7) AS composed,
       singletable.key_compose('N#{n:int(2)}', 100) AS too_wide;
SELECT singletable.key_compose('N#{n:int(2)}', 'x'::text);
SELECT singletable.key_field_bound('N#{n:int(3)}', 'n', 1, 7) AS lower, singletable.key_field_bound('N#{n:int(3)}', 'n', 2, 7) AS upper;

-- Items written as usual appear, decoded, in their entity's view
SELECT singletable.put_item('billing', i) FROM (VALUES
  ('{"pk": "TENANT#acme", "sk": "USER#u_1", "gsi1pk": "ROLE#admin", "gsi1sk": "u_1", "email": "ada@acme.test", "active": true}'::jsonb),
  ('{"pk": "TENANT#acme", "sk": "USER#u_2", "email": "bob@acme.test"}'),
  ('{"pk": "TENANT#acme", "sk": "INVOICE#2026-0014", "gsi1pk": "STATUS#open", "gsi1sk": "2026-07-01", "amount": 120.5, "lines": ["a", "b"]}'),
  ('{"pk": "TENANT#acme", "sk": "INVOICE#2026-0013", "gsi1pk": "STATUS#paid", "gsi1sk": "2026-06-01", "amount": 80}'),
  ('{"pk": "TENANT#globex", "sk": "INVOICE#2026-0001", "gsi1pk": "STATUS#open", "gsi1sk": "2026-09-01", "amount": "n/a"}'),
  ('{"pk": "TENANT#acme", "sk": "EVENT#2026-06-23T09:12Z"}'),
  ('{"pk": "TENANT#acme", "sk": "EVENT#2026-06-23T09:12:30.250Z"}'),
  ('{"pk": "TENANT#acme", "sk": "EVENT#2026-07-01T00:00:00Z"}'),
  ('{"pk": "TENANT#acme", "sk": "CREDIT#000007#2026-01-02"}'),
  ('{"pk": "TENANT#acme", "sk": "CREDIT#000012#2026-02-03"}'),
  ('{"pk": "TENANT#acme", "sk": "CREDIT#0000x9#2026-02-03"}')) t(i);
SELECT "tenantId", "userId", role, email, active FROM billing_user ORDER BY 1, 2;
SELECT "tenantId", "invoiceId", status, "dueDate", amount, lines FROM billing_invoice ORDER BY 1, 2;
SELECT "tenantId", at FROM billing_event ORDER BY at;
-- CREDIT#0000x9 does not match its template: not a Credit
SELECT "tenantId", seq, "issuedOn", sk FROM billing_credit ORDER BY seq;

-- Reads: equality on the partition fields is pk = key, a range of the first sort field a range of sk
EXPLAIN (COSTS OFF) SELECT * FROM billing_invoice WHERE "tenantId" = 'acme';
EXPLAIN (COSTS OFF) SELECT * FROM billing_invoice WHERE "tenantId" = 'acme' AND "invoiceId" = '2026-0014';
EXPLAIN (COSTS OFF) SELECT * FROM billing_credit WHERE "tenantId" = 'acme' AND seq BETWEEN 5 AND 10;
EXPLAIN (COSTS OFF) SELECT * FROM billing_event WHERE "tenantId" = 'acme' AND at >= '2026-06-23 09:12:10+00';
EXPLAIN (COSTS OFF) SELECT * FROM billing_user WHERE "tenantId" = 'acme' AND "userId" >= 'u_2';
-- an index field: the GSI's key expression and its partial index
EXPLAIN (COSTS OFF) SELECT "invoiceId" FROM billing_invoice WHERE status = 'open';
EXPLAIN (COSTS OFF) SELECT "invoiceId" FROM billing_invoice WHERE status = 'open' AND "dueDate" < '2026-08-01';
EXPLAIN (COSTS OFF) SELECT "userId" FROM billing_user WHERE role = 'admin';
-- results equal the Query
SELECT "tenantId", seq FROM billing_credit WHERE "tenantId" = 'acme' AND seq BETWEEN 5 AND 10;
SELECT at FROM billing_event WHERE "tenantId" = 'acme' AND at >= '2026-06-23 09:12:10+00' ORDER BY at;
SELECT (SELECT array_agg(sk ORDER BY sk) FROM billing_invoice WHERE "tenantId" = 'acme')
     = (SELECT array_agg(q.sk ORDER BY q.sk) FROM singletable.query('billing', 'TENANT#acme', 'begins_with', 'INVOICE#') q)
       AS same_as_query;
SELECT (SELECT array_agg(sk ORDER BY sk) FROM billing_invoice WHERE status = 'open')
     = (SELECT array_agg(q.sk ORDER BY q.sk) FROM singletable.query('billing', 'STATUS#open', index_name => 'GSI1') q)
       AS same_as_gsi_query;
-- values no key can hold: no rows, no error
SELECT count(*) FROM billing_credit WHERE "tenantId" = 'acme' AND seq = -1;
SELECT count(*) FROM billing_credit WHERE "tenantId" = 'acme' AND seq < 10000000;
SELECT count(*) FROM billing_credit WHERE "tenantId" = 'acme' AND seq > 10000000;
SELECT count(*) FROM billing_event WHERE "tenantId" = 'acme' AND at < '-infinity';

-- Bind parameters in a generic plan: the bounds are runtime index keys
PREPARE credits(text, int) AS SELECT seq FROM billing_credit WHERE "tenantId" = $1 AND seq >= $2 ORDER BY seq;
PREPARE open_until(text, date) AS SELECT "invoiceId" FROM billing_invoice WHERE status = $1 AND "dueDate" <= $2;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE credits('acme', 5);
EXECUTE credits('acme', 5);
EXECUTE credits('acme', 8);
EXECUTE credits('globex', 0);
EXPLAIN (COSTS OFF) EXECUTE open_until('open', '2026-08-01');
EXECUTE open_until('open', '2026-08-01');
EXECUTE open_until('open', '2026-12-31');
RESET plan_cache_mode;

-- A new session without shared_preload_libraries: the planner loads the library
\c
SET client_min_messages = warning;
EXPLAIN (COSTS OFF) SELECT "userId" FROM billing_user WHERE "tenantId" = 'acme';

-- Writes through a view: PutItem and DeleteItem with conditions
INSERT INTO billing_invoice ("tenantId", "invoiceId", status, "dueDate", amount)
  VALUES ('acme', '2026-0015', 'open', '2026-07-15', 99) RETURNING "invoiceId", pk, sk, item;
SELECT singletable.last_consumed_capacity();
-- it is in GSI1: the view's insert composed the index keys
SELECT q.sk FROM singletable.query('billing', 'STATUS#open', index_name => 'GSI1') q ORDER BY 1;
-- the same key again: the condition attribute_not_exists fails
INSERT INTO billing_invoice ("tenantId", "invoiceId", amount) VALUES ('acme', '2026-0015', 1);
-- without the index fields: no index keys (sparse)
INSERT INTO billing_invoice ("tenantId", "invoiceId", status, amount, item)
  VALUES ('acme', '2026-0016', 'open', 5, '{"note": "draft", "gsi1pk": "STATUS#stale"}') RETURNING item;
UPDATE billing_invoice SET amount = 100, lines = '["x"]' WHERE "tenantId" = 'acme' AND "invoiceId" = '2026-0015'
  RETURNING "invoiceId", amount, item;
-- a NULL attribute column removes the attribute
UPDATE billing_invoice SET lines = NULL WHERE "invoiceId" = '2026-0015' RETURNING item;
-- a change of a key field moves the item: DeleteItem of the old, PutItem of the new
UPDATE billing_invoice SET "invoiceId" = '2026-0017' WHERE "tenantId" = 'acme' AND "invoiceId" = '2026-0015'
  RETURNING pk, sk;
SELECT singletable.get_item('billing', 'TENANT#acme', 'INVOICE#2026-0015') AS old_item,
       singletable.get_item('billing', 'TENANT#acme', 'INVOICE#2026-0017') ->> 'amount' AS new_amount;
-- moving onto an existing item fails
UPDATE billing_invoice SET "invoiceId" = '2026-0014' WHERE "invoiceId" = '2026-0017';
DELETE FROM billing_invoice WHERE "tenantId" = 'acme' AND "invoiceId" IN ('2026-0016', '2026-0017') RETURNING sk;
INSERT INTO billing_credit ("tenantId", seq, "issuedOn") VALUES ('acme', 3, '2026-03-04') RETURNING sk;
INSERT INTO billing_event ("tenantId", at) VALUES ('acme', '2026-06-24 10:00:00.5+02') RETURNING sk;
INSERT INTO billing_user ("tenantId", "userId", role, email) VALUES ('acme', 'u_3', 'admin', 'cy@acme.test');
SELECT q.sk FROM singletable.query('billing', 'ROLE#admin', index_name => 'GSI1') q ORDER BY 1;
-- bad field values: named with the column and its type
INSERT INTO billing_credit ("tenantId", seq, "issuedOn") VALUES ('acme', -1, '2026-01-01');
INSERT INTO billing_credit ("tenantId", seq, "issuedOn") VALUES ('acme', 1234567, '2026-01-01');
INSERT INTO billing_credit ("tenantId", seq, "issuedOn") VALUES ('acme', 1, '0001-01-01 BC');
INSERT INTO billing_invoice ("tenantId", "invoiceId") VALUES ('', 'x');
INSERT INTO billing_invoice ("tenantId", "invoiceId") VALUES (NULL, 'x');
-- a field holding the literal after it would read back differently
SELECT singletable.define_entity('billing', 'Tag', pk => 'TENANT#{tenantId}', sk => 'TAG#{name}#{color}');
INSERT INTO billing_tag ("tenantId", name, color) VALUES ('acme', 'x#y', 'red');
-- a reader cannot write through the view
CREATE ROLE regress_st_view_reader;
GRANT SELECT ON billing, billing_invoice TO regress_st_view_reader;
GRANT INSERT ON billing_invoice TO regress_st_view_reader;
SET ROLE regress_st_view_reader;
SELECT count(*) FROM billing_invoice WHERE "tenantId" = 'acme';
INSERT INTO billing_invoice ("tenantId", "invoiceId") VALUES ('acme', 'r1');
RESET ROLE;

-- The views follow the entities: define_entity and drop_entity re-create them
SELECT singletable.define_entity('billing', 'Payment', pk => 'TENANT#{tenantId}', sk => 'PAYMENT#{paymentId:uuid}',
                                 attributes => '{"amount": "N"}');
SELECT c.relname FROM pg_class c WHERE c.relname LIKE 'billing\_%' AND c.relkind = 'v' ORDER BY 1;
-- what was granted on a view is granted on the view that replaces it
SELECT has_table_privilege('regress_st_view_reader', 'billing_invoice', 'SELECT') AS can_select,
       has_table_privilege('regress_st_view_reader', 'billing_invoice', 'INSERT') AS can_insert,
       has_table_privilege('regress_st_view_reader', 'billing_user', 'SELECT') AS user_view;
INSERT INTO billing_payment ("tenantId", "paymentId", amount)
  VALUES ('acme', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 10) RETURNING sk;
EXPLAIN (COSTS OFF) SELECT amount FROM billing_payment WHERE "tenantId" = 'acme' AND "paymentId" = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11';
SELECT amount FROM billing_payment WHERE "tenantId" = 'acme' AND "paymentId" = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11';
SELECT singletable.drop_entity('billing', 'Tag');
SELECT c.relname FROM pg_class c WHERE c.relname LIKE 'billing\_%' AND c.relkind = 'v' ORDER BY 1;
-- a view of another schema
CREATE SCHEMA reports;
SELECT v::text FROM singletable.create_entity_views('billing', schema => 'reports') v ORDER BY 1;
SELECT count(*) FROM pg_class WHERE relname LIKE 'billing\_%' AND relkind = 'v'
   AND relnamespace = 'public'::regnamespace;
SELECT count(*) FROM reports.billing_user;
SELECT has_table_privilege('regress_st_view_reader', 'reports.billing_invoice', 'SELECT') AS can_select;

-- The posting app: a sparse GSI of scheduled posts by publish time, TTL on metrics
SELECT singletable.create_table('posting');
SELECT singletable.create_gsi('posting', 'GSI1', 'gsi1pk', 'gsi1sk');
SELECT singletable.enable_ttl('posting', 'expiresAt');
SELECT singletable.define_entity('posting', 'UserProfile', pk => 'USER#{userId}', sk => 'PROFILE',
                                 attributes => '{"name": "S", "plan": "S"}');
SELECT singletable.define_entity('posting', 'Post', pk => 'USER#{userId}', sk => 'POST#{postId:int(4)}',
                                 indexes => '{"GSI1": {"pk": "STATUS#{status}", "sk": "{publishAt:timestamp}"}}',
                                 attributes => '{"title": "S"}');
SELECT singletable.define_entity('posting', 'PostSource', pk => 'POST#{postId:int(4)}', sk => 'SOURCE#{fileId}');
SELECT singletable.define_entity('posting', 'PostMetrics', pk => 'POST#{postId:int(4)}', sk => 'METRICS#{capturedAt:timestamp}',
                                 attributes => '{"views": "N", "expiresAt": "N"}');
SELECT v::text FROM singletable.create_entity_views('posting') v ORDER BY 1;
INSERT INTO posting_user_profile ("userId", name, plan) VALUES ('u_3001', 'Ada', 'pro');
INSERT INTO posting_post ("userId", "postId", title, status, "publishAt")
  VALUES ('u_3001', 17, 'Launch', 'approved', '2026-06-23 09:00+00'),
         ('u_3001', 18, 'Follow-up', 'approved', '2026-06-30 09:00+00'),
         ('u_3001', 19, 'Draft', NULL, NULL);
INSERT INTO posting_post_source ("postId", "fileId") VALUES (17, 'f_1');
INSERT INTO posting_post_metrics ("postId", "capturedAt", views, "expiresAt")
  VALUES (17, '2026-06-23 09:12+00', 40, extract(epoch FROM now() + interval '1 day')::bigint) RETURNING sk, item ? 'expiresAt' AS has_ttl;
SELECT "userId", "postId", title, status, "publishAt" FROM posting_post ORDER BY "postId";
SELECT name, plan FROM posting_user_profile WHERE "userId" = 'u_3001';
EXPLAIN (COSTS OFF) SELECT name FROM posting_user_profile WHERE "userId" = 'u_3001';
EXPLAIN (COSTS OFF) SELECT title FROM posting_post WHERE "userId" = 'u_3001' AND "postId" >= 18;
EXPLAIN (COSTS OFF) SELECT title FROM posting_post WHERE status = 'approved' AND "publishAt" >= '2026-06-25';
SELECT title FROM posting_post WHERE status = 'approved' AND "publishAt" >= '2026-06-25';
SELECT (SELECT array_agg(sk ORDER BY sk) FROM posting_post WHERE status = 'approved')
     = (SELECT array_agg(q.sk ORDER BY q.sk) FROM singletable.query('posting', 'STATUS#approved', index_name => 'GSI1') q)
       AS same_as_gsi_query;
SELECT views FROM posting_post_metrics WHERE "postId" = 17;
-- an expired item is hidden by reads, written through the view like any
INSERT INTO posting_post_metrics ("postId", "capturedAt", views, "expiresAt") VALUES (17, '2026-06-22 00:00+00', 1, extract(epoch FROM now() - interval '1 hour')::bigint);
SELECT count(*) AS live FROM singletable.query('posting', 'POST#0017', 'begins_with', 'METRICS#');

-- Soundness: over well- and ill-formed keys (leading zeros, year 0000, leap seconds,
-- fractions beyond microseconds, upper-case uuids, empty strings, ints beyond bigint), each
-- condition returns the same rows with the derived index conditions as with a plain filter.
-- No row below is a mismatch.
SELECT singletable.create_table('fz');
SELECT singletable.define_entity('fz', 'A', pk => 'P#{p}', sk => 'N#{n:int(3)}#{d:date}');
SELECT singletable.define_entity('fz', 'B', pk => 'P#{p}', sk => 'T#{t:timestamp}');
SELECT singletable.define_entity('fz', 'C', pk => 'P#{p}', sk => 'U#{u:uuid}');
SELECT singletable.define_entity('fz', 'D', pk => 'P#{p}', sk => 'S#{s}#{x}');
SELECT singletable.define_entity('fz', 'E', pk => 'P#{p}', sk => 'I#{i:int}');
SELECT count(*) FROM singletable.create_entity_views('fz');
-- keys, well- and ill-formed
INSERT INTO fz SELECT 'P#' || p, sk, jsonb_build_object('pk', 'P#' || p, 'sk', sk) FROM
  (VALUES ('a'), ('b'), ('a#b')) ps(p),
  LATERAL (SELECT 'N#' || lpad(i::text, 3, '0') || '#2026-01-0' || (1 + i % 9) FROM generate_series(0, 60, 7) i
           UNION ALL SELECT 'N#12#2026-01-01' UNION ALL SELECT 'N#0001#2026-01-01' UNION ALL SELECT 'N#000#0000-01-01'
           UNION ALL SELECT 'T#2026-06-23T09:' || lpad(m::text, 2, '0') || suf FROM generate_series(0, 59, 13) m,
                 (VALUES ('Z'), (':30Z'), (':59.9999999Z'), (':60Z'), (':00.5'), ('')) s(suf)
           UNION ALL SELECT 'U#' || u FROM (VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'), ('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'), ('00000000-0000-0000-0000-000000000000'), ('ffffffff-ffff-ffff-ffff-ffffffffffff')) x(u)
           UNION ALL SELECT 'S#' || s || '#' || x FROM (VALUES ('ab'), ('abc'), ('b'), ('a'), ('#'), ('')) a(s), (VALUES ('1'), ('')) b(x)
           UNION ALL SELECT 'I#' || i FROM (VALUES ('0'), ('7'), ('07'), ('70'), ('9223372036854775807'), ('9223372036854775808')) y(i)
  ) k(sk)
ON CONFLICT DO NOTHING;
ANALYZE fz;
-- the condition on the view (derived index conditions) against the same condition above
-- the view kept as a subquery (OFFSET 0: no clause reaches the table, nothing is derived)
CREATE FUNCTION pg_temp.chk(v text, cond text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE a bigint; b bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM (SELECT * FROM %s OFFSET 0) s WHERE %s', v, cond) INTO a;
  SET LOCAL enable_seqscan = off;
  EXECUTE format('SELECT count(*) FROM %s WHERE %s', v, cond) INTO b;
  SET LOCAL enable_seqscan = on;
  IF a <> b THEN RETURN format('MISMATCH %s vs %s: %s WHERE %s', a, b, v, cond); END IF;
  RETURN NULL;
END $$;
SELECT v, cond FROM (
  SELECT 'fz_a' AS v, format('p = %L AND n %s %s', p, op, v) AS cond FROM (VALUES ('a'), ('b'), ('a#b'), ('zz')) ps(p), (VALUES ('='), ('<'), ('<='), ('>'), ('>=')) o(op), (VALUES ('-1'), ('0'), ('7'), ('12'), ('13'), ('999'), ('1000'), ('99999999999')) vs(v)
  UNION ALL SELECT 'fz_a', format('p = %L AND n = %s AND d %s %L', 'a', n, op, d) FROM (VALUES (7), (14)) ns(n), (VALUES ('='), ('<'), ('>=')) o(op), (VALUES ('2026-01-08'), ('2026-01-01')) ds(d)
  UNION ALL SELECT 'fz_b', format('p = %L AND t %s %L', 'a', op, v) FROM (VALUES ('='), ('<'), ('<='), ('>'), ('>=')) o(op), (VALUES ('2026-06-23 09:13:00+00'), ('2026-06-23 09:13:30+00'), ('2026-06-23 09:13:59.999999+00'), ('2026-06-23 09:14:00+00'), ('2026-06-23 09:26:00+00'), ('2026-06-23 09:26:00.5+00'), ('-infinity'), ('infinity'), ('2026-06-23 11:13:00+02')) vs(v)
  UNION ALL SELECT 'fz_c', format('p = %L AND u %s %L', 'a', op, v) FROM (VALUES ('='), ('<'), ('<='), ('>'), ('>=')) o(op), (VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'), ('00000000-0000-0000-0000-000000000000'), ('ffffffff-ffff-ffff-ffff-ffffffffffff'), ('80000000-0000-0000-0000-000000000000')) vs(v)
  UNION ALL SELECT 'fz_d', format('p = %L AND s %s %L', 'a', op, v) FROM (VALUES ('='), ('<'), ('<='), ('>'), ('>=')) o(op), (VALUES ('a'), ('ab'), ('abc'), ('b'), ('#'), (''), ('aa')) vs(v)
  UNION ALL SELECT 'fz_d', format('p = %L AND s = %L AND x = %L', 'a', s, x) FROM (VALUES ('a'), ('ab'), ('#')) a(s), (VALUES ('1'), ('')) b(x)
  UNION ALL SELECT 'fz_e', format('p = %L AND i %s %s', 'a', op, v) FROM (VALUES ('='), ('<'), ('>=')) o(op), (VALUES ('7'), ('0'), ('70'), ('9223372036854775807')) vs(v)
) qs WHERE pg_temp.chk(v, cond) IS NOT NULL;
SELECT singletable.drop_entity_views('fz');
SELECT singletable.drop_table('fz');

-- drop_table drops the table's entity views with it (a view of a view blocks it)
CREATE VIEW posting_profile_names AS SELECT name FROM posting_user_profile;
SELECT singletable.drop_table('posting');
DROP VIEW posting_profile_names;
-- drop_entity_views drops them and forgets the table
SELECT singletable.drop_entity_views('billing');
SELECT singletable.drop_entity_views('posting');
SELECT count(*) FROM pg_class WHERE relkind = 'v' AND (relname LIKE 'billing\_%' OR relname LIKE 'posting\_%');
SELECT count(*) FROM singletable.entity_views;
-- a dropped table leaves no registry row
SELECT singletable.create_entity_views('billing', schema => 'reports') IS NOT NULL AS created;
DROP TABLE billing CASCADE;
SELECT count(*) FROM singletable.entity_views;
SELECT count(*) AS views FROM singletable.create_entity_views('posting');
SELECT singletable.drop_table('posting');
SELECT count(*) FROM singletable.entity_views;
SELECT count(*) FROM pg_class WHERE relkind = 'v' AND relname LIKE 'posting\_%';
SELECT singletable.drop_table('empty');
DROP SCHEMA reports;
DROP ROLE regress_st_view_stranger;
REVOKE ALL ON SCHEMA public FROM regress_st_view_reader;
DROP ROLE regress_st_view_reader;
