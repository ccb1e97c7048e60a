-- singletable 0.1.0 -> 0.2.0 (ALTER EXTENSION singletable UPDATE).
-- Every change here has its twin in sql/singletable--0.2.0.sql; test/upgrade.sh checks
-- that an upgraded installation and a fresh one have the same objects.
-- The schema check at the top of the 0.2.0 install script is not repeated: an
-- installed extension's schema already holds its objects.

\echo Use "ALTER EXTENSION singletable UPDATE TO '0.2.0'" to load this file. \quit

-- prefix_upper_bound(text) no longer returns the invalid byte 0xF5 (the library
-- change); its comment says what it returns instead.
COMMENT ON FUNCTION singletable.prefix_upper_bound(pg_catalog.text) IS
  'Smallest valid UTF-8 string above every string that starts with the prefix, in byte order; when there is none (empty prefix, or only U+10FFFF), a valid string above every indexable value that starts with it (used in index conditions)';
