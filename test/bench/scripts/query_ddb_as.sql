-- query through the gateway's call: singletable.dynamodb_as(NULL, 'Query', ...) of the 30-item slice query_ext reads,
-- request and response as JSON text (NULL role: as the current user); the placeholders are spelled \u003a (":")
-- because pgbench would take :p in a literal for its variable
\set c 10000000 + random(0, @NCOLL@ - 1)
SELECT singletable.dynamodb_as(NULL, 'Query', '{"TableName": "@TABLE@", "KeyConditionExpression": "pk = \u003ap AND begins_with(sk, \u003as)",'
                               || ' "ExpressionAttributeValues": {"\u003ap": {"S": "USER#' || :c::text || '"}, "\u003as": {"S": "ORDER#"}}}');
