-- PutItem as the SQL function: singletable.put_item of a new item with the attributes of
-- workload.js's items, sent as JSON text as a client would (pgwriter#<client>, a random
-- 12-digit sort key: new items, as sign.js's PutItem). \u003a is ":" (pgbench would take
-- :00 for a variable).
\set n random(0, 999999999999)
\set likes :n % 997
SELECT singletable.put_item('bench', ('{"pk": "pgwriter#' || :client_id || '", "sk": "post#' || :n
    || '", "title": "A post about single-table design, n. ' || :n
    || '", "body": "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation.", "likes": '
    || :likes || ', "created": "2026-11-30T12\u003a00\u003a00Z", "tags": {"$SS": ["postgres", "dynamodb"]}}')::jsonb);
