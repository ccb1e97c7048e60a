-- get through the JSON API: singletable.dynamodb('GetItem', ...) of the item get_ext reads (@TABLE@, @NCOLL@ collections of 100 items)
\set c 10000000 + random(0, @NCOLL@ - 1)
\set j random(100, 199)
SELECT singletable.dynamodb('GetItem', ('{"TableName": "@TABLE@", "Key": {"pk": {"S": "USER#' || :c::text || '"}, "sk": {"S": "'
                            || CASE WHEN :j::int < 130 THEN 'ORDER#' ELSE 'POST#' END || :j::text || '"}}}')::jsonb);
