-- Entities: the key templates of a table's item types (define_entity, drop_entity,
-- entity_of), the collision errors and design warnings, on both worked examples of
-- the single-table design: the posting app and the multi-tenant billing table.
SET client_min_messages = warning;

-- The posting app: one table, GSI1 sparse (scheduled posts by publish time)
SELECT singletable.create_table('posting');
SELECT singletable.create_gsi('posting', 'GSI1', 'gsi1pk', 'gsi1sk');
SELECT singletable.define_entity('posting', 'UserProfile', pk => 'USER#{userId}', sk => 'PROFILE',
                                 attributes => '{"name": "S", "plan": "S"}');
SELECT singletable.define_entity('posting', 'Post', pk => 'USER#{userId}', sk => 'POST#{postId}',
                                 indexes => '{"GSI1": {"pk": "STATUS#{status}", "sk": "{publishAt:timestamp}"}}',
                                 attributes => '{"title": "S"}');
SELECT singletable.define_entity('posting', 'PostSource', pk => 'POST#{postId}', sk => 'SOURCE#{fileId}');
SELECT singletable.define_entity('posting', 'PostMetrics', pk => 'POST#{postId}', sk => 'METRICS#{capturedAt:timestamp}',
                                 attributes => '{"views": "N", "expiresAt": "N"}');
SELECT singletable.define_entity('posting', 'Analytics', pk => 'USER#{userId}', sk => 'ANALYTICS#{postId}');
SELECT singletable.define_entity('posting', 'DriveFolder', pk => 'USER#{userId}', sk => 'SOURCE#FOLDER#{folderId}');
SELECT singletable.define_entity('posting', 'GoogleIntegration', pk => 'USER#{userId}', sk => 'INTEG#GOOGLE');
SELECT singletable.define_entity('posting', 'XIntegration', pk => 'USER#{userId}', sk => 'INTEG#X#{handle}');
SELECT singletable.define_entity('posting', 'LibraryEntry', pk => 'USER#{userId}', sk => 'LIBRARY#{entryId}');

SELECT entity, pk_template, sk_template, index_templates, attributes
  FROM singletable.entities WHERE table_name = 'posting'::regclass ORDER BY entity COLLATE "C";

-- Which entity a pair of keys belongs to
SELECT k.pk, k.sk, singletable.entity_of('posting', k.pk, k.sk)
  FROM (VALUES ('USER#u_3001', 'PROFILE'), ('USER#u_3001', 'POST#0017'), ('POST#0017', 'SOURCE#f_1'),
               ('POST#0017', 'METRICS#2026-06-23T09:12Z'), ('POST#0017', 'METRICS#2026-06-23T09:12:30.250Z'),
               ('POST#0017', 'METRICS#yesterday'), ('USER#u_3001', 'SOURCE#FOLDER#d_9'),
               ('USER#u_3001', 'INTEG#GOOGLE'), ('USER#u_3001', 'INTEG#X#@acme'), ('USER#u_3001', 'INTEG#SLACK'),
               ('USERS#u_3001', 'PROFILE'), ('USER#', 'PROFILE'), (NULL, 'PROFILE')) k(pk, sk);

-- The billing table: one tenant's users, invoices and events in its partition; GSI1
-- overloaded: STATUS#open lists unpaid invoices by due date, ROLE#admin users by id
SELECT singletable.create_table('billing');
SELECT singletable.create_gsi('billing', 'GSI1', 'gsi1pk', 'gsi1sk');
SELECT singletable.define_entity('billing', 'User', pk => 'TENANT#{tenantId}', sk => 'USER#{userId}',
                                 indexes => '{"GSI1": {"pk": "ROLE#{role}", "sk": "{userId}"}}',
                                 attributes => '{"email": "S"}');
SELECT singletable.define_entity('billing', 'Invoice', pk => 'TENANT#{tenantId}', sk => 'INVOICE#{invoiceId}',
                                 indexes => '{"GSI1": {"pk": "STATUS#{status}", "sk": "{dueDate:date}"}}',
                                 attributes => '{"amount": "N"}');
