-- dynamodb_streams: DynamoDB Streams under singletable.dynamodb — the validation and
-- error paths of ListStreams, DescribeStream, GetShardIterator and GetRecords and of
-- StreamSpecification in CreateTable and UpdateTable, in DynamoDB's words. Nothing
-- here enables a stream (the regression server may run without wal_level = logical);
-- records, iterators over them and enabling are tested through the SDKs
-- (test/gateway/test_streams.py, test/gateway/js/streams.test.js).
SET client_min_messages = warning;
-- the error body of a call (timestamps of ExpiredIteratorException masked)
CREATE FUNCTION ddb_error(op text, req jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  state text;
  detail text;
BEGIN
  PERFORM singletable.dynamodb(op, req);
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, detail = PG_EXCEPTION_DETAIL;
  RETURN state || ' ' || regexp_replace(detail, '\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?[+-]\d\d', '<time>', 'g');
END $$;
-- an iterator of our form: "<arn>|1|" and the base64 of "v1|stream|shard|after|issued_ms"
CREATE FUNCTION iter(payload text, arn text DEFAULT 'arn:aws:dynamodb:ddblocal:000000000000:table/nosuch/stream/2026-01-01T00:00:00.000')
RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('ShardIterator', arn || '|1|' || translate(encode(convert_to(payload, 'UTF8'), 'base64'), E'\n', '')) $$;

-- CreateTable: StreamSpecification's members, then its rules
SELECT ddb_error('CreateTable', '{"TableName": "st1", "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST", "StreamSpecification": {}}');
SELECT ddb_error('CreateTable', '{"TableName": "st1", "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST",
  "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "ALL"}}');
SELECT ddb_error('CreateTable', '{"TableName": "st1", "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST",
  "StreamSpecification": {"StreamEnabled": "true", "StreamViewType": "KEYS_ONLY"}}');
SELECT ddb_error('CreateTable', '{"TableName": "st1", "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST",
  "StreamSpecification": {"StreamEnabled": true}}');
SELECT ddb_error('CreateTable', '{"TableName": "st1", "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST",
  "StreamSpecification": {"StreamEnabled": false, "StreamViewType": "KEYS_ONLY"}}');
-- a disabled specification creates the table without a stream: no stream members
SELECT r->'TableDescription' ? 'StreamSpecification' AS spec, r->'TableDescription' ? 'LatestStreamArn' AS arn
  FROM singletable.dynamodb('CreateTable', '{"TableName": "st1", "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST",
  "StreamSpecification": {"StreamEnabled": false}}') r;
SELECT r->'Table' ? 'StreamSpecification' AS spec, r->'Table' ? 'LatestStreamArn' AS arn
  FROM singletable.dynamodb('DescribeTable', '{"TableName": "st1"}') r;
-- UpdateTable: a StreamSpecification alone is an update; disabling without a stream
SELECT ddb_error('UpdateTable', '{"TableName": "st1", "StreamSpecification": {"StreamViewType": "KEYS_ONLY"}}');
SELECT ddb_error('UpdateTable', '{"TableName": "st1", "StreamSpecification": {"StreamEnabled": true}}');
SELECT ddb_error('UpdateTable', '{"TableName": "st1", "StreamSpecification": {"StreamEnabled": false}}');
SELECT ddb_error('UpdateTable', '{"TableName": "nosuch", "StreamSpecification": {"StreamEnabled": false}}');

-- ListStreams
SELECT singletable.dynamodb('ListStreams', '{"TableName": "st1"}');
SELECT ddb_error('ListStreams', '{"Limit": 0}');
SELECT ddb_error('ListStreams', '{"Limit": 101}');
SELECT ddb_error('ListStreams', '{"TableName": "a!", "ExclusiveStartStreamArn": "arn:short"}');
SELECT ddb_error('ListStreams', '{"Limit": "10"}');

-- DescribeStream
SELECT ddb_error('DescribeStream', '{}');
SELECT ddb_error('DescribeStream', '{"StreamArn": "abc", "Limit": 0, "ExclusiveStartShardId": "x"}');
SELECT ddb_error('DescribeStream', '{"StreamArn": "arn:aws:dynamodb:ddblocal:000000000000:table/st1/stream/2026-01-01T00:00:00.000", "Limit": 101}');
SELECT ddb_error('DescribeStream', '{"StreamArn": "arn:aws:dynamodb:ddblocal:000000000000:table/st1/stream/2026-01-01T00:00:00.000"}');

-- GetShardIterator
SELECT ddb_error('GetShardIterator', '{}');
SELECT ddb_error('GetShardIterator', '{"StreamArn": "arn:aws:dynamodb:ddblocal:000000000000:table/st1/stream/2026-01-01T00:00:00.000",
  "ShardId": "shardId-00000001767225600000-00000000", "ShardIteratorType": "FIRST", "SequenceNumber": "12"}');
SELECT ddb_error('GetShardIterator', '{"StreamArn": "arn:aws:dynamodb:ddblocal:000000000000:table/st1/stream/2026-01-01T00:00:00.000",
  "ShardId": "shardId-00000001767225600000-00000000", "ShardIteratorType": "AT_SEQUENCE_NUMBER"}');
SELECT ddb_error('GetShardIterator', '{"StreamArn": "arn:aws:dynamodb:ddblocal:000000000000:table/st1/stream/2026-01-01T00:00:00.000",
  "ShardId": "shardId-00000001767225600000-00000000", "ShardIteratorType": "AFTER_SEQUENCE_NUMBER"}');
SELECT ddb_error('GetShardIterator', '{"StreamArn": "arn:aws:dynamodb:ddblocal:000000000000:table/st1/stream/2026-01-01T00:00:00.000",
  "ShardId": "shardId-00000001767225600000-00000000", "ShardIteratorType": "TRIM_HORIZON", "SequenceNumber": "000000000000000000001"}');
SELECT ddb_error('GetShardIterator', '{"StreamArn": "arn:aws:dynamodb:ddblocal:000000000000:table/st1/stream/2026-01-01T00:00:00.000",
  "ShardId": "shardId-00000001767225600000-00000000", "ShardIteratorType": "LATEST"}');

-- GetRecords: the members, malformed iterators, an expired one (before anything is read)
SELECT ddb_error('GetRecords', '{}');
SELECT ddb_error('GetRecords', '{"ShardIterator": "", "Limit": 0}');
SELECT regexp_replace(ddb_error('GetRecords', jsonb_build_object('ShardIterator', repeat('x', 2049))), 'x{2049}', 'x{2049}');
SELECT ddb_error('GetRecords', iter('v1|1|shardId-00000001767225600000-00000000|0|' || (extract(epoch FROM now()) * 1000)::int8) || '{"Limit": 1001}');
SELECT ddb_error('GetRecords', '{"ShardIterator": "garbage"}');
SELECT ddb_error('GetRecords', '{"ShardIterator": "arn|2|djF8MXx4fDB8MA=="}');
SELECT ddb_error('GetRecords', '{"ShardIterator": "arn|1|not base64!"}');
SELECT ddb_error('GetRecords', iter('v2|1|shardId-00000001767225600000-00000000|0|1'));
SELECT ddb_error('GetRecords', iter('v1|1|shardId-00000001767225600000-00000000|zero|1'));
SELECT ddb_error('GetRecords', iter('v1|1|shardId-00000001767225600000-00000000|0'));
SELECT ddb_error('GetRecords', iter('v1|1|shardId-00000001767225600000-00000000|0|1000'));
-- the validity is a setting
SET singletable.stream_iterator_lifetime = '1s';
SELECT ddb_error('GetRecords', iter('v1|1|shardId-00000001767225600000-00000000|0|' || (extract(epoch FROM now() - interval '2 s') * 1000)::int8));
RESET singletable.stream_iterator_lifetime;
-- a well-formed, fresh iterator of a stream that does not exist
SELECT ddb_error('GetRecords', iter('v1|1|shardId-00000001767225600000-00000000|0|' || (extract(epoch FROM now()) * 1000)::int8));

SELECT singletable.dynamodb('DeleteTable', '{"TableName": "st1"}') IS NOT NULL AS deleted;
DROP FUNCTION ddb_error(text, jsonb);
DROP FUNCTION iter(text, text);
