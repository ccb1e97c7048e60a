-- test/viewer/posting.sql: the data of the viewer's browser test (test/viewer/run.sh), loaded
-- as the superuser: the posting app (README "Entities") in table app with GSI1 (the
-- scheduler: approved posts by publish time) and TTL on expiresAt, an item holding a script
-- and one matching no entity; the billing tenant of README "Designing a table" (200 users of
-- 2 KB in TENANT#acme, test/regress/sql/cost.sql's figures); and the role viewer_denied,
-- which may SELECT app but which app's row-level security gives no row.
SET client_min_messages = error;   -- the write check's WARNINGs (the unmatched item is on purpose)
CREATE EXTENSION IF NOT EXISTS singletable;

SELECT singletable.create_table('app');
SELECT singletable.create_gsi('app', 'GSI1', partition_key => 'gsi1pk', sort_key => 'gsi1sk');
SELECT singletable.enable_ttl('app', 'expiresAt');
SELECT singletable.define_entity('app', 'User', pk => 'USER#{userId}', sk => 'PROFILE');
SELECT singletable.define_entity('app', 'Post', pk => 'USER#{userId}', sk => 'POST#{postId}',
         indexes => '{"GSI1": {"pk": "STATUS#{status}", "sk": "{publishAt:timestamp}"}}',
         attributes => '{"title": "S"}');
SELECT singletable.define_entity('app', 'Integration', pk => 'USER#{userId}', sk => 'INTEG#{provider}');
SELECT singletable.define_entity('app', 'Library', pk => 'USER#{userId}', sk => 'LIBRARY#{kind}#{name}');
SELECT singletable.define_entity('app', 'Folder', pk => 'USER#{userId}', sk => 'SOURCE#FOLDER#{folderId}');
SELECT singletable.define_entity('app', 'Analytics', pk => 'USER#{userId}', sk => 'ANALYTICS#{postId}');
SELECT singletable.define_entity('app', 'PostSource', pk => 'POST#{postId}', sk => 'SOURCE#{fileId}');
SELECT singletable.define_entity('app', 'Metrics', pk => 'POST#{postId}', sk => 'METRICS#{capturedAt:timestamp}');

SELECT singletable.put_item('app', i) FROM jsonb_array_elements('[
  {"pk": "USER#u_1001", "sk": "PROFILE", "name": "Aiko", "plan": "pro"},
  {"pk": "USER#u_1001", "sk": "POST#p_0017", "title": "Single-table on Postgres", "status": "approved",
   "publishAt": "2026-06-23T09:00:00Z", "gsi1pk": "STATUS#approved", "gsi1sk": "2026-06-23T09:00:00Z"},
  {"pk": "USER#u_1001", "sk": "POST#p_0018", "title": "Key overloading", "status": "draft"},
  {"pk": "USER#u_1001", "sk": "POST#p_0019", "title": "begins_with is a range", "status": "draft"},
  {"pk": "USER#u_1001", "sk": "POST#p_0020", "title": "Sparse indexes", "status": "approved",
   "publishAt": "2026-06-22T08:00:00Z", "gsi1pk": "STATUS#approved", "gsi1sk": "2026-06-22T08:00:00Z"},
  {"pk": "USER#u_1001", "sk": "LIBRARY#HASHTAG#postgres", "tags": ["#postgres", "#dynamodb"]},
  {"pk": "USER#u_1001", "sk": "INTEG#GOOGLE", "account": "aiko@example.com"},
  {"pk": "USER#u_1001", "sk": "INTEG#X", "handle": "aiko_dev"},
  {"pk": "USER#u_1001", "sk": "SOURCE#FOLDER#fld_01", "name": "Campaign assets"},
  {"pk": "USER#u_1001", "sk": "ANALYTICS#p_0017", "impressions": 4210, "likes": 233},
  {"pk": "USER#u_1001", "sk": "NOTE#xss", "title": "<script>alert(1)</script>",
   "body": "<img src=x onerror=\"window.__xss = 1\">"},
  {"pk": "USER#u_1002", "sk": "PROFILE", "name": "Ben", "plan": "free"},
  {"pk": "USER#u_1002", "sk": "POST#p_0101", "title": "Launch checklist", "status": "approved",
   "publishAt": "2026-06-24T07:30:00Z", "gsi1pk": "STATUS#approved", "gsi1sk": "2026-06-24T07:30:00Z"},
  {"pk": "POST#p_0017", "sk": "SOURCE#f_01", "file": "cover.png"},
  {"pk": "POST#p_0017", "sk": "SOURCE#f_02", "file": "draft.md"},
  {"pk": "POST#p_0017", "sk": "METRICS#2026-06-23T10:00:00Z", "views": 120, "expiresAt": 4102444800},
  {"pk": "POST#p_0017", "sk": "METRICS#2026-06-23T11:00:00Z", "views": 310, "expiresAt": 4102444800}
]'::jsonb) i;

-- the billing tenant: 200 users of 2 KB (408,000 bytes: 50 eventually consistent read units)
SELECT singletable.create_table('billing');
SELECT singletable.define_entity('billing', 'User',    pk => 'TENANT#{tenantId}', sk => 'USER#{userId}');
SELECT singletable.define_entity('billing', 'Invoice', pk => 'TENANT#{tenantId}', sk => 'INVOICE#{invoiceId}');
SELECT singletable.define_entity('billing', 'Event',   pk => 'TENANT#{tenantId}', sk => 'EVENT#{at:timestamp}');
INSERT INTO billing SELECT 'TENANT#acme', 'USER#' || lpad(i::text, 4, '0'),
       jsonb_build_object('pk', 'TENANT#acme', 'sk', 'USER#' || lpad(i::text, 4, '0'), 'pad', repeat('x', 2013))
  FROM generate_series(1, 200) i;
INSERT INTO billing VALUES ('TENANT#acme', 'INVOICE#2026-0014', '{"pk": "TENANT#acme", "sk": "INVOICE#2026-0014", "total": 120}'),
                           ('TENANT#acme', 'EVENT#2026-06-23T09:12:00Z', '{"pk": "TENANT#acme", "sk": "EVENT#2026-06-23T09:12:00Z", "kind": "login"}');

-- app's stream, after its items: the viewer's edit (a PutItem) is its record
SELECT singletable.enable_stream('app', 'NEW_AND_OLD_IMAGES') IS NOT NULL;

-- a role that may read app, to which row-level security gives no row (no policy is its)
DO $$ BEGIN CREATE ROLE viewer_denied; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
GRANT USAGE ON SCHEMA public TO viewer_denied;
GRANT SELECT ON app, billing TO viewer_denied;
DO $$ BEGIN CREATE ROLE viewer_tenant; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
ALTER TABLE app ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON app TO viewer_tenant USING (true);
