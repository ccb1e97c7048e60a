-- viewer_api: singletable.viewer_api(op, request), the viewer's operations (issue 30), which
-- singletable-gateway calls for X-Amz-Target SingleTable_20261201.<op> through dynamodb_as
-- ('SingleTable.<op>'). Each operation's answer, its argument checks (each with its
-- SQLSTATE), the caller's rights (grants and row-level security), a hostile search_path.
SET client_min_messages = error;
\set VERBOSITY default
\set SHOW_CONTEXT never
-- an error's SQLSTATE and message
CREATE FUNCTION pg_temp.err(op text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM singletable.viewer_api(op, request);
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT singletable.create_table('viewer_tab');
SELECT singletable.create_gsi('viewer_tab', 'GSI1', partition_key => 'gsi1pk', sort_key => 'gsi1sk');
SELECT singletable.define_entity('viewer_tab', 'User', pk => 'USER#{userId}', sk => 'PROFILE');
SELECT singletable.define_entity('viewer_tab', 'Post', pk => 'USER#{userId}', sk => 'POST#{postId:int(4)}',
         indexes => '{"GSI1": {"pk": "STATUS#{status}", "sk": "{publishAt:timestamp}"}}');
SELECT singletable.define_entity('viewer_tab', 'Metrics', pk => 'POST#{postId:int(4)}', sk => 'METRICS#{at:timestamp}');
SELECT singletable.put_item('viewer_tab', i) FROM jsonb_array_elements('[
  {"pk": "USER#u1", "sk": "PROFILE", "name": "Aiko"},
  {"pk": "USER#u1", "sk": "POST#0017", "title": "<script>alert(1)</script>", "gsi1pk": "STATUS#approved", "gsi1sk": "2026-06-23T09:00:00Z"},
  {"pk": "USER#u1", "sk": "NOTE#1"},
  {"pk": "USER#u2", "sk": "PROFILE", "name": "Ben"},
  {"pk": "POST#0017", "sk": "METRICS#2026-06-23T10:00:00Z", "views": 120}]'::jsonb) i;
RESET client_min_messages;

-- the registry, with the literal prefixes of each template
SELECT jsonb_pretty(singletable.viewer_api('ListEntities', '{"TableName": "viewer_tab"}'));
-- keys decoded into entity and typed fields; a key of no entity: Entity null
SELECT jsonb_pretty(singletable.viewer_api('DecodeKeys', '{"TableName": "viewer_tab", "Keys": [
  ["USER#u1", "POST#0017"], ["USER#u1", "PROFILE"], ["USER#u1", "NOTE#1"], ["POST#0017", "METRICS#2026-06-23T10:00:00Z"]]}'));
-- an index's keys, with the index templates of its entities
SELECT singletable.viewer_api('DecodeKeys', '{"TableName": "viewer_tab", "IndexName": "GSI1", "Keys": [["STATUS#approved", "2026-06-23T09:00:00Z"]]}');
-- the item collections in key order, a page at a time
SELECT singletable.viewer_api('Partitions', '{"TableName": "viewer_tab", "Limit": 2}');
SELECT singletable.viewer_api('Partitions', '{"TableName": "viewer_tab", "Limit": 2, "ExclusiveStartPartition": "USER#u1"}');
SELECT singletable.viewer_api('Partitions', '{"TableName": "viewer_tab"}');
-- inventory, hot keys (shape only: the counts depend on this backend's calls)
SELECT jsonb_array_length(r -> 'Entities'), jsonb_array_length(r -> 'Collections') > 0
  FROM singletable.viewer_api('Inventory', '{"TableName": "viewer_tab", "Top": 2}') r;
SELECT jsonb_typeof(singletable.viewer_api('HotKeys', '{"TableName": "viewer_tab"}') -> 'HotKeys');
-- an item's size and its breakdown
SELECT singletable.viewer_api('ItemSize', '{"Item": {"pk": {"S": "USER#u1"}, "sk": {"S": "PROFILE"}, "name": {"S": "Aiko"}}}');
-- a request's cost and program
SELECT r ->> 'operation_name', r -> 'eventually_consistent_units', r -> 'strongly_consistent_units'
  FROM singletable.viewer_api('EstimateCost', '{"TableName": "viewer_tab", "Request": {"KeyConditionExpression": "pk = :p",
         "ExpressionAttributeValues": {":p": {"S": "USER#u1"}}}}') r;
SELECT (singletable.viewer_api('ExportCode', '{"TableName": "viewer_tab", "Language": "sql", "Request": {"KeyConditionExpression": "pk = :p",
         "ExpressionAttributeValues": {":p": {"S": "USER#u1"}}}}') ->> 'Code') LIKE '%singletable.%';
-- the design helper: a proposal, never applied
SELECT r ->> 'applied', jsonb_array_length(r -> 'entities')
  FROM singletable.viewer_api('Design', '{"TableName": "shop", "Entities": [{"name": "customer", "key": "customerId"},
         {"name": "order", "key": "orderId", "parent": "customer"}], "AccessPatterns": ["list orders by customerId"]}') r;
