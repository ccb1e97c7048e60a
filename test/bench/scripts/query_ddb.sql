-- query through the JSON API: singletable.dynamodb('Query', ...) of the 30-item slice query_ext reads (one response document)
\set c 10000000 + random(0, @NCOLL@ - 1)
SELECT singletable.dynamodb('Query', ('{"TableName": "@TABLE@", "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",'
                            || ' "ExpressionAttributeValues": {":p": {"S": "USER#' || :c::text || '"}, ":s": {"S": "ORDER#"}}}')::jsonb);
