-- test/demo/posting_app.sql: a SaaS app that schedules social-media posts, as one
-- singletable item-collection table, then each of its access patterns.
-- test/demo.sh runs it after CREATE EXTENSION singletable; by hand:
--   psql -X -v ON_ERROR_STOP=1 -f test/demo/posting_app.sql
-- It can be run again: it drops and recreates the table.
--
-- Key design (entity type = prefix of the key values, '#' as delimiter):
--   user profile        pk USER#{userId}  sk PROFILE
--   post                pk USER#{userId}  sk POST#{postId}
--   library entry       pk USER#{userId}  sk LIBRARY#{kind}#{name}
--   Google integration  pk USER#{userId}  sk INTEG#GOOGLE
--   X integration       pk USER#{userId}  sk INTEG#X#{handle}
--   Drive folder        pk USER#{userId}  sk SOURCE#FOLDER#{folderId}
--   analytics roll-up   pk USER#{userId}  sk ANALYTICS#{postId}
--   post source file    pk POST#{postId}  sk SOURCE#{fileId}
--   post metrics        pk POST#{postId}  sk METRICS#{capturedAt}   (ttl: epoch seconds)
--   team member         pk TEAM#{teamId}  sk MEMBER#{userId}
-- GSI1 (sparse, overloaded; gsi1pk and gsi1sk are both S):
--   approved post       gsi1pk STATUS#approved  gsi1sk publishAt (ISO-8601, UTC, 'Z')
--   team member         gsi1pk ROLE#{role}      gsi1sk joinedAt  (ISO-8601, UTC, 'Z')
-- Drafts, profiles and every other item carry no gsi1pk, so they are not in GSI1 at all.
-- (The team member is not in the seed's table: it is here to show the overloaded GSI.)

\set QUIET on
\pset null '(null)'
-- Some results are wide: on a terminal the pager would stop the demo until one quits it.
\pset pager off

-- Start from scratch, quietly (no NOTICE when there is nothing to drop).
SET client_min_messages = warning;
DROP TABLE IF EXISTS posting_app;
RESET client_min_messages;
\set QUIET off

-- From here on every statement is printed before its result.
\set ECHO queries

\echo
\echo '=== Create the table and its sparse GSI (gsi1pk, gsi1sk; both S, the defaults) ==='
SELECT singletable.create_table('posting_app');
SELECT singletable.create_gsi('posting_app', 'gsi1', partition_key => 'gsi1pk', sort_key => 'gsi1sk');

\echo
\echo '=== Load the items: 38 put_item calls, one per item (not echoed: read them in test/demo/posting_app.sql) ==='
\o /dev/null
\set ECHO none
-- user u_1001
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1001", "sk": "PROFILE", "name": "Aiko Tanaka", "email": "aiko@example.com", "plan": "pro", "timezone": "Asia/Tokyo", "createdAt": "2026-01-12T08:30:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1001", "sk": "POST#p_2001", "title": "Postgres can do single-table design", "status": "approved", "publishAt": "2026-06-23T09:00:00Z", "gsi1pk": "STATUS#approved", "gsi1sk": "2026-06-23T09:00:00Z", "createdAt": "2026-06-20T10:00:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1001", "sk": "POST#p_2002", "title": "Draft: key overloading explained", "status": "draft", "createdAt": "2026-06-21T14:10:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1001", "sk": "POST#p_2003", "title": "begins_with is a range scan", "status": "approved", "publishAt": "2026-06-26T12:30:00Z", "gsi1pk": "STATUS#approved", "gsi1sk": "2026-06-26T12:30:00Z", "createdAt": "2026-06-22T09:45:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1001", "sk": "LIBRARY#HASHTAG#postgres", "tags": ["#postgres", "#dynamodb", "#singletable"]}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1001", "sk": "LIBRARY#TEMPLATE#weekly-recap", "body": "This week: {{highlights}}"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1001", "sk": "INTEG#GOOGLE", "account": "aiko@example.com", "scopes": ["drive.readonly"], "connectedAt": "2026-01-12T08:35:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1001", "sk": "INTEG#X#aiko_dev", "handle": "aiko_dev", "connectedAt": "2026-01-13T19:00:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1001", "sk": "INTEG#X#aiko_news", "handle": "aiko_news", "connectedAt": "2026-02-02T07:20:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1001", "sk": "SOURCE#FOLDER#fld_01", "name": "Campaign assets", "driveFolderId": "1AbCdEf01"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1001", "sk": "SOURCE#FOLDER#fld_02", "name": "Screenshots", "driveFolderId": "1AbCdEf02"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1001", "sk": "ANALYTICS#p_2001", "impressions": 4210, "likes": 233, "reposts": 41, "updatedAt": "2026-06-24T09:12:00Z"}');
-- user u_1002
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1002", "sk": "PROFILE", "name": "Ben Okafor", "email": "ben@example.com", "plan": "free", "timezone": "Europe/London", "createdAt": "2026-03-03T11:00:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1002", "sk": "POST#p_2101", "title": "Launch day checklist", "status": "approved", "publishAt": "2026-06-24T07:30:00Z", "gsi1pk": "STATUS#approved", "gsi1sk": "2026-06-24T07:30:00Z", "createdAt": "2026-06-22T16:00:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1002", "sk": "POST#p_2102", "title": "Draft: what we learned", "status": "draft", "createdAt": "2026-06-23T08:00:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1002", "sk": "LIBRARY#TEMPLATE#launch", "body": "We just shipped {{feature}}!"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1002", "sk": "INTEG#GOOGLE", "account": "ben@example.com", "scopes": ["drive.readonly"], "connectedAt": "2026-03-03T11:05:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1002", "sk": "INTEG#X#ben_builds", "handle": "ben_builds", "connectedAt": "2026-03-03T11:10:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1002", "sk": "SOURCE#FOLDER#fld_11", "name": "Launch kit", "driveFolderId": "1XyZ11"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1002", "sk": "ANALYTICS#p_2101", "impressions": 980, "likes": 51, "reposts": 7, "updatedAt": "2026-06-24T09:12:00Z"}');
-- user u_1003
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1003", "sk": "PROFILE", "name": "Chen Wei", "email": "chen@example.com", "plan": "free", "timezone": "America/Toronto", "createdAt": "2026-04-18T15:20:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1003", "sk": "POST#p_2201", "title": "Draft: charts that lie", "status": "draft", "createdAt": "2026-06-19T12:00:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1003", "sk": "POST#p_2202", "title": "Five dataviz tips", "status": "approved", "publishAt": "2026-06-25T18:00:00Z", "gsi1pk": "STATUS#approved", "gsi1sk": "2026-06-25T18:00:00Z", "createdAt": "2026-06-20T13:30:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1003", "sk": "LIBRARY#HASHTAG#dataviz", "tags": ["#dataviz", "#charts"]}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1003", "sk": "INTEG#GOOGLE", "account": "chen@example.com", "scopes": ["drive.readonly"], "connectedAt": "2026-04-18T15:25:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1003", "sk": "INTEG#X#chen_charts", "handle": "chen_charts", "connectedAt": "2026-04-19T10:00:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1003", "sk": "SOURCE#FOLDER#fld_21", "name": "Chart exports", "driveFolderId": "1QrS21"}');
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1003", "sk": "ANALYTICS#p_2202", "impressions": 0, "likes": 0, "reposts": 0, "updatedAt": "2026-06-24T09:12:00Z"}');
-- post collections: source files and metrics (a time series; ttl = capturedAt + 30 days)
SELECT singletable.put_item('posting_app', '{"pk": "POST#p_2001", "sk": "SOURCE#f_3001", "fileName": "hero.png", "mimeType": "image/png", "driveFileId": "1FiLe3001", "folderId": "fld_01"}');
SELECT singletable.put_item('posting_app', '{"pk": "POST#p_2001", "sk": "SOURCE#f_3002", "fileName": "notes.md", "mimeType": "text/markdown", "driveFileId": "1FiLe3002", "folderId": "fld_01"}');
SELECT singletable.put_item('posting_app', '{"pk": "POST#p_2001", "sk": "METRICS#2026-06-23T09:12Z", "impressions": 1520, "likes": 87, "reposts": 12, "ttl": 1784797920}');
SELECT singletable.put_item('posting_app', '{"pk": "POST#p_2001", "sk": "METRICS#2026-06-23T15:12Z", "impressions": 3075, "likes": 164, "reposts": 29, "ttl": 1784819520}');
SELECT singletable.put_item('posting_app', '{"pk": "POST#p_2001", "sk": "METRICS#2026-06-24T09:12Z", "impressions": 4210, "likes": 233, "reposts": 41, "ttl": 1784884320}');
SELECT singletable.put_item('posting_app', '{"pk": "POST#p_2101", "sk": "SOURCE#f_3101", "fileName": "checklist.pdf", "mimeType": "application/pdf", "driveFileId": "1FiLe3101", "folderId": "fld_11"}');
SELECT singletable.put_item('posting_app', '{"pk": "POST#p_2101", "sk": "METRICS#2026-06-24T09:12Z", "impressions": 980, "likes": 51, "reposts": 7, "ttl": 1784884320}');
SELECT singletable.put_item('posting_app', '{"pk": "POST#p_2202", "sk": "SOURCE#f_3201", "fileName": "tips.png", "mimeType": "image/png", "driveFileId": "1FiLe3201", "folderId": "fld_21"}');
-- team members: the same gsi1pk/gsi1sk attributes, another meaning (role, join time);
-- u_1003 created the team, u_1001 and u_1002 joined it later
SELECT singletable.put_item('posting_app', '{"pk": "TEAM#t_01", "sk": "MEMBER#u_1001", "role": "admin", "joinedAt": "2026-05-02T09:00:00Z", "gsi1pk": "ROLE#admin", "gsi1sk": "2026-05-02T09:00:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "TEAM#t_01", "sk": "MEMBER#u_1002", "role": "editor", "joinedAt": "2026-05-03T11:15:00Z", "gsi1pk": "ROLE#editor", "gsi1sk": "2026-05-03T11:15:00Z"}');
SELECT singletable.put_item('posting_app', '{"pk": "TEAM#t_01", "sk": "MEMBER#u_1003", "role": "admin", "joinedAt": "2026-04-18T15:30:00Z", "gsi1pk": "ROLE#admin", "gsi1sk": "2026-04-18T15:30:00Z"}');
\set ECHO queries
-- 5,000 more users with a profile and two draft posts each, so that the table is big enough
-- for the planner to prefer the index over a sequential scan, as on a real table.
SELECT count(singletable.put_item('posting_app', item))
  FROM generate_series(1, 5000) AS u(n),
       LATERAL (VALUES
         (jsonb_build_object('pk', 'USER#u_' || (900000 + n), 'sk', 'PROFILE', 'name', 'User ' || n, 'plan', 'free')),
         (jsonb_build_object('pk', 'USER#u_' || (900000 + n), 'sk', 'POST#p_' || (900000 + n) || '_1', 'title', 'Hello', 'status', 'draft')),
         (jsonb_build_object('pk', 'USER#u_' || (900000 + n), 'sk', 'POST#p_' || (900000 + n) || '_2', 'title', 'Hello again', 'status', 'draft'))
       ) AS v(item);
\o
ANALYZE posting_app;
SELECT count(*) AS items FROM posting_app;

\echo
\echo '--- put_item replaces the whole item; return_values => ''ALL_OLD'' returns the previous one (NULL when it is new)'
SELECT singletable.put_item('posting_app', '{"pk": "USER#u_1003", "sk": "PROFILE", "name": "Chen Wei", "email": "chen@example.com", "plan": "pro", "timezone": "America/Toronto", "createdAt": "2026-04-18T15:20:00Z"}',
                            return_values => 'ALL_OLD') AS previous;

\echo
\echo '=== Access patterns: each one is one Query, i.e. one btree range of one item collection ==='

\echo
\echo '--- 1. All posts of a user'
SELECT sk, item->>'title' AS title, item->>'status' AS status
  FROM singletable.query('posting_app', 'USER#u_1001', 'begins_with', 'POST#');

\echo
\echo '--- 2. The library of a user'
SELECT sk, item FROM singletable.query('posting_app', 'USER#u_1001', 'begins_with', 'LIBRARY#');

\echo
\echo '--- 3. X integrations of a user (INTEG#X#, which leaves out INTEG#GOOGLE)'
SELECT sk, item->>'handle' AS handle FROM singletable.query('posting_app', 'USER#u_1001', 'begins_with', 'INTEG#X#');

\echo
\echo '--- 4. Drive folders of a user'
SELECT sk, item->>'name' AS name FROM singletable.query('posting_app', 'USER#u_1001', 'begins_with', 'SOURCE#FOLDER#');

\echo
\echo '--- 5. The profile of a user: get_item by the full key, or a Query with sk = PROFILE'
SELECT singletable.get_item('posting_app', 'USER#u_1001', 'PROFILE');
SELECT * FROM singletable.query('posting_app', 'USER#u_1001', '=', 'PROFILE');
\echo '    an absent item is NULL:'
SELECT singletable.get_item('posting_app', 'USER#u_4242', 'PROFILE');

\echo
\echo '--- 6. Source files of a post (another collection: pk POST#p_2001)'
SELECT sk, item->>'fileName' AS file, item->>'mimeType' AS mime
  FROM singletable.query('posting_app', 'POST#p_2001', 'begins_with', 'SOURCE#');

\echo
\echo '--- 7. Metrics of a post on one day (ISO-8601 timestamps sort as strings, so a day is a prefix)'
SELECT sk, (item->>'impressions')::int AS impressions, (item->>'likes')::int AS likes, item->'ttl' AS ttl
  FROM singletable.query('posting_app', 'POST#p_2001', 'begins_with', 'METRICS#2026-06-23');

\echo
\echo '--- 8. The whole user collection in one query, in sk order; the application dispatches on the sk prefix'
SELECT split_part(sk, '#', 1) AS entity, sk, item
  FROM singletable.query('posting_app', 'USER#u_1001');

\echo
\echo '--- 9. Paging: max_items = 2, then continue after the last key of the page (LastEvaluatedKey)'
SELECT sk, item->>'title' AS title
  FROM singletable.query('posting_app', 'USER#u_1001', 'begins_with', 'POST#', max_items => 2);
SELECT sk AS last_evaluated_sk
  FROM singletable.query('posting_app', 'USER#u_1001', 'begins_with', 'POST#', max_items => 2)
       WITH ORDINALITY AS page(pk, sk, item, n)
 ORDER BY n DESC LIMIT 1 \gset
\echo 'last_evaluated_sk =' :'last_evaluated_sk'
SELECT sk, item->>'title' AS title
  FROM singletable.query('posting_app', 'USER#u_1001', 'begins_with', 'POST#', max_items => 2,
                         exclusive_start_sk => :'last_evaluated_sk');

\echo
\echo '--- 10. Backwards (ScanIndexForward = false): the newest post ids first'
SELECT sk, item->>'title' AS title
  FROM singletable.query('posting_app', 'USER#u_1001', 'begins_with', 'POST#', forward => false);

\echo
\echo '--- 11. Scheduler: approved posts of all users by publishAt, one Query on GSI1'
\echo '    (gsi1pk = STATUS#approved, in gsi1sk = publishAt order; the rows carry the table keys)'
SELECT item->>'gsi1sk' AS publish_at, pk, sk, item->>'title' AS title
  FROM singletable.query('posting_app', 'STATUS#approved', index_name => 'gsi1');
\echo '    The scheduler''s next batch: the next 2 posts due by 2026-06-26T00:00:00Z (3 are due;'
\echo '    max_items reads 2). ISO-8601 strings in one format and zone sort as time does:'
SELECT item->>'gsi1sk' AS publish_at, pk, sk, item->>'title' AS title
  FROM singletable.query('posting_app', 'STATUS#approved', '<=', '2026-06-26T00:00:00Z',
                         max_items => 2, index_name => 'gsi1');
\echo '    The schedule screen for June 25 and 26 (between), latest first:'
SELECT item->>'gsi1sk' AS publish_at, pk, sk, item->>'title' AS title
  FROM singletable.query('posting_app', 'STATUS#approved', 'between', '2026-06-25T00:00:00Z',
                         '2026-06-26T23:59:59Z', forward => false, index_name => 'gsi1');
\echo '    Its plan: one range of the GSI''s btree (posting_app_gsi1_gsi), the whole key condition'
\echo '    in the Index Cond, max_items as the Limit; none of the 15,000 other items is read:'
SELECT * FROM singletable.explain_query('posting_app', 'STATUS#approved', '<=', '2026-06-26T00:00:00Z',
                                        max_items => 2, index_name => 'gsi1');

\echo
\echo '--- 11a. Approving a draft puts it in the scheduler, unpublishing takes it out. The index is'
\echo '    written with the item (not eventually, as in DynamoDB): each read below, in the same'
\echo '    transaction, sees the write before it.'
BEGIN;
SELECT singletable.update_item('posting_app', 'USER#u_1002', 'POST#p_2102',
         'SET #s = :approved, publishAt = :at, gsi1pk = :queue, gsi1sk = :at',
         names => '{"#s": "status"}',
         vals => '{":approved": "approved", ":at": "2026-06-24T12:00:00Z", ":queue": "STATUS#approved"}',
         return_values => 'UPDATED_NEW');
\echo '    p_2102 is now due at 2026-06-24T12:00:00Z, between p_2101 and p_2202:'
SELECT item->>'gsi1sk' AS publish_at, pk, sk, item->>'title' AS title
  FROM singletable.query('posting_app', 'STATUS#approved', index_name => 'gsi1');
SELECT singletable.update_item('posting_app', 'USER#u_1002', 'POST#p_2102',
         'SET #s = :draft REMOVE publishAt, gsi1pk, gsi1sk',
         names => '{"#s": "status"}', vals => '{":draft": "draft"}', return_values => 'UPDATED_NEW');
\echo '    back to a draft: no gsi1pk, so it is gone from the index (the post itself is still there):'
SELECT item->>'gsi1sk' AS publish_at, pk, sk, item->>'title' AS title
  FROM singletable.query('posting_app', 'STATUS#approved', index_name => 'gsi1');
SELECT sk, item->>'status' AS status FROM singletable.query('posting_app', 'USER#u_1002', '=', 'POST#p_2102');
COMMIT;

\echo
\echo '--- 11b. The same index, overloaded: the admins of teams (gsi1pk = ROLE#admin), in joinedAt'
\echo '    order (u_1003 joined first: index order, not table-key order)'
SELECT item->>'gsi1sk' AS joined_at, pk, sk, item->>'role' AS role
  FROM singletable.query('posting_app', 'ROLE#admin', index_name => 'gsi1');
\echo '    Each gsi1pk value is its own partition of the index: STATUS#approved holds only posts'
\echo '    (no member came back in 11), ROLE#admin only admins (the editor is in ROLE#editor).'

\echo
\echo '--- 11c. The index is sparse: only the items that carry gsi1pk and gsi1sk are in it'
\echo '    Its predicate (the WHERE of the partial index) is the JSON type test of both keys:'
SELECT pg_get_indexdef('posting_app_gsi1_gsi'::regclass) AS gsi1;
\echo '    Plain SQL with that predicate counts the index''s entries (an Index Only Scan of the'
\echo '    GSI): 7, against 15,039 items in the table; none of them a draft or a profile:'
SELECT count(*) AS in_gsi1
  FROM posting_app
 WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'string';
EXPLAIN (COSTS OFF)
SELECT count(*) AS in_gsi1
  FROM posting_app
 WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'string';
SELECT count(*) AS items,
       count(*) FILTER (WHERE item->>'status' = 'draft') AS drafts,
       count(*) FILTER (WHERE sk = 'PROFILE') AS profiles
  FROM posting_app;
SELECT count(*) AS drafts_or_profiles_in_gsi1
  FROM posting_app
 WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'string'
   AND (item->>'status' = 'draft' OR sk = 'PROFILE');
\echo '    By partition of the index:'
SELECT item->>'gsi1pk' AS gsi1pk, count(*) AS entries
  FROM posting_app
 WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'string'
 GROUP BY 1 ORDER BY 1;
\echo '    Its size is that of 7 entries (one metapage, one leaf page), not of the table:'
SELECT pg_size_pretty(pg_relation_size('posting_app_gsi1_gsi')) AS gsi1_size,
       pg_size_pretty(pg_relation_size('posting_app_pkey')) AS primary_key_size;

\echo
\echo '=== Plain SQL over the same table: begins_with is an index range there too ==='
SELECT sk, item->>'title' AS title
  FROM posting_app
 WHERE pk = 'USER#u_1001' AND singletable.begins_with(sk, 'POST#');
EXPLAIN (COSTS OFF)
SELECT sk, item->>'title' AS title
  FROM posting_app
 WHERE pk = 'USER#u_1001' AND singletable.begins_with(sk, 'POST#');

\echo
\echo '--- ... also with bind parameters, in a generic plan (as drivers with prepared statements get)'
SET plan_cache_mode = force_generic_plan;
PREPARE posts(text, text) AS
SELECT sk, item->>'title' AS title
  FROM posting_app
 WHERE pk = $1 AND singletable.begins_with(sk, $2);
EXECUTE posts('USER#u_1001', 'POST#');
EXPLAIN (COSTS OFF) EXECUTE posts('USER#u_1001', 'POST#');
DEALLOCATE posts;
RESET plan_cache_mode;

\echo
\echo '--- The scheduler in plain SQL: GSI1 serves the WHERE clause that repeats the index''s'
\echo '    predicate (the type tests) and its typed, COLLATE "C" expressions; ORDER BY is index order'
SELECT item->>'gsi1sk' AS publish_at, pk, sk
  FROM posting_app
 WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'string'
   AND (item ->> 'gsi1pk') COLLATE "C" = 'STATUS#approved'
   AND (item ->> 'gsi1sk') COLLATE "C" <= '2026-06-26T00:00:00Z'
 ORDER BY (item ->> 'gsi1sk') COLLATE "C", pk, sk;
EXPLAIN (COSTS OFF)
SELECT item->>'gsi1sk' AS publish_at, pk, sk
  FROM posting_app
 WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'string'
   AND (item ->> 'gsi1pk') COLLATE "C" = 'STATUS#approved'
   AND (item ->> 'gsi1sk') COLLATE "C" <= '2026-06-26T00:00:00Z'
 ORDER BY (item ->> 'gsi1sk') COLLATE "C", pk, sk;
\echo '    The naive WHERE item->>''gsi1pk'' = ... matches neither, so it reads the whole table:'
EXPLAIN (COSTS OFF)
SELECT item->>'gsi1sk' AS publish_at, pk, sk
  FROM posting_app
 WHERE item->>'gsi1pk' = 'STATUS#approved'
 ORDER BY item->>'gsi1sk';

\echo
\echo '--- The plan of a singletable.query call'
SELECT * FROM singletable.explain_query('posting_app', 'USER#u_1001', 'begins_with', 'POST#');

\echo
\echo '--- The table (DescribeTable), its GSI1 included: 7 items of 15,039'
SELECT jsonb_pretty(singletable.describe_table('posting_app')) AS describe_table;

\echo
\echo '=== Writes with DynamoDB expressions ==='
\echo '--- Approve a draft only if it is still a draft (STATUS is a reserved word: #s);'
\echo '    gsi1pk/gsi1sk put it in the scheduler''s GSI, as in 11a'
SELECT singletable.update_item('posting_app', 'USER#u_1001', 'POST#p_2002',
         'SET #s = :approved, publishAt = :at, gsi1pk = :queue, gsi1sk = :at', condition => '#s = :draft',
         names => '{"#s": "status"}',
         vals => '{":approved": "approved", ":draft": "draft", ":at": "2026-06-28T09:00:00Z", ":queue": "STATUS#approved"}',
         return_values => 'UPDATED_NEW');
\echo '--- Doing it again fails with SQLSTATE 23S01 (ConditionalCheckFailed), caught here'
DO $$
BEGIN
  PERFORM singletable.update_item('posting_app', 'USER#u_1001', 'POST#p_2002',
            'SET #s = :approved', condition => '#s = :draft', names => '{"#s": "status"}',
            vals => '{":approved": "approved", ":draft": "draft"}');
EXCEPTION WHEN SQLSTATE '23S01' THEN
  RAISE NOTICE 'conditional check failed: the post is no longer a draft';
END $$;
\echo '--- A view counter (ADD creates it, then increments it atomically)'
SELECT singletable.update_item('posting_app', 'USER#u_1001', 'ANALYTICS#p_2001', 'ADD #v :one',
         names => '{"#v": "views"}', vals => '{":one": 1}', return_values => 'UPDATED_NEW');
\echo '--- Only the approved posts, only title and publishAt (filter and projection)'
SELECT sk, item FROM singletable.query('posting_app', 'USER#u_1001', 'begins_with', 'POST#',
         filter => '#s = :a', projection => 'title, publishAt',
         names => '{"#s": "status"}', vals => '{":a": "approved"}');

\echo
\echo '=== 12. TTL: metrics time series expire (attribute ttl, epoch seconds) ==='
\echo '--- A fresh data point, expiring in 30 days; the ones above expired in July'
SELECT singletable.put_item('posting_app', jsonb_build_object('pk', 'POST#p_2001', 'sk', 'METRICS#2026-11-30T09:12Z',
         'impressions', 9120, 'likes', 402, 'reposts', 77, 'ttl', extract(epoch FROM now())::bigint + 30 * 86400));
SELECT singletable.enable_ttl('posting_app', 'ttl');
\echo '--- Expired items are hidden from every read at once (DynamoDB would still return them for days)'
SELECT sk, item->'impressions' AS impressions FROM singletable.query('posting_app', 'POST#p_2001', 'begins_with', 'METRICS#');
\echo '    ... unless asked for:'
SELECT sk, to_timestamp((item->>'ttl')::numeric) AS expires
  FROM singletable.query('posting_app', 'POST#p_2001', 'begins_with', 'METRICS#', include_expired => true);
\echo '--- What is waiting to be swept'
SELECT table_name, attribute_name, backlog FROM singletable.ttl_status;
\echo '--- With shared_preload_libraries = ''singletable'' a background worker sweeps every'
\echo '    singletable.ttl_interval seconds; this demo server has no preload, so sweep by hand'
\echo '    (schedulable with pg_cron): it deletes by the TTL index, in batches, skipping locked items'
SELECT singletable.ttl_sweep('posting_app') AS deleted;
SELECT table_name, backlog FROM singletable.ttl_status;
SELECT sk FROM singletable.query('posting_app', 'POST#p_2001', 'begins_with', 'METRICS#', include_expired => true);

\echo
\echo '=== 13. What each access pattern costs, in DynamoDB''s units ==='
\echo '--- A user''s posts (access pattern 2): the items it evaluates, their bytes, its read capacity'
SELECT count(*) FROM singletable.query('posting_app', 'USER#u_1001', 'begins_with', 'POST#');
SELECT singletable.last_consumed_capacity();
\echo '--- The same read eventually consistent costs half; a GSI read is always eventually consistent'
SELECT count(*) FROM singletable.query('posting_app', 'USER#u_1001', 'begins_with', 'POST#', consistent_read => false);
SELECT singletable.last_consumed_capacity() -> 'CapacityUnits' AS eventually_consistent;
\echo '--- Priced before running: estimate_query (from the size index alone once there is one)'
SELECT singletable.create_size_index('posting_app');
VACUUM (INDEX_CLEANUP ON) posting_app;
SELECT * FROM singletable.estimate_query('posting_app', 'POST#p_2001');
\echo '--- One DynamoDB page of that collection (Items left out here), with where to continue'
SELECT p - 'Items' AS page FROM singletable.query_page('posting_app', 'POST#p_2001', max_items => 5) p;
\echo '--- Which access pattern cost what so far in this session (singletable.table_stats)'
SELECT index_name, operation, calls, items_read, items_returned, read_capacity_units, write_capacity_units,
       conditional_check_failures
  FROM singletable.table_stats WHERE table_name = 'posting_app'::regclass ORDER BY index_name NULLS FIRST, operation;
