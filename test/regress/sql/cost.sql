-- singletable.estimate_cost and item_size_breakdown (issue 29): the units of a request
-- measured on the real data and rolled back, per month and in money; each figure below
-- is computed by hand in its comment.
SET client_min_messages = warning;
SELECT singletable.create_table('cost', 'pk', 'sk', 'S', 'S') IS NOT NULL AS created;
-- the billing tenant: 200 users of 2,040 bytes (DynamoDB's size), 408,000 bytes in all
INSERT INTO cost SELECT 'TENANT#acme', 'USER#' || lpad(i::text, 4, '0'),
       jsonb_build_object('pk', 'TENANT#acme', 'sk', 'USER#' || lpad(i::text, 4, '0'), 'pad', repeat('x', 2013))
  FROM generate_series(1, 200) i;
SELECT count(*), min(singletable.item_size(item)), sum(singletable.item_size(item)) FROM cost;

-- the member listing: 408,000 bytes = 99.6 blocks of 4 KB -> 100 units strongly
-- consistent, 50 eventually consistent (the request's default, so the month's figure);
-- 1,000,000 calls: 50,000,000 units, $6.25 at $0.125 per million; provisioned:
-- 50e6 / (730 * 3600 s) = 19.03 units/s, / 0.7 = 27.2 -> 28 RCU * 730 h * $0.00013 = $2.66
SELECT operation_name, units_per_call, strongly_consistent_units, eventually_consistent_units, is_read,
       units_per_month, on_demand_usd_per_month, provisioned_capacity_units, provisioned_usd_per_month
  FROM singletable.estimate_cost('cost', '{"KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
         "ExpressionAttributeValues": {":p": {"S": "TENANT#acme"}, ":s": {"S": "USER#"}}}');
-- asked strongly consistent: the month at 100 units a call
SELECT units_per_call, units_per_month FROM singletable.estimate_cost('cost',
  '{"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "TENANT#acme"}}, "ConsistentRead": true}',
  calls_per_month => 10);
-- GetItem: one 2,040-byte item: 1 unit strongly consistent, 0.5 eventually; a missing
-- item is charged the same minimum
SELECT operation_name, strongly_consistent_units, eventually_consistent_units
  FROM singletable.estimate_cost('cost', '{"Key": {"pk": {"S": "TENANT#acme"}, "sk": {"S": "USER#0001"}}}');
SELECT operation_name, strongly_consistent_units, eventually_consistent_units
  FROM singletable.estimate_cost('cost', '{"Key": {"pk": {"S": "TENANT#acme"}, "sk": {"S": "nobody"}}}');

-- writes: a new item of 30 bytes: 1 unit; over an item of 2,040 bytes: the larger of old
-- and new, 2 units; a delete of it: 2 units
SELECT operation_name, units_per_call, is_read FROM singletable.estimate_cost('cost',
  '{"Item": {"pk": {"S": "TENANT#acme"}, "sk": {"S": "NEW"}, "v": {"N": "1"}}}');
SELECT operation_name, units_per_call FROM singletable.estimate_cost('cost',
  '{"Item": {"pk": {"S": "TENANT#acme"}, "sk": {"S": "USER#0001"}, "v": {"N": "1"}}}');
SELECT operation_name, units_per_call FROM singletable.estimate_cost('cost',
  '{"Key": {"pk": {"S": "TENANT#acme"}, "sk": {"S": "USER#0001"}}}', operation => 'DeleteItem');
-- with an index: an item in GSI1 costs its index entry too (1 + 1); an update that moves
-- it to another index partition deletes and writes the entry (1 + 1 + 1)
SELECT singletable.create_gsi('cost', 'gsi1', 'gsi1pk', 'gsi1sk') IS NOT NULL AS gsi;
INSERT INTO cost VALUES ('TENANT#acme', 'INVOICE#1',
  '{"pk": "TENANT#acme", "sk": "INVOICE#1", "gsi1pk": "OPEN", "gsi1sk": "2026-12-31"}');
SELECT operation_name, units_per_call, consumed_capacity FROM singletable.estimate_cost('cost',
  '{"Item": {"pk": {"S": "TENANT#acme"}, "sk": {"S": "INVOICE#2"}, "gsi1pk": {"S": "OPEN"}, "gsi1sk": {"S": "2027-01-31"}}}');
SELECT operation_name, units_per_call, consumed_capacity FROM singletable.estimate_cost('cost',
  '{"Key": {"pk": {"S": "TENANT#acme"}, "sk": {"S": "INVOICE#1"}}, "UpdateExpression": "SET gsi1pk = :p",
    "ExpressionAttributeValues": {":p": {"S": "PAID"}}}');
-- a Query of the index: eventually consistent only (one item of 77 bytes: 0.5)
SELECT operation_name, units_per_call, strongly_consistent_units, eventually_consistent_units
  FROM singletable.estimate_cost('cost', '{"IndexName": "gsi1", "KeyConditionExpression": "gsi1pk = :p",
         "ExpressionAttributeValues": {":p": {"S": "OPEN"}}}');
-- a transaction: twice the units: a new item (2 * 1) and a delete of 2,040 bytes (2 * 2)
SELECT operation_name, units_per_call FROM singletable.estimate_cost('cost',
  '{"TransactItems": [{"Put": {"TableName": "cost", "Item": {"pk": {"S": "a"}, "sk": {"S": "b"}}}},
                      {"Delete": {"TableName": "cost", "Key": {"pk": {"S": "TENANT#acme"}, "sk": {"S": "USER#0002"}}}}]}');