SELECT singletable.define_entity('billing', 'Event', pk => 'TENANT#{tenantId}', sk => 'EVENT#{at:timestamp}');
-- USER# and USERGROUP#: each tag ends with the delimiter, so begins_with(sk, 'USER#') finds users only
SELECT singletable.define_entity('billing', 'UserGroup', pk => 'TENANT#{tenantId}', sk => 'USERGROUP#{groupId}');
SELECT singletable.entity_of('billing', 'TENANT#acme', s)
  FROM unnest(ARRAY['USER#u_3001', 'USERGROUP#g_1', 'INVOICE#2026-0014', 'EVENT#2026-06-23T09:12Z', 'EVENTS#x']) s;

-- describe_table lists the entities
SELECT jsonb_pretty(singletable.describe_table('billing') -> 'Entities');

-- Collisions: an error that changes nothing
\set VERBOSITY default
-- without the delimiter, the tag USER is a prefix of USERGROUP: a Query for users returns groups
SELECT singletable.create_table('tags');
SELECT singletable.define_entity('tags', 'User', pk => 'ORG#{orgId}', sk => 'USER{userId}');
SELECT singletable.define_entity('tags', 'UserGroup', pk => 'ORG#{orgId}', sk => 'USERGROUP{groupId}');
-- a tag that is a prefix of another's, the same tag, a constant that is a key of a template
SELECT singletable.define_entity('posting', 'Posting', pk => 'USER#{userId}', sk => 'POST{x}');
SELECT singletable.define_entity('posting', 'Draft', pk => 'USER#{userId}', sk => 'POST#{draftId}');
SELECT singletable.define_entity('posting', 'ProfileTwin', pk => 'USER#{userId}', sk => 'PROFILE');
SELECT singletable.define_entity('posting', 'XDefault', pk => 'USER#{userId}', sk => 'INTEG#X#default');
-- a partition key template that can make another's value (USER{id} can be USER#...)
SELECT singletable.define_entity('posting', 'Stray', pk => 'USER{id}', sk => 'POST#{postId}');
-- on an index both entities use: two entities under STATUS# on GSI1
SELECT singletable.define_entity('billing', 'Payment', pk => 'TENANT#{tenantId}', sk => 'PAYMENT#{paymentId}',
                                 indexes => '{"GSI1": {"pk": "STATUS#{status}", "sk": "{paidOn:date}"}}');
-- the same on a different partition is no collision
SELECT singletable.define_entity('billing', 'Payment', pk => 'TENANT#{tenantId}', sk => 'PAYMENT#{paymentId}',
                                 indexes => '{"GSI1": {"pk": "PAYMENT_STATUS#{status}", "sk": "{paidOn:date}"}}');
SELECT count(*) AS entities FROM singletable.entities;

-- Warnings: legal but risky designs
SET client_min_messages = warning;
-- a type tag not ended by a delimiter
SELECT singletable.define_entity('tags', 'Team', pk => 'ORG#{orgId}', sk => 'TEAM{teamId}');
-- another delimiter than the table's
SELECT singletable.define_entity('billing', 'Coupon', pk => 'TENANT#{tenantId}', sk => 'COUPON:{code}');
-- sort key fields that sort wrongly as text
SELECT singletable.define_entity('billing', 'Note', pk => 'TENANT#{tenantId}', sk => 'NOTE#{seq:int}');
SELECT singletable.define_entity('billing', 'Reminder', pk => 'TENANT#{tenantId}', sk => 'REMINDER#{remindAt}');
-- a zero-padded int and an ISO date do not warn
SELECT singletable.define_entity('billing', 'Credit', pk => 'TENANT#{tenantId}', sk => 'CREDIT#{seq:int(6)}#{issuedOn:date}');
SELECT singletable.entity_of('billing', 'TENANT#acme', s)
  FROM unnest(ARRAY['CREDIT#000042#2026-02-28', 'CREDIT#42#2026-02-28', 'CREDIT#000042#2026-02-30',
                    'CREDIT#000042#2024-02-29', 'CREDIT#000042#2023-02-29']) s;

