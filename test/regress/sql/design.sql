-- singletable.design (issue 29): from entities and access patterns to a single-table
-- design. The posting app and the billing tenant of the project's design notes get the
-- documented designs; apply => true creates a table on which every proposed request and
-- SQL call runs.
SET client_min_messages = warning;
\set posting_entities '[{"name": "user", "key": "userId"}, {"name": "post", "key": "postId", "parent": "user", "attributes": {"status": "string", "publishAt": "timestamp"}}, {"name": "source", "key": "fileId", "parent": "post"}, {"name": "metrics", "key": "capturedAt", "parent": "post", "attributes": {"capturedAt": "timestamp"}, "ttl": "expiresAt"}]'
\set posting_patterns '["get user by userId", "get user with posts by userId", "list posts by userId", "get post by userId and postId", "list sources by postId", "list metrics by postId ranged by capturedAt", "list posts sorted by publishAt only where status = approved"]'
\pset format unaligned
\pset tuples_only on
SELECT jsonb_pretty(singletable.design(:'posting_entities', :'posting_patterns', 'posting_design'));

\set billing_entities '[{"name": "tenant", "key": "tenantId"}, {"name": "user", "key": "userId", "parent": "tenant", "attributes": {"role": "string"}}, {"name": "invoice", "key": "invoiceId", "parent": "tenant", "attributes": {"status": "string", "dueDate": "date"}}, {"name": "event", "key": "at", "parent": "tenant", "attributes": {"at": "timestamp"}}]'
\set billing_patterns '["get tenant with users by tenantId", "list users by tenantId", "get user by tenantId and userId", "list invoices by tenantId", "list events by tenantId ranged by at", "list invoices sorted by dueDate only where status = open", "list users by role"]'
SELECT jsonb_pretty(singletable.design(:'billing_entities', :'billing_patterns', 'billing_design') - 'principles');
\pset format aligned
\pset tuples_only off

-- apply => true: the script runs; then, with each entity's example item put, every
-- request through singletable.dynamodb and every SQL call finds its items
SELECT d->'applied' AS applied, d->>'script' = singletable.design(:'posting_entities', :'posting_patterns', 'posting_design')->>'script' AS same_script
  FROM singletable.design(:'posting_entities', :'posting_patterns', 'posting_design', apply => true) d;
SELECT d->'applied' AS applied FROM singletable.design(:'billing_entities', :'billing_patterns', 'billing_design', apply => true) d;
SELECT table_name::text, entity, pk_template, sk_template, index_templates FROM singletable.entities
 WHERE table_name IN ('posting_design'::regclass, 'billing_design'::regclass) ORDER BY table_name::text, entity;
SELECT table_name::text, attribute_name FROM singletable.ttl WHERE table_name = 'posting_design'::regclass;
SET client_min_messages = notice;
SELECT set_config('design.pe', :'posting_entities', false), set_config('design.pp', :'posting_patterns', false),
       set_config('design.be', :'billing_entities', false), set_config('design.bp', :'billing_patterns', false) \gset
DO $$
DECLARE
  x jsonb;
  r jsonb;
  n int;
BEGIN
  -- each entity's example item, put at its keys
  FOR x IN SELECT e FROM jsonb_array_elements(
             (singletable.design(current_setting('design.pe')::jsonb, current_setting('design.pp')::jsonb, 'posting_design')->'entities')) e
  LOOP
    PERFORM singletable.put_item('posting_design', x->'example_item');
  END LOOP;
  FOR x IN SELECT e FROM jsonb_array_elements(
             (singletable.design(current_setting('design.be')::jsonb, current_setting('design.bp')::jsonb, 'billing_design')->'entities')) e
  LOOP
    PERFORM singletable.put_item('billing_design', x->'example_item');
  END LOOP;
  FOR x IN SELECT p FROM jsonb_array_elements(
             (singletable.design(current_setting('design.pe')::jsonb, current_setting('design.pp')::jsonb, 'posting_design')->'access_patterns')
             || (singletable.design(current_setting('design.be')::jsonb, current_setting('design.bp')::jsonb, 'billing_design')->'access_patterns')) p
  LOOP
    r := singletable.dynamodb(x->>'operation', x->'request');
    EXECUTE format('SELECT count(*) FROM (%s) s(i) WHERE i IS NOT NULL', x->>'sql') INTO n;
    RAISE NOTICE '%: % (%), % items by the request, % by SQL', x->>'pattern', x->>'operation', coalesce(x->>'index', 'table'),
      coalesce(jsonb_array_length(r->'Items'), CASE WHEN r ? 'Item' THEN 1 ELSE 0 END), n;
  END LOOP;
END $$;
SET client_min_messages = warning;

-- errors: each names what is wrong
SELECT singletable.design(NULL, '[]');
SELECT singletable.design('[]', '[]');
SELECT singletable.design('[{"name": "user"}]', '[]');
SELECT singletable.design('[{"name": "User", "key": "id"}]', '[]');
SELECT singletable.design('[{"name": "user", "key": "id"}, {"name": "user", "key": "id"}]', '[]');
SELECT singletable.design('[{"name": "post", "key": "id", "parent": "blog"}]', '[]');
SELECT singletable.design('[{"name": "user", "key": "id", "attributes": {"age": "float"}}]', '[]');
SELECT singletable.design('[{"name": "user", "key": "id"}]', '["fetch all users"]');
SELECT singletable.design('[{"name": "user", "key": "id"}]', '["list groups by id"]');
SELECT singletable.design('[{"name": "user", "key": "id"}]', '["list users by email"]');
SELECT singletable.design('[{"name": "user", "key": "id"}]', '["list users"]');
SELECT singletable.design('[{"name": "user", "key": "id"}]', '[]', 'x');
SELECT singletable.design('[{"name": "a", "key": "id", "ttl": "t1"}, {"name": "b", "key": "id", "ttl": "t2"}]', '[]');
SELECT singletable.design('[{"name": "user", "key": "id"}]', '[]', 'posting_design', apply => true);

SELECT singletable.drop_table('posting_design'), singletable.drop_table('billing_design');