-- prices are parameters
SELECT on_demand_usd_per_month, provisioned_capacity_units, provisioned_usd_per_month
  FROM singletable.estimate_cost('cost', '{"Item": {"pk": {"S": "x"}, "sk": {"S": "y"}}}', 100000000,
         write_request_price => 1.25, write_capacity_unit_hour_price => 0.00065, target_utilization => 1);

-- nothing of the measured requests remains: no item, no count in table_stats
SELECT count(*) AS items, count(*) FILTER (WHERE sk IN ('NEW', 'INVOICE#2', 'b')) AS written,
       min(item->>'gsi1pk') FILTER (WHERE sk = 'INVOICE#1') AS gsi1pk FROM cost;
SELECT count(*) AS counted FROM singletable.table_stats WHERE table_name = 'cost'::regclass;

-- errors: arguments first, then the request as singletable.dynamodb checks it
SELECT * FROM singletable.estimate_cost(NULL, '{}');
SELECT * FROM singletable.estimate_cost('cost', NULL);
SELECT * FROM singletable.estimate_cost('cost', '[]');
SELECT * FROM singletable.estimate_cost('cost', '{}', -1);
SELECT * FROM singletable.estimate_cost('cost', '{}', 'NaN');
SELECT * FROM singletable.estimate_cost('cost', '{}', target_utilization => 0);
SELECT * FROM singletable.estimate_cost('cost', '{}', operation => 'CreateTable');
SELECT * FROM singletable.estimate_cost('cost', '{"TableName": "other", "Key": {"pk": {"S": "a"}, "sk": {"S": "b"}}}');
SELECT * FROM singletable.estimate_cost('nosuch', '{"Key": {"pk": {"S": "a"}, "sk": {"S": "b"}}}');
SELECT * FROM singletable.estimate_cost('cost', '{"Key": {"pk": {"S": "a"}}}');
SELECT * FROM singletable.estimate_cost('cost', '{"Item": {"pk": {"S": "TENANT#acme"}, "sk": {"S": "USER#0003"}},
  "ConditionExpression": "attribute_not_exists(pk)"}');
SELECT count(*) AS items FROM cost;

-- item_size_breakdown: name bytes + value bytes per attribute, largest first; the parts
-- add up to item_size
SELECT * FROM singletable.item_size_breakdown('{"pk": "TENANT#acme", "sk": "USER#0001", "name": "Ada",
  "tags": {"$SS": ["a", "b"]}, "n": 12345, "bio": "x"}');
SELECT sum(bytes) = singletable.item_size(i) AS adds_up
  FROM (SELECT item AS i FROM cost WHERE sk = 'USER#0001') s, singletable.item_size_breakdown(s.i) GROUP BY i;
SELECT * FROM singletable.item_size_breakdown('"x"');
SELECT * FROM singletable.item_size_breakdown('{"a": {"$SS": []}}');
SELECT * FROM singletable.item_size_breakdown('{}');
SELECT * FROM singletable.item_size_breakdown(NULL);

SELECT singletable.drop_table('cost');
