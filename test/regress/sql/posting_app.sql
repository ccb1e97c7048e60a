-- posting_app: the SaaS posting app of the mission brief (seed 000) as one table,
-- several users, every access pattern checked with its result and its plan
-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('posting');
-- GSI1, sparse and overloaded: approved posts carry gsi1pk = STATUS#approved and
-- gsi1sk = publishAt (ISO-8601), team members gsi1pk = ROLE#{role} and gsi1sk = joinedAt;
-- drafts, profiles and everything else carry no gsi1pk and are not in the index
SELECT singletable.create_gsi('posting', 'gsi1', 'gsi1pk', 'gsi1sk');
-- three users with profile, posts (draft/approved), library, integrations,
-- folders and analytics; posts with source files and a metrics time series
SELECT count(*) AS items_written FROM (
  SELECT singletable.put_item('posting', i) FROM unnest(ARRAY[
    '{"pk": "USER#u_1001", "sk": "PROFILE", "name": "Aiko", "plan": "pro"}',
    '{"pk": "USER#u_1001", "sk": "POST#p_0017", "title": "Single-table on Postgres", "status": "approved", "publishAt": "2026-06-23T09:00:00Z", "gsi1pk": "STATUS#approved", "gsi1sk": "2026-06-23T09:00:00Z"}',
    '{"pk": "USER#u_1001", "sk": "POST#p_0018", "title": "Key overloading", "status": "draft"}',
    '{"pk": "USER#u_1001", "sk": "POST#p_0019", "title": "begins_with is a range", "status": "approved", "publishAt": "2026-06-26T12:30:00Z", "gsi1pk": "STATUS#approved", "gsi1sk": "2026-06-26T12:30:00Z"}',
    '{"pk": "USER#u_1001", "sk": "LIBRARY#HASHTAG#postgres", "tags": ["#postgres", "#dynamodb"]}',
    '{"pk": "USER#u_1001", "sk": "LIBRARY#TEMPLATE#weekly", "body": "This week: {{highlights}}"}',
    '{"pk": "USER#u_1001", "sk": "INTEG#GOOGLE", "account": "aiko@example.com"}',
    '{"pk": "USER#u_1001", "sk": "INTEG#X#aiko_dev", "handle": "aiko_dev"}',
    '{"pk": "USER#u_1001", "sk": "INTEG#X#aiko_news", "handle": "aiko_news"}',
    '{"pk": "USER#u_1001", "sk": "SOURCE#FOLDER#fld_01", "name": "Campaign assets"}',
    '{"pk": "USER#u_1001", "sk": "SOURCE#FOLDER#fld_02", "name": "Screenshots"}',
    '{"pk": "USER#u_1001", "sk": "ANALYTICS#p_0017", "impressions": 4210, "likes": 233}',
    '{"pk": "USER#u_1002", "sk": "PROFILE", "name": "Ben", "plan": "free"}',
    '{"pk": "USER#u_1002", "sk": "POST#p_0101", "title": "Launch checklist", "status": "approved", "publishAt": "2026-06-24T07:30:00Z", "gsi1pk": "STATUS#approved", "gsi1sk": "2026-06-24T07:30:00Z"}',
    '{"pk": "USER#u_1002", "sk": "POST#p_0102", "title": "What we learned", "status": "draft"}',
    '{"pk": "USER#u_1002", "sk": "INTEG#X#ben_builds", "handle": "ben_builds"}',
    '{"pk": "USER#u_1002", "sk": "INTEGRATIONS_NOTE", "text": "not an integration: INTEG# prefix needs the delimiter"}',
    '{"pk": "USER#u_1003", "sk": "PROFILE", "name": "Chen", "plan": "pro"}',
    '{"pk": "USER#u_1003", "sk": "SOURCE#FOLDER#fld_77", "name": "Brand kit"}',
    '{"pk": "POST#p_0017", "sk": "SOURCE#f_01", "file": "hero.png", "bytes": 204800}',
    '{"pk": "POST#p_0017", "sk": "SOURCE#f_02", "file": "copy.md", "bytes": 2048}',
    '{"pk": "POST#p_0017", "sk": "METRICS#2026-06-23T09:12Z", "views": 120, "ttl": 1798761600}',
    '{"pk": "POST#p_0017", "sk": "METRICS#2026-06-23T10:12Z", "views": 410, "ttl": 1798765200}',
    '{"pk": "POST#p_0017", "sk": "METRICS#2026-06-23T11:12Z", "views": 980, "ttl": 1798768800}',
    '{"pk": "POST#p_0101", "sk": "SOURCE#f_09", "file": "checklist.pdf", "bytes": 51200}',
    '{"pk": "TEAM#t_01", "sk": "MEMBER#u_1001", "role": "admin", "gsi1pk": "ROLE#admin", "gsi1sk": "2026-01-12T08:40:00Z"}',
    '{"pk": "TEAM#t_01", "sk": "MEMBER#u_1002", "role": "editor", "gsi1pk": "ROLE#editor", "gsi1sk": "2026-03-03T11:15:00Z"}',
    '{"pk": "TEAM#t_01", "sk": "MEMBER#u_1003", "role": "admin", "gsi1pk": "ROLE#admin", "gsi1sk": "2026-01-05T10:00:00Z"}'
  ]::jsonb[]) i) s;
