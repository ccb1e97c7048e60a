-- gsi write cost: singletable.put_item of an item without any index key attribute, the same
-- script on the table with two GSIs and on the same table without (@TABLE@, @NCOLL@
-- collections of 100 items, sql/gsi.sql). Half of the puts insert a new item (a fresh sort key
-- DRAFT#<round>#<random>: -D r=<round> makes every round's new keys new), half overwrite an
-- existing item that is in no index (ORDER#100 .. POST#197; POST#198/199 carry index keys).
-- "rev" is the round: every round repeats the key sequence of the seed, and without it an
-- overwrite in a later round would write the very item an earlier round wrote (an unchanged
-- item column can be a HOT update, and is not what an overwrite costs).
\set c 10000000 + random(0, @NCOLL@ - 1)
\set new random(0, 1)
\set j random(100, 197)
\set d random(0, 999999999)
\set v random(0, 99999)
SELECT singletable.put_item('@TABLE@', jsonb_build_object(
    'pk', 'USER#' || :c::text,
    'sk', CASE WHEN :new::int = 1 THEN 'DRAFT#' || :r::text || '#' || :d::text
               WHEN :j::int < 130 THEN 'ORDER#' || :j::text ELSE 'POST#' || :j::text END,
    'status', (ARRAY['pending', 'shipped', 'delivered'])[1 + :v::int % 3],
    'total', :v::int,
    'qty', 1 + :j::int % 5,
    'title', 'Item ' || :j::text || ' of user ' || :c::text,
    'created', '2024-05-01T12:00:00Z',
    'tags', '["gift", "express"]'::jsonb,
    'rev', :r::int));