SELECT to_regclass('shop');

-- the argument checks
SELECT pg_temp.err('DropTable', '{}');
SELECT pg_temp.err(NULL, '{}');
SELECT pg_temp.err('Partitions', '[]');
SELECT pg_temp.err('Partitions', '{}');
SELECT pg_temp.err('Partitions', '{"TableName": 7}');
SELECT pg_temp.err('Partitions', '{"TableName": ""}');
SELECT pg_temp.err('Partitions', '{"TableName": "nosuch"}');
SELECT pg_temp.err('Partitions', '{"TableName": "a b. c"}');
SELECT pg_temp.err('Partitions', '{"TableName": "pg_class"}');
SELECT pg_temp.err('Partitions', '{"TableName": "viewer_tab", "Limit": 0}');
SELECT pg_temp.err('Partitions', '{"TableName": "viewer_tab", "Limit": 2.5}');
SELECT pg_temp.err('Partitions', '{"TableName": "viewer_tab", "ExclusiveStartPartition": 1}');
SELECT pg_temp.err('DecodeKeys', '{"TableName": "viewer_tab"}');
SELECT pg_temp.err('DecodeKeys', '{"TableName": "viewer_tab", "Keys": [["a", "b", "c"]]}');
SELECT pg_temp.err('DecodeKeys', '{"TableName": "viewer_tab", "Keys": [[1, "b"]]}');
SELECT pg_temp.err('DecodeKeys', '{"TableName": "viewer_tab", "IndexName": "GSI9", "Keys": []}');
SELECT pg_temp.err('DecodeKeys', pg_catalog.jsonb_build_object('TableName', 'viewer_tab', 'Keys',
         (SELECT jsonb_agg(jsonb_build_array('k', 'k')) FROM generate_series(1, 1001))));
SELECT pg_temp.err('Inventory', '{"TableName": "viewer_tab", "Top": 101}');
SELECT pg_temp.err('ItemSize', '{}');
SELECT pg_temp.err('EstimateCost', '{"TableName": "viewer_tab"}');
SELECT pg_temp.err('EstimateCost', '{"TableName": "viewer_tab", "Request": {}, "CallsPerMonth": -1}');
SELECT pg_temp.err('ExportCode', '{"TableName": "viewer_tab", "Request": {}}');
SELECT pg_temp.err('Design', '{"Entities": {}}');

-- the caller's rights: a role without SELECT is refused; row-level security hides rows
CREATE ROLE st_vw_nobody;
CREATE ROLE st_vw_reader;
GRANT SELECT ON viewer_tab TO st_vw_reader;
ALTER TABLE viewer_tab ENABLE ROW LEVEL SECURITY;
CREATE POLICY vw_u2 ON viewer_tab TO st_vw_reader USING (pk = 'USER#u2');
SET ROLE st_vw_nobody;
SELECT pg_temp.err('Partitions', '{"TableName": "viewer_tab"}');
SET ROLE st_vw_reader;
SELECT singletable.viewer_api('Partitions', '{"TableName": "viewer_tab"}');
RESET ROLE;
-- the gateway's path: dynamodb_as('SingleTable.<op>') under the role switch
SELECT singletable.dynamodb_as('st_vw_reader', 'SingleTable.Partitions', '{"TableName": "viewer_tab"}');
SELECT singletable.dynamodb_as('st_vw_nobody', 'SingleTable.Partitions', '{"TableName": "viewer_tab"}');
SELECT singletable.dynamodb_as(NULL, 'SingleTable.Nope', '{}');
ALTER TABLE viewer_tab DISABLE ROW LEVEL SECURITY;

-- search_path-proof: a schema before pg_catalog with its own = on text changes nothing
CREATE SCHEMA st_vw_evil;
CREATE FUNCTION st_vw_evil.eq(text, text) RETURNS boolean LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR st_vw_evil.= (LEFTARG = text, RIGHTARG = text, FUNCTION = st_vw_evil.eq);
SET search_path = st_vw_evil, pg_catalog, public;
SELECT singletable.viewer_api('DecodeKeys', '{"TableName": "viewer_tab", "Keys": [["USER#u1", "PROFILE"]]}');
SELECT singletable.viewer_api('Partitions', '{"TableName": "viewer_tab", "Limit": 1}');
SELECT r -> 'eventually_consistent_units' FROM singletable.viewer_api('EstimateCost', '{"TableName": "viewer_tab",
  "Request": {"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "USER#u1"}}}}') r;
SELECT current_setting('search_path');
RESET search_path;

DROP SCHEMA st_vw_evil CASCADE;
DROP POLICY vw_u2 ON viewer_tab;
REVOKE ALL ON viewer_tab FROM st_vw_reader;
DROP ROLE st_vw_nobody;
DROP ROLE st_vw_reader;
SELECT singletable.drop_table('viewer_tab');