-- 2,000 more users with a profile and two posts each, so the planner sees a real table
SELECT count(*) AS filler FROM (
  SELECT singletable.put_item('posting', jsonb_build_object('pk', 'USER#f_' || u, 'sk', k, 'status', 'draft'))
    FROM generate_series(1, 2000) u, unnest(ARRAY['PROFILE', 'POST#p_1', 'POST#p_2']) k) s;
ANALYZE posting;

-- tests
-- all posts of a user
SELECT sk, item->>'title' AS title, item->>'status' AS status
  FROM singletable.query('posting', 'USER#u_1001', 'begins_with', 'POST#');
-- the library
SELECT sk, item - 'pk' - 'sk' AS attrs FROM singletable.query('posting', 'USER#u_1001', 'begins_with', 'LIBRARY#');
-- X integrations (INTEG#X#), not the Google one
SELECT sk, item->>'handle' AS handle FROM singletable.query('posting', 'USER#u_1001', 'begins_with', 'INTEG#X#');
-- the delimiter matters: INTEG# does not match INTEGRATIONS_NOTE
SELECT sk FROM singletable.query('posting', 'USER#u_1002', 'begins_with', 'INTEG#');
SELECT sk FROM singletable.query('posting', 'USER#u_1002', 'begins_with', 'INTEG');
-- Drive folders
SELECT pk, sk, item->>'name' AS name FROM singletable.query('posting', 'USER#u_1001', 'begins_with', 'SOURCE#FOLDER#');
SELECT pk, sk, item->>'name' AS name FROM singletable.query('posting', 'USER#u_1003', 'begins_with', 'SOURCE#FOLDER#');
-- the profile, by key and by a query with =
SELECT singletable.get_item('posting', 'USER#u_1002', 'PROFILE');
SELECT sk, item->>'name' AS name FROM singletable.query('posting', 'USER#u_1002', '=', 'PROFILE');
-- the sources of a post
SELECT sk, item->>'file' AS file FROM singletable.query('posting', 'POST#p_0017', 'begins_with', 'SOURCE#');
-- the metrics series of a post, newest first, one page of 2 then the rest
SELECT sk, item->'views' AS views FROM singletable.query('posting', 'POST#p_0017', 'begins_with', 'METRICS#', forward => false, max_items => 2);
SELECT sk, item->'views' AS views FROM singletable.query('posting', 'POST#p_0017', 'begins_with', 'METRICS#', forward => false, max_items => 2,
                                                        exclusive_start_sk => 'METRICS#2026-06-23T10:12Z');
-- metrics in a time window (ISO-8601 timestamps sort as strings)
SELECT sk FROM singletable.query('posting', 'POST#p_0017', 'between', 'METRICS#2026-06-23T09:30Z', 'METRICS#2026-06-23T11:59Z');
-- the whole user collection in one query, dispatched by sk prefix
SELECT split_part(sk, '#', 1) AS entity, count(*) AS items
  FROM singletable.query('posting', 'USER#u_1001') GROUP BY 1 ORDER BY 1;
SELECT sk FROM singletable.query('posting', 'USER#u_1001');
-- a typo in the prefix finds nothing, silently (the pitfall the seeds warn about)
SELECT count(*) AS users_typo FROM singletable.query('posting', 'USER#u_1001', 'begins_with', 'POSTS#');
-- the scheduler: approved posts across users by publish time, one query on GSI1
SELECT item->>'gsi1sk' AS publish_at, pk, sk, item->>'title' AS title
  FROM singletable.query('posting', 'STATUS#approved', index_name => 'gsi1');
-- exactly the approved posts of the table, in (gsi1sk, pk, sk) byte order; no draft
SELECT (SELECT array_agg(ARRAY[pk, sk] ORDER BY o)
          FROM singletable.query('posting', 'STATUS#approved', index_name => 'gsi1') WITH ORDINALITY q(pk, sk, item, o))
     = (SELECT array_agg(ARRAY[pk, sk] ORDER BY item->>'gsi1sk' COLLATE "C", pk COLLATE "C", sk COLLATE "C")
          FROM posting WHERE item->>'status' = 'approved') AS all_approved_in_order,
       (SELECT count(*) FROM singletable.query('posting', 'STATUS#approved', index_name => 'gsi1')
         WHERE item->>'status' IS DISTINCT FROM 'approved') AS not_approved;
-- the next posts due: <= includes a post due exactly at the bound, < does not
SELECT item->>'gsi1sk' AS publish_at, pk, sk
  FROM singletable.query('posting', 'STATUS#approved', '<=', '2026-06-24T07:30:00Z', index_name => 'gsi1');
SELECT item->>'gsi1sk' AS publish_at, pk, sk
  FROM singletable.query('posting', 'STATUS#approved', '<', '2026-06-24T07:30:00Z', index_name => 'gsi1');
-- the next one due in a window (the scheduler's batch of max_items), and the window newest first
SELECT item->>'gsi1sk' AS publish_at, pk, sk
  FROM singletable.query('posting', 'STATUS#approved', 'between', '2026-06-24T00:00:00Z', '2026-06-30T00:00:00Z',
                         max_items => 1, index_name => 'gsi1');
SELECT item->>'gsi1sk' AS publish_at, pk, sk
  FROM singletable.query('posting', 'STATUS#approved', 'between', '2026-06-24T00:00:00Z', '2026-06-30T00:00:00Z',
                         forward => false, index_name => 'gsi1');
-- one day of the schedule screen: a day is a prefix of ISO-8601 timestamps
SELECT item->>'gsi1sk' AS publish_at, pk, sk
  FROM singletable.query('posting', 'STATUS#approved', 'begins_with', '2026-06-26', index_name => 'gsi1');
-- the same index, overloaded: team admins by join time (u_1003 joined first: index order,
-- not table-key order); each gsi1pk value is its own partition
SELECT item->>'gsi1sk' AS joined_at, pk, sk, item->>'role' AS role
  FROM singletable.query('posting', 'ROLE#admin', index_name => 'gsi1');
SELECT pk, sk FROM singletable.query('posting', 'ROLE#editor', index_name => 'gsi1');
-- the index is sparse: counted by its own predicate (an index-only scan of the partial
-- index), it holds the 3 approved posts and the 3 members of the table's 6,028 items,
-- no draft and no profile
SELECT count(*) AS in_gsi1 FROM posting
 WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'string';
EXPLAIN (COSTS OFF) SELECT count(*) FROM posting
 WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'string';
SELECT count(*) AS items,
       count(*) FILTER (WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'string'
                          AND (item->>'status' = 'draft' OR sk = 'PROFILE')) AS drafts_or_profiles_in_gsi1
  FROM posting;

-- every pattern is one index range on the primary key (custom plans show the values)
SET plan_cache_mode = force_custom_plan;
SELECT * FROM singletable.explain_query('posting', 'USER#u_1001', 'begins_with', 'POST#');
SELECT * FROM singletable.explain_query('posting', 'USER#u_1001', 'begins_with', 'INTEG#X#');
SELECT * FROM singletable.explain_query('posting', 'USER#u_1002', '=', 'PROFILE');
SELECT * FROM singletable.explain_query('posting', 'USER#u_1001');
SELECT * FROM singletable.explain_query('posting', 'POST#p_0017', 'begins_with', 'METRICS#', forward => false, max_items => 2);
-- the scheduler: an Index Scan of GSI1 with the whole key condition as Index Cond
SELECT * FROM singletable.explain_query('posting', 'STATUS#approved', '<=', '2026-06-24T07:30:00Z', index_name => 'gsi1');
SELECT * FROM singletable.explain_query('posting', 'STATUS#approved', 'between', '2026-06-24T00:00:00Z', '2026-06-30T00:00:00Z',
                                        forward => false, max_items => 1, index_name => 'gsi1');
SELECT * FROM singletable.explain_query('posting', 'STATUS#approved', 'begins_with', '2026-06-26', index_name => 'gsi1');
RESET plan_cache_mode;
-- plain SQL in an application, prepared by its driver: generic plans stay ranges
SET plan_cache_mode = force_generic_plan;
PREPARE user_items(text, text) AS
  SELECT sk, item FROM posting WHERE pk = $1 AND singletable.begins_with(sk, $2) ORDER BY sk;
EXPLAIN (COSTS OFF) EXECUTE user_items('USER#u_1001', 'POST#');
EXECUTE user_items('USER#u_1001', 'INTEG#X#');
SELECT * FROM singletable.explain_query('posting', 'STATUS#approved', '<=', '2026-06-24T07:30:00Z', index_name => 'gsi1');
-- the scheduler in plain SQL: the index predicate and its COLLATE "C" key expressions
PREPARE due(text, text) AS
  SELECT item->>'gsi1sk' AS publish_at, pk, sk FROM posting
   WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'string'
     AND (item ->> 'gsi1pk') COLLATE "C" = $1 AND (item ->> 'gsi1sk') COLLATE "C" <= $2
   ORDER BY (item ->> 'gsi1sk') COLLATE "C", pk, sk;
EXPLAIN (COSTS OFF) EXECUTE due('STATUS#approved', '2026-06-24T07:30:00Z');
EXECUTE due('STATUS#approved', '2026-06-24T07:30:00Z');
RESET plan_cache_mode;

-- writes of the app: a post is edited (put returns the old version with ALL_OLD), a draft deleted
SELECT singletable.put_item('posting', '{"pk": "USER#u_1002", "sk": "POST#p_0102", "title": "What we learned (v2)", "status": "draft"}', return_values => 'ALL_OLD') ->> 'title' AS previous_title;
SELECT singletable.delete_item('posting', 'USER#u_1002', 'POST#p_0102', return_values => 'ALL_OLD') ->> 'title' AS deleted_title;
SELECT sk FROM singletable.query('posting', 'USER#u_1002', 'begins_with', 'POST#');

-- expressions in the app's writes and reads
-- approve a draft only if it is still a draft (STATUS is reserved: #s); with gsi1pk and
-- gsi1sk it enters the scheduler, and the index is written with the item: every read
-- in the same transaction sees the write before it
BEGIN;
SELECT singletable.update_item('posting', 'USER#u_1001', 'POST#p_0018',
  'SET #s = :approved, publishAt = :at, gsi1pk = :gpk, gsi1sk = :at', condition => '#s = :draft',
  names => '{"#s": "status"}',
  vals => '{":approved": "approved", ":draft": "draft", ":at": "2026-06-27T08:00:00Z", ":gpk": "STATUS#approved"}',
  return_values => 'UPDATED_NEW');
SELECT item->>'gsi1sk' AS publish_at, pk, sk FROM singletable.query('posting', 'STATUS#approved', index_name => 'gsi1');
-- without gsi1pk an item is not in the index, even with gsi1sk; a rolled back write takes
-- its index change back with it
SAVEPOINT unschedule;
SELECT singletable.update_item('posting', 'USER#u_1001', 'POST#p_0018', 'REMOVE gsi1pk', return_values => 'UPDATED_OLD');
SELECT item->>'gsi1sk' AS publish_at, pk, sk FROM singletable.query('posting', 'STATUS#approved', index_name => 'gsi1');
ROLLBACK TO SAVEPOINT unschedule;
SELECT item->>'gsi1sk' AS publish_at, pk, sk FROM singletable.query('posting', 'STATUS#approved', index_name => 'gsi1');
-- remove attributes: p_0019 stays approved but leaves the scheduler
SELECT singletable.update_item('posting', 'USER#u_1001', 'POST#p_0019', 'REMOVE gsi1pk, gsi1sk',
  return_values => 'ALL_NEW') - 'pk' - 'sk' AS unscheduled;
SELECT item->>'gsi1sk' AS publish_at, pk, sk FROM singletable.query('posting', 'STATUS#approved', index_name => 'gsi1');
COMMIT;
-- approving it again fails: it is no longer a draft (SQLSTATE 23S01); the item it was
-- checked against is read after the error
SELECT singletable.update_item('posting', 'USER#u_1001', 'POST#p_0018',
  'SET #s = :approved', condition => '#s = :draft', names => '{"#s": "status"}',
  vals => '{":approved": "approved", ":draft": "draft"}',
  return_values_on_condition_check_failure => 'ALL_OLD');
SELECT singletable.condition_check_failure_item();
-- view counters (VIEWS is reserved): ADD creates the counter, SET ... + increments it
SELECT singletable.update_item('posting', 'POST#p_0017', 'METRICS#2026-06-23T11:12Z', 'ADD #v :n',
  names => '{"#v": "views"}', vals => '{":n": 20}', return_values => 'UPDATED_NEW');
SELECT singletable.update_item('posting', 'USER#u_1001', 'ANALYTICS#p_0017',
  'SET impressions = impressions + :one, clicks = if_not_exists(clicks, :zero) + :one',
  vals => '{":one": 1, ":zero": 0}', return_values => 'UPDATED_NEW');
-- append to the list of tags
SELECT singletable.update_item('posting', 'USER#u_1001', 'LIBRARY#HASHTAG#postgres',
  'SET tags = list_append(tags, :new)', vals => '{":new": ["#singletable"]}', return_values => 'UPDATED_NEW');
-- create-only put: a second profile for the same user is refused
SELECT singletable.put_item('posting', '{"pk": "USER#u_1003", "sk": "PROFILE", "name": "Impostor"}',
  condition => 'attribute_not_exists(pk)');
-- a filtered Query with a projection: only approved posts, only their title and publish time
SELECT sk, item FROM singletable.query('posting', 'USER#u_1001', 'begins_with', 'POST#',
  filter => '#s = :approved', projection => 'title, publishAt',
  names => '{"#s": "status"}', vals => '{":approved": "approved"}');
-- max_items counts items read before the filter: a page of 2 of the 3 posts, then the rest;
-- with a filter, a page cut by max_items may return no item; where the next page starts
-- (DynamoDB's LastEvaluatedKey) is singletable.last_evaluated_key()
SELECT sk FROM singletable.query('posting', 'USER#u_1001', 'begins_with', 'POST#',
  max_items => 2, filter => '#s = :draft', names => '{"#s": "status"}', vals => '{":draft": "draft"}');
SELECT singletable.last_evaluated_key();
-- the same page as DynamoDB returns it
SELECT singletable.query_page('posting', 'USER#u_1001', 'begins_with', 'POST#',
  max_items => 2, filter => '#s = :draft', names => '{"#s": "status"}', vals => '{":draft": "draft"}');
SELECT sk, item->>'title' AS title FROM singletable.query('posting', 'USER#u_1001', 'begins_with', 'POST#',
  max_items => 2, exclusive_start_sk => 'POST#p_0018', filter => '#s = :approved',
  names => '{"#s": "status"}', vals => '{":approved": "approved"}');
-- the filter runs on the rows the index range read: the plan is the same range
SELECT * FROM singletable.explain_query('posting', 'USER#u_1001', 'begins_with', 'POST#', with_analyze => true);

-- after the commit the scheduler still sees p_0018 and not p_0019; drafts stay out
SELECT item->>'gsi1sk' AS publish_at, pk, sk FROM singletable.query('posting', 'STATUS#approved', index_name => 'gsi1');
SELECT count(*) AS drafts_in_gsi1 FROM posting
 WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'string'
   AND item->>'status' = 'draft';

-- cleanup
DEALLOCATE user_items;
DEALLOCATE due;
SELECT singletable.drop_table('posting');