-- replace => true changes an entity; without it, defining it again is an error
SELECT singletable.define_entity('billing', 'Note', pk => 'TENANT#{tenantId}', sk => 'NOTE#{seq:int(8)}');
SELECT singletable.define_entity('billing', 'Note', pk => 'TENANT#{tenantId}', sk => 'NOTE#{seq:int(8)}', replace => true);
SELECT sk_template FROM singletable.entities WHERE entity = 'Note';
SELECT singletable.drop_entity('billing', 'Note');
SELECT singletable.drop_entity('billing', 'Note');

-- Argument errors
SELECT singletable.define_entity(NULL, 'X', pk => 'A#{a}', sk => 'B');
SELECT singletable.define_entity('billing', NULL, pk => 'A#{a}', sk => 'B');
SELECT singletable.define_entity('billing', '', pk => 'A#{a}', sk => 'B');
SELECT singletable.define_entity('billing', repeat('e', 256), pk => 'A#{a}', sk => 'B');
SELECT singletable.define_entity('billing', 'X', pk => NULL, sk => 'B');
SELECT singletable.define_entity('billing', 'X', pk => 'A#{a}');
SELECT singletable.define_entity('nope', 'X', pk => 'A#{a}', sk => 'B');
SELECT singletable.create_table('pkonly', sort_key => NULL);
SELECT singletable.define_entity('pkonly', 'X', pk => 'A#{a}', sk => 'B');
SELECT singletable.define_entity('pkonly', 'X', pk => 'A#{a}');
SELECT singletable.entity_of('pkonly', 'A#1', NULL), singletable.entity_of('pkonly', 'B#1');
SELECT singletable.create_table('numbers', partition_key_type => 'N');
SELECT singletable.define_entity('numbers', 'X', pk => 'A#{a}', sk => 'B');
CREATE TABLE plain (pk text);
SELECT singletable.define_entity('plain', 'X', pk => 'A#{a}', sk => 'B');
-- template syntax
SELECT singletable.define_entity('billing', 'X', pk => '', sk => 'B');
SELECT singletable.define_entity('billing', 'X', pk => 'A#{a', sk => 'B');
SELECT singletable.define_entity('billing', 'X', pk => 'A#}', sk => 'B');
SELECT singletable.define_entity('billing', 'X', pk => 'A#{a}{b}', sk => 'B');
SELECT singletable.define_entity('billing', 'X', pk => 'A#{1a}', sk => 'B');
SELECT singletable.define_entity('billing', 'X', pk => 'A#{a-b}', sk => 'B');
SELECT singletable.define_entity('billing', 'X', pk => 'A#{}', sk => 'B');
SELECT singletable.define_entity('billing', 'X', pk => 'A#{a:float}', sk => 'B');
SELECT singletable.define_entity('billing', 'X', pk => 'A#{a:int(0)}', sk => 'B');
SELECT singletable.define_entity('billing', 'X', pk => 'A#{a:int(21)}', sk => 'B');
SELECT singletable.define_entity('billing', 'X', pk => 'A#{a}#{a}', sk => 'B');
SELECT singletable.define_entity('billing', 'X', pk => 'A#' || repeat('x', 1100), sk => 'B');
SELECT singletable.define_entity('billing', 'X', pk => 'A#' || (SELECT string_agg('{f' || i || '}#', '') FROM generate_series(1, 17) i), sk => 'B');
-- literal braces
SELECT singletable.define_entity('billing', 'Braces', pk => 'TENANT#{tenantId}', sk => 'BRACE#{{x}}#{n:int(2)}');
SELECT singletable.entity_of('billing', 'TENANT#acme', 'BRACE#{x}#07');
SELECT singletable.drop_entity('billing', 'Braces');
-- a field has one type in all of an entity's templates
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{tenantId}', sk => 'X#{tenantId:int}');
-- indexes and attributes
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{t}', sk => 'X#{x}', indexes => '[]');
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{t}', sk => 'X#{x}', indexes => '{"GSI9": {"pk": "A#{a}", "sk": "b"}}');
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{t}', sk => 'X#{x}', indexes => '{"GSI1": "A#{a}"}');
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{t}', sk => 'X#{x}', indexes => '{"GSI1": {"pk": "A#{a}", "sk": "b", "x": 1}}');
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{t}', sk => 'X#{x}', indexes => '{"GSI1": {"sk": "b"}}');
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{t}', sk => 'X#{x}', indexes => '{"GSI1": {"pk": "A#{a}"}}');
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{t}', sk => 'X#{x}', indexes => '{"GSI1": {"pk": 1, "sk": "b"}}');
SELECT singletable.create_lsi('billing', 'LSI1', 'lsi1sk');
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{t}', sk => 'X#{x}', indexes => '{"LSI1": {"pk": "A#{a}", "sk": "b"}}');
SELECT singletable.create_gsi('billing', 'GSI2', 'g2pk,g2pk2', 'g2sk');
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{t}', sk => 'X#{x}', indexes => '{"GSI2": {"pk": "A#{a}", "sk": "b"}}');
SELECT singletable.create_gsi('pkonly', 'GPK', 'gpk');
SELECT singletable.define_entity('pkonly', 'X', pk => 'A#{a}', indexes => '{"GPK": {"pk": "A#{a}", "sk": "b"}}');
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{t}', sk => 'X#{x}', attributes => '["a"]');
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{t}', sk => 'X#{x}', attributes => '{"a": "STRING"}');
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{t}', sk => 'X#{x}', attributes => '{"a": 1}');
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{t}', sk => 'X#{x}', attributes => '{"sk": "S"}');
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{t}', sk => 'X#{x}', attributes => '{"x": "S"}');
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{t}', sk => 'X#{x}', attributes => '{"": "S"}');
SELECT singletable.entity_of(NULL, 'a', 'b');
SELECT count(*) AS entities FROM singletable.entities;

