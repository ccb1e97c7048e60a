-- GetItem through the JSON API (for information): singletable.dynamodb('GetItem', ...) of the item get.sql reads
\set c random(0, 49)
\set i random(0, 29)
SELECT singletable.dynamodb('GetItem', ('{"TableName": "bench", "Key": {"pk": {"S": "user#' || lpad(:c::text, 5, '0')
                            || '"}, "sk": {"S": "post#' || lpad(:i::text, 4, '0') || '"}}}')::jsonb);
