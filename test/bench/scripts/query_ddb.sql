-- query through the JSON API: singletable.dynamodb('Query', ...) of the 30-item slice query_ext reads (one response document);
-- the placeholders are spelled \u003a (":") because pgbench would take :p in a literal for its variable
\set c 10000000 + random(0, @NCOLL@ - 1)
SELECT singletable.dynamodb('Query', ('{"TableName": "@TABLE@", "KeyConditionExpression": "pk = \u003ap AND begins_with(sk, \u003as)",'
                            || ' "ExpressionAttributeValues": {"\u003ap": {"S": "USER#' || :c::text || '"}, "\u003as": {"S": "ORDER#"}}}')::jsonb);