-- Only the table's owner defines entities; anyone who may read it sees them
CREATE ROLE regress_st_entity_reader;
GRANT SELECT ON billing TO regress_st_entity_reader;
SET ROLE regress_st_entity_reader;
SELECT singletable.define_entity('billing', 'X', pk => 'TENANT#{t}', sk => 'X#{x}');
SELECT singletable.drop_entity('billing', 'Invoice');
SELECT singletable.entity_of('billing', 'TENANT#acme', 'INVOICE#1');
SELECT count(*) FROM singletable.entities WHERE table_name = 'billing'::regclass;
SELECT singletable.entity_of('posting', 'USER#1', 'PROFILE');
RESET ROLE;

-- The registry follows its table: renames, dropped indexes, dropped tables
ALTER TABLE billing RENAME TO invoices;
SELECT DISTINCT table_name FROM singletable.entities WHERE table_name = 'invoices'::regclass;
SELECT singletable.entity_of('invoices', 'TENANT#acme', 'INVOICE#1');
SELECT singletable.drop_gsi('invoices', 'GSI1');
SELECT entity, index_templates FROM singletable.entities WHERE table_name = 'invoices'::regclass ORDER BY 1;
SELECT singletable.drop_table('invoices');
DROP TABLE tags;
SELECT count(*) AS entities_left, array_agg(DISTINCT table_name::text) FROM singletable.entities;
SELECT singletable.drop_table('posting');
SELECT singletable.drop_table('pkonly');
SELECT singletable.drop_table('numbers');
DROP TABLE plain;
DROP ROLE regress_st_entity_reader;
SELECT count(*) AS entities_left FROM singletable.entities;
