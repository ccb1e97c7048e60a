-- get through the gateway's call: singletable.dynamodb_as(NULL, 'GetItem', ...) of the item get_ext reads, request and
-- response as JSON text (@TABLE@, @NCOLL@ collections of 100 items; NULL role: as the current user)
\set c 10000000 + random(0, @NCOLL@ - 1)
\set j random(100, 199)
SELECT singletable.dynamodb_as(NULL, 'GetItem', '{"TableName": "@TABLE@", "Key": {"pk": {"S": "USER#' || :c::text || '"}, "sk": {"S": "'
                               || CASE WHEN :j::int < 130 THEN 'ORDER#' ELSE 'POST#' END || :j::text || '"}}}');
