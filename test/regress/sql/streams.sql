-- streams: the error paths of enable_stream, disable_stream and stream_records on a server
-- without wal_level = logical (the regress server). What streams capture is tested with
-- wal_level = logical in test/tap/t/004_streams.pl.
SET client_min_messages = warning;
SELECT singletable.create_table('st_app', 'pk', 'sk');
-- arguments
SELECT singletable.enable_stream(NULL);
SELECT singletable.enable_stream('st_app', NULL);
SELECT singletable.enable_stream('st_app', 'NEW');
SELECT singletable.enable_stream('no_such_table');
SELECT singletable.disable_stream(NULL);
-- wal_level below logical: a clear error naming the setting and the table
SELECT singletable.enable_stream('st_app');
SELECT singletable.enable_stream('st_app', 'KEYS_ONLY');
-- nothing was enabled
SELECT singletable.disable_stream('st_app');
SELECT * FROM singletable.stream_records('st_app');
SELECT * FROM singletable.stream_records('st_app', max_records => 0);
SELECT * FROM singletable.stream_records('st_app', after_sequence => 'x1');
SELECT * FROM singletable.stream_records('st_app', after_sequence => '1234567890123456789012');
SELECT * FROM singletable.stream_records('no_such_table');
-- a plain table is not an item table
CREATE TABLE st_plain (a int);
SELECT singletable.enable_stream('st_plain');
-- the caller must own the table to enable or disable, and read it for its records
CREATE ROLE st_other;
GRANT USAGE ON SCHEMA public TO st_other;
SET ROLE st_other;
SELECT singletable.enable_stream('st_app');
SELECT singletable.disable_stream('st_app');
SELECT * FROM singletable.stream_records('st_app');
-- the storage is not readable directly
SELECT count(*) FROM singletable.stream_records;
SELECT count(*) FROM singletable.streams;
RESET ROLE;
-- cleanup
DROP TABLE st_plain;
SELECT singletable.drop_table('st_app');
REVOKE USAGE ON SCHEMA public FROM st_other;
DROP ROLE st_other;
