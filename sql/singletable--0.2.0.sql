-- singletable 0.2.0: DynamoDB's single-table model for PostgreSQL.
-- Every object lives in schema singletable; every reference inside this script is
-- schema-qualified so that a hostile search_path cannot capture it.

\echo Use "CREATE EXTENSION singletable" to load this file. \quit

------------------------------------------------------------------------------
-- The schema. The control file names it, so CREATE EXTENSION creates it when it is
-- missing but silently reuses one that exists, whoever made it. A schema that
-- another role owns or may create objects in, or that already holds objects, could
-- hold functions and operators that capture the calls of every role using
-- singletable: refuse it. A schema made by CREATE EXTENSION itself, by pg_restore
-- (CREATE SCHEMA as the original superuser, privileges granted at the very end) or
-- left behind by DROP EXTENSION passes. USAGE without grant option is allowed, as
-- it lets nobody create anything (and DROP EXTENSION leaves the PUBLIC USAGE that
-- this script grants). Everything is schema-qualified: the schema under test is
-- first on the search_path here.
------------------------------------------------------------------------------
DO $check$
DECLARE
    nsp         pg_catalog.oid;
    owner       pg_catalog.name;
    owner_super pg_catalog.bool;
    granted     pg_catalog.text;
    n_objects   pg_catalog.int8;
    objects     pg_catalog.text;
    hint        pg_catalog.text := 'Drop or rename the existing schema "singletable", or make it an '
        'empty schema owned by a superuser that grants no privilege other than USAGE to other '
        'roles; then run CREATE EXTENSION singletable again.';
BEGIN
    SELECT n.oid, r.rolname, r.rolsuper
      INTO nsp, owner, owner_super
      FROM pg_catalog.pg_namespace n
      JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) n.nspowner
     WHERE n.nspname OPERATOR(pg_catalog.=) 'singletable';
    IF nsp IS NULL THEN
        RETURN;                 -- cannot happen: CREATE EXTENSION creates it first
    END IF;

    IF NOT owner_super THEN
        RAISE EXCEPTION 'existing schema "singletable" is owned by role "%", which is not a superuser', owner
            USING ERRCODE = 'duplicate_schema',
                  DETAIL = 'Its owner could create objects in it that capture the calls of other roles.',
                  HINT = hint;
    END IF;

    SELECT pg_catalog.string_agg(x.entry, ', ' ORDER BY x.entry)
      INTO granted
      FROM (SELECT a.privilege_type
                   OPERATOR(pg_catalog.||) CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END
                   OPERATOR(pg_catalog.||) ' to '
                   OPERATOR(pg_catalog.||) CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid
                                                THEN 'PUBLIC'
                                                ELSE pg_catalog.quote_ident(g.rolname) END AS entry
              FROM pg_catalog.pg_namespace n
             CROSS JOIN LATERAL pg_catalog.aclexplode(n.nspacl) a
              LEFT JOIN pg_catalog.pg_roles g ON g.oid OPERATOR(pg_catalog.=) a.grantee
             WHERE n.oid OPERATOR(pg_catalog.=) nsp
               AND a.grantee OPERATOR(pg_catalog.<>) n.nspowner
               AND (a.privilege_type OPERATOR(pg_catalog.<>) 'USAGE' OR a.is_grantable)) x;
    IF granted IS NOT NULL THEN
        RAISE EXCEPTION 'existing schema "singletable" of role "%" grants privileges to other roles', owner
            USING ERRCODE = 'duplicate_schema',
                  DETAIL = pg_catalog.format('Granted: %s. Other roles may have USAGE and nothing else: '
                                             'with CREATE they could create objects in it that capture '
                                             'the calls of other roles.', granted),
                  HINT = hint;
    END IF;

    -- Every object in a schema depends on it; the one allowed dependent is the
    -- pg_extension row of this very extension, created just before this script.
    SELECT pg_catalog.count(*),
           pg_catalog.string_agg(x.descr, ', ' ORDER BY x.descr)
               FILTER (WHERE x.rank OPERATOR(pg_catalog.<=) 5)
      INTO n_objects, objects
      FROM (SELECT pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid) AS descr,
                   pg_catalog.row_number() OVER (ORDER BY pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid)) AS rank
              FROM pg_catalog.pg_depend d
             WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
               AND d.refobjid OPERATOR(pg_catalog.=) nsp
               AND NOT (d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
                        AND d.objid OPERATOR(pg_catalog.=)
                            (SELECT e.oid FROM pg_catalog.pg_extension e
                              WHERE e.extname OPERATOR(pg_catalog.=) 'singletable'))) x;
    IF n_objects OPERATOR(pg_catalog.>) 0 THEN
        RAISE EXCEPTION 'existing schema "singletable" of role "%" is not empty', owner
            USING ERRCODE = 'duplicate_schema',
                  DETAIL = pg_catalog.format('It contains %s%s.', objects,
                                             CASE WHEN n_objects OPERATOR(pg_catalog.>) 5
                                                  THEN pg_catalog.format(' and %s more objects',
                                                                         n_objects OPERATOR(pg_catalog.-) 5)
                                                  ELSE '' END),
                  HINT = hint;
    END IF;
END
$check$;

------------------------------------------------------------------------------
-- Registry: one row per item-collection table created by singletable.create_table
------------------------------------------------------------------------------
CREATE TABLE singletable.tables (
    table_name          pg_catalog.regclass PRIMARY KEY,
    partition_key       pg_catalog.text NOT NULL,
    partition_key_type  pg_catalog.text NOT NULL
        CHECK (partition_key_type OPERATOR(pg_catalog.=) ANY (ARRAY['S','N','B']::pg_catalog.text[])),
    sort_key            pg_catalog.text,
    sort_key_type       pg_catalog.text
        CHECK (sort_key_type OPERATOR(pg_catalog.=) ANY (ARRAY['S','N','B']::pg_catalog.text[])),
    created_at          pg_catalog.timestamptz NOT NULL DEFAULT pg_catalog.now(),
    CHECK ((sort_key IS NULL) OPERATOR(pg_catalog.=) (sort_key_type IS NULL))
);
COMMENT ON TABLE singletable.tables IS
  'Registry of item-collection tables: key attribute names and DynamoDB key types (S, N, B)';
SELECT pg_catalog.pg_extension_config_dump('singletable.tables', '');
GRANT USAGE ON SCHEMA singletable TO PUBLIC;
GRANT SELECT ON singletable.tables TO PUBLIC;

-- Every change of the registry reaches the per-backend caches of every session (the
-- registry's owner may change it by plain SQL; create_table and drop do so themselves).
CREATE FUNCTION singletable.registry_changed()
RETURNS trigger
LANGUAGE C
AS 'MODULE_PATHNAME', 'singletable_registry_changed';
COMMENT ON FUNCTION singletable.registry_changed() IS
  'Trigger on singletable.tables: invalidates the cached description of the tables whose rows changed, in every session';
CREATE TRIGGER registry_changed AFTER INSERT OR UPDATE OR DELETE ON singletable.tables
    FOR EACH ROW EXECUTE FUNCTION singletable.registry_changed();
CREATE TRIGGER registry_truncated AFTER TRUNCATE ON singletable.tables
    FOR EACH STATEMENT EXECUTE FUNCTION singletable.registry_changed();

------------------------------------------------------------------------------
-- Secondary indexes: one row per index made by singletable.create_gsi or create_lsi
------------------------------------------------------------------------------
CREATE TABLE singletable.indexes (
    table_name          pg_catalog.regclass NOT NULL,
    index_name          pg_catalog.text NOT NULL,
    index_type          pg_catalog.text NOT NULL DEFAULT 'GSI'
        CHECK (index_type OPERATOR(pg_catalog.=) ANY (ARRAY['GSI','LSI']::pg_catalog.text[])),
    partition_key       pg_catalog.text[] NOT NULL,
    partition_key_type  pg_catalog.text[] NOT NULL,
    sort_key            pg_catalog.text[],
    sort_key_type       pg_catalog.text[],
    projection          pg_catalog.text NOT NULL DEFAULT 'ALL'
        CHECK (projection OPERATOR(pg_catalog.=) ANY (ARRAY['ALL','KEYS_ONLY','INCLUDE']::pg_catalog.text[])),
    non_key_attributes  pg_catalog.text[],
    pg_index            pg_catalog.name NOT NULL,
    status              pg_catalog.text NOT NULL DEFAULT 'ACTIVE'
        CHECK (status OPERATOR(pg_catalog.=) ANY (ARRAY['CREATING','ACTIVE','FAILED']::pg_catalog.text[])),
    build_error         pg_catalog.text,
    created_at          pg_catalog.timestamptz NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (table_name, index_name),
    -- 1 to 4 partition and 0 to 4 sort attributes, one type (S, N, B) each; an LSI has 1 + 1
    CHECK (pg_catalog.cardinality(partition_key) OPERATOR(pg_catalog.>=) 1
           AND pg_catalog.cardinality(partition_key) OPERATOR(pg_catalog.<=) 4
           AND pg_catalog.cardinality(partition_key_type) OPERATOR(pg_catalog.=) pg_catalog.cardinality(partition_key)
           AND partition_key_type OPERATOR(pg_catalog.<@) ARRAY['S','N','B']::pg_catalog.text[]),
    CHECK ((sort_key IS NULL) OPERATOR(pg_catalog.=) (sort_key_type IS NULL)),
    CHECK (sort_key IS NULL
           OR (pg_catalog.cardinality(sort_key) OPERATOR(pg_catalog.>=) 1
               AND pg_catalog.cardinality(sort_key) OPERATOR(pg_catalog.<=) 4
               AND pg_catalog.cardinality(sort_key_type) OPERATOR(pg_catalog.=) pg_catalog.cardinality(sort_key)
               AND sort_key_type OPERATOR(pg_catalog.<@) ARRAY['S','N','B']::pg_catalog.text[])),
    CHECK (index_type OPERATOR(pg_catalog.=) 'GSI'
           OR (pg_catalog.cardinality(partition_key) OPERATOR(pg_catalog.=) 1
               AND pg_catalog.cardinality(sort_key) OPERATOR(pg_catalog.=) 1)),
    CHECK ((projection OPERATOR(pg_catalog.=) 'INCLUDE') OPERATOR(pg_catalog.=) (non_key_attributes IS NOT NULL)),
    CHECK ((status OPERATOR(pg_catalog.=) 'FAILED') OPERATOR(pg_catalog.=) (build_error IS NOT NULL))
);
COMMENT ON TABLE singletable.indexes IS
  'Registry of secondary indexes (GSI and LSI) of item-collection tables: index key attributes and types (up to 4 + 4 for a GSI), projection, the name of the partial btree index (in the table''s schema) that holds the index, and its status (CREATING while built concurrently, ACTIVE, FAILED with the build''s error)';
SELECT pg_catalog.pg_extension_config_dump('singletable.indexes', '');
GRANT SELECT ON singletable.indexes TO PUBLIC;
CREATE TRIGGER registry_changed AFTER INSERT OR UPDATE OR DELETE ON singletable.indexes
    FOR EACH ROW EXECUTE FUNCTION singletable.registry_changed();
CREATE TRIGGER registry_truncated AFTER TRUNCATE ON singletable.indexes
    FOR EACH STATEMENT EXECUTE FUNCTION singletable.registry_changed();

------------------------------------------------------------------------------
-- Time to Live: one row per table whose items expire
------------------------------------------------------------------------------
CREATE TABLE singletable.ttl (
    table_name          pg_catalog.regclass PRIMARY KEY,
    attribute_name      pg_catalog.text NOT NULL
        CHECK (pg_catalog.octet_length(attribute_name) OPERATOR(pg_catalog.>=) 1
               AND pg_catalog.octet_length(attribute_name) OPERATOR(pg_catalog.<=) 255),
    ttl_index           pg_catalog.name NOT NULL,
    enabled_at          pg_catalog.timestamptz NOT NULL DEFAULT pg_catalog.now()
);
COMMENT ON TABLE singletable.ttl IS
  'Registry of TTL settings: the attribute holding each table''s expiry time (a Number of epoch seconds) and the partial index the sweep reads';
SELECT pg_catalog.pg_extension_config_dump('singletable.ttl', '');
GRANT SELECT ON singletable.ttl TO PUBLIC;
CREATE TRIGGER registry_changed AFTER INSERT OR UPDATE OR DELETE ON singletable.ttl
    FOR EACH ROW EXECUTE FUNCTION singletable.registry_changed();
CREATE TRIGGER registry_truncated AFTER TRUNCATE ON singletable.ttl
    FOR EACH STATEMENT EXECUTE FUNCTION singletable.registry_changed();

-- Keeps the registry consistent when an item table is dropped by plain SQL
-- (renames need nothing: the registry stores the table's OID as regclass).
-- SECURITY DEFINER because the registry is owned by the extension owner while any
-- table owner may drop their own table; it only deletes rows of relations that
-- PostgreSQL reports as dropped in this very command.
CREATE FUNCTION singletable.on_sql_drop()
RETURNS event_trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    DELETE FROM singletable.indexes i
     USING pg_catalog.pg_event_trigger_dropped_objects() d
     WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
       AND d.objsubid OPERATOR(pg_catalog.=) 0
       AND i.table_name::pg_catalog.oid OPERATOR(pg_catalog.=) d.objid;
    DELETE FROM singletable.indexes i
     USING pg_catalog.pg_event_trigger_dropped_objects() d, pg_catalog.pg_class c,
           pg_catalog.pg_namespace n
     WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
       AND d.objsubid OPERATOR(pg_catalog.=) 0
       AND d.object_type OPERATOR(pg_catalog.=) 'index'
       AND c.oid OPERATOR(pg_catalog.=) i.table_name::pg_catalog.oid
       AND n.oid OPERATOR(pg_catalog.=) c.relnamespace
       AND n.nspname OPERATOR(pg_catalog.=) d.schema_name
       AND i.pg_index OPERATOR(pg_catalog.=) d.object_name::pg_catalog.name
       AND i.status OPERATOR(pg_catalog.<>) 'FAILED';
    DELETE FROM singletable.ttl t
     USING pg_catalog.pg_event_trigger_dropped_objects() d
     WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
       AND d.objsubid OPERATOR(pg_catalog.=) 0
       AND t.table_name::pg_catalog.oid OPERATOR(pg_catalog.=) d.objid;
    DELETE FROM singletable.tables t
     USING pg_catalog.pg_event_trigger_dropped_objects() d
     WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
       AND d.objsubid OPERATOR(pg_catalog.=) 0
       AND t.table_name::pg_catalog.oid OPERATOR(pg_catalog.=) d.objid;
END;
$$;
COMMENT ON FUNCTION singletable.on_sql_drop() IS
  'Event trigger: removes registry rows of dropped item tables (and of their secondary indexes) and of dropped secondary-index btree indexes';

CREATE EVENT TRIGGER singletable_sql_drop ON sql_drop
    EXECUTE FUNCTION singletable.on_sql_drop();

------------------------------------------------------------------------------
-- Tables
------------------------------------------------------------------------------
CREATE FUNCTION singletable.create_table(
    table_name          pg_catalog.text,
    partition_key       pg_catalog.text DEFAULT 'pk',
    sort_key            pg_catalog.text DEFAULT 'sk',
    partition_key_type  pg_catalog.text DEFAULT 'S',
    sort_key_type       pg_catalog.text DEFAULT 'S')
RETURNS pg_catalog.regclass
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_create_table';
COMMENT ON FUNCTION singletable.create_table(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text) IS
  'Creates an item-collection table owned by the caller: key columns under a btree primary key, the item as jsonb';

CREATE FUNCTION singletable.drop_table(table_name pg_catalog.text)
RETURNS void
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_drop_table';
COMMENT ON FUNCTION singletable.drop_table(pg_catalog.text) IS
  'Drops an item-collection table and its registry row';

CREATE FUNCTION singletable.describe_table(table_name pg_catalog.text)
RETURNS pg_catalog.jsonb
LANGUAGE C CALLED ON NULL INPUT STABLE
AS 'MODULE_PATHNAME', 'singletable_describe_table';
COMMENT ON FUNCTION singletable.describe_table(pg_catalog.text) IS
  'Key schema, item count estimate and size in bytes of an item-collection table';

CREATE FUNCTION singletable.distribute_table(
    table_name          pg_catalog.text,
    shard_count         pg_catalog.int4 DEFAULT NULL)
RETURNS void
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_distribute_table';
COMMENT ON FUNCTION singletable.distribute_table(pg_catalog.text, pg_catalog.int4) IS
  'Distributes an item-collection table the caller owns with Citus, by its partition key, colocated with the other item tables of the same partition key type';

CREATE FUNCTION singletable.create_gsi(
    table_name          pg_catalog.text,
    index_name          pg_catalog.text,
    partition_key       pg_catalog.text,
    sort_key            pg_catalog.text DEFAULT NULL,
    partition_key_type  pg_catalog.text DEFAULT 'S',
    sort_key_type       pg_catalog.text DEFAULT 'S',
    projection          pg_catalog.text DEFAULT 'ALL',
    non_key_attributes  pg_catalog.text[] DEFAULT NULL,
    concurrently        pg_catalog.bool DEFAULT false)
RETURNS pg_catalog.regclass
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_create_gsi';
COMMENT ON FUNCTION singletable.create_gsi(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text[], pg_catalog.bool) IS
  'Creates a sparse global secondary index (a partial btree index over the typed index key attributes -- up to 4 partition and 4 sort attributes, comma-separated -- then the table''s keys) on a table the caller owns, after checking every item already there; concurrently => true returns at once and builds it in a background worker without blocking writes';

CREATE FUNCTION singletable.drop_gsi(table_name pg_catalog.text, index_name pg_catalog.text)
RETURNS void
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_drop_gsi';
COMMENT ON FUNCTION singletable.drop_gsi(pg_catalog.text, pg_catalog.text) IS
  'Drops a global secondary index of a table the caller owns, with its btree index and registry row';

CREATE FUNCTION singletable.create_lsi(
    table_name          pg_catalog.text,
    index_name          pg_catalog.text,
    sort_key            pg_catalog.text,
    sort_key_type       pg_catalog.text DEFAULT 'S',
    projection          pg_catalog.text DEFAULT 'ALL',
    non_key_attributes  pg_catalog.text[] DEFAULT NULL)
RETURNS pg_catalog.regclass
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_create_lsi';
COMMENT ON FUNCTION singletable.create_lsi(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text[]) IS
  'Creates a local secondary index: the table''s partition key with another sort key (a partial btree index over the partition key, the typed sort key attribute and the table''s sort key), on a table the caller owns';

CREATE FUNCTION singletable.drop_lsi(table_name pg_catalog.text, index_name pg_catalog.text)
RETURNS void
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_drop_lsi';
COMMENT ON FUNCTION singletable.drop_lsi(pg_catalog.text, pg_catalog.text) IS
  'Drops a local secondary index of a table the caller owns, with its btree index and registry row';

CREATE FUNCTION singletable.index_sql(table_name pg_catalog.text, index_name pg_catalog.text)
RETURNS pg_catalog.text
LANGUAGE C CALLED ON NULL INPUT STABLE
AS 'MODULE_PATHNAME', 'singletable_index_sql';
COMMENT ON FUNCTION singletable.index_sql(pg_catalog.text, pg_catalog.text) IS
  'The plain-SQL SELECT that reads one partition of a secondary index in index order (its predicate, = $n on each partition key expression, ORDER BY the sort key expressions and the table keys); conditions added on the sort key expressions are index conditions too';

CREATE FUNCTION singletable.enable_ttl(table_name pg_catalog.text, attribute_name pg_catalog.text)
RETURNS void
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_enable_ttl';
COMMENT ON FUNCTION singletable.enable_ttl(pg_catalog.text, pg_catalog.text) IS
  'Items of a table the caller owns expire at the Number of epoch seconds in attribute_name: creates the partial index sweeps read and registers the setting';

CREATE FUNCTION singletable.disable_ttl(table_name pg_catalog.text)
RETURNS void
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_disable_ttl';
COMMENT ON FUNCTION singletable.disable_ttl(pg_catalog.text) IS
  'Items of a table the caller owns no longer expire; drops the TTL index';

CREATE FUNCTION singletable.ttl_sweep(table_name pg_catalog.text DEFAULT NULL, max_items pg_catalog.int4 DEFAULT NULL)
RETURNS pg_catalog.int8
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_ttl_sweep';
COMMENT ON FUNCTION singletable.ttl_sweep(pg_catalog.text, pg_catalog.int4) IS
  'Deletes expired items now, in this transaction, in batches of singletable.ttl_batch_size skipping locked items: of the table named, or of every TTL table the caller may read and delete from; returns how many';

CREATE FUNCTION singletable.ttl_status(
    OUT table_name pg_catalog.regclass, OUT attribute_name pg_catalog.text, OUT ttl_index pg_catalog.name,
    OUT last_sweep_start pg_catalog.timestamptz, OUT last_sweep_end pg_catalog.timestamptz,
    OUT deleted_last pg_catalog.int8, OUT deleted_total pg_catalog.int8,
    OUT backlog pg_catalog.int8, OUT last_error pg_catalog.text)
RETURNS SETOF record
LANGUAGE C STRICT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_ttl_status';
COMMENT ON FUNCTION singletable.ttl_status() IS
  'Per TTL table: the last sweep''s start and end, items it deleted, items deleted since the server started (the statistics need shared_preload_libraries), expired items not yet swept (counted up to 100,000), the last sweep''s error';

CREATE VIEW singletable.ttl_status AS SELECT * FROM singletable.ttl_status();
COMMENT ON VIEW singletable.ttl_status IS
  'TTL tables with the statistics of their sweeps and their backlog (singletable.ttl_status())';
GRANT SELECT ON singletable.ttl_status TO PUBLIC;

------------------------------------------------------------------------------
-- Items
------------------------------------------------------------------------------
CREATE FUNCTION singletable.put_item(
    table_name  pg_catalog.text,
    item        pg_catalog.jsonb,
    condition   pg_catalog.text DEFAULT NULL,
    names       pg_catalog.jsonb DEFAULT NULL,
    vals        pg_catalog.jsonb DEFAULT NULL,
    return_values pg_catalog.text DEFAULT 'NONE',
    return_values_on_condition_check_failure pg_catalog.text DEFAULT 'NONE')
RETURNS pg_catalog.jsonb
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_put_item';
COMMENT ON FUNCTION singletable.put_item(pg_catalog.text, pg_catalog.jsonb, pg_catalog.text, pg_catalog.jsonb, pg_catalog.jsonb, pg_catalog.text, pg_catalog.text) IS
  'Writes a whole item (replacing any item with the same key) if the condition holds on the current item; returns the previous item with return_values => ''ALL_OLD'', else NULL';

CREATE FUNCTION singletable.get_item(
    table_name  pg_catalog.text,
    pk          pg_catalog.text,
    sk          pg_catalog.text DEFAULT NULL,
    projection  pg_catalog.text DEFAULT NULL,
    names       pg_catalog.jsonb DEFAULT NULL,
    include_expired pg_catalog.bool DEFAULT false,
    consistent_read pg_catalog.bool DEFAULT NULL)
RETURNS pg_catalog.jsonb
LANGUAGE C CALLED ON NULL INPUT STABLE
AS 'MODULE_PATHNAME', 'singletable_get_item';
COMMENT ON FUNCTION singletable.get_item(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.jsonb, pg_catalog.bool, pg_catalog.bool) IS
  'Reads one item by its key (N keys as decimal text, B keys as base64), optionally projected; NULL when absent, or expired by the table''s TTL unless include_expired; charged (last_consumed_capacity) as a strongly consistent read unless consistent_read is false';

CREATE FUNCTION singletable.delete_item(
    table_name  pg_catalog.text,
    pk          pg_catalog.text,
    sk          pg_catalog.text DEFAULT NULL,
    condition   pg_catalog.text DEFAULT NULL,
    names       pg_catalog.jsonb DEFAULT NULL,
    vals        pg_catalog.jsonb DEFAULT NULL,
    return_values pg_catalog.text DEFAULT 'NONE',
    return_values_on_condition_check_failure pg_catalog.text DEFAULT 'NONE')
RETURNS pg_catalog.jsonb
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_delete_item';
COMMENT ON FUNCTION singletable.delete_item(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.jsonb, pg_catalog.jsonb, pg_catalog.text, pg_catalog.text) IS
  'Deletes one item by its key if the condition holds; returns the deleted item with return_values => ''ALL_OLD'', else NULL';

CREATE FUNCTION singletable.update_item(
    table_name  pg_catalog.text,
    pk          pg_catalog.text,
    sk          pg_catalog.text,
    update      pg_catalog.text,
    condition   pg_catalog.text DEFAULT NULL,
    names       pg_catalog.jsonb DEFAULT NULL,
    vals        pg_catalog.jsonb DEFAULT NULL,
    return_values pg_catalog.text DEFAULT 'ALL_NEW',
    return_values_on_condition_check_failure pg_catalog.text DEFAULT 'NONE')
RETURNS pg_catalog.jsonb
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_update_item';
COMMENT ON FUNCTION singletable.update_item(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.jsonb, pg_catalog.jsonb, pg_catalog.text, pg_catalog.text) IS
  'Applies an update expression to one item (creating it from its key when absent) if the condition holds; returns what return_values asks for';

CREATE FUNCTION singletable.condition_check_failure_item()
RETURNS pg_catalog.jsonb
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'singletable_condition_check_failure_item';
COMMENT ON FUNCTION singletable.condition_check_failure_item() IS
  'The current item of this session''s last write whose condition failed with return_values_on_condition_check_failure => ''ALL_OLD'' (for the same role), or NULL; errors never carry item content';

CREATE FUNCTION singletable.item_size(item pg_catalog.jsonb)
RETURNS pg_catalog.int4
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'singletable_item_size';
COMMENT ON FUNCTION singletable.item_size(pg_catalog.jsonb) IS
  'DynamoDB''s size of an item in bytes (attribute names plus values by DynamoDB''s rules), the size the 409,600-byte item limit applies to';

-- Internal: the fast size of an item in the stored form that every operation accounts
-- its capacity with (src/size.c): the expression of the size index (create_size_index),
-- compared with item_size by test/regress/sql/stored_size.sql. Not part of the API.
CREATE FUNCTION singletable._stored_size(item pg_catalog.jsonb, b_keys pg_catalog.text[] DEFAULT NULL)
RETURNS pg_catalog.int8
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'singletable_stored_size';
COMMENT ON FUNCTION singletable._stored_size(pg_catalog.jsonb, pg_catalog.text[]) IS
  'Internal, for the size index (create_size_index) and tests: DynamoDB''s size of an item in the stored form (as read from a table), b_keys naming its B key attributes stored as plain base64 strings; use item_size';

-- Internal: the same size as the wire writer counts it while it writes an item in wire
-- form (src/attrval.c), as singletable.dynamodb's Query and Scan do for every item they
-- read; compared with _stored_size by test/regress/sql/stored_size.sql. Not part of the API.
CREATE FUNCTION singletable._wire_size(item pg_catalog.jsonb, b_keys pg_catalog.text[] DEFAULT NULL)
RETURNS pg_catalog.int8
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'singletable_wire_size';
COMMENT ON FUNCTION singletable._wire_size(pg_catalog.jsonb, pg_catalog.text[]) IS
  'Internal, for tests: _stored_size as counted by the wire writer of singletable.dynamodb''s Query and Scan, which sizes each item while it converts it; use item_size';

------------------------------------------------------------------------------
-- Query
------------------------------------------------------------------------------
-- The row type of query's result. A named composite type rather than
-- RETURNS TABLE: the executor then takes the result descriptor from the type
-- cache instead of rebuilding it from pg_proc's argument arrays on every call.
CREATE TYPE singletable.item_row AS (
    pk      pg_catalog.text,
    sk      pg_catalog.text,
    item    pg_catalog.jsonb);
COMMENT ON TYPE singletable.item_row IS
  'A row of singletable.query: the item''s keys as text (N as decimal text, B as base64) and the item';

CREATE FUNCTION singletable.query_support(pg_catalog.internal)
RETURNS pg_catalog.internal
LANGUAGE C STRICT STABLE
AS 'MODULE_PATHNAME', 'singletable_query_support';
COMMENT ON FUNCTION singletable.query_support(pg_catalog.internal) IS
  'Planner support for singletable.query: its row estimate (max_items, or rows per partition key from the table''s statistics)';

CREATE FUNCTION singletable.query(
    table_name          pg_catalog.text,
    pk                  pg_catalog.text DEFAULT NULL,
    sk_op               pg_catalog.text DEFAULT NULL,
    sk_value            pg_catalog.text DEFAULT NULL,
    sk_value2           pg_catalog.text DEFAULT NULL,
    forward             pg_catalog.bool DEFAULT true,
    max_items           pg_catalog.int4 DEFAULT NULL,
    exclusive_start_sk  pg_catalog.text DEFAULT NULL,
    filter              pg_catalog.text DEFAULT NULL,
    projection          pg_catalog.text DEFAULT NULL,
    names               pg_catalog.jsonb DEFAULT NULL,
    vals                pg_catalog.jsonb DEFAULT NULL,
    exclusive_start_key pg_catalog.jsonb DEFAULT NULL,
    index_name          pg_catalog.text DEFAULT NULL,
    key_condition       pg_catalog.text DEFAULT NULL,
    include_expired     pg_catalog.bool DEFAULT false,
    consistent_read     pg_catalog.bool DEFAULT NULL)
RETURNS SETOF singletable.item_row
LANGUAGE C CALLED ON NULL INPUT STABLE ROWS 100
SUPPORT singletable.query_support
AS 'MODULE_PATHNAME', 'singletable_query';
COMMENT ON FUNCTION singletable.query(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.bool, pg_catalog.int4, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.jsonb, pg_catalog.jsonb, pg_catalog.jsonb, pg_catalog.text, pg_catalog.text, pg_catalog.bool, pg_catalog.bool) IS
  'Reads one item collection by a key condition (pk and sk_op, or DynamoDB''s KeyConditionExpression as key_condition) on the table or on the secondary index index_name, as one btree index range, in key order; filter and projection expressions apply to the items read; max_items bounds the items read (alone in FROM the call streams its rows, so an outer LIMIT stops the read too); items expired by the table''s TTL are left out unless include_expired';

CREATE FUNCTION singletable.explain_query(
    table_name          pg_catalog.text,
    pk                  pg_catalog.text DEFAULT NULL,
    sk_op               pg_catalog.text DEFAULT NULL,
    sk_value            pg_catalog.text DEFAULT NULL,
    sk_value2           pg_catalog.text DEFAULT NULL,
    forward             pg_catalog.bool DEFAULT true,
    max_items           pg_catalog.int4 DEFAULT NULL,
    exclusive_start_sk  pg_catalog.text DEFAULT NULL,
    with_analyze        pg_catalog.bool DEFAULT false,
    index_name          pg_catalog.text DEFAULT NULL,
    key_condition       pg_catalog.text DEFAULT NULL,
    names               pg_catalog.jsonb DEFAULT NULL,
    vals                pg_catalog.jsonb DEFAULT NULL,
    exclusive_start_key pg_catalog.jsonb DEFAULT NULL)
RETURNS SETOF pg_catalog.text
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_explain_query';
COMMENT ON FUNCTION singletable.explain_query(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.bool, pg_catalog.int4, pg_catalog.text, pg_catalog.bool, pg_catalog.text, pg_catalog.text, pg_catalog.jsonb, pg_catalog.jsonb, pg_catalog.jsonb) IS
  'EXPLAIN (COSTS OFF) of the statement singletable.query runs for these arguments (on the table, or on the secondary index index_name), planned as the session''s plan_cache_mode plans it';

------------------------------------------------------------------------------
-- Scan
------------------------------------------------------------------------------
CREATE FUNCTION singletable.scan(
    table_name          pg_catalog.text,
    filter              pg_catalog.text DEFAULT NULL,
    projection          pg_catalog.text DEFAULT NULL,
    names               pg_catalog.jsonb DEFAULT NULL,
    vals                pg_catalog.jsonb DEFAULT NULL,
    index_name          pg_catalog.text DEFAULT NULL,
    segment             pg_catalog.int4 DEFAULT NULL,
    total_segments      pg_catalog.int4 DEFAULT NULL,
    max_items           pg_catalog.int4 DEFAULT NULL,
    exclusive_start_key pg_catalog.jsonb DEFAULT NULL,
    include_expired     pg_catalog.bool DEFAULT false,
    consistent_read     pg_catalog.bool DEFAULT NULL)
RETURNS SETOF singletable.item_row
LANGUAGE C CALLED ON NULL INPUT STABLE ROWS 1000
AS 'MODULE_PATHNAME', 'singletable_scan';
COMMENT ON FUNCTION singletable.scan(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.jsonb, pg_catalog.jsonb, pg_catalog.text, pg_catalog.int4, pg_catalog.int4, pg_catalog.int4, pg_catalog.jsonb, pg_catalog.bool, pg_catalog.bool) IS
  'Reads every item of the table, or of the secondary index index_name, in the order of its btree; segment of total_segments (DynamoDB''s parallel scan) reads one range of the leading key column, its bounds taken from that column''s statistics (on a Citus-distributed table one range of the partition key''s hash); filter (which may read key attributes) and projection apply to the items read; max_items bounds the items read; items expired by the table''s TTL are left out unless include_expired';

CREATE FUNCTION singletable.explain_scan(
    table_name          pg_catalog.text,
    filter              pg_catalog.text DEFAULT NULL,
    projection          pg_catalog.text DEFAULT NULL,
    names               pg_catalog.jsonb DEFAULT NULL,
    vals                pg_catalog.jsonb DEFAULT NULL,
    index_name          pg_catalog.text DEFAULT NULL,
    segment             pg_catalog.int4 DEFAULT NULL,
    total_segments      pg_catalog.int4 DEFAULT NULL,
    max_items           pg_catalog.int4 DEFAULT NULL,
    exclusive_start_key pg_catalog.jsonb DEFAULT NULL,
    include_expired     pg_catalog.bool DEFAULT false,
    with_analyze        pg_catalog.bool DEFAULT false)
RETURNS SETOF pg_catalog.text
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_explain_scan';
COMMENT ON FUNCTION singletable.explain_scan(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.jsonb, pg_catalog.jsonb, pg_catalog.text, pg_catalog.int4, pg_catalog.int4, pg_catalog.int4, pg_catalog.jsonb, pg_catalog.bool, pg_catalog.bool) IS
  'EXPLAIN (COSTS OFF) of the statement singletable.scan runs for these arguments (with the segment''s bounds), planned as the session''s plan_cache_mode plans it';

-- Capacity, pages and where a read stopped (DynamoDB's ConsumedCapacity, 1 MB pages,
-- LastEvaluatedKey).
CREATE FUNCTION singletable.query_page(
    table_name          pg_catalog.text,
    pk                  pg_catalog.text DEFAULT NULL,
    sk_op               pg_catalog.text DEFAULT NULL,
    sk_value            pg_catalog.text DEFAULT NULL,
    sk_value2           pg_catalog.text DEFAULT NULL,
    forward             pg_catalog.bool DEFAULT true,
    max_items           pg_catalog.int4 DEFAULT NULL,
    exclusive_start_sk  pg_catalog.text DEFAULT NULL,
    filter              pg_catalog.text DEFAULT NULL,
    projection          pg_catalog.text DEFAULT NULL,
    names               pg_catalog.jsonb DEFAULT NULL,
    vals                pg_catalog.jsonb DEFAULT NULL,
    exclusive_start_key pg_catalog.jsonb DEFAULT NULL,
    index_name          pg_catalog.text DEFAULT NULL,
    key_condition       pg_catalog.text DEFAULT NULL,
    include_expired     pg_catalog.bool DEFAULT false,
    consistent_read     pg_catalog.bool DEFAULT NULL)
RETURNS pg_catalog.jsonb
LANGUAGE C CALLED ON NULL INPUT STABLE
AS 'MODULE_PATHNAME', 'singletable_query_page';
COMMENT ON FUNCTION singletable.query_page(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.bool, pg_catalog.int4, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.jsonb, pg_catalog.jsonb, pg_catalog.jsonb, pg_catalog.text, pg_catalog.text, pg_catalog.bool, pg_catalog.bool) IS
  'One page of singletable.query, as DynamoDB''s Query returns it: {"Items", "Count", "ScannedCount", "LastEvaluatedKey", "ConsumedCapacity"}; the page stops after max_items evaluated items or 1 MB of them; pass LastEvaluatedKey as exclusive_start_key for the next page';

CREATE FUNCTION singletable.scan_page(
    table_name          pg_catalog.text,
    filter              pg_catalog.text DEFAULT NULL,
    projection          pg_catalog.text DEFAULT NULL,
    names               pg_catalog.jsonb DEFAULT NULL,
    vals                pg_catalog.jsonb DEFAULT NULL,
    index_name          pg_catalog.text DEFAULT NULL,
    segment             pg_catalog.int4 DEFAULT NULL,
    total_segments      pg_catalog.int4 DEFAULT NULL,
    max_items           pg_catalog.int4 DEFAULT NULL,
    exclusive_start_key pg_catalog.jsonb DEFAULT NULL,
    include_expired     pg_catalog.bool DEFAULT false,
    consistent_read     pg_catalog.bool DEFAULT NULL)
RETURNS pg_catalog.jsonb
LANGUAGE C CALLED ON NULL INPUT STABLE
AS 'MODULE_PATHNAME', 'singletable_scan_page';
COMMENT ON FUNCTION singletable.scan_page(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.jsonb, pg_catalog.jsonb, pg_catalog.text, pg_catalog.int4, pg_catalog.int4, pg_catalog.int4, pg_catalog.jsonb, pg_catalog.bool, pg_catalog.bool) IS
  'One page of singletable.scan, as DynamoDB''s Scan returns it (see query_page)';

CREATE FUNCTION singletable.last_evaluated_key()
RETURNS pg_catalog.jsonb
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'singletable_last_evaluated_key';
COMMENT ON FUNCTION singletable.last_evaluated_key() IS
  'Where this session''s last query, scan or page stopped (DynamoDB''s LastEvaluatedKey, for exclusive_start_key), or NULL when it read to the end';

CREATE FUNCTION singletable.last_consumed_capacity()
RETURNS pg_catalog.jsonb
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'singletable_last_consumed_capacity';
COMMENT ON FUNCTION singletable.last_consumed_capacity() IS
  'DynamoDB''s ConsumedCapacity of this session''s last item operation, query or scan (also of a write whose condition failed): CapacityUnits, Read/WriteCapacityUnits, Table, GlobalSecondaryIndexes, LocalSecondaryIndexes';

-- Internal: the SET expression of put_item's upsert, which hands the replaced item to the
-- capacity arithmetic (a put costs the larger of the old and the new item). Returns "new".
CREATE FUNCTION singletable._replacing(old pg_catalog.jsonb, new pg_catalog.jsonb)
RETURNS pg_catalog.jsonb
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'singletable_replacing';
COMMENT ON FUNCTION singletable._replacing(pg_catalog.jsonb, pg_catalog.jsonb) IS
  'Internal to put_item: returns new, and hands old to the capacity arithmetic of the put that runs it';

-- The cost of a Query before running it, and the size index that makes that cheap.
CREATE FUNCTION singletable.estimate_query(
    table_name          pg_catalog.text,
    pk                  pg_catalog.text DEFAULT NULL,
    sk_op               pg_catalog.text DEFAULT NULL,
    sk_value            pg_catalog.text DEFAULT NULL,
    sk_value2           pg_catalog.text DEFAULT NULL,
    forward             pg_catalog.bool DEFAULT true,
    max_items           pg_catalog.int4 DEFAULT NULL,
    exclusive_start_sk  pg_catalog.text DEFAULT NULL,
    filter              pg_catalog.text DEFAULT NULL,
    projection          pg_catalog.text DEFAULT NULL,
    names               pg_catalog.jsonb DEFAULT NULL,
    vals                pg_catalog.jsonb DEFAULT NULL,
    exclusive_start_key pg_catalog.jsonb DEFAULT NULL,
    index_name          pg_catalog.text DEFAULT NULL,
    key_condition       pg_catalog.text DEFAULT NULL,
    include_expired     pg_catalog.bool DEFAULT false,
    consistent_read     pg_catalog.bool DEFAULT NULL,
    OUT items           pg_catalog.int8,
    OUT bytes           pg_catalog.int8,
    OUT pages           pg_catalog.int4,
    OUT read_capacity_units pg_catalog.float8,
    OUT eventually_consistent_read_capacity_units pg_catalog.float8,
    OUT source          pg_catalog.text,
    OUT heap_fetches    pg_catalog.int8)
RETURNS record
LANGUAGE C CALLED ON NULL INPUT STABLE
AS 'MODULE_PATHNAME', 'singletable_estimate_query';
COMMENT ON FUNCTION singletable.estimate_query(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.bool, pg_catalog.int4, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.jsonb, pg_catalog.jsonb, pg_catalog.jsonb, pg_catalog.text, pg_catalog.text, pg_catalog.bool, pg_catalog.bool) IS
  'What singletable.query with these arguments would evaluate: items, bytes (DynamoDB item sizes), 1 MB pages and read capacity units (strongly and eventually consistent), read from the table''s size index alone when it has one (source ''size index''), else from the items of the range (source ''items'')';

CREATE FUNCTION singletable.create_size_index(table_name pg_catalog.text)
RETURNS pg_catalog.regclass
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_create_size_index';
COMMENT ON FUNCTION singletable.create_size_index(pg_catalog.text) IS
  'Creates <table>_item_size, a btree on the table''s keys and each item''s DynamoDB size, from which estimate_query reads a Query''s cost without reading the items (owner only)';

CREATE FUNCTION singletable.drop_size_index(table_name pg_catalog.text)
RETURNS void
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_drop_size_index';
COMMENT ON FUNCTION singletable.drop_size_index(pg_catalog.text) IS
  'Drops the table''s size index (owner only)';

------------------------------------------------------------------------------
-- Operation statistics (DynamoDB's CloudWatch metrics per table and index)
------------------------------------------------------------------------------
CREATE FUNCTION singletable.table_stats(
    OUT table_name pg_catalog.regclass, OUT index_name pg_catalog.text, OUT operation pg_catalog.text,
    OUT calls pg_catalog.int8, OUT items_read pg_catalog.int8, OUT items_returned pg_catalog.int8,
    OUT items_written pg_catalog.int8, OUT bytes_read pg_catalog.int8, OUT bytes_written pg_catalog.int8,
    OUT read_capacity_units pg_catalog.float8, OUT write_capacity_units pg_catalog.float8,
    OUT conditional_check_failures pg_catalog.int8, OUT scope pg_catalog.text)
RETURNS SETOF record
LANGUAGE C STRICT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_table_stats';
COMMENT ON FUNCTION singletable.table_stats() IS
  'Per table of this database (index_name NULL) or secondary index, and operation (DynamoDB''s names): calls, items read, returned and written, their bytes, capacity units, failed conditions; only tables the caller may SELECT from, or all with the privileges of pg_read_all_stats; scope ''shared'' (shared_preload_libraries: every session''s calls since the last reset) or ''backend'' (this session''s calls)';

CREATE VIEW singletable.table_stats AS SELECT * FROM singletable.table_stats();
COMMENT ON VIEW singletable.table_stats IS
  'Operation statistics per table, secondary index and operation (singletable.table_stats())';
GRANT SELECT ON singletable.table_stats TO PUBLIC;

CREATE FUNCTION singletable.reset_stats(table_name pg_catalog.regclass DEFAULT NULL)
RETURNS void
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_reset_stats';
COMMENT ON FUNCTION singletable.reset_stats(pg_catalog.regclass) IS
  'Discards the operation statistics of the table named (in this database), or with NULL all of them, of every database, and the eviction count; superuser only unless EXECUTE is granted';
REVOKE ALL ON FUNCTION singletable.reset_stats(pg_catalog.regclass) FROM PUBLIC;

CREATE FUNCTION singletable.stats_info(OUT dealloc pg_catalog.int8, OUT stats_reset pg_catalog.timestamptz)
RETURNS record
LANGUAGE C STRICT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_stats_info';
COMMENT ON FUNCTION singletable.stats_info() IS
  'How many times the least used entries of singletable.table_stats were evicted to make room (singletable.stats_max) since the last full reset, and when that reset was (or when counting started)';

CREATE VIEW singletable.stats_info AS SELECT * FROM singletable.stats_info();
COMMENT ON VIEW singletable.stats_info IS
  'Evictions of operation statistics and the time of their last full reset (singletable.stats_info())';
GRANT SELECT ON singletable.stats_info TO PUBLIC;

------------------------------------------------------------------------------
-- begins_with for plain SQL, with planner support (index range also for bind parameters)
------------------------------------------------------------------------------
CREATE FUNCTION singletable.begins_with_support(pg_catalog.internal)
RETURNS pg_catalog.internal
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'singletable_begins_with_support';
COMMENT ON FUNCTION singletable.begins_with_support(pg_catalog.internal) IS
  'Planner support for singletable.begins_with: turns the call into btree index conditions and estimates its selectivity';

CREATE FUNCTION singletable.prefix_upper_bound(pg_catalog.text)
RETURNS pg_catalog.text
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'singletable_prefix_upper_bound_text';
COMMENT ON FUNCTION singletable.prefix_upper_bound(pg_catalog.text) IS
  'Smallest valid UTF-8 string above every string that starts with the prefix, in byte order; when there is none (empty prefix, or only U+10FFFF), a valid string above every indexable value that starts with it (used in index conditions)';

CREATE FUNCTION singletable.prefix_upper_bound(pg_catalog.bytea)
RETURNS pg_catalog.bytea
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'singletable_prefix_upper_bound_bytea';
COMMENT ON FUNCTION singletable.prefix_upper_bound(pg_catalog.bytea) IS
  'A value above every indexable value that starts with the prefix, in unsigned byte order (used in index conditions)';

CREATE FUNCTION singletable.begins_with(pg_catalog.text, pg_catalog.text)
RETURNS pg_catalog.bool
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE
SUPPORT singletable.begins_with_support
AS 'MODULE_PATHNAME', 'singletable_begins_with_text';
COMMENT ON FUNCTION singletable.begins_with(pg_catalog.text, pg_catalog.text) IS
  'True when the first string starts with the second (byte-wise); an index range on a C-collated btree column';

CREATE FUNCTION singletable.begins_with(pg_catalog.bytea, pg_catalog.bytea)
RETURNS pg_catalog.bool
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE
SUPPORT singletable.begins_with_support
AS 'MODULE_PATHNAME', 'singletable_begins_with_bytea';
COMMENT ON FUNCTION singletable.begins_with(pg_catalog.bytea, pg_catalog.bytea) IS
  'True when the first value starts with the second; an index range on a btree bytea column';

------------------------------------------------------------------------------
-- Transactions: transact_write (TransactWriteItems), transact_get
-- (TransactGetItems), the reasons of the last cancellation, and the
-- ClientRequestTokens that make a transact_write idempotent for 10 minutes.
------------------------------------------------------------------------------
-- Readable and writable by its owner only: transact_write reads and writes it as
-- the owner (src/tokens.c), each role's tokens apart.
CREATE TABLE singletable.client_request_tokens (
    role          pg_catalog.regrole NOT NULL,
    token         pg_catalog.text COLLATE pg_catalog."C" NOT NULL
        CHECK (pg_catalog.char_length(token) OPERATOR(pg_catalog.>=) 1
               AND pg_catalog.char_length(token) OPERATOR(pg_catalog.<=) 36),
    request_hash  pg_catalog.bytea NOT NULL,
    response      pg_catalog.jsonb NOT NULL,
    created_at    pg_catalog.timestamptz NOT NULL,
    PRIMARY KEY (role, token)
);
CREATE INDEX client_request_tokens_created_at ON singletable.client_request_tokens (created_at);
COMMENT ON TABLE singletable.client_request_tokens IS
  'ClientRequestTokens of transact_write: per calling role and token, the SHA-256 of the request and the response of the call that used it first, and when it completed; a token expires 10 minutes later and is deleted by the next calls with a token and by the background worker; owner only';
SELECT pg_catalog.pg_extension_config_dump('singletable.client_request_tokens', '');
REVOKE ALL ON singletable.client_request_tokens FROM PUBLIC;

CREATE FUNCTION singletable.transact_write(
    transact_items        pg_catalog.jsonb,
    client_request_token  pg_catalog.text DEFAULT NULL)
RETURNS pg_catalog.jsonb
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_transact_write';
COMMENT ON FUNCTION singletable.transact_write(pg_catalog.jsonb, pg_catalog.text) IS
  'DynamoDB''s TransactWriteItems: 1 to 100 actions (Put, Update, Delete, ConditionCheck) on distinct items of one or more tables, all applied or none; a failed condition raises TransactionCanceled (23S02) with the reasons in DETAIL; with client_request_token (1 to 36 characters) a retry within 10 minutes returns the first response without writing again; returns {"ConsumedCapacity": [...]}';

CREATE FUNCTION singletable.transact_get(transact_items pg_catalog.jsonb)
RETURNS pg_catalog.jsonb
LANGUAGE C CALLED ON NULL INPUT STABLE
AS 'MODULE_PATHNAME', 'singletable_transact_get';
COMMENT ON FUNCTION singletable.transact_get(pg_catalog.jsonb) IS
  'DynamoDB''s TransactGetItems: 1 to 100 Get actions on distinct items, all read from one snapshot; returns {"Responses": [{"Item": ...} or {} for a missing item, in order], "ConsumedCapacity": [...]}';

CREATE FUNCTION singletable.cancellation_reasons()
RETURNS pg_catalog.jsonb
LANGUAGE C VOLATILE
AS 'MODULE_PATHNAME', 'singletable_cancellation_reasons';
COMMENT ON FUNCTION singletable.cancellation_reasons() IS
  'The CancellationReasons of this session''s last transact_write if it was cancelled (for the same role), with the current items of failed conditions that asked for them (ReturnValuesOnConditionCheckFailure ALL_OLD), or NULL; errors never carry item content';
-- The DynamoDB JSON API: singletable.dynamodb(operation, request)
------------------------------------------------------------------------------
-- What DynamoDB reports of a table that the other registries do not hold: its
-- billing mode, provisioned throughput and tags (written by singletable.dynamodb as
-- this registry's owner; a table without a row is PAY_PER_REQUEST and untagged).
CREATE TABLE singletable.dynamodb_tables (
    table_name              pg_catalog.regclass PRIMARY KEY,
    billing_mode            pg_catalog.text NOT NULL DEFAULT 'PAY_PER_REQUEST'
        CHECK (billing_mode OPERATOR(pg_catalog.=) ANY (ARRAY['PROVISIONED','PAY_PER_REQUEST']::pg_catalog.text[])),
    read_capacity_units     pg_catalog.int8,
    write_capacity_units    pg_catalog.int8,
    tags                    pg_catalog.jsonb NOT NULL DEFAULT '{}',
    -- a provisioned table's global secondary indexes each have a throughput of their
    -- own: {"index name": {"ReadCapacityUnits": r, "WriteCapacityUnits": w}, ...}
    index_throughput        pg_catalog.jsonb NOT NULL DEFAULT '{}'
);
COMMENT ON TABLE singletable.dynamodb_tables IS
  'DynamoDB''s settings of item-collection tables that singletable.dynamodb reports: billing mode, provisioned throughput (of the table and of each global secondary index), tags';
SELECT pg_catalog.pg_extension_config_dump('singletable.dynamodb_tables', '');
GRANT SELECT ON singletable.dynamodb_tables TO PUBLIC;

-- Its rows go with their tables (dropped by DeleteTable, drop_table or plain SQL).
CREATE FUNCTION singletable.on_dynamodb_sql_drop()
RETURNS event_trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    DELETE FROM singletable.dynamodb_tables t
     USING pg_catalog.pg_event_trigger_dropped_objects() d
     WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
       AND d.objsubid OPERATOR(pg_catalog.=) 0
       AND t.table_name::pg_catalog.oid OPERATOR(pg_catalog.=) d.objid;
END;
$$;
COMMENT ON FUNCTION singletable.on_dynamodb_sql_drop() IS
  'Event trigger: removes the singletable.dynamodb_tables rows of dropped tables';
CREATE EVENT TRIGGER singletable_dynamodb_sql_drop ON sql_drop
    EXECUTE FUNCTION singletable.on_dynamodb_sql_drop();

CREATE FUNCTION singletable.dynamodb(operation pg_catalog.text, request pg_catalog.jsonb)
RETURNS pg_catalog.jsonb
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_dynamodb';
COMMENT ON FUNCTION singletable.dynamodb(pg_catalog.text, pg_catalog.jsonb) IS
  'DynamoDB''s JSON protocol: the response of a request of the operation named (PutItem, Query, CreateTable, ...), with typed AttributeValues, over the tables of schema singletable.dynamodb_schema; errors carry DynamoDB''s error body in their DETAIL';
-- Batches: DynamoDB's BatchGetItem and BatchWriteItem
------------------------------------------------------------------------------
CREATE FUNCTION singletable.batch_get(request_items pg_catalog.jsonb)
RETURNS pg_catalog.jsonb
LANGUAGE C CALLED ON NULL INPUT STABLE
AS 'MODULE_PATHNAME', 'singletable_batch_get';
COMMENT ON FUNCTION singletable.batch_get(pg_catalog.jsonb) IS
  'DynamoDB''s BatchGetItem: {"table": {"Keys": [{key}, ...], "ProjectionExpression", "ExpressionAttributeNames", "ConsistentRead"}, ...}, up to 100 keys, read from one snapshot; returns {"Responses": {"table": [items]}, "UnprocessedKeys": {...beyond 16 MB of items...}, "ConsumedCapacity": [...]}';

CREATE FUNCTION singletable.batch_write(request_items pg_catalog.jsonb)
RETURNS pg_catalog.jsonb
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_batch_write';
COMMENT ON FUNCTION singletable.batch_write(pg_catalog.jsonb) IS
  'DynamoDB''s BatchWriteItem: {"table": [{"PutRequest": {"Item": {...}}}, {"DeleteRequest": {"Key": {...}}}, ...], ...}, up to 25 requests, all checked before any is written, one statement per table and kind; returns {"UnprocessedItems": {...tables that met lock_timeout...}, "ConsumedCapacity": [...]}';

------------------------------------------------------------------------------
-- Entities: the key templates of the item types a table holds (define_entity)
------------------------------------------------------------------------------
CREATE TABLE singletable.entities (
    table_name          pg_catalog.regclass NOT NULL,
    entity              pg_catalog.text NOT NULL
        CHECK (pg_catalog.octet_length(entity) OPERATOR(pg_catalog.>=) 1
               AND pg_catalog.octet_length(entity) OPERATOR(pg_catalog.<=) 255),
    pk_template         pg_catalog.text NOT NULL,
    sk_template         pg_catalog.text,
    index_templates     pg_catalog.jsonb NOT NULL DEFAULT '{}',
    attributes          pg_catalog.jsonb NOT NULL DEFAULT '{}',
    created_at          pg_catalog.timestamptz NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (table_name, entity)
);
COMMENT ON TABLE singletable.entities IS
  'Registry of entities: per item-collection table, the key templates of each item type (''USER#{userId}''), of its secondary-index keys, and its declared attributes';
SELECT pg_catalog.pg_extension_config_dump('singletable.entities', '');
GRANT SELECT ON singletable.entities TO PUBLIC;
CREATE TRIGGER registry_changed AFTER INSERT OR UPDATE OR DELETE ON singletable.entities
    FOR EACH ROW EXECUTE FUNCTION singletable.registry_changed();
CREATE TRIGGER registry_truncated AFTER TRUNCATE ON singletable.entities
    FOR EACH STATEMENT EXECUTE FUNCTION singletable.registry_changed();

-- SECURITY DEFINER for the reason given at singletable.on_sql_drop: it only deletes
-- the rows of relations PostgreSQL reports as dropped in this very command.
CREATE FUNCTION singletable.on_entities_sql_drop()
RETURNS event_trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    DELETE FROM singletable.entities e
     USING pg_catalog.pg_event_trigger_dropped_objects() d
     WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
       AND d.objsubid OPERATOR(pg_catalog.=) 0
       AND e.table_name::pg_catalog.oid OPERATOR(pg_catalog.=) d.objid;
END;
$$;
COMMENT ON FUNCTION singletable.on_entities_sql_drop() IS
  'Event trigger: removes the singletable.entities rows of dropped tables';
CREATE EVENT TRIGGER singletable_entities_sql_drop ON sql_drop
    EXECUTE FUNCTION singletable.on_entities_sql_drop();

CREATE FUNCTION singletable.define_entity(
    table_name          pg_catalog.text,
    entity              pg_catalog.text,
    pk                  pg_catalog.text,
    sk                  pg_catalog.text DEFAULT NULL,
    indexes             pg_catalog.jsonb DEFAULT NULL,
    attributes          pg_catalog.jsonb DEFAULT NULL,
    replace             pg_catalog.bool DEFAULT false)
RETURNS void
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_define_entity';
COMMENT ON FUNCTION singletable.define_entity(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.jsonb, pg_catalog.jsonb, pg_catalog.bool) IS
  'Registers an entity of a table the caller owns: key templates such as pk => ''TENANT#{tenantId}'', sk => ''USER#{userId:int(6)}'', index key templates {"GSI1": {"pk": ..., "sk": ...}} and declared attributes {"name": "S"}; refuses a prefix that collides with another entity''s, warns of risky designs';

CREATE FUNCTION singletable.drop_entity(table_name pg_catalog.text, entity pg_catalog.text)
RETURNS void
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_drop_entity';
COMMENT ON FUNCTION singletable.drop_entity(pg_catalog.text, pg_catalog.text) IS
  'Removes an entity of a table the caller owns from the registry (its items stay)';

CREATE FUNCTION singletable.entity_of(table_name pg_catalog.regclass, pk pg_catalog.text, sk pg_catalog.text DEFAULT NULL)
RETURNS pg_catalog.text
LANGUAGE C CALLED ON NULL INPUT STABLE PARALLEL RESTRICTED
AS 'MODULE_PATHNAME', 'singletable_entity_of';
COMMENT ON FUNCTION singletable.entity_of(pg_catalog.regclass, pg_catalog.text, pg_catalog.text) IS
  'The entity of the table whose key templates the keys match, or NULL';
-- Inventory and inference (issue 25, parts 6 and 8): key_prefixes, collections,
-- infer_entities (src/ops/inventory.c, src/ops/infer.c; docs/entities.md)
------------------------------------------------------------------------------
-- Internal: a key's literal prefix, key_prefixes' grouping. Not part of the API.
CREATE FUNCTION singletable._key_prefix(key pg_catalog.text)
RETURNS pg_catalog.text
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'singletable_key_prefix';
COMMENT ON FUNCTION singletable._key_prefix(pg_catalog.text) IS
  'Internal, for key_prefixes: the key up to and including its first ''#'', '':'' or ''|''; the whole key when it has none and looks like a constant (PROFILE, $user_1); else NULL';

CREATE FUNCTION singletable.key_prefixes(table_name pg_catalog.text,
    sample_percent pg_catalog.float8 DEFAULT NULL)
RETURNS TABLE(entity pg_catalog.text, pk_prefix pg_catalog.text, sk_prefix pg_catalog.text,
    items pg_catalog.int8, partitions pg_catalog.int8, bytes pg_catalog.int8,
    avg_item_bytes pg_catalog.numeric, max_item_bytes pg_catalog.int8,
    largest_collection_items pg_catalog.int8, largest_collection_bytes pg_catalog.int8,
    rows_read pg_catalog.int8, sampled pg_catalog.bool)
LANGUAGE C CALLED ON NULL INPUT STABLE
AS 'MODULE_PATHNAME', 'singletable_key_prefixes';
COMMENT ON FUNCTION singletable.key_prefixes(pg_catalog.text, pg_catalog.float8) IS
  'What the table holds per entity, and per literal key prefix (up to the first ''#'', '':'' or ''|'') for items of no entity: items, partitions, DynamoDB bytes, average and largest item, largest collection; read in one pass, or from a TABLESAMPLE SYSTEM sample of sample_percent of its pages (counts scaled up, sampled true); rows_read says how many rows were read (SELECT on the table)';

CREATE FUNCTION singletable.collections(table_name pg_catalog.text,
    entity pg_catalog.text DEFAULT NULL, top pg_catalog.int4 DEFAULT 10, threshold_bytes pg_catalog.int8 DEFAULT NULL,
    sample_percent pg_catalog.float8 DEFAULT NULL)
RETURNS TABLE(rank_by pg_catalog.text, rank pg_catalog.int4, partition_key pg_catalog.text,
    items pg_catalog.int8, bytes pg_catalog.int8, over_threshold pg_catalog.bool,
    rows_read pg_catalog.int8, sampled pg_catalog.bool)
LANGUAGE C CALLED ON NULL INPUT STABLE
AS 'MODULE_PATHNAME', 'singletable_collections';
COMMENT ON FUNCTION singletable.collections(pg_catalog.text, pg_catalog.text, pg_catalog.int4, pg_catalog.int8, pg_catalog.float8) IS
  'The table''s largest item collections (counting the items of entity, when given) by items and by DynamoDB bytes (top 1 to 1000 of each), flagged over threshold_bytes (default: DynamoDB''s 10 GB item-collection limit when the table has a local secondary index, else none); read in one pass or from a TABLESAMPLE SYSTEM sample; rows_read says how many rows were read (SELECT on the table)';

CREATE FUNCTION singletable.infer_entities(table_name pg_catalog.text,
    sample_percent pg_catalog.float8 DEFAULT NULL)
RETURNS TABLE(entity pg_catalog.text, pk_template pg_catalog.text, sk_template pg_catalog.text,
    items pg_catalog.int8, statement pg_catalog.text)
LANGUAGE C CALLED ON NULL INPUT STABLE
AS 'MODULE_PATHNAME', 'singletable_infer_entities';
COMMENT ON FUNCTION singletable.infer_entities(pg_catalog.text, pg_catalog.float8) IS
  'Entity definitions proposed from the table''s keys (split at its delimiter; fields typed int(N), int, date, timestamp, uuid or string by what all their values match), each with the define_entity call that registers it; at most 100 key shapes (SELECT on the table)';

------------------------------------------------------------------------------
-- Entity views: one typed, writable view per entity (create_entity_views)
------------------------------------------------------------------------------
-- Decoders of the views' field columns. Their support function does nothing
-- but is called while the planner simplifies a query: that loads the library
-- (and its planner hook, which turns conditions on decoded fields into index
-- ranges of the keys) also in a session without shared_preload_libraries.
CREATE FUNCTION singletable.key_field_support(pg_catalog.internal)
RETURNS pg_catalog.internal
LANGUAGE C STRICT
AS 'MODULE_PATHNAME', 'singletable_key_field_support';
COMMENT ON FUNCTION singletable.key_field_support(pg_catalog.internal) IS
  'Planner support of the key decoders: loads the library, whose planner hook makes conditions on decoded fields index ranges';

CREATE FUNCTION singletable.key_field_text(key pg_catalog.text, template pg_catalog.text, field pg_catalog.text)
RETURNS pg_catalog.text
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
SUPPORT singletable.key_field_support
AS 'MODULE_PATHNAME', 'singletable_key_field';
COMMENT ON FUNCTION singletable.key_field_text(pg_catalog.text, pg_catalog.text, pg_catalog.text) IS
  'The string field of a key read with a key template (''USER#{userId}''), or NULL when the key does not match it';

CREATE FUNCTION singletable.key_field_int(key pg_catalog.text, template pg_catalog.text, field pg_catalog.text)
RETURNS pg_catalog.int8
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
SUPPORT singletable.key_field_support
AS 'MODULE_PATHNAME', 'singletable_key_field';
COMMENT ON FUNCTION singletable.key_field_int(pg_catalog.text, pg_catalog.text, pg_catalog.text) IS
  'The int or int(N) field of a key read with a key template, or NULL when the key does not match it (or an int has a leading zero)';

CREATE FUNCTION singletable.key_field_date(key pg_catalog.text, template pg_catalog.text, field pg_catalog.text)
RETURNS pg_catalog.date
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
SUPPORT singletable.key_field_support
AS 'MODULE_PATHNAME', 'singletable_key_field';
COMMENT ON FUNCTION singletable.key_field_date(pg_catalog.text, pg_catalog.text, pg_catalog.text) IS
  'The date field of a key read with a key template, or NULL when the key does not match it';

CREATE FUNCTION singletable.key_field_timestamp(key pg_catalog.text, template pg_catalog.text, field pg_catalog.text)
RETURNS pg_catalog.timestamptz
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
SUPPORT singletable.key_field_support
AS 'MODULE_PATHNAME', 'singletable_key_field';
COMMENT ON FUNCTION singletable.key_field_timestamp(pg_catalog.text, pg_catalog.text, pg_catalog.text) IS
  'The timestamp field (UTC) of a key read with a key template, or NULL when the key does not match it';

CREATE FUNCTION singletable.key_field_uuid(key pg_catalog.text, template pg_catalog.text, field pg_catalog.text)
RETURNS pg_catalog.uuid
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
SUPPORT singletable.key_field_support
AS 'MODULE_PATHNAME', 'singletable_key_field';
COMMENT ON FUNCTION singletable.key_field_uuid(pg_catalog.text, pg_catalog.text, pg_catalog.text) IS
  'The uuid field of a key read with a key template, or NULL when the key does not match it (or is in upper case)';

CREATE FUNCTION singletable.key_matches(key pg_catalog.text, template pg_catalog.text)
RETURNS pg_catalog.bool
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
SUPPORT singletable.key_field_support
AS 'MODULE_PATHNAME', 'singletable_key_matches';
COMMENT ON FUNCTION singletable.key_matches(pg_catalog.text, pg_catalog.text) IS
  'Whether a key matches a key template';

CREATE FUNCTION singletable.key_compose(template pg_catalog.text, VARIADIC field_values "any")
RETURNS pg_catalog.text
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
AS 'MODULE_PATHNAME', 'singletable_key_compose';
COMMENT ON FUNCTION singletable.key_compose(pg_catalog.text, "any") IS
  'The key a template makes of the values of its fields, in template order; NULL when a value has no text in its field';

CREATE FUNCTION singletable.key_field_bound(template pg_catalog.text, field pg_catalog.text, kind pg_catalog.int4, field_value "any")
RETURNS pg_catalog.text
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
AS 'MODULE_PATHNAME', 'singletable_key_field_bound';
COMMENT ON FUNCTION singletable.key_field_bound(pg_catalog.text, pg_catalog.text, pg_catalog.int4, "any") IS
  'A bound of the keys of a template for a condition on its first field (kind 1: >= for > and >=, 2: < for < and <=, 3 and 4: the range of =), used in index conditions';

CREATE TABLE singletable.entity_views (
    table_name          pg_catalog.regclass PRIMARY KEY,
    view_schema         pg_catalog.name NOT NULL,
    created_at          pg_catalog.timestamptz NOT NULL DEFAULT pg_catalog.now()
);
COMMENT ON TABLE singletable.entity_views IS
  'Registry of entity views: the tables whose entities have views (create_entity_views) and the schema of the views; define_entity and drop_entity re-create them';
SELECT pg_catalog.pg_extension_config_dump('singletable.entity_views', '');
GRANT SELECT ON singletable.entity_views TO PUBLIC;

-- SECURITY DEFINER for the reason given at singletable.on_sql_drop: it only deletes
-- the rows of relations PostgreSQL reports as dropped in this very command.
CREATE FUNCTION singletable.on_entity_views_sql_drop()
RETURNS event_trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    DELETE FROM singletable.entity_views v
     USING pg_catalog.pg_event_trigger_dropped_objects() d
     WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
       AND d.objsubid OPERATOR(pg_catalog.=) 0
       AND v.table_name::pg_catalog.oid OPERATOR(pg_catalog.=) d.objid;
END;
$$;
COMMENT ON FUNCTION singletable.on_entity_views_sql_drop() IS
  'Event trigger: removes the singletable.entity_views rows of dropped tables';
CREATE EVENT TRIGGER singletable_entity_views_sql_drop ON sql_drop
    EXECUTE FUNCTION singletable.on_entity_views_sql_drop();

CREATE FUNCTION singletable.entity_view_trigger()
RETURNS trigger
LANGUAGE C
AS 'MODULE_PATHNAME', 'singletable_entity_view_trigger';
COMMENT ON FUNCTION singletable.entity_view_trigger() IS
  'INSTEAD OF trigger of entity views: INSERT, UPDATE and DELETE as PutItem and DeleteItem with the keys composed from the fields';

CREATE FUNCTION singletable.create_entity_views(table_name pg_catalog.text, schema pg_catalog.text DEFAULT NULL)
RETURNS SETOF pg_catalog.regclass
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_create_entity_views';
COMMENT ON FUNCTION singletable.create_entity_views(pg_catalog.text, pg_catalog.text) IS
  'Creates one typed, writable view per entity of a table the caller owns (<table>_<entity in snake_case>, in schema or the table''s), replacing those it made before; returns them';

CREATE FUNCTION singletable.drop_entity_views(table_name pg_catalog.text)
RETURNS void
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_drop_entity_views';
COMMENT ON FUNCTION singletable.drop_entity_views(pg_catalog.text) IS
  'Drops the entity views of a table the caller owns';
-- Hot keys (DynamoDB's Contributor Insights): the most-accessed partition keys
------------------------------------------------------------------------------
CREATE FUNCTION singletable.hot_keys(table_name pg_catalog.text,
    OUT access pg_catalog.text, OUT partition_key pg_catalog.text, OUT count pg_catalog.int8,
    OUT error pg_catalog.int8, OUT share pg_catalog.float8, OUT truncated pg_catalog.bool,
    OUT window_start pg_catalog.timestamptz, OUT scope pg_catalog.text)
RETURNS SETOF record
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_hot_keys';
COMMENT ON FUNCTION singletable.hot_keys(pg_catalog.text) IS
  'The most accessed partition keys of the table, reads and writes, since window_start (the current and the previous window of singletable.hot_keys_window), by count: a Space-Saving estimate (count - error <= true accesses <= count), share of the access kind''s calls, truncated when only the key''s first 128 bytes are kept; needs SELECT on the table; scope ''shared'' (shared_preload_libraries) or ''backend'' (this session''s accesses)';
COMMENT ON FUNCTION singletable.reset_stats(pg_catalog.regclass) IS
  'Discards the operation statistics and the hot keys of the table named (in this database), or with NULL all of them, of every database, and the eviction count; superuser only unless EXECUTE is granted';

-- ---------------------------------------------------------------------------
-- singletable.dynamodb_as(role, operation, request): the call of singletable-gateway
-- (issue 26). singletable.dynamodb's response as JSON text, computed as role with a role
-- switch that user code running during the call cannot undo (SET ROLE and RESET ROLE fail
-- within it); the session user must be a member of role. Not for PUBLIC: the gateway's
-- login role is granted EXECUTE (docs/endpoint.md).
CREATE FUNCTION singletable.dynamodb_as(role pg_catalog.text, operation pg_catalog.text,
                                        request pg_catalog.text)
RETURNS pg_catalog.text LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE
AS 'MODULE_PATHNAME', 'singletable_dynamodb_as';
COMMENT ON FUNCTION singletable.dynamodb_as(pg_catalog.text, pg_catalog.text, pg_catalog.text) IS
  'singletable-gateway''s call: the response of singletable.dynamodb(operation, request) as JSON text, run as role (NULL: the current user), which the session user must be a member of; user code cannot SET ROLE or RESET ROLE during the call';
REVOKE ALL ON FUNCTION singletable.dynamodb_as(pg_catalog.text, pg_catalog.text, pg_catalog.text) FROM PUBLIC;

------------------------------------------------------------------------------
-- Streams (issue 27): change records of stream-enabled tables, captured by logical
-- decoding (the library is its own output plugin) and stored by the stream worker.
-- No privileges to PUBLIC: read through singletable.stream_records and the Streams API,
-- which check SELECT on the stream's table.
------------------------------------------------------------------------------
CREATE TABLE singletable.streams (
    stream_id           pg_catalog.int4 GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    table_oid           pg_catalog.oid NOT NULL,
    table_name          pg_catalog.text NOT NULL,
    stream_label        pg_catalog.text NOT NULL,
    stream_arn          pg_catalog.text NOT NULL UNIQUE,
    view_type           pg_catalog.text NOT NULL
        CHECK (view_type OPERATOR(pg_catalog.=) ANY (ARRAY['KEYS_ONLY', 'NEW_IMAGE', 'OLD_IMAGE', 'NEW_AND_OLD_IMAGES']::pg_catalog.text[])),
    status              pg_catalog.text NOT NULL
        CHECK (status OPERATOR(pg_catalog.=) ANY (ARRAY['ENABLING', 'ENABLED', 'DISABLED']::pg_catalog.text[])),
    partition_key       pg_catalog.text NOT NULL,
    partition_key_type  pg_catalog.text NOT NULL,
    sort_key            pg_catalog.text,
    sort_key_type       pg_catalog.text,
    enabled_at          pg_catalog.timestamptz NOT NULL DEFAULT pg_catalog.now(),
    disabled_at         pg_catalog.timestamptz,
    trimmed_seq         pg_catalog.int8 NOT NULL DEFAULT 0
) WITH (user_catalog_table = true);
CREATE INDEX streams_table_oid ON singletable.streams (table_oid);
COMMENT ON TABLE singletable.streams IS
  'DynamoDB Streams of item tables: one row per enabling (a re-enable gets a new row, label and ARN), trimmed_seq the highest seq retention removed; a user catalog table, read by the output plugin in the historic snapshot of each change';
REVOKE ALL ON singletable.streams FROM PUBLIC;

CREATE TABLE singletable.stream_shards (
    stream_id           pg_catalog.int4 NOT NULL,
    shard_id            pg_catalog.text NOT NULL,
    parent_shard_id     pg_catalog.text,
    starting_seq        pg_catalog.int8 NOT NULL,
    ending_seq          pg_catalog.int8,
    created_at          pg_catalog.timestamptz NOT NULL DEFAULT pg_catalog.now(),
    closed_at           pg_catalog.timestamptz,
    PRIMARY KEY (stream_id, shard_id)
);
COMMENT ON TABLE singletable.stream_shards IS
  'Shards of the streams: records with starting_seq <= seq <= ending_seq (NULL while open); closed and succeeded by a child after singletable.stream_shard_lifetime';
REVOKE ALL ON singletable.stream_shards FROM PUBLIC;

CREATE TABLE singletable.stream_records (
    stream_id           pg_catalog.int4 NOT NULL,
    seq                 pg_catalog.int8 NOT NULL,
    created_at          pg_catalog.timestamptz NOT NULL,
    event_name          pg_catalog.text NOT NULL,
    ttl                 pg_catalog.bool NOT NULL DEFAULT false,
    size_bytes          pg_catalog.int4 NOT NULL,
    keys                pg_catalog.jsonb NOT NULL,
    new_image           pg_catalog.jsonb,
    old_image           pg_catalog.jsonb,
    PRIMARY KEY (stream_id, seq)
);
COMMENT ON TABLE singletable.stream_records IS
  'Stream records in wire form (AttributeValues), seq assigned in commit order (one counter per database), created_at the commit time; kept singletable.stream_retention';
REVOKE ALL ON singletable.stream_records FROM PUBLIC;
-- retention deletes by commit time; records arrive in commit order, so a BRIN index
-- finds the expired pages without reading the table and costs the stored records almost
-- nothing (autosummarize: a filled range is summarized by autovacuum soon, not at its next run)
CREATE INDEX stream_records_created_at ON singletable.stream_records USING brin (created_at) WITH (autosummarize = on);

CREATE TABLE singletable.stream_state (
    one                 pg_catalog.bool PRIMARY KEY DEFAULT true CHECK (one),
    last_commit_lsn     pg_catalog.pg_lsn NOT NULL DEFAULT '0/0',
    last_seq            pg_catalog.int8 NOT NULL DEFAULT 0
);
INSERT INTO singletable.stream_state DEFAULT VALUES;
COMMENT ON TABLE singletable.stream_state IS
  'The stream worker''s position: the commit LSN of the last transaction stored (re-delivered ones at or below it are skipped) and the last sequence number given';
REVOKE ALL ON singletable.stream_state FROM PUBLIC;

-- Dropping an item table drops its streams and their records.
CREATE FUNCTION singletable.on_sql_drop_streams()
RETURNS event_trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    WITH gone AS (DELETE FROM singletable.streams s
     USING pg_catalog.pg_event_trigger_dropped_objects() d
     WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
       AND d.objsubid OPERATOR(pg_catalog.=) 0
       AND s.table_oid OPERATOR(pg_catalog.=) d.objid
     RETURNING s.stream_id),
    shards AS (DELETE FROM singletable.stream_shards h USING gone
     WHERE h.stream_id OPERATOR(pg_catalog.=) gone.stream_id)
    DELETE FROM singletable.stream_records r USING gone
     WHERE r.stream_id OPERATOR(pg_catalog.=) gone.stream_id;
END;
$$;
COMMENT ON FUNCTION singletable.on_sql_drop_streams() IS
  'Event trigger: removes the streams (and their shards and records) of dropped item tables';
CREATE EVENT TRIGGER singletable_sql_drop_streams ON sql_drop
    EXECUTE FUNCTION singletable.on_sql_drop_streams();

CREATE FUNCTION singletable.enable_stream(table_name pg_catalog.text,
                                          view_type pg_catalog.text DEFAULT 'NEW_AND_OLD_IMAGES')
RETURNS pg_catalog.text
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_enable_stream';
COMMENT ON FUNCTION singletable.enable_stream(pg_catalog.text, pg_catalog.text) IS
  'Enables a DynamoDB stream on a table the caller owns (KEYS_ONLY, NEW_IMAGE, OLD_IMAGE or NEW_AND_OLD_IMAGES); needs wal_level = logical and the library in shared_preload_libraries; returns the stream ARN';

CREATE FUNCTION singletable.disable_stream(table_name pg_catalog.text)
RETURNS void
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_disable_stream';
COMMENT ON FUNCTION singletable.disable_stream(pg_catalog.text) IS
  'Disables the stream of a table the caller owns; its records stay readable until singletable.stream_retention removes them';

CREATE FUNCTION singletable.stream_records(table_name pg_catalog.text,
    after_sequence pg_catalog.text DEFAULT NULL, max_records pg_catalog.int4 DEFAULT 1000)
RETURNS TABLE (sequence_number pg_catalog.text, event_name pg_catalog.text,
               approximate_creation_date_time pg_catalog.timestamptz,
               keys pg_catalog.jsonb, new_image pg_catalog.jsonb, old_image pg_catalog.jsonb,
               size_bytes pg_catalog.int4, user_identity pg_catalog.jsonb, stream_arn pg_catalog.text)
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_stream_records';
COMMENT ON FUNCTION singletable.stream_records(pg_catalog.text, pg_catalog.text, pg_catalog.int4) IS
  'The records of the table''s newest stream after the sequence number given (NULL: from the oldest kept), in order, at most max_records; needs SELECT on the table';

------------------------------------------------------------------------------
-- PartiQL (DynamoDB's ExecuteStatement for SQL callers)
------------------------------------------------------------------------------
CREATE FUNCTION singletable.partiql(statement pg_catalog.text,
                                    parameters pg_catalog.jsonb DEFAULT NULL)
RETURNS SETOF pg_catalog.jsonb
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_partiql';
COMMENT ON FUNCTION singletable.partiql(pg_catalog.text, pg_catalog.jsonb) IS
  'Runs a DynamoDB PartiQL statement (SELECT, INSERT, UPDATE, DELETE) over the tables of singletable.dynamodb_schema, parameters a JSON array of AttributeValues for its ? marks; returns the items (every page of a SELECT, RETURNING''s item) in plain JSON';

------------------------------------------------------------------------------
-- DescribeTable's TableId and BillingModeSummary.LastUpdateToPayPerRequestDateTime:
-- a table's DynamoDB identifier, kept for its life (a table without a row gets one
-- derived from its OID and creation time), and when it last became PAY_PER_REQUEST
-- (NULL: at its creation).
ALTER TABLE singletable.dynamodb_tables
    ADD COLUMN table_id pg_catalog.uuid NOT NULL DEFAULT pg_catalog.gen_random_uuid(),
    ADD COLUMN pay_per_request_since pg_catalog.timestamptz;
COMMENT ON COLUMN singletable.dynamodb_tables.table_id IS
  'DynamoDB''s TableId of the table: a UUID kept for the table''s life';
COMMENT ON COLUMN singletable.dynamodb_tables.pay_per_request_since IS
  'When the table last became PAY_PER_REQUEST (DynamoDB''s LastUpdateToPayPerRequestDateTime); NULL: at its creation';

------------------------------------------------------------------------------
-- DynamoDB table names of 64 to 255 bytes: longer than a PostgreSQL identifier, so
-- CreateTable names such a table <the name's first 46 bytes>~<16 hex digits of its
-- hash> (the ~ cannot occur in a DynamoDB name, so no other DynamoDB name reaches it)
-- and keeps the DynamoDB name here; NULL for every other table.
ALTER TABLE singletable.tables
    ADD COLUMN dynamodb_name pg_catalog.text UNIQUE
        CHECK (pg_catalog.octet_length(dynamodb_name) OPERATOR(pg_catalog.>) 63);
COMMENT ON COLUMN singletable.tables.dynamodb_name IS
  'The table''s DynamoDB name when it is longer than a PostgreSQL identifier (63 bytes); NULL: the table''s own name';

------------------------------------------------------------------------------
-- What a request costs, and where an item's bytes are (issue 29)
------------------------------------------------------------------------------
CREATE FUNCTION singletable.estimate_cost(
    table_name                      pg_catalog.text,
    request                         pg_catalog.jsonb,
    calls_per_month                 pg_catalog.float8 DEFAULT 1000000,
    operation                       pg_catalog.text DEFAULT NULL,
    read_request_price              pg_catalog.float8 DEFAULT 0.125,
    write_request_price             pg_catalog.float8 DEFAULT 0.625,
    read_capacity_unit_hour_price   pg_catalog.float8 DEFAULT 0.00013,
    write_capacity_unit_hour_price  pg_catalog.float8 DEFAULT 0.00065,
    target_utilization              pg_catalog.float8 DEFAULT 0.7,
    OUT operation_name              pg_catalog.text,
    OUT units_per_call              pg_catalog.float8,
    OUT strongly_consistent_units   pg_catalog.float8,
    OUT eventually_consistent_units pg_catalog.float8,
    OUT is_read                     pg_catalog.bool,
    OUT units_per_month             pg_catalog.float8,
    OUT on_demand_usd_per_month     pg_catalog.numeric,
    OUT provisioned_capacity_units  pg_catalog.int8,
    OUT provisioned_usd_per_month   pg_catalog.numeric,
    OUT consumed_capacity           pg_catalog.jsonb)
RETURNS record
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_estimate_cost';
COMMENT ON FUNCTION singletable.estimate_cost(pg_catalog.text, pg_catalog.jsonb, pg_catalog.float8, pg_catalog.text, pg_catalog.float8, pg_catalog.float8, pg_catalog.float8, pg_catalog.float8, pg_catalog.float8) IS
  'The capacity units of one DynamoDB request (a document of singletable.dynamodb, its operation inferred or named), measured by running it on the table''s data and rolling it back, per month and in US dollars on-demand (prices per million request units) and provisioned (per capacity-unit hour, at the target utilization); the default prices are us-east-1''s after AWS''s change of 1 November 2024';

CREATE FUNCTION singletable.item_size_breakdown(item pg_catalog.jsonb,
    OUT attribute pg_catalog.text, OUT name_bytes pg_catalog.int4,
    OUT value_bytes pg_catalog.int4, OUT bytes pg_catalog.int4, OUT share pg_catalog.float8)
RETURNS SETOF record
LANGUAGE sql STABLE STRICT
BEGIN ATOMIC
  SELECT a.key, pg_catalog.octet_length(a.key),
         singletable.item_size(pg_catalog.jsonb_build_object(a.key, a.value)) OPERATOR(pg_catalog.-) pg_catalog.octet_length(a.key),
         singletable.item_size(pg_catalog.jsonb_build_object(a.key, a.value)),
         singletable.item_size(pg_catalog.jsonb_build_object(a.key, a.value))::pg_catalog.float8
           OPERATOR(pg_catalog./) GREATEST(singletable.item_size(item), 1)::pg_catalog.float8
    -- the whole item checked first, with item_size's errors
    FROM pg_catalog.jsonb_each(CASE WHEN singletable.item_size(item) OPERATOR(pg_catalog.>=) 0 THEN item END) a
   ORDER BY 4 DESC, 1;
END;
COMMENT ON FUNCTION singletable.item_size_breakdown(pg_catalog.jsonb) IS
  'DynamoDB''s size of each attribute of an item (plain JSON or AttributeValues as item_size takes them): its name''s bytes, its value''s, their sum and its share of the item''s size, largest first';

CREATE FUNCTION singletable.export_code(table_name pg_catalog.text, request pg_catalog.jsonb,
                                        language pg_catalog.text DEFAULT 'javascript',
                                        operation pg_catalog.text DEFAULT NULL)
RETURNS pg_catalog.text
LANGUAGE C CALLED ON NULL INPUT VOLATILE
AS 'MODULE_PATHNAME', 'singletable_export_code';
COMMENT ON FUNCTION singletable.export_code(pg_catalog.text, pg_catalog.jsonb, pg_catalog.text, pg_catalog.text) IS
  'A runnable program of a DynamoDB read request (Query, Scan, GetItem) for the AWS SDK v3 DocumentClient (javascript), boto3 (python) or psql (sql): every page, each item as a line of JSON; key values an entity template matches become inputs composed from the registry''s template; the request is checked first, with the typo and entity guards at ERROR';

------------------------------------------------------------------------------
-- The design helper (issue 29): from entities and access patterns to key templates,
-- overloaded sparse GSIs and the request of each pattern (docs/design.md)
------------------------------------------------------------------------------
-- A key template's field of an attribute of the given type
CREATE FUNCTION singletable._design_field(attr pg_catalog.text, type pg_catalog.text)
RETURNS pg_catalog.text
LANGUAGE sql IMMUTABLE STRICT
RETURN '{' OPERATOR(pg_catalog.||) attr OPERATOR(pg_catalog.||)
       CASE WHEN type OPERATOR(pg_catalog.=) 'string' THEN '' ELSE ':' OPERATOR(pg_catalog.||) type END
       OPERATOR(pg_catalog.||) '}';
COMMENT ON FUNCTION singletable._design_field(pg_catalog.text, pg_catalog.text) IS
  'Internal to singletable.design: the template field {attr} or {attr:type}';

-- An example value of a field type, as a key holds it
CREATE FUNCTION singletable._design_example(type pg_catalog.text)
RETURNS pg_catalog.text
LANGUAGE sql IMMUTABLE STRICT
RETURN CASE
  WHEN type OPERATOR(pg_catalog.=) 'date' THEN '2026-06-23'
  WHEN type OPERATOR(pg_catalog.=) 'timestamp' THEN '2026-06-23T09:12Z'
  WHEN type OPERATOR(pg_catalog.=) 'uuid' THEN '00000000-0000-4000-8000-000000000001'
  WHEN type OPERATOR(pg_catalog.=) 'int' THEN '1'
  WHEN type OPERATOR(pg_catalog.~) '^int\(\d+\)$'
    THEN pg_catalog.lpad('1', pg_catalog.substring(type, '\d+')::pg_catalog.int4, '0')
  ELSE 'example' END;
COMMENT ON FUNCTION singletable._design_example(pg_catalog.text) IS
  'Internal to singletable.design: an example value of a template field type';

CREATE FUNCTION singletable.design(entities pg_catalog.jsonb, access_patterns pg_catalog.jsonb,
                                   table_name pg_catalog.text DEFAULT 'app',
                                   apply pg_catalog.bool DEFAULT false)
RETURNS pg_catalog.jsonb
LANGUAGE plpgsql
-- the caller's rights (apply creates the table as the caller); a fixed search_path
SET search_path = pg_catalog, pg_temp
AS $design$
DECLARE
  e jsonb;                -- an entity as given
  ents jsonb := '{}';     -- name -> {tag, key, parent, types{}, pk, sk, sortattr, gsi{}, reasons[]}
  names text[] := '{}';
  n text;
  p jsonb;
  pat text;
  m text[];
  i int := 0;
  ent text; child text; par text;
  verb text; by1 text; by2 text; ordkind text; ordattr text; fattr text; fval text;
  t jsonb; pt jsonb;
  typ text;
  slot int;
  gpk text; gsk text;
  req jsonb; sqlcall text; op text; idx text; kc text; vals jsonb; reason text;
  pats jsonb := '[]';      -- the patterns parsed
  answers jsonb := '[]';   -- and answered
  gsis jsonb := '{}';     -- GSIn -> [entity names]
  script text := '';
  stmt text;
  ttl text;
  tbl text := table_name;  -- DynamoDB's name, in the requests
  qtbl text;               -- the SQL functions' name: in singletable.dynamodb_schema, qualified
  re constant text := '^\s*(get|list)\s+([A-Za-z_][A-Za-z0-9_]*)'
    '(?:\s+with\s+([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*))?'
    '(?:\s+by\s+([A-Za-z_][A-Za-z0-9_]*)(?:\s+and\s+([A-Za-z_][A-Za-z0-9_]*))?)?'
    '(?:\s+(sorted|ranged)\s+by\s+([A-Za-z_][A-Za-z0-9_]*))?'
    '(?:\s+only\s+where\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([A-Za-z0-9_.:-]+))?\s*$';
BEGIN
  -- the cheap checks first
  IF entities IS NULL OR jsonb_typeof(entities) <> 'array' OR jsonb_array_length(entities) = 0 THEN
    RAISE EXCEPTION 'entities must be a non-empty JSON array of entities'
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'An entity: {"name": "post", "key": "postId", "parent": "user", "attributes": {"postId": "int(4)"}}.';
  END IF;
  IF access_patterns IS NULL OR jsonb_typeof(access_patterns) <> 'array' THEN
    RAISE EXCEPTION 'access_patterns must be a JSON array of patterns'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF jsonb_array_length(entities) > 100 OR jsonb_array_length(access_patterns) > 200 THEN
    RAISE EXCEPTION 'design takes at most 100 entities and 200 access patterns'
      USING ERRCODE = 'program_limit_exceeded';
  END IF;
  IF tbl IS NULL OR tbl !~ '^[A-Za-z0-9_.-]{3,63}$' THEN
    RAISE EXCEPTION 'table_name must be 3 to 63 characters of [A-Za-z0-9_.-]'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;

  qtbl := format('%I.%I', coalesce(nullif(current_setting('singletable.dynamodb_schema', true), ''), 'public'), tbl);

  -- the entities: names, tags, keys, attribute types
  FOR e IN SELECT x FROM jsonb_array_elements(entities) x LOOP
    i := i + 1;
    IF jsonb_typeof(e) <> 'object' OR jsonb_typeof(e->'name') IS DISTINCT FROM 'string'
       OR jsonb_typeof(e->'key') IS DISTINCT FROM 'string' THEN
      RAISE EXCEPTION 'entity % must be an object with a "name" and a "key" (its identifying attribute)', i
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
    n := e->>'name';
    IF n !~ '^[a-z][a-z0-9_]{0,62}$' THEN
      RAISE EXCEPTION 'entity name "%" must be a lower-case identifier', n USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF n = ANY (names) THEN
      RAISE EXCEPTION 'entity "%" is given twice', n USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF (e->>'key') !~ '^[A-Za-z_][A-Za-z0-9_]{0,62}$' THEN
      RAISE EXCEPTION 'the key of entity "%" must be an attribute name (an identifier)', n
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF e ? 'attributes' AND jsonb_typeof(e->'attributes') <> 'object' THEN
      RAISE EXCEPTION 'the attributes of entity "%" must be an object {"name": "type"}', n
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR t IN SELECT jsonb_build_object('k', k, 'v', v) FROM jsonb_each(coalesce(e->'attributes', '{}')) a(k, v) LOOP
      IF jsonb_typeof(t->'v') <> 'string' OR (t->>'v') !~ '^(string|int|int\([1-9][0-9]?\)|date|timestamp|uuid)$' THEN
        RAISE EXCEPTION 'attribute "%" of entity "%" has type %, not one of string, int, int(N), date, timestamp, uuid',
          t->>'k', n, t->'v' USING ERRCODE = 'invalid_parameter_value';
      END IF;
    END LOOP;
    names := names || n;
    ents := ents || jsonb_build_object(n, jsonb_build_object(
      'tag', upper(coalesce(e->>'tag', n)),
      'key', e->>'key',
      'parent', e->'parent',
      'ttl', e->'ttl',
      'types', coalesce(e->'attributes', '{}'),
      'gsi', '{}'::jsonb,
      'reasons', '[]'::jsonb));
  END LOOP;
  FOREACH n IN ARRAY names LOOP
    par := ents->n->>'parent';
    IF par IS NOT NULL AND NOT ents ? par THEN
      RAISE EXCEPTION 'the parent "%" of entity "%" is not an entity', par, n USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF par = n THEN
      RAISE EXCEPTION 'entity "%" cannot be its own parent', n USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- the parent's key is an attribute of the child, of the parent's type
    IF par IS NOT NULL THEN
      ents := jsonb_set(ents, ARRAY[n, 'types'],
        jsonb_build_object(ents->par->>'key', coalesce(ents->par->'types'->>(ents->par->>'key'), 'string'))
        || (ents->n->'types'));
    END IF;
  END LOOP;

  -- the patterns, parsed; the sort attribute of each child's collection
  i := 0;
  FOR p IN SELECT x FROM jsonb_array_elements(access_patterns) x LOOP
    i := i + 1;
    pat := CASE jsonb_typeof(p) WHEN 'string' THEN p #>> '{}' WHEN 'object' THEN p->>'pattern' END;
    m := CASE WHEN pat IS NOT NULL THEN regexp_match(pat, re, 'i') END;
    IF m IS NULL THEN
      RAISE EXCEPTION 'access pattern % is not of the form: get|list <entity> [with <entities>] [by <attribute> [and <attribute>]] [sorted|ranged by <attribute>] [only where <attribute> = <value>]', i
        USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The pattern: %s', coalesce(pat, p::text));
    END IF;
    ent := NULL;
    FOREACH n IN ARRAY names LOOP
      IF lower(m[2]) IN (n, n || 's', n || 'es', regexp_replace(n, 'y$', 'ies')) THEN ent := n; END IF;
    END LOOP;
    IF ent IS NULL THEN
      RAISE EXCEPTION 'access pattern % names "%", which is no entity', i, m[2] USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOREACH n IN ARRAY ARRAY[m[4], m[5], m[7], m[8]] LOOP
      IF n IS NOT NULL AND NOT ents->ent->'types' ? n AND n <> ents->ent->>'key' THEN
        RAISE EXCEPTION 'access pattern % uses attribute "%", which entity "%" does not declare', i, n, ent
          USING ERRCODE = 'invalid_parameter_value',
                HINT = 'Declare it in the entity''s "attributes" with its type.';
      END IF;
    END LOOP;
    -- "list C by <parent key> sorted|ranged by X": X orders C's collection
    par := ents->ent->>'parent';
    IF lower(m[1]) = 'list' AND par IS NOT NULL AND m[4] = ents->par->>'key' AND m[5] IS NULL
       AND m[7] IS NOT NULL AND m[8] IS NULL THEN
      ents := jsonb_set(ents, ARRAY[ent, 'sortattr'], to_jsonb(m[7]));
    END IF;
    pats := pats || jsonb_build_array(jsonb_build_object('n', i, 'text', pat,
      'name', CASE WHEN jsonb_typeof(p) = 'object' THEN p->>'name' END, 'm', to_jsonb(m), 'entity', ent));
  END LOOP;

  -- the table's keys of each entity: a root owns its collection, a child lives in its parent's
  FOREACH n IN ARRAY names LOOP
    par := ents->n->>'parent';
    typ := coalesce(ents->n->'types'->>(ents->n->>'key'), 'string');
    IF par IS NULL THEN
      ents := jsonb_set(ents, ARRAY[n, 'pk'], to_jsonb((ents->n->>'tag') || '#' || singletable._design_field(ents->n->>'key', typ)));
      ents := jsonb_set(ents, ARRAY[n, 'sk'], '"PROFILE"');
      ents := jsonb_set(ents, ARRAY[n, 'reasons'], (ents->n->'reasons') || to_jsonb(format(
        'A root entity: its item opens its own item collection %s, with the constant sort key PROFILE, so that its children can share the collection and one Query reads the %s with them.',
        ents->n->>'pk', n)));
    ELSE
      ents := jsonb_set(ents, ARRAY[n, 'pk'], to_jsonb((ents->par->>'tag') || '#'
        || singletable._design_field(ents->par->>'key', coalesce(ents->par->'types'->>(ents->par->>'key'), 'string'))));
      child := coalesce(ents->n->>'sortattr', ents->n->>'key');
      typ := coalesce(ents->n->'types'->>child, 'string');
      ents := jsonb_set(ents, ARRAY[n, 'sk'], to_jsonb((ents->n->>'tag') || '#' || singletable._design_field(child, typ)));
      ents := jsonb_set(ents, ARRAY[n, 'reasons'], (ents->n->'reasons') || to_jsonb(format(
        'A child of %s: it shares the %s collection %s, its type tag %s# first in the sort key, so begins_with(sk, ''%s#'') reads the %s items of one %s and nothing else.',
        par, par, ents->n->>'pk', ents->n->>'tag', ents->n->>'tag', n, par)));
      IF ents->n ? 'sortattr' THEN
        ents := jsonb_set(ents, ARRAY[n, 'reasons'], (ents->n->'reasons') || to_jsonb(format(
          'Sorted by %s: it follows the type tag in the sort key as %s, so the collection is in that order and a range of it is a key condition.',
          child, CASE WHEN typ ~ '^int' THEN 'a zero-padded number (int(N)), which sorts as text in numeric order'
                      WHEN typ IN ('date', 'timestamp') THEN 'ISO-8601 text, which sorts as text in time order'
                      ELSE 'text' END)));
      END IF;
    END IF;
    IF typ = 'int' THEN
      ents := jsonb_set(ents, ARRAY[n, 'reasons'], (ents->n->'reasons') || to_jsonb(format(
        'The int field %s is not zero-padded: its keys sort as text (10 before 9); declare it int(N) to range over it.', child)));
    END IF;
  END LOOP;

  -- each pattern's request
  FOR p IN SELECT x FROM jsonb_array_elements(pats) x LOOP
    m := ARRAY(SELECT jsonb_array_elements_text(p->'m'));
    ent := p->>'entity';
    verb := lower(m[1]); by1 := nullif(m[4], ''); by2 := nullif(m[5], ''); ordkind := lower(nullif(m[6], ''));
    ordattr := nullif(m[7], ''); fattr := nullif(m[8], ''); fval := nullif(m[9], '');
    par := ents->ent->>'parent';
    idx := NULL; kc := NULL; vals := '{}'; req := NULL; reason := NULL;
    IF verb = 'get' AND m[3] IS NOT NULL THEN
      -- get E with its children: the collection E opens, in one Query
      IF par IS NOT NULL OR (by1 IS DISTINCT FROM ents->ent->>'key') THEN
        RAISE EXCEPTION 'access pattern % reads % with %: only a root entity read by its key shares its collection with its children',
          p->>'n', ent, m[3] USING ERRCODE = 'invalid_parameter_value';
      END IF;
      FOR child IN SELECT trim(x) FROM regexp_split_to_table(m[3], ',') x LOOP
        n := NULL;
        FOR n IN SELECT k FROM jsonb_object_keys(ents) k
                 WHERE lower(child) IN (k, k || 's', k || 'es', regexp_replace(k, 'y$', 'ies')) LOOP
          EXIT;
        END LOOP;
        IF n IS NULL OR ents->n->>'parent' IS DISTINCT FROM ent THEN
          RAISE EXCEPTION 'access pattern % reads % with "%", which is no child entity of %', p->>'n', ent, child, ent
            USING ERRCODE = 'invalid_parameter_value';
        END IF;
      END LOOP;
      op := 'Query';
      kc := 'pk = :pk';
      vals := jsonb_build_object(':pk', (ents->ent->>'tag') || '#'
              || singletable._design_example(coalesce(ents->ent->'types'->>by1, 'string')));
      reason := format('Collection sharing: %s and its %s are one item collection, so one Query of pk reads them all, in sort key order; dispatch the items by their sort key prefix.', ent, m[3]);
    ELSIF (par IS NULL AND by1 = ents->ent->>'key' AND by2 IS NULL AND ordattr IS NULL AND fattr IS NULL)
       OR (par IS NOT NULL AND by1 IS NOT NULL AND by2 IS NOT NULL
           AND ARRAY[by1, by2] @> ARRAY[ents->par->>'key', coalesce(ents->ent->>'sortattr', ents->ent->>'key')]
           AND verb = 'get' AND ordattr IS NULL AND fattr IS NULL) THEN
      -- the whole primary key: GetItem
      op := 'GetItem';
      req := jsonb_build_object('Key', jsonb_build_object(
        'pk', jsonb_build_object('S', replace(ents->ent->>'pk', singletable._design_field(
                 CASE WHEN par IS NULL THEN ents->ent->>'key' ELSE ents->par->>'key' END,
                 coalesce(ents->ent->'types'->>(CASE WHEN par IS NULL THEN ents->ent->>'key' ELSE ents->par->>'key' END), 'string')),
                 singletable._design_example(coalesce(ents->ent->'types'->>(CASE WHEN par IS NULL THEN ents->ent->>'key' ELSE ents->par->>'key' END), 'string')))),
        'sk', jsonb_build_object('S', CASE WHEN par IS NULL THEN 'PROFILE' ELSE (ents->ent->>'tag') || '#'
                 || singletable._design_example(coalesce(ents->ent->'types'->>coalesce(ents->ent->>'sortattr', ents->ent->>'key'), 'string')) END)));
      reason := format('The whole primary key of %s is known: GetItem, one item.', ent);
    ELSIF par IS NOT NULL AND by1 = ents->par->>'key' AND by2 IS NULL
          AND (ordattr IS NULL OR ordattr = coalesce(ents->ent->>'sortattr', ents->ent->>'key')) THEN
      -- the children of one parent: a Query of the collection by the type tag
      op := 'Query';
      typ := coalesce(ents->ent->'types'->>coalesce(ents->ent->>'sortattr', ents->ent->>'key'), 'string');
      vals := jsonb_build_object(':pk', replace(ents->ent->>'pk', singletable._design_field(by1, coalesce(ents->ent->'types'->>by1, 'string')),
                                                 singletable._design_example(coalesce(ents->ent->'types'->>by1, 'string'))));
      IF ordkind = 'ranged' THEN
        kc := 'pk = :pk AND sk BETWEEN :from AND :to';
        vals := vals || jsonb_build_object(':from', (ents->ent->>'tag') || '#' || singletable._design_example(typ),
                                           ':to', (ents->ent->>'tag') || '#' || singletable._design_example(typ) || '~');
        reason := format('The %s items of one %s, a range of %s: a Query of the collection with the range as its key condition (an index range, never a filter).', ent, par, ordattr);
      ELSE
        kc := 'pk = :pk AND begins_with(sk, :tag)';
        vals := vals || jsonb_build_object(':tag', (ents->ent->>'tag') || '#');
        reason := format('The %s items of one %s: a Query of the collection with begins_with on the type tag %s#, an index range that reads no other entity.', ent, par, ents->ent->>'tag');
      END IF;
      IF fattr IS NOT NULL THEN
        req := jsonb_build_object('FilterExpression', '#f = :f', 'ExpressionAttributeNames', jsonb_build_object('#f', fattr));
        vals := vals || jsonb_build_object(':f', fval);
        reason := reason || format(' Only where %s = %s: a filter, which still reads (and is charged for) every item of the range; if the pattern is frequent, give it a sparse index.', fattr, fval);
      END IF;
    ELSE
      -- across collections: an overloaded GSI, sparse when only some items qualify
      op := 'Query';
      IF by1 IS NOT NULL AND by1 = ents->ent->>'key' THEN
        gpk := (ents->ent->>'tag') || '#' || singletable._design_field(by1, coalesce(ents->ent->'types'->>by1, 'string'));
      ELSIF by1 IS NOT NULL THEN
        gpk := upper(by1) || '#' || singletable._design_field(by1, coalesce(ents->ent->'types'->>by1, 'string'));
      ELSIF fattr IS NOT NULL THEN
        gpk := upper(fattr) || '#' || singletable._design_field(fattr, coalesce(ents->ent->'types'->>fattr, 'string'));
      ELSE
        RAISE EXCEPTION 'access pattern % lists every % of the table: give it a key (by <attribute>) or a condition (only where <attribute> = <value>); a Scan is no access pattern',
          p->>'n', ent USING ERRCODE = 'invalid_parameter_value';
      END IF;
      child := coalesce(ordattr, ents->ent->>'key');
      gsk := singletable._design_field(child, coalesce(ents->ent->'types'->>child, 'string'));
      -- the first GSI this entity does not use yet, or the one it uses with the same keys
      slot := NULL;
      FOR i IN 1..20 LOOP
        IF ents->ent->'gsi' ? ('GSI' || i) THEN
          IF ents->ent->'gsi'->('GSI' || i) = jsonb_build_object('pk', gpk, 'sk', gsk) THEN slot := i; EXIT; END IF;
        ELSE
          slot := i; EXIT;
        END IF;
      END LOOP;
      IF slot IS NULL THEN
        RAISE EXCEPTION 'entity "%" needs more than 20 global secondary indexes', ent USING ERRCODE = 'program_limit_exceeded';
      END IF;
      idx := 'GSI' || slot;
      IF NOT ents->ent->'gsi' ? idx THEN
        ents := jsonb_set(ents, ARRAY[ent, 'gsi', idx], jsonb_build_object('pk', gpk, 'sk', gsk));
        gsis := jsonb_set(gsis, ARRAY[idx], coalesce(gsis->idx, '[]') || to_jsonb(ent));
      END IF;
      typ := coalesce(ents->ent->'types'->>child, 'string');
      vals := jsonb_build_object(':pk', CASE
        WHEN by1 IS NULL THEN upper(fattr) || '#' || fval
        ELSE replace(gpk, singletable._design_field(by1, coalesce(ents->ent->'types'->>by1, 'string')),
                     singletable._design_example(coalesce(ents->ent->'types'->>by1, 'string'))) END);
      kc := format('gsi%spk = :pk', slot);
      IF ordkind = 'ranged' THEN
        kc := kc || format(' AND gsi%ssk BETWEEN :from AND :to', slot);
        vals := vals || jsonb_build_object(':from', singletable._design_example(typ), ':to', singletable._design_example(typ) || '~');
      END IF;
      reason := format('%s items across collections: %s with gsi%spk = %s and gsi%ssk = %s on the %s items, so the pattern is one index range%s.',
        initcap(ent), idx, slot, gpk, slot, gsk, ent,
        CASE WHEN ordattr IS NOT NULL THEN format(', in %s order', ordattr) ELSE '' END);
      IF fattr IS NOT NULL THEN
        ents := jsonb_set(ents, ARRAY[ent, 'examples'], coalesce(ents->ent->'examples', '{}') || jsonb_build_object(fattr, fval));
      END IF;
      IF by1 IS NULL THEN
        reason := reason || format(' Sparse: write gsi%spk and gsi%ssk only on items with %s = %s (remove them when it changes), so the index holds those items alone and costs nothing for the others.',
          slot, slot, fattr, fval);
      ELSIF by1 = ents->ent->>'key' THEN
        reason := reason || format(' An inverted index: %s is found by its own key without its parent''s.', ent);
      END IF;
      IF fattr IS NOT NULL AND by1 IS NOT NULL THEN
        req := jsonb_build_object('FilterExpression', '#f = :f', 'ExpressionAttributeNames', jsonb_build_object('#f', fattr));
        vals := vals || jsonb_build_object(':f', fval);
      END IF;
    END IF;

    -- the DynamoDB request and the SQL call
    IF op = 'Query' THEN
      req := coalesce(req, '{}') || jsonb_build_object('TableName', tbl, 'KeyConditionExpression', kc,
        'ExpressionAttributeValues', (SELECT jsonb_object_agg(k, jsonb_build_object('S', v)) FROM jsonb_each_text(vals) x(k, v)));
      IF idx IS NOT NULL THEN req := req || jsonb_build_object('IndexName', idx); END IF;
      IF ordkind = 'sorted' THEN req := req || '{"ScanIndexForward": true}'; END IF;
      sqlcall := format('SELECT item FROM singletable.query(%L, key_condition => %L, vals => %L%s%s%s)',
        qtbl, kc, vals::text,
        CASE WHEN idx IS NOT NULL THEN format(', index_name => %L', idx) ELSE '' END,
        CASE WHEN req ? 'FilterExpression' THEN format(', filter => %L', req->>'FilterExpression') ELSE '' END,
        CASE WHEN req ? 'ExpressionAttributeNames' THEN format(', names => %L', (req->'ExpressionAttributeNames')::text) ELSE '' END);
    ELSE
      req := req || jsonb_build_object('TableName', tbl);
      sqlcall := format('SELECT singletable.get_item(%L, %L, %L)', qtbl, req->'Key'->'pk'->>'S', req->'Key'->'sk'->>'S');
    END IF;
    p := jsonb_build_object('pattern', p->>'text', 'entity', ent, 'operation', op)
      || CASE WHEN p->>'name' IS NOT NULL THEN jsonb_build_object('name', p->>'name') ELSE '{}' END
      || CASE WHEN idx IS NOT NULL THEN jsonb_build_object('index', idx) ELSE '{}' END
      || CASE WHEN kc IS NOT NULL THEN jsonb_build_object('key_condition', kc) ELSE '{}' END
      || jsonb_build_object('request', req, 'sql', sqlcall, 'reasoning', reason);
    answers := answers || jsonb_build_array(p);
  END LOOP;

  -- an example item of each entity: its keys (and index keys) composed of example values
  FOREACH n IN ARRAY names LOOP
    t := jsonb_build_object('pk', ents->n->>'pk', 'sk', ents->n->>'sk');
    FOR idx IN SELECT k FROM jsonb_object_keys(ents->n->'gsi') k LOOP
      t := t || jsonb_build_object('gsi' || substring(idx FROM 4) || 'pk', ents->n->'gsi'->idx->>'pk',
                                   'gsi' || substring(idx FROM 4) || 'sk', ents->n->'gsi'->idx->>'sk');
    END LOOP;
    pt := '{}';
    FOR child, typ IN SELECT k, v FROM jsonb_each_text(ents->n->'types' || jsonb_build_object(ents->n->>'key',
                        coalesce(ents->n->'types'->>(ents->n->>'key'), 'string'))) x(k, v) LOOP
      pt := pt || jsonb_build_object(child, coalesce(ents->n->'examples'->>child, singletable._design_example(typ)));
      t := (SELECT jsonb_object_agg(k, replace(v, singletable._design_field(child, typ), pt->>child))
              FROM jsonb_each_text(t) x(k, v));
    END LOOP;
    ents := jsonb_set(ents, ARRAY[n, 'example'], pt || t);
  END LOOP;

  -- the script
  script := format(E'SELECT singletable.create_table(%L, %L, %L, %L, %L);\n', qtbl, 'pk', 'sk', 'S', 'S');
  FOR n IN SELECT k FROM jsonb_object_keys(gsis) k ORDER BY substring(k FROM 4)::int LOOP
    script := script || format(E'SELECT singletable.create_gsi(%L, %L, %L, %L);\n', qtbl, n,
                                'gsi' || substring(n FROM 4) || 'pk', 'gsi' || substring(n FROM 4) || 'sk');
  END LOOP;
  FOREACH n IN ARRAY names LOOP
    script := script || format(E'SELECT singletable.define_entity(%L, %L, %L, %L%s);\n', qtbl, n,
      ents->n->>'pk', ents->n->>'sk',
      CASE WHEN ents->n->'gsi' <> '{}' THEN format(', indexes => %L', (ents->n->'gsi')::text) ELSE '' END);
    IF ents->n->>'ttl' IS NOT NULL THEN
      IF ttl IS NOT NULL AND ttl <> ents->n->>'ttl' THEN
        RAISE EXCEPTION 'entities give two TTL attributes, "%" and "%": a table has one', ttl, ents->n->>'ttl'
          USING ERRCODE = 'invalid_parameter_value';
      END IF;
      ttl := ents->n->>'ttl';
    END IF;
  END LOOP;
  IF ttl IS NOT NULL THEN
    script := script || format(E'SELECT singletable.enable_ttl(%L, %L);\n', qtbl, ttl);
  END IF;

  IF apply THEN
    FOR stmt IN SELECT s FROM regexp_split_to_table(rtrim(script, E'\n'), E'\n') s LOOP
      EXECUTE stmt;
    END LOOP;
  END IF;

  RETURN jsonb_build_object(
    'table', tbl,
    'principles', jsonb_build_array(
      'Access patterns first: every pattern is one GetItem or one Query of an index range; none is a Scan or a filter over a partition.',
      'Neutral key attributes (pk, sk, gsiNpk, gsiNsk) whose values carry the entity: a type tag, the delimiter #, then the fields.',
      'One delimiter, #, in every key: begins_with on a type tag then reads one entity only (mixed delimiters break it silently).',
      'Fields that are ranged or sorted sort as text: numbers zero-padded (int(N)), dates and times ISO-8601.',
      'Every template is registered with define_entity: prefixes that collide are refused, a typo in a prefix is caught (singletable.prefix_check).'),
    'entities', (SELECT jsonb_agg(jsonb_build_object('name', k, 'pk', ents->k->'pk', 'sk', ents->k->'sk')
                   || CASE WHEN ents->k->'gsi' <> '{}' THEN jsonb_build_object('indexes', ents->k->'gsi') ELSE '{}' END
                   || jsonb_build_object('example_item', ents->k->'example', 'reasoning', ents->k->'reasons') ORDER BY o)
                 FROM unnest(names) WITH ORDINALITY u(k, o)),
    'indexes', coalesce((SELECT jsonb_agg(jsonb_build_object('name', k, 'partition_key', 'gsi' || substring(k FROM 4) || 'pk',
                                   'sort_key', 'gsi' || substring(k FROM 4) || 'sk', 'entities', v,
                                   'reasoning', CASE WHEN jsonb_array_length(v) > 1
                                     THEN format('Overloaded: %s share it, each with its own key values (type tags keep them apart); an item is in it only when it carries its keys (sparse).', (SELECT string_agg(x, ', ') FROM jsonb_array_elements_text(v) x))
                                     ELSE 'Sparse: an item is in it only when it carries its keys.' END)
                                   ORDER BY substring(k FROM 4)::int)
                         FROM jsonb_each(gsis) g(k, v)), '[]'),
    'access_patterns', answers,
    'script', script,
    'applied', apply);
END
$design$;
COMMENT ON FUNCTION singletable.design(pg_catalog.jsonb, pg_catalog.jsonb, pg_catalog.text, pg_catalog.bool) IS
  'Proposes a single-table design from entities ({name, key, parent, attributes, ttl}) and access patterns ("get|list <entity> [with <entities>] [by <attr> [and <attr>]] [sorted|ranged by <attr>] [only where <attr> = <value>]"): key templates per entity, overloaded sparse GSIs, each pattern''s request and SQL call with the reasoning, and the script; apply => true runs the script';

-- peel_off: one entity of a single table moved, online, into its own new table
-- (issue 29, item 4; docs/entities.md "Peeling an entity off"). The pg_repack
-- pattern in SQL: a registry row per move, a key log filled by row triggers on the
-- old table, copy batches in key order, a replay of the log, a short cutover.
------------------------------------------------------------------------------
CREATE TABLE singletable.peel_offs (
    peel_id             pg_catalog.int8 GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    table_name          pg_catalog.regclass NOT NULL,
    entity              pg_catalog.text NOT NULL,
    new_table           pg_catalog.regclass NOT NULL,
    phase               pg_catalog.text NOT NULL DEFAULT 'copy'
        CHECK (phase OPERATOR(pg_catalog.=) ANY (ARRAY['copy','catch_up','done']::pg_catalog.text[])),
    batch_size          pg_catalog.int4 NOT NULL
        CHECK (batch_size OPERATOR(pg_catalog.>=) 1 AND batch_size OPERATOR(pg_catalog.<=) 1000000),
    items_to_copy       pg_catalog.int8 NOT NULL DEFAULT 0,
    items_copied        pg_catalog.int8 NOT NULL DEFAULT 0,
    batches             pg_catalog.int8 NOT NULL DEFAULT 0,
    keys_replayed       pg_catalog.int8 NOT NULL DEFAULT 0,
    items_deleted       pg_catalog.int8,
    last_pk             pg_catalog.text,
    last_sk             pg_catalog.text,
    started_at          pg_catalog.timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    copied_at           pg_catalog.timestamptz,
    updated_at          pg_catalog.timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    finished_at         pg_catalog.timestamptz,
    cutover_seconds     pg_catalog.float8,
    UNIQUE (table_name, entity)
);
-- one move of a table at a time
CREATE UNIQUE INDEX peel_offs_running ON singletable.peel_offs (table_name)
    WHERE phase OPERATOR(pg_catalog.<>) 'done';
COMMENT ON TABLE singletable.peel_offs IS
  'Registry of peel_off moves: the table, the entity, the new table, the phase (copy, catch_up, done), progress of the copy (last key copied, items), keys replayed from the log, items deleted at the cutover and how long the cutover held its lock';
SELECT pg_catalog.pg_extension_config_dump('singletable.peel_offs', '');
SELECT pg_catalog.pg_extension_config_dump('singletable.peel_offs_peel_id_seq', '');
GRANT SELECT, INSERT, UPDATE, DELETE ON singletable.peel_offs TO PUBLIC;
ALTER TABLE singletable.peel_offs ENABLE ROW LEVEL SECURITY;
-- everyone reads the registry; only the old table's owner (or a member of its role) writes its rows
CREATE POLICY peel_offs_read ON singletable.peel_offs FOR SELECT USING (true);
CREATE POLICY peel_offs_owner_insert ON singletable.peel_offs FOR INSERT
    WITH CHECK (pg_catalog.pg_has_role(CURRENT_USER,
        (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) table_name::pg_catalog.oid), 'USAGE'));
CREATE POLICY peel_offs_owner_update ON singletable.peel_offs FOR UPDATE
    USING (pg_catalog.pg_has_role(CURRENT_USER,
        (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) table_name::pg_catalog.oid), 'USAGE'));
CREATE POLICY peel_offs_owner_delete ON singletable.peel_offs FOR DELETE
    USING (pg_catalog.pg_has_role(CURRENT_USER,
        (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) table_name::pg_catalog.oid), 'USAGE'));

-- The keys written to the old table while a move runs (keys only, never items)
CREATE TABLE singletable.peel_off_log (
    peel_id             pg_catalog.int8 NOT NULL,
    seq                 pg_catalog.int8 GENERATED ALWAYS AS IDENTITY,
    pk                  pg_catalog.text NOT NULL,
    sk                  pg_catalog.text,
    PRIMARY KEY (peel_id, seq)
);
COMMENT ON TABLE singletable.peel_off_log IS
  'Keys of the writes of a peeled entity''s items to the old table while its peel_off runs, in commit-visible order; replayed and deleted by peel_off_catch_up and peel_off_cutover';
-- dumped with the registry: a move dumped in the middle resumes after a restore
SELECT pg_catalog.pg_extension_config_dump('singletable.peel_off_log', '');
SELECT pg_catalog.pg_extension_config_dump('singletable.peel_off_log_seq_seq', '');
GRANT SELECT, DELETE ON singletable.peel_off_log TO PUBLIC;
ALTER TABLE singletable.peel_off_log ENABLE ROW LEVEL SECURITY;
CREATE POLICY peel_off_log_owner ON singletable.peel_off_log
    USING (EXISTS (SELECT 1 FROM singletable.peel_offs p, pg_catalog.pg_class c
                    WHERE p.peel_id OPERATOR(pg_catalog.=) peel_off_log.peel_id
                      AND c.oid OPERATOR(pg_catalog.=) p.table_name::pg_catalog.oid
                      AND pg_catalog.pg_has_role(CURRENT_USER, c.relowner, 'USAGE')));

-- AFTER row trigger on the old table (its WHEN clause matches the entity's key templates):
-- logs the key written. SECURITY DEFINER: any writer of the table writes the log, which
-- only the table's owner reads. Arguments: peel id, partition key column, sort key column.
CREATE FUNCTION singletable.peel_off_log_write()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n pg_catalog.jsonb;
    o pg_catalog.jsonb;
BEGIN
    IF TG_OP OPERATOR(pg_catalog.<>) 'DELETE' THEN
        n := pg_catalog.to_jsonb(NEW);
        INSERT INTO singletable.peel_off_log (peel_id, pk, sk)
        VALUES (TG_ARGV[0]::pg_catalog.int8, n OPERATOR(pg_catalog.->>) TG_ARGV[1],
                n OPERATOR(pg_catalog.->>) NULLIF(TG_ARGV[2], ''));
    END IF;
    IF TG_OP OPERATOR(pg_catalog.<>) 'INSERT' THEN
        o := pg_catalog.to_jsonb(OLD);
        IF TG_OP OPERATOR(pg_catalog.=) 'DELETE'
           OR (o OPERATOR(pg_catalog.->>) TG_ARGV[1]) IS DISTINCT FROM (n OPERATOR(pg_catalog.->>) TG_ARGV[1])
           OR (o OPERATOR(pg_catalog.->>) NULLIF(TG_ARGV[2], '')) IS DISTINCT FROM (n OPERATOR(pg_catalog.->>) NULLIF(TG_ARGV[2], '')) THEN
            INSERT INTO singletable.peel_off_log (peel_id, pk, sk)
            VALUES (TG_ARGV[0]::pg_catalog.int8, o OPERATOR(pg_catalog.->>) TG_ARGV[1],
                    o OPERATOR(pg_catalog.->>) NULLIF(TG_ARGV[2], ''));
        END IF;
    END IF;
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION singletable.peel_off_log_write() IS
  'Trigger of a running peel_off on the old table: logs the key of each write of an item of the peeled entity in singletable.peel_off_log';

-- BEFORE row trigger on the old table after the cutover: refuses a write of the entity's keys
CREATE FUNCTION singletable.peel_off_refuse()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    p record;
BEGIN
    SELECT r.entity, r.new_table::pg_catalog.text AS new_table INTO p
      FROM singletable.peel_offs r WHERE r.peel_id OPERATOR(pg_catalog.=) TG_ARGV[0]::pg_catalog.int8;
    RAISE EXCEPTION 'items of entity "%" of table "%" were moved to table "%" by singletable.peel_off',
        COALESCE(p.entity, TG_ARGV[1]), TG_TABLE_NAME, COALESCE(p.new_table, '(dropped)')
        USING ERRCODE = 'object_not_in_prerequisite_state',
              HINT = pg_catalog.format('Write them to table "%s".', COALESCE(p.new_table, '(dropped)'));
END;
$$;
COMMENT ON FUNCTION singletable.peel_off_refuse() IS
  'Trigger on a table an entity was peeled off: refuses writes of the entity''s keys, naming the new table (55000, ValidationException)';

-- What a move reads and writes, from its registry row: column names, the entity's
-- match predicate over a relation alias, its key-prefix range. Internal.
CREATE FUNCTION singletable.peel_off_plan(peel pg_catalog.int8,
    OUT old_table pg_catalog.regclass, OUT new_table pg_catalog.regclass,
    OUT pk_col pg_catalog.text, OUT sk_col pg_catalog.text,
    OUT pk_template pg_catalog.text, OUT sk_template pg_catalog.text,
    OUT phase pg_catalog.text, OUT batch_size pg_catalog.int4,
    OUT last_pk pg_catalog.text, OUT last_sk pg_catalog.text, OUT entity pg_catalog.text)
RETURNS record
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    SELECT p.table_name, p.new_table, t.partition_key, t.sort_key, e.pk_template, e.sk_template,
           p.phase, p.batch_size, p.last_pk, p.last_sk, p.entity
      INTO old_table, new_table, pk_col, sk_col, pk_template, sk_template,
           phase, batch_size, last_pk, last_sk, entity
      FROM singletable.peel_offs p
      JOIN singletable.tables t ON t.table_name OPERATOR(pg_catalog.=) p.table_name
      JOIN singletable.entities e ON e.table_name OPERATOR(pg_catalog.=) p.table_name
                                 AND e.entity OPERATOR(pg_catalog.=) p.entity
     WHERE p.peel_id OPERATOR(pg_catalog.=) peel
       FOR UPDATE OF p NOWAIT;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'peel-off % does not exist', peel USING ERRCODE = 'undefined_object';
    END IF;
    IF NOT pg_catalog.pg_has_role(CURRENT_USER,
            (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) old_table::pg_catalog.oid), 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of table %', old_table USING ERRCODE = 'insufficient_privilege';
    END IF;
END;
$$;
COMMENT ON FUNCTION singletable.peel_off_plan(pg_catalog.int8) IS
  'Internal: the registry row of a peel-off, locked (NOWAIT: one session runs a move), with the key columns and templates it works with';

CREATE FUNCTION singletable.peel_off_match(alias pg_catalog.text, pk_col pg_catalog.text, sk_col pg_catalog.text,
                                          pk_template pg_catalog.text, sk_template pg_catalog.text)
RETURNS pg_catalog.text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN pg_catalog.regexp_replace(pk_template, '[{}].*$', '') OPERATOR(pg_catalog.<>) ''
              THEN pg_catalog.format('singletable.begins_with(%s.%I, %L) AND ', alias, pk_col,
                                     pg_catalog.regexp_replace(pk_template, '[{}].*$', ''))
              ELSE '' END
      OPERATOR(pg_catalog.||) pg_catalog.format('singletable.key_matches(%s.%I, %L)', alias, pk_col, pk_template)
      OPERATOR(pg_catalog.||) CASE WHEN sk_col IS NOT NULL
              THEN pg_catalog.format(' AND singletable.key_matches(%s.%I, %L)', alias, sk_col, sk_template)
              ELSE '' END
$$;
COMMENT ON FUNCTION singletable.peel_off_match(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text) IS
  'Internal: the SQL condition selecting an entity''s items (its partition key''s type tag as an index range, then its key templates)';

-- Step 1: the new table, its indexes, TTL and entity; the registry row; the log triggers.
CREATE FUNCTION singletable.peel_off_begin(table_name pg_catalog.text, entity pg_catalog.text,
                                          new_table pg_catalog.text, batch_size pg_catalog.int4 DEFAULT 1000)
RETURNS pg_catalog.int8
LANGUAGE plpgsql
-- no SET search_path: table_name and new_table are names in the caller's search_path
-- (create_table creates new_table where the caller's would); every name below is qualified
AS $$
DECLARE
    old pg_catalog.regclass;
    nt pg_catalog.regclass;
    t record;
    e record;
    p record;
    ix record;
    ttl_attr pg_catalog.text;
    peel pg_catalog.int8;
    est pg_catalog.int8;
    reltuples pg_catalog.float4;
    m_new pg_catalog.text;
    m_old pg_catalog.text;
BEGIN
    IF table_name IS NULL OR entity IS NULL OR new_table IS NULL OR batch_size IS NULL THEN
        RAISE EXCEPTION 'peel_off: table_name, entity, new_table and batch_size must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF batch_size OPERATOR(pg_catalog.<) 1 OR batch_size OPERATOR(pg_catalog.>) 1000000 THEN
        RAISE EXCEPTION 'peel_off: batch_size must be between 1 and 1000000, not %', batch_size
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    old := pg_catalog.to_regclass(table_name);
    IF old IS NULL THEN
        RAISE EXCEPTION 'table "%" does not exist', table_name USING ERRCODE = 'undefined_table';
    END IF;
    SELECT * INTO t FROM singletable.tables r WHERE r.table_name OPERATOR(pg_catalog.=) old;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'table "%" is not a singletable table', table_name USING ERRCODE = 'wrong_object_type';
    END IF;
    IF NOT pg_catalog.pg_has_role(CURRENT_USER,
            (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) old::pg_catalog.oid), 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of table %', old USING ERRCODE = 'insufficient_privilege';
    END IF;
    -- a move of this table: the same one resumes, another is refused
    SELECT r.* INTO p FROM singletable.peel_offs r
     WHERE r.table_name OPERATOR(pg_catalog.=) old
       AND (r.phase OPERATOR(pg_catalog.<>) 'done' OR r.entity OPERATOR(pg_catalog.=) peel_off_begin.entity);
    IF FOUND THEN
        IF p.entity OPERATOR(pg_catalog.=) peel_off_begin.entity AND p.phase OPERATOR(pg_catalog.<>) 'done'
           AND p.new_table OPERATOR(pg_catalog.=) pg_catalog.to_regclass(new_table) THEN
            RETURN p.peel_id;
        ELSIF p.phase OPERATOR(pg_catalog.=) 'done' THEN
            RAISE EXCEPTION 'entity "%" of table "%" was already peeled off to table "%"', p.entity, old, p.new_table
                USING ERRCODE = 'object_in_use';
        ELSE
            RAISE EXCEPTION 'a peel-off of table "%" is running: entity "%" to table "%"', old, p.entity, p.new_table
                USING ERRCODE = 'object_in_use',
                      HINT = 'Finish it with CALL singletable.peel_off() with its arguments; one entity of a table moves at a time.';
        END IF;
    END IF;
    SELECT r.* INTO e FROM singletable.entities r
     WHERE r.table_name OPERATOR(pg_catalog.=) old AND r.entity OPERATOR(pg_catalog.=) peel_off_begin.entity;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'table "%" has no entity "%"', old, entity USING ERRCODE = 'undefined_object';
    END IF;
    IF pg_catalog.to_regclass(new_table) IS NOT NULL THEN
        RAISE EXCEPTION 'relation "%" already exists', new_table USING ERRCODE = 'duplicate_table';
    END IF;

    -- the new table: same key names and types
    nt := singletable.create_table(new_table, t.partition_key, t.sort_key, t.partition_key_type, t.sort_key_type);
    -- the secondary indexes the entity has templates for, as the old table has them
    FOR ix IN SELECT i.* FROM singletable.indexes i
               WHERE i.table_name OPERATOR(pg_catalog.=) old
                 AND e.index_templates OPERATOR(pg_catalog.?) i.index_name
               ORDER BY i.index_name
    LOOP
        IF ix.index_type OPERATOR(pg_catalog.=) 'LSI' THEN
            PERFORM singletable.create_lsi(nt::pg_catalog.text, ix.index_name, ix.sort_key[1], ix.sort_key_type[1],
                                           ix.projection, ix.non_key_attributes);
        ELSE
            PERFORM singletable.create_gsi(nt::pg_catalog.text, ix.index_name,
                (SELECT pg_catalog.string_agg('"' OPERATOR(pg_catalog.||) pg_catalog.replace(a, '"', '""') OPERATOR(pg_catalog.||) '"', ',')
                   FROM pg_catalog.unnest(ix.partition_key) a),
                (SELECT pg_catalog.string_agg('"' OPERATOR(pg_catalog.||) pg_catalog.replace(a, '"', '""') OPERATOR(pg_catalog.||) '"', ',')
                   FROM pg_catalog.unnest(ix.sort_key) a),
                pg_catalog.array_to_string(ix.partition_key_type, ','),
                COALESCE(pg_catalog.array_to_string(ix.sort_key_type, ','), 'S'),
                ix.projection, ix.non_key_attributes);
        END IF;
    END LOOP;
    SELECT r.attribute_name INTO ttl_attr FROM singletable.ttl r WHERE r.table_name OPERATOR(pg_catalog.=) old;
    IF ttl_attr IS NOT NULL THEN
        PERFORM singletable.enable_ttl(nt::pg_catalog.text, ttl_attr);
    END IF;
    PERFORM singletable.define_entity(nt::pg_catalog.text, e.entity, pk => e.pk_template, sk => e.sk_template,
        indexes => (SELECT pg_catalog.jsonb_object_agg(k, v) FROM pg_catalog.jsonb_each(e.index_templates) x(k, v)
                     WHERE EXISTS (SELECT 1 FROM singletable.indexes i WHERE i.table_name OPERATOR(pg_catalog.=) nt
                                      AND i.index_name OPERATOR(pg_catalog.=) x.k)),
        attributes => e.attributes);

    -- the estimate of the items to copy, before any lock on the table: counted on a
    -- small table, on a 10 % page sample of a large one
    m_old := singletable.peel_off_match('o', t.partition_key, t.sort_key, e.pk_template, e.sk_template);
    SELECT c.reltuples INTO reltuples FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) old::pg_catalog.oid;
    IF reltuples OPERATOR(pg_catalog.<) 200000 THEN
        EXECUTE pg_catalog.format('SELECT pg_catalog.count(*) FROM %s o WHERE %s', old, m_old) INTO est;
    ELSE
        EXECUTE pg_catalog.format('SELECT pg_catalog.count(*) OPERATOR(pg_catalog.*) 10 FROM %s o TABLESAMPLE SYSTEM (10) WHERE %s', old, m_old) INTO est;
    END IF;

    INSERT INTO singletable.peel_offs (table_name, entity, new_table, batch_size, items_to_copy)
    VALUES (old, e.entity, nt, batch_size, est)
    RETURNING peel_id INTO peel;

    -- the log triggers (CREATE TRIGGER waits for the writes in progress; every write
    -- committed after this transaction is logged)
    m_new := singletable.peel_off_match('NEW', t.partition_key, t.sort_key, e.pk_template, e.sk_template);
    m_old := singletable.peel_off_match('OLD', t.partition_key, t.sort_key, e.pk_template, e.sk_template);
    EXECUTE pg_catalog.format('CREATE TRIGGER %I AFTER INSERT ON %s FOR EACH ROW WHEN (%s) EXECUTE FUNCTION singletable.peel_off_log_write(%L, %L, %L)',
                              'peel_off_' OPERATOR(pg_catalog.||) peel OPERATOR(pg_catalog.||) '_log_insert', old, m_new,
                              peel, t.partition_key, COALESCE(t.sort_key, ''));
    EXECUTE pg_catalog.format('CREATE TRIGGER %I AFTER UPDATE ON %s FOR EACH ROW WHEN ((%s) OR (%s)) EXECUTE FUNCTION singletable.peel_off_log_write(%L, %L, %L)',
                              'peel_off_' OPERATOR(pg_catalog.||) peel OPERATOR(pg_catalog.||) '_log_update', old, m_old, m_new,
                              peel, t.partition_key, COALESCE(t.sort_key, ''));
    EXECUTE pg_catalog.format('CREATE TRIGGER %I AFTER DELETE ON %s FOR EACH ROW WHEN (%s) EXECUTE FUNCTION singletable.peel_off_log_write(%L, %L, %L)',
                              'peel_off_' OPERATOR(pg_catalog.||) peel OPERATOR(pg_catalog.||) '_log_delete', old, m_old,
                              peel, t.partition_key, COALESCE(t.sort_key, ''));
    RETURN peel;
END;
$$;
COMMENT ON FUNCTION singletable.peel_off_begin(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.int4) IS
  'peel_off, first step (one transaction): creates the new table with the old one''s key names and types, the indexes the entity has templates for, its TTL setting and the entity, registers the move and installs the triggers that log the keys the entity''s writes touch; returns the move''s id (an unfinished move of the same arguments: its id)';

-- Step 2: one batch of the copy, in key order after the last key copied
CREATE FUNCTION singletable.peel_off_copy(peel pg_catalog.int8)
RETURNS pg_catalog.int8
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    p record;
    cols pg_catalog.text;
    keys pg_catalog.text;
    bound pg_catalog.text;
    n pg_catalog.int8;
    lpk pg_catalog.text;
    lsk pg_catalog.text;
BEGIN
    p := singletable.peel_off_plan(peel);
    IF p.phase OPERATOR(pg_catalog.<>) 'copy' THEN
        RETURN 0;
    END IF;
    IF p.sk_col IS NULL THEN
        keys := pg_catalog.format('%I', p.pk_col);
        bound := CASE WHEN p.last_pk IS NULL THEN 'true' ELSE pg_catalog.format('o.%I OPERATOR(pg_catalog.>) $1', p.pk_col) END;
    ELSE
        keys := pg_catalog.format('%I, %I', p.pk_col, p.sk_col);
        bound := CASE WHEN p.last_pk IS NULL THEN 'true'
                      ELSE pg_catalog.format('(o.%I, o.%I) OPERATOR(pg_catalog.>) ($1, $2)', p.pk_col, p.sk_col) END;
    END IF;
    cols := keys OPERATOR(pg_catalog.||) ', item';
    EXECUTE pg_catalog.format(
        'WITH b AS (SELECT %1$s FROM %2$s o WHERE %3$s AND %4$s ORDER BY %5$s LIMIT $3),'
        ' ins AS (INSERT INTO %6$s AS n (%7$s) SELECT %7$s FROM b ON CONFLICT (%5$s) DO UPDATE SET item = EXCLUDED.item)'
        ' SELECT (SELECT pg_catalog.count(*) FROM b), l.* FROM (SELECT %8$s FROM b ORDER BY %9$s LIMIT 1) l RIGHT JOIN (SELECT 1) one ON true',
        (SELECT pg_catalog.string_agg('o.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(c), ', ')
           FROM pg_catalog.unnest(ARRAY[p.pk_col, p.sk_col, 'item']) c WHERE c IS NOT NULL),
        p.old_table,
        singletable.peel_off_match('o', p.pk_col, p.sk_col, p.pk_template, p.sk_template),
        bound, keys, p.new_table, cols,
        pg_catalog.format('%I::pg_catalog.text, %s', p.pk_col,
                          CASE WHEN p.sk_col IS NULL THEN 'NULL::pg_catalog.text'
                               ELSE pg_catalog.format('%I::pg_catalog.text', p.sk_col) END),
        CASE WHEN p.sk_col IS NULL THEN pg_catalog.format('%I DESC', p.pk_col)
             ELSE pg_catalog.format('%I DESC, %I DESC', p.pk_col, p.sk_col) END)
      INTO n, lpk, lsk
      USING p.last_pk, p.last_sk, p.batch_size;
    IF n OPERATOR(pg_catalog.=) 0 THEN
        UPDATE singletable.peel_offs r SET phase = 'catch_up', copied_at = pg_catalog.clock_timestamp(),
               updated_at = pg_catalog.clock_timestamp()
         WHERE r.peel_id OPERATOR(pg_catalog.=) peel;
    ELSE
        UPDATE singletable.peel_offs r
           SET items_copied = r.items_copied OPERATOR(pg_catalog.+) n, batches = r.batches OPERATOR(pg_catalog.+) 1,
               last_pk = lpk, last_sk = lsk, updated_at = pg_catalog.clock_timestamp()
         WHERE r.peel_id OPERATOR(pg_catalog.=) peel;
    END IF;
    RETURN n;
END;
$$;
COMMENT ON FUNCTION singletable.peel_off_copy(pg_catalog.int8) IS
  'peel_off, copy step (one transaction): copies the next batch_size items of the entity after the last key copied, in key order, into the new table; returns how many (0: the copy is done, the move goes to catch_up)';

-- Replays up to max_keys logged keys: each key's current state copied from the old
-- table, or deleted from the new one when the old has no such item. Internal.
CREATE FUNCTION singletable.peel_off_replay(peel pg_catalog.int8, max_keys pg_catalog.int8)
RETURNS pg_catalog.int8
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n pg_catalog.int8;
    keys pg_catalog.text;
    cols pg_catalog.text;
    joinon pg_catalog.text;
    p record;
BEGIN
    p := singletable.peel_off_plan(peel);
    IF p.sk_col IS NULL THEN
        keys := pg_catalog.format('%I', p.pk_col);
        joinon := pg_catalog.format('x.%1$I OPERATOR(pg_catalog.=) k.pk', p.pk_col);
    ELSE
        keys := pg_catalog.format('%I, %I', p.pk_col, p.sk_col);
        joinon := pg_catalog.format('x.%1$I OPERATOR(pg_catalog.=) k.pk AND x.%2$I OPERATOR(pg_catalog.=) k.sk', p.pk_col, p.sk_col);
    END IF;
    cols := keys OPERATOR(pg_catalog.||) ', item';
    -- one statement, one snapshot: the logged keys it takes were written by transactions
    -- its snapshot sees, so the state it copies is at least as new as their writes
    EXECUTE pg_catalog.format(
        'WITH k0 AS (DELETE FROM singletable.peel_off_log l WHERE l.peel_id OPERATOR(pg_catalog.=) $1'
        '              AND l.seq OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT l2.seq FROM singletable.peel_off_log l2'
        '                    WHERE l2.peel_id OPERATOR(pg_catalog.=) $1 ORDER BY l2.seq LIMIT $2))'
        '            RETURNING l.pk, l.sk),'
        ' k AS (SELECT DISTINCT k0.pk, k0.sk FROM k0),'
        ' km AS (SELECT k.pk, k.sk FROM k WHERE %5$s),'
        ' d AS (DELETE FROM %2$s x USING km k WHERE %3$s'
        '         AND NOT EXISTS (SELECT 1 FROM %1$s x WHERE %3$s) RETURNING 1),'
        ' u AS (INSERT INTO %2$s (%4$s) SELECT %6$s FROM %1$s x JOIN km k ON %3$s'
        '         ON CONFLICT (%7$s) DO UPDATE SET item = EXCLUDED.item RETURNING 1)'
        ' SELECT pg_catalog.count(*) FROM k0',
        p.old_table, p.new_table, joinon, cols,
        singletable.peel_off_match('k', 'pk', CASE WHEN p.sk_col IS NULL THEN NULL ELSE 'sk' END, p.pk_template, p.sk_template),
        (SELECT pg_catalog.string_agg('x.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(c), ', ')
           FROM pg_catalog.unnest(ARRAY[p.pk_col, p.sk_col, 'item']) c WHERE c IS NOT NULL),
        keys)
      INTO n
      USING peel, max_keys;
    UPDATE singletable.peel_offs r
       SET keys_replayed = r.keys_replayed OPERATOR(pg_catalog.+) n, updated_at = pg_catalog.clock_timestamp()
     WHERE r.peel_id OPERATOR(pg_catalog.=) peel;
    RETURN n;
END;
$$;
COMMENT ON FUNCTION singletable.peel_off_replay(pg_catalog.int8, pg_catalog.int8) IS
  'Internal: replays up to max_keys keys of a peel-off''s log into the new table';

-- Step 3: the catch-up, one batch of the log (one transaction)
CREATE FUNCTION singletable.peel_off_catch_up(peel pg_catalog.int8, max_keys pg_catalog.int8 DEFAULT NULL)
RETURNS pg_catalog.int8
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    p record;
BEGIN
    p := singletable.peel_off_plan(peel);
    IF p.phase OPERATOR(pg_catalog.=) 'done' THEN
        RETURN 0;
    END IF;
    RETURN singletable.peel_off_replay(peel, COALESCE(max_keys, p.batch_size::pg_catalog.int8));
END;
$$;
COMMENT ON FUNCTION singletable.peel_off_catch_up(pg_catalog.int8, pg_catalog.int8) IS
  'peel_off, catch-up step (one transaction): replays up to max_keys (default batch_size) logged keys into the new table, each key''s current state or its deletion; returns how many log entries it took';

-- Step 4: the cutover (one short transaction)
CREATE FUNCTION singletable.peel_off_cutover(peel pg_catalog.int8)
RETURNS pg_catalog.int8
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    p record;
    n pg_catalog.int8;
    t0 pg_catalog.timestamptz := pg_catalog.clock_timestamp();
BEGIN
    p := singletable.peel_off_plan(peel);
    IF p.phase OPERATOR(pg_catalog.=) 'done' THEN
        RETURN 0;
    END IF;
    IF p.phase OPERATOR(pg_catalog.<>) 'catch_up' THEN
        RAISE EXCEPTION 'peel-off % of table "%" has not finished its copy', peel, p.old_table
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Run singletable.peel_off_copy() until it returns 0.';
    END IF;
    -- each statement below must see every write committed before the lock
    IF pg_catalog.current_setting('transaction_isolation') OPERATOR(pg_catalog.<>) 'read committed' THEN
        RAISE EXCEPTION 'peel_off_cutover must run at READ COMMITTED, not %', pg_catalog.current_setting('transaction_isolation')
            USING ERRCODE = 'active_sql_transaction';
    END IF;
    -- writers wait from here to the commit; readers do not
    EXECUTE pg_catalog.format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', p.old_table);
    LOOP
        EXIT WHEN singletable.peel_off_replay(peel, 100000) OPERATOR(pg_catalog.=) 0;
    END LOOP;
    EXECUTE pg_catalog.format('DELETE FROM %s o WHERE %s', p.old_table,
                              singletable.peel_off_match('o', p.pk_col, p.sk_col, p.pk_template, p.sk_template));
    GET DIAGNOSTICS n = ROW_COUNT;
    EXECUTE pg_catalog.format('DROP TRIGGER %I ON %s', 'peel_off_' OPERATOR(pg_catalog.||) peel OPERATOR(pg_catalog.||) '_log_insert', p.old_table);
    EXECUTE pg_catalog.format('DROP TRIGGER %I ON %s', 'peel_off_' OPERATOR(pg_catalog.||) peel OPERATOR(pg_catalog.||) '_log_update', p.old_table);
    EXECUTE pg_catalog.format('DROP TRIGGER %I ON %s', 'peel_off_' OPERATOR(pg_catalog.||) peel OPERATOR(pg_catalog.||) '_log_delete', p.old_table);
    EXECUTE pg_catalog.format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE ON %s FOR EACH ROW WHEN (%s) EXECUTE FUNCTION singletable.peel_off_refuse(%L, %L)',
                              'peel_off_' OPERATOR(pg_catalog.||) peel OPERATOR(pg_catalog.||) '_refuse', p.old_table,
                              singletable.peel_off_match('NEW', p.pk_col, p.sk_col, p.pk_template, p.sk_template),
                              peel, p.entity);
    DELETE FROM singletable.peel_off_log l WHERE l.peel_id OPERATOR(pg_catalog.=) peel;
    UPDATE singletable.peel_offs r
       SET phase = 'done', items_deleted = n, updated_at = pg_catalog.clock_timestamp(),
           finished_at = pg_catalog.clock_timestamp(),
           cutover_seconds = pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) t0)
     WHERE r.peel_id OPERATOR(pg_catalog.=) peel;
    RETURN n;
END;
$$;
COMMENT ON FUNCTION singletable.peel_off_cutover(pg_catalog.int8) IS
  'peel_off, last step (one transaction, READ COMMITTED): locks the old table against writes (SHARE ROW EXCLUSIVE), replays the rest of the log, deletes the entity''s items from the old table, replaces the log triggers by one refusing writes of the entity''s keys; returns the items deleted';

-- The whole move: every phase, a COMMIT after each batch; called again, it resumes
CREATE PROCEDURE singletable.peel_off(table_name pg_catalog.text, entity pg_catalog.text, new_table pg_catalog.text,
                                      batch_size pg_catalog.int4 DEFAULT 1000,
                                      pause pg_catalog.float8 DEFAULT 0.2,
                                      catch_up_threshold pg_catalog.int8 DEFAULT 1000)
LANGUAGE plpgsql
AS $$
DECLARE
    peel pg_catalog.int8;
    ph pg_catalog.text;
    pending pg_catalog.int8;
    rounds pg_catalog.int4 := 0;
BEGIN
    IF pause IS NULL OR pause OPERATOR(pg_catalog.<) 0 OR catch_up_threshold IS NULL OR catch_up_threshold OPERATOR(pg_catalog.<) 0 THEN
        RAISE EXCEPTION 'peel_off: pause and catch_up_threshold must be 0 or more'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    peel := singletable.peel_off_begin(table_name, entity, new_table, batch_size);
    COMMIT;
    SELECT r.phase INTO ph FROM singletable.peel_offs r WHERE r.peel_id OPERATOR(pg_catalog.=) peel;
    IF ph OPERATOR(pg_catalog.=) 'copy' THEN
        LOOP
            EXIT WHEN singletable.peel_off_copy(peel) OPERATOR(pg_catalog.=) 0;
            COMMIT;
            IF pause OPERATOR(pg_catalog.>) 0 THEN
                PERFORM pg_catalog.pg_sleep(pause);
            END IF;
        END LOOP;
        COMMIT;
    END IF;
    -- catch up until the log is short (or after 100 rounds: the writes outpace the replay,
    -- the cutover then replays the rest under its lock)
    LOOP
        SELECT pg_catalog.count(*) INTO pending FROM singletable.peel_off_log l WHERE l.peel_id OPERATOR(pg_catalog.=) peel;
        EXIT WHEN pending OPERATOR(pg_catalog.<=) catch_up_threshold OR rounds OPERATOR(pg_catalog.>=) 100;
        PERFORM singletable.peel_off_catch_up(peel);
        COMMIT;
        rounds := rounds OPERATOR(pg_catalog.+) 1;
        IF pause OPERATOR(pg_catalog.>) 0 THEN
            PERFORM pg_catalog.pg_sleep(pause);
        END IF;
    END LOOP;
    PERFORM singletable.peel_off_cutover(peel);
    COMMIT;
END;
$$;
COMMENT ON PROCEDURE singletable.peel_off(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.int4, pg_catalog.float8, pg_catalog.int8) IS
  'Moves every item of an entity of a table the caller owns into a new table, online: peel_off_begin, copy batches (each committed, pause seconds between them), catch-up of the logged writes, cutover; CALL it outside a transaction block; called again after an interruption, it resumes';

CREATE VIEW singletable.peel_off_progress AS
SELECT p.peel_id, p.table_name, p.entity, p.new_table, p.phase,
       p.items_copied, p.items_to_copy,
       CASE WHEN p.phase OPERATOR(pg_catalog.<>) 'copy' THEN 100::pg_catalog.numeric
            WHEN p.items_to_copy OPERATOR(pg_catalog.>) 0
            THEN pg_catalog.round(LEAST(100::pg_catalog.numeric, 100 OPERATOR(pg_catalog.*) p.items_copied::pg_catalog.numeric OPERATOR(pg_catalog./) p.items_to_copy), 1)
       END AS percent_copied,
       p.batches,
       (SELECT pg_catalog.count(*) FROM singletable.peel_off_log l WHERE l.peel_id OPERATOR(pg_catalog.=) p.peel_id) AS log_pending,
       p.keys_replayed, p.items_deleted,
       pg_catalog.round((p.items_copied::pg_catalog.float8 OPERATOR(pg_catalog./) GREATEST(pg_catalog.date_part('epoch',
           COALESCE(p.copied_at, p.updated_at) OPERATOR(pg_catalog.-) p.started_at), 0.001))::pg_catalog.numeric, 1) AS copy_items_per_second,
       p.cutover_seconds, p.started_at, p.updated_at, p.finished_at
  FROM singletable.peel_offs p;
COMMENT ON VIEW singletable.peel_off_progress IS
  'Progress of each peel_off, in the style of pg_stat_progress_*: phase, items copied of the estimate, log entries waiting for the catch-up, the copy''s rate, times';
GRANT SELECT ON singletable.peel_off_progress TO PUBLIC;

-- A dropped table takes its moves' rows and logs with it; a dropped new table of a
-- running move also takes the log triggers off the old table (SECURITY DEFINER for the
-- reason given at singletable.on_sql_drop).
CREATE FUNCTION singletable.on_peel_offs_sql_drop()
RETURNS event_trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r record;
BEGIN
    FOR r IN DELETE FROM singletable.peel_offs p
               USING pg_catalog.pg_event_trigger_dropped_objects() d
              WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
                AND d.objsubid OPERATOR(pg_catalog.=) 0
                AND (p.table_name::pg_catalog.oid OPERATOR(pg_catalog.=) d.objid
                     OR p.new_table::pg_catalog.oid OPERATOR(pg_catalog.=) d.objid)
          RETURNING p.peel_id, p.table_name, p.phase
    LOOP
        DELETE FROM singletable.peel_off_log l WHERE l.peel_id OPERATOR(pg_catalog.=) r.peel_id;
        IF r.phase OPERATOR(pg_catalog.<>) 'done'
           AND EXISTS (SELECT 1 FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) r.table_name::pg_catalog.oid) THEN
            EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS %I ON %s', 'peel_off_' OPERATOR(pg_catalog.||) r.peel_id OPERATOR(pg_catalog.||) '_log_insert', r.table_name);
            EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS %I ON %s', 'peel_off_' OPERATOR(pg_catalog.||) r.peel_id OPERATOR(pg_catalog.||) '_log_update', r.table_name);
            EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS %I ON %s', 'peel_off_' OPERATOR(pg_catalog.||) r.peel_id OPERATOR(pg_catalog.||) '_log_delete', r.table_name);
        END IF;
    END LOOP;
END;
$$;
COMMENT ON FUNCTION singletable.on_peel_offs_sql_drop() IS
  'Event trigger: removes the peel_off rows and logs of dropped tables; a running move whose new table is dropped loses its log triggers';
CREATE EVENT TRIGGER singletable_peel_offs_sql_drop ON sql_drop
    EXECUTE FUNCTION singletable.on_peel_offs_sql_drop();

------------------------------------------------------------------------------
-- The viewer's operations (issue 30): singletable.viewer_api(op, request), which
-- singletable-gateway calls for X-Amz-Target SingleTable_20261201.<Op> through
-- dynamodb_as, under its role switch; so grants and row-level security decide
-- what each access key sees, as for DynamoDB's operations.
------------------------------------------------------------------------------

-- The table a request names (its "TableName"), resolved with the caller's search_path
-- as DynamoDB's operations resolve it, then checked by singletable._viewer_api.
CREATE FUNCTION singletable.viewer_api(op pg_catalog.text, request pg_catalog.jsonb)
RETURNS pg_catalog.jsonb
LANGUAGE plpgsql
AS $$
DECLARE
  tbl pg_catalog.regclass;
BEGIN
  -- no operator here (this function has no fixed search_path): only qualified calls
  BEGIN
    tbl := pg_catalog.to_regclass(pg_catalog.jsonb_extract_path_text(request, 'TableName'));
  EXCEPTION WHEN invalid_name OR name_too_long OR syntax_error THEN
    tbl := NULL;
  END;
  RETURN singletable._viewer_api(op, request, tbl, pg_catalog.current_setting('search_path'));
END;
$$;
COMMENT ON FUNCTION singletable.viewer_api(pg_catalog.text, pg_catalog.jsonb) IS
  'The viewer''s operations, as the gateway calls them (X-Amz-Target SingleTable_20261201.<op>): ListEntities, DecodeKeys, Partitions, Inventory, HotKeys, ItemSize, EstimateCost, ExportCode, Design; request is a JSON object with the operation''s arguments; runs with the caller''s rights';

CREATE FUNCTION singletable._viewer_api(op pg_catalog.text, request pg_catalog.jsonb, tbl pg_catalog.regclass,
                                        caller_search_path pg_catalog.text)
RETURNS pg_catalog.jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $viewer$
DECLARE
  ops constant text[] := ARRAY['ListEntities', 'DecodeKeys', 'Partitions', 'Inventory', 'HotKeys',
                               'ItemSize', 'EstimateCost', 'ExportCode', 'Design'];
  table_ops constant text[] := ARRAY['ListEntities', 'DecodeKeys', 'Partitions', 'Inventory', 'HotKeys',
                                     'EstimateCost', 'ExportCode'];
  name text;
  tname text;             -- the table's name as the C functions take it (schema-qualified when needed)
  k jsonb;
  out jsonb;
  lim int;
  cap constant int := 1000;
  start text;
  idx text;
  e record;
  r record;
  fields jsonb;
  tpl_pk text;
  tpl_sk text;
  req jsonb;
  calls float8;
  operation text;
  lang text;
  code text;
BEGIN
  IF op IS NULL OR NOT op = ANY (ops) THEN
    RAISE EXCEPTION 'unknown viewer operation'
      USING ERRCODE = '42S01', DETAIL = 'the operations are ' || array_to_string(ops, ', ');
  END IF;
  IF request IS NULL OR jsonb_typeof(request) <> 'object' THEN
    RAISE EXCEPTION 'the request of % must be a JSON object', op USING ERRCODE = '22023';
  END IF;

  IF op = ANY (table_ops) THEN
    IF jsonb_typeof(request -> 'TableName') IS DISTINCT FROM 'string' THEN
      RAISE EXCEPTION '% needs TableName, a string', op USING ERRCODE = '22023';
    END IF;
    name := request ->> 'TableName';
    IF octet_length(name) NOT BETWEEN 1 AND 255 THEN
      RAISE EXCEPTION 'TableName must be 1 to 255 bytes' USING ERRCODE = '22023';
    END IF;
    IF tbl IS NULL OR NOT EXISTS (SELECT FROM singletable.tables t WHERE t.table_name = tbl) THEN
      RAISE EXCEPTION 'Requested resource not found: Table: % not found', name USING ERRCODE = '42P01';
    END IF;
    IF NOT has_table_privilege(tbl, 'SELECT') THEN
      RAISE EXCEPTION 'permission denied for table %', name USING ERRCODE = '42501';
    END IF;
    tname := tbl::text;
  END IF;

  IF op = 'ListEntities' THEN
    -- the registry: each entity's templates and the literal prefixes before its first field
    SELECT coalesce(jsonb_agg(jsonb_build_object(
             'Entity', en.entity, 'PkTemplate', en.pk_template, 'SkTemplate', en.sk_template,
             'PkPrefix', split_part(en.pk_template, '{', 1),
             'SkPrefix', CASE WHEN en.sk_template IS NOT NULL THEN split_part(en.sk_template, '{', 1) END,
             'Indexes', en.index_templates, 'Attributes', en.attributes) ORDER BY en.entity), '[]')
      INTO out FROM singletable.entities en WHERE en.table_name = tbl;
    RETURN jsonb_build_object('TableName', name, 'Entities', out);

  ELSIF op = 'DecodeKeys' THEN
    -- Keys: [[pk, sk], ...] (sk null for a table without one), at most 1000;
    -- IndexName: decode with the entities' templates of that index's keys
    IF jsonb_typeof(request -> 'Keys') IS DISTINCT FROM 'array' THEN
      RAISE EXCEPTION 'DecodeKeys needs Keys, an array of [partition key, sort key] pairs' USING ERRCODE = '22023';
    END IF;
    IF jsonb_array_length(request -> 'Keys') > 1000 THEN
      RAISE EXCEPTION 'DecodeKeys takes at most 1000 keys' USING ERRCODE = '22023';
    END IF;
    IF request ? 'IndexName' THEN
      IF jsonb_typeof(request -> 'IndexName') <> 'string' THEN
        RAISE EXCEPTION 'IndexName must be a string' USING ERRCODE = '22023';
      END IF;
      idx := request ->> 'IndexName';
      IF NOT EXISTS (SELECT FROM singletable.indexes i WHERE i.table_name = tbl AND i.index_name = idx) THEN
        RAISE EXCEPTION 'Requested resource not found: Index: % not found', idx USING ERRCODE = '42P01';
      END IF;
    END IF;
    out := '[]';
    FOR k IN SELECT value FROM jsonb_array_elements(request -> 'Keys') LOOP
      IF jsonb_typeof(k) <> 'array' OR jsonb_array_length(k) NOT IN (1, 2)
         OR jsonb_typeof(k -> 0) <> 'string'
         OR (jsonb_array_length(k) = 2 AND jsonb_typeof(k -> 1) NOT IN ('string', 'null')) THEN
        RAISE EXCEPTION 'each key of DecodeKeys must be [partition key, sort key], strings' USING ERRCODE = '22023';
      END IF;
      fields := NULL;
      FOR e IN SELECT en.entity, en.pk_template, en.sk_template, en.index_templates
                 FROM singletable.entities en WHERE en.table_name = tbl ORDER BY en.entity LOOP
        IF idx IS NULL THEN
          tpl_pk := e.pk_template;
          tpl_sk := e.sk_template;
        ELSE
          -- index templates are keyed by the index's name, in any case
          SELECT t.value ->> 'pk', t.value ->> 'sk' INTO tpl_pk, tpl_sk
            FROM jsonb_each(e.index_templates) t WHERE lower(t.key) = lower(idx) LIMIT 1;
          CONTINUE WHEN tpl_pk IS NULL;
        END IF;
        CONTINUE WHEN NOT singletable.key_matches(k ->> 0, tpl_pk);
        CONTINUE WHEN (tpl_sk IS NULL) <> (k ->> 1 IS NULL);
        CONTINUE WHEN tpl_sk IS NOT NULL AND NOT singletable.key_matches(k ->> 1, tpl_sk);
        -- each field of both templates, read with the function of its type
        SELECT coalesce(jsonb_object_agg(x.field, CASE
                 WHEN x.type LIKE 'int%' THEN to_jsonb(singletable.key_field_int(x.key, x.tpl, x.field))
                 WHEN x.type = 'date' THEN to_jsonb(singletable.key_field_date(x.key, x.tpl, x.field))
                 WHEN x.type = 'timestamp' THEN to_jsonb(singletable.key_field_timestamp(x.key, x.tpl, x.field))
                 WHEN x.type = 'uuid' THEN to_jsonb(singletable.key_field_uuid(x.key, x.tpl, x.field))
                 ELSE to_jsonb(singletable.key_field_text(x.key, x.tpl, x.field)) END), '{}')
          INTO fields
          FROM (SELECT kt.key, kt.tpl, m[1] AS field, coalesce(substr(m[2], 2), '') AS type
                  FROM (VALUES (k ->> 0, tpl_pk), (k ->> 1, tpl_sk)) kt(key, tpl),
                       regexp_matches(kt.tpl, '\{([^}:]+)(:[^}]*)?\}', 'g') m
                 WHERE kt.tpl IS NOT NULL) x;
        out := out || jsonb_build_array(jsonb_build_object('Entity', e.entity, 'Fields', fields));
        EXIT;
      END LOOP;
      IF fields IS NULL THEN
        out := out || jsonb_build_array(jsonb_build_object('Entity', NULL, 'Fields', '{}'::jsonb));
      END IF;
    END LOOP;
    RETURN jsonb_build_object('Keys', out);

  ELSIF op = 'Partitions' THEN
    -- the table's item collections in key order, a page at a time (ExclusiveStartPartition,
    -- LastEvaluatedPartition), each with its items and DynamoDB bytes, counted up to 1000
    -- items (ItemsCapped): a skip scan of the primary key, one index probe per partition
    lim := 25;
    IF request ? 'Limit' THEN
      IF jsonb_typeof(request -> 'Limit') <> 'number' OR (request ->> 'Limit') !~ '^[0-9]+$'
         OR (request ->> 'Limit')::numeric NOT BETWEEN 1 AND 100 THEN
        RAISE EXCEPTION 'Limit must be an integer from 1 to 100' USING ERRCODE = '22023';
      END IF;
      lim := (request ->> 'Limit')::int;
    END IF;
    IF request ? 'ExclusiveStartPartition' THEN
      IF jsonb_typeof(request -> 'ExclusiveStartPartition') <> 'string' THEN
        RAISE EXCEPTION 'ExclusiveStartPartition must be a string' USING ERRCODE = '22023';
      END IF;
      start := request ->> 'ExclusiveStartPartition';
    END IF;
    EXECUTE format($q$
      WITH RECURSIVE p(pk) AS (
        (SELECT t.pk FROM %1$s t WHERE $1 IS NULL OR t.pk > $1 ORDER BY t.pk LIMIT 1)
        UNION ALL
        SELECT (SELECT t.pk FROM %1$s t WHERE t.pk > p.pk ORDER BY t.pk LIMIT 1) FROM p WHERE p.pk IS NOT NULL
      ), page AS (SELECT p.pk FROM p WHERE p.pk IS NOT NULL LIMIT $2 + 1),
      sized AS (
        SELECT page.pk, s.n, s.bytes, row_number() OVER (ORDER BY page.pk) AS rn FROM page,
          LATERAL (SELECT count(*) AS n, coalesce(sum(singletable.item_size(i.item)), 0) AS bytes
                     FROM (SELECT t.item FROM %1$s t WHERE t.pk = page.pk LIMIT $3 + 1) i) s
        WHERE page.pk <= (SELECT max(x.pk) FROM (SELECT page.pk FROM page ORDER BY page.pk LIMIT $2) x))
      SELECT jsonb_build_object(
        'Partitions', coalesce(jsonb_agg(jsonb_build_object('Pk', sized.pk, 'Items', least(sized.n, $3),
                         'ItemsCapped', sized.n > $3, 'Bytes', sized.bytes) ORDER BY sized.pk), '[]'),
        'More', (SELECT count(*) FROM page) > $2)
      FROM sized$q$, tname)
      INTO out USING start, lim, cap;
    IF (out ->> 'More')::boolean THEN
      out := out || jsonb_build_object('LastEvaluatedPartition', out -> 'Partitions' -> (jsonb_array_length(out -> 'Partitions') - 1) -> 'Pk');
    END IF;
    RETURN out - 'More';

  ELSIF op = 'Inventory' THEN
    lim := 10;
    IF request ? 'Top' THEN
      IF jsonb_typeof(request -> 'Top') <> 'number' OR (request ->> 'Top') !~ '^[0-9]+$'
         OR (request ->> 'Top')::numeric NOT BETWEEN 1 AND 100 THEN
        RAISE EXCEPTION 'Top must be an integer from 1 to 100' USING ERRCODE = '22023';
      END IF;
      lim := (request ->> 'Top')::int;
    END IF;
    SELECT jsonb_build_object(
      'Entities', (SELECT coalesce(jsonb_agg(to_jsonb(p)), '[]') FROM singletable.key_prefixes(tname) p),
      'Collections', (SELECT coalesce(jsonb_agg(to_jsonb(c) ORDER BY c.rank_by, c.rank), '[]')
                        FROM singletable.collections(tname, top => lim) c))
      INTO out;
    RETURN out;

  ELSIF op = 'HotKeys' THEN
    SELECT jsonb_build_object('HotKeys', coalesce(jsonb_agg(to_jsonb(h)), '[]'))
      INTO out FROM singletable.hot_keys(tname) h;
    RETURN out;

  ELSIF op = 'ItemSize' THEN
    IF jsonb_typeof(request -> 'Item') IS DISTINCT FROM 'object' THEN
      RAISE EXCEPTION 'ItemSize needs Item, an object of AttributeValues' USING ERRCODE = '22023';
    END IF;
    SELECT jsonb_build_object('Size', singletable.item_size(request -> 'Item'),
             'Attributes', coalesce(jsonb_agg(to_jsonb(b)), '[]'))
      INTO out FROM singletable.item_size_breakdown(request -> 'Item') b;
    RETURN out;

  ELSIF op IN ('EstimateCost', 'ExportCode') THEN
    IF jsonb_typeof(request -> 'Request') IS DISTINCT FROM 'object' THEN
      RAISE EXCEPTION '% needs Request, a DynamoDB request object', op USING ERRCODE = '22023';
    END IF;
    IF request ? 'Operation' AND jsonb_typeof(request -> 'Operation') <> 'string' THEN
      RAISE EXCEPTION 'Operation must be a string' USING ERRCODE = '22023';
    END IF;
    IF op = 'EstimateCost' AND request ? 'CallsPerMonth' AND (jsonb_typeof(request -> 'CallsPerMonth') <> 'number'
                                                             OR (request ->> 'CallsPerMonth')::float8 < 0) THEN
      RAISE EXCEPTION 'CallsPerMonth must be a number, 0 or more' USING ERRCODE = '22023';
    END IF;
    IF op = 'ExportCode' AND jsonb_typeof(request -> 'Language') IS DISTINCT FROM 'string' THEN
      RAISE EXCEPTION 'ExportCode needs Language: javascript, python or sql' USING ERRCODE = '22023';
    END IF;
    req := request -> 'Request';
    calls := coalesce((request ->> 'CallsPerMonth')::float8, 1000000);
    operation := request ->> 'Operation';
    lang := request ->> 'Language';
    -- estimate_cost and export_code take TableName as DynamoDB does, resolved with the
    -- search_path: the caller's, for this one call (of qualified names and variables only),
    -- then this function's again
    PERFORM pg_catalog.set_config('search_path', caller_search_path, true);
    IF op = 'EstimateCost' THEN
      SELECT pg_catalog.to_jsonb(c) INTO out
        FROM singletable.estimate_cost(name, req, calls_per_month => calls, operation => operation) c;
    ELSE
      code := singletable.export_code(name, req, lang, operation);
    END IF;
    PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
    IF op = 'EstimateCost' THEN
      RETURN out;
    END IF;
    RETURN jsonb_build_object('Code', code);

  ELSE  -- Design
    IF jsonb_typeof(request -> 'Entities') IS DISTINCT FROM 'array'
       OR jsonb_typeof(request -> 'AccessPatterns') IS DISTINCT FROM 'array' THEN
      RAISE EXCEPTION 'Design needs Entities and AccessPatterns, arrays' USING ERRCODE = '22023';
    END IF;
    IF request ? 'TableName' AND jsonb_typeof(request -> 'TableName') <> 'string' THEN
      RAISE EXCEPTION 'TableName must be a string' USING ERRCODE = '22023';
    END IF;
    -- a proposal only: the viewer never applies it
    RETURN singletable.design(request -> 'Entities', request -> 'AccessPatterns',
                              coalesce(request ->> 'TableName', 'app'), apply => false);
  END IF;
END;
$viewer$;
COMMENT ON FUNCTION singletable._viewer_api(pg_catalog.text, pg_catalog.jsonb, pg_catalog.regclass, pg_catalog.text) IS
  'Internal to singletable.viewer_api: the operation on the table resolved by it, with the caller''s search_path for the functions that resolve TableName as DynamoDB does';

------------------------------------------------------------------------------
-- Citus: the registries of distributed tables on every node
------------------------------------------------------------------------------
-- On a Citus coordinator, the registry rows of each distributed item table (tables,
-- indexes, ttl, entities, dynamodb_tables) are kept here as one jsonb per table, keyed by
-- the table's qualified name (its OID differs from node to node). The first distribution
-- makes this table a Citus reference table: Citus writes it on every node within the
-- coordinator's transaction (two-phase commit), and the trigger on each node's copy
-- (cluster_registry_apply) writes the rows into that node's own registries, for the node's
-- shell of the table. So every node resolves, caches and serves a distributed table as the
-- coordinator does, without asking it. Empty where Citus is not installed.
CREATE TABLE singletable.cluster_registry (
    table_schema        pg_catalog.text NOT NULL,
    table_name          pg_catalog.text NOT NULL,
    registry            pg_catalog.jsonb NOT NULL,
    PRIMARY KEY (table_schema, table_name)
);
COMMENT ON TABLE singletable.cluster_registry IS
  'On a Citus cluster: the registry rows (tables, indexes, ttl, entities, dynamodb_tables) of each distributed item table, by schema and name, as one jsonb; a reference table whose trigger copies them into every node''s own registries';
REVOKE ALL ON singletable.cluster_registry FROM PUBLIC;
GRANT SELECT ON singletable.cluster_registry TO PUBLIC;

-- The Citus group of this node (0: the coordinator), or NULL without Citus.
CREATE FUNCTION singletable.citus_group()
RETURNS pg_catalog.int4
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_local_group') IS NULL THEN
        RETURN NULL;
    END IF;
    RETURN (SELECT groupid FROM pg_catalog.pg_dist_local_group);
END;
$$;
COMMENT ON FUNCTION singletable.citus_group() IS
  'The Citus group id of this node (0 on the coordinator), NULL where Citus is not installed';

-- The registry rows of a table as one jsonb, each row without its table_name.
CREATE FUNCTION singletable.cluster_registry_rows(t pg_catalog.regclass)
RETURNS pg_catalog.jsonb
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
SELECT pg_catalog.jsonb_build_object(
    'tables', (SELECT pg_catalog.to_jsonb(r) OPERATOR(pg_catalog.-) 'table_name'
                 FROM singletable.tables r WHERE r.table_name OPERATOR(pg_catalog.=) t),
    'indexes', (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(r) OPERATOR(pg_catalog.-) 'table_name'
                                                                ORDER BY r.index_name), '[]')
                  FROM singletable.indexes r WHERE r.table_name OPERATOR(pg_catalog.=) t),
    'ttl', (SELECT pg_catalog.to_jsonb(r) OPERATOR(pg_catalog.-) 'table_name'
              FROM singletable.ttl r WHERE r.table_name OPERATOR(pg_catalog.=) t),
    'entities', (SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(r) OPERATOR(pg_catalog.-) 'table_name'
                                                                 ORDER BY r.entity), '[]')
                   FROM singletable.entities r WHERE r.table_name OPERATOR(pg_catalog.=) t),
    'dynamodb_tables', (SELECT pg_catalog.to_jsonb(r) OPERATOR(pg_catalog.-) 'table_name'
                          FROM singletable.dynamodb_tables r WHERE r.table_name OPERATOR(pg_catalog.=) t))
$$;
COMMENT ON FUNCTION singletable.cluster_registry_rows(pg_catalog.regclass) IS
  'Internal: the registry rows of a table (tables, indexes, ttl, entities, dynamodb_tables) as one jsonb, as singletable.cluster_registry holds them';

-- SECURITY DEFINER: it writes singletable.cluster_registry, owned by the extension's owner,
-- and may make it a reference table; it only copies the registry rows (readable by PUBLIC)
-- of a table whose owner the caller is (or that the registry's triggers name).
CREATE FUNCTION singletable.cluster_registry_sync(t pg_catalog.regclass DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nsp pg_catalog.text;
    rel pg_catalog.text;
    one pg_catalog.regclass;
BEGIN
    IF singletable.citus_group() IS DISTINCT FROM 0 THEN
        RETURN;  -- no Citus, or a worker: the coordinator's registries are the source
    END IF;
    IF t IS NULL THEN
        -- every distributed item table, written again to every node: a node added by
        -- citus_add_node has no copy of this reference table until Citus replicates it
        -- (then with its trigger, but filled before the trigger fires)
        IF EXISTS (SELECT FROM pg_catalog.pg_dist_partition p
                    WHERE p.logicalrelid OPERATOR(pg_catalog.=) 'singletable.cluster_registry'::pg_catalog.regclass) THEN
            EXECUTE 'SELECT pg_catalog.replicate_reference_tables(''block_writes'')';
        END IF;
        FOR one IN SELECT r.table_name FROM singletable.tables r
                     JOIN pg_catalog.pg_dist_partition p ON p.logicalrelid OPERATOR(pg_catalog.=) r.table_name::pg_catalog.oid
                    ORDER BY r.table_name::pg_catalog.oid LOOP
            PERFORM singletable.cluster_registry_sync(one);
        END LOOP;
        RETURN;
    END IF;
    SELECT n.nspname, c.relname INTO nsp, rel
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
     WHERE c.oid OPERATOR(pg_catalog.=) t::pg_catalog.oid;
    IF NOT FOUND THEN
        RETURN;  -- dropped: on_sql_drop removes its row
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_dist_partition p
                    WHERE p.logicalrelid OPERATOR(pg_catalog.=) t::pg_catalog.oid) THEN
        RETURN;  -- not a Citus table: nothing for the other nodes
    END IF;
    -- the first distributed table makes this registry a reference table (its trigger goes
    -- to every node's copy with it, which Citus allows with enable_unsafe_triggers)
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_dist_partition p
                    WHERE p.logicalrelid OPERATOR(pg_catalog.=) 'singletable.cluster_registry'::pg_catalog.regclass) THEN
        PERFORM pg_catalog.set_config('citus.enable_unsafe_triggers', 'on', true);
        EXECUTE 'SELECT pg_catalog.create_reference_table(''singletable.cluster_registry'')';
        PERFORM pg_catalog.set_config('citus.enable_unsafe_triggers', 'off', true);
    END IF;
    -- and the ClientRequestTokens of transact_write are distributed by token, so that a
    -- token used through one node is found through every other (src/ops/tokens.c)
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_dist_partition p
                    WHERE p.logicalrelid OPERATOR(pg_catalog.=) 'singletable.client_request_tokens'::pg_catalog.regclass) THEN
        EXECUTE 'SELECT pg_catalog.create_distributed_table(''singletable.client_request_tokens'', ''token'', colocate_with => ''none'')';
    END IF;
    IF NOT EXISTS (SELECT FROM singletable.tables r WHERE r.table_name OPERATOR(pg_catalog.=) t) THEN
        DELETE FROM singletable.cluster_registry r
         WHERE r.table_schema OPERATOR(pg_catalog.=) nsp AND r.table_name OPERATOR(pg_catalog.=) rel;
        RETURN;
    END IF;
    INSERT INTO singletable.cluster_registry (table_schema, table_name, registry)
    VALUES (nsp, rel, singletable.cluster_registry_rows(t))
    ON CONFLICT (table_schema, table_name) DO UPDATE SET registry = EXCLUDED.registry;
END;
$$;
COMMENT ON FUNCTION singletable.cluster_registry_sync(pg_catalog.regclass) IS
  'On a Citus coordinator: copies the registry rows of a distributed item table (without an argument: of every one) into singletable.cluster_registry (a reference table), from where every node''s own registries get them; distribute_table and every registry change call it; call it after distributing a table with Citus''s create_distributed_table, and without an argument after citus_add_node';
REVOKE ALL ON FUNCTION singletable.cluster_registry_sync(pg_catalog.regclass) FROM PUBLIC;

-- Trigger on the registries: a change of a distributed table's rows goes to every node
-- (on the coordinator), and is refused on a worker unless it comes from the coordinator.
CREATE FUNCTION singletable.cluster_registry_changed()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t pg_catalog.regclass;
    grp pg_catalog.int4 := singletable.citus_group();
BEGIN
    IF grp IS NULL THEN
        RETURN NULL;
    END IF;
    IF TG_OP OPERATOR(pg_catalog.=) 'DELETE' THEN t := OLD.table_name; ELSE t := NEW.table_name; END IF;
    -- a dropped table (on_sql_drop) or one Citus does not know: nothing to do
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_dist_partition p JOIN pg_catalog.pg_class c
                          ON c.oid OPERATOR(pg_catalog.=) p.logicalrelid
                    WHERE p.logicalrelid OPERATOR(pg_catalog.=) t::pg_catalog.oid) THEN
        RETURN NULL;
    END IF;
    IF grp OPERATOR(pg_catalog.=) 0 THEN
        PERFORM singletable.cluster_registry_sync(t);
    ELSIF pg_catalog.pg_trigger_depth() OPERATOR(pg_catalog.=) 1 THEN
        -- a write from the coordinator comes through cluster_registry_apply, a trigger itself
        RAISE EXCEPTION 'DDL of distributed table "%" runs on the Citus coordinator, not on a worker node', t
              USING ERRCODE = 'feature_not_supported',
                    DETAIL = 'The singletable registry rows of a distributed table are the coordinator''s; every node gets them from there.',
                    HINT = 'Run create_gsi, drop_gsi, enable_ttl, define_entity and the other DDL of distributed tables on the coordinator.';
    END IF;
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION singletable.cluster_registry_changed() IS
  'Trigger on the registries: on a Citus coordinator, a distributed table''s changed rows go to singletable.cluster_registry; on a worker, changes of a distributed table''s rows are refused (they come from the coordinator)';
CREATE TRIGGER cluster_registry_changed AFTER INSERT OR UPDATE OR DELETE ON singletable.tables
    FOR EACH ROW EXECUTE FUNCTION singletable.cluster_registry_changed();
CREATE TRIGGER cluster_registry_changed AFTER INSERT OR UPDATE OR DELETE ON singletable.indexes
    FOR EACH ROW EXECUTE FUNCTION singletable.cluster_registry_changed();
CREATE TRIGGER cluster_registry_changed AFTER INSERT OR UPDATE OR DELETE ON singletable.ttl
    FOR EACH ROW EXECUTE FUNCTION singletable.cluster_registry_changed();
CREATE TRIGGER cluster_registry_changed AFTER INSERT OR UPDATE OR DELETE ON singletable.entities
    FOR EACH ROW EXECUTE FUNCTION singletable.cluster_registry_changed();
CREATE TRIGGER cluster_registry_changed AFTER INSERT OR UPDATE OR DELETE ON singletable.dynamodb_tables
    FOR EACH ROW EXECUTE FUNCTION singletable.cluster_registry_changed();

-- Removes a table's rows from this node's registries (cluster_registry_apply).
CREATE FUNCTION singletable.cluster_registry_forget(t pg_catalog.regclass)
RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $$
DELETE FROM singletable.dynamodb_tables x WHERE x.table_name OPERATOR(pg_catalog.=) t;
DELETE FROM singletable.entities x WHERE x.table_name OPERATOR(pg_catalog.=) t;
DELETE FROM singletable.ttl x WHERE x.table_name OPERATOR(pg_catalog.=) t;
DELETE FROM singletable.indexes x WHERE x.table_name OPERATOR(pg_catalog.=) t;
DELETE FROM singletable.tables x WHERE x.table_name OPERATOR(pg_catalog.=) t;
$$;
COMMENT ON FUNCTION singletable.cluster_registry_forget(pg_catalog.regclass) IS
  'Internal to singletable.cluster_registry_apply: removes a table''s rows from this node''s registries';
REVOKE ALL ON FUNCTION singletable.cluster_registry_forget(pg_catalog.regclass) FROM PUBLIC;

-- Trigger on every node's copy of singletable.cluster_registry: writes a distributed table's
-- rows into this node's registries, for this node's shell of the table (resolved by name).
-- SECURITY DEFINER: the registries are written by their owner only; Citus runs the write
-- of the reference table as the role of the coordinator's session, and the rows come from
-- the coordinator's registries.
CREATE FUNCTION singletable.cluster_registry_apply()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t pg_catalog.regclass;
    r pg_catalog.jsonb;
    k pg_catalog.jsonb;
BEGIN
    IF singletable.citus_group() IS NOT DISTINCT FROM 0 THEN
        RETURN NULL;  -- the coordinator's registries are where the rows come from
    END IF;
    IF TG_OP OPERATOR(pg_catalog.=) 'DELETE'
       OR (TG_OP OPERATOR(pg_catalog.=) 'UPDATE' AND (OLD.table_schema, OLD.table_name) IS DISTINCT FROM (NEW.table_schema, NEW.table_name)) THEN
        t := pg_catalog.to_regclass(pg_catalog.quote_ident(OLD.table_schema) OPERATOR(pg_catalog.||) '.'
                                    OPERATOR(pg_catalog.||) pg_catalog.quote_ident(OLD.table_name));
        IF t IS NOT NULL THEN
            PERFORM singletable.cluster_registry_forget(t);
        END IF;
    END IF;
    IF TG_OP OPERATOR(pg_catalog.=) 'DELETE' THEN
        RETURN NULL;
    END IF;
    t := pg_catalog.to_regclass(pg_catalog.quote_ident(NEW.table_schema) OPERATOR(pg_catalog.||) '.'
                                OPERATOR(pg_catalog.||) pg_catalog.quote_ident(NEW.table_name));
    -- no shell here (a node without Citus's metadata): nothing to serve
    IF t IS NULL OR pg_catalog.jsonb_typeof(NEW.registry -> 'tables') IS DISTINCT FROM 'object' THEN
        RETURN NULL;
    END IF;
    -- the table's rows as the coordinator has them now, whatever this node had
    PERFORM singletable.cluster_registry_forget(t);
    k := pg_catalog.jsonb_build_object('table_name', t::pg_catalog.oid::pg_catalog.text);
    r := NEW.registry;
    INSERT INTO singletable.tables
    SELECT * FROM pg_catalog.jsonb_populate_record(NULL::singletable.tables, (r -> 'tables') OPERATOR(pg_catalog.||) k);
    INSERT INTO singletable.indexes
    SELECT x.* FROM pg_catalog.jsonb_array_elements(r -> 'indexes') e,
           pg_catalog.jsonb_populate_record(NULL::singletable.indexes, e.value OPERATOR(pg_catalog.||) k) x;
    IF pg_catalog.jsonb_typeof(r -> 'ttl') OPERATOR(pg_catalog.=) 'object' THEN
        INSERT INTO singletable.ttl
        SELECT * FROM pg_catalog.jsonb_populate_record(NULL::singletable.ttl, (r -> 'ttl') OPERATOR(pg_catalog.||) k);
    END IF;
    INSERT INTO singletable.entities
    SELECT x.* FROM pg_catalog.jsonb_array_elements(r -> 'entities') e,
           pg_catalog.jsonb_populate_record(NULL::singletable.entities, e.value OPERATOR(pg_catalog.||) k) x;
    IF pg_catalog.jsonb_typeof(r -> 'dynamodb_tables') OPERATOR(pg_catalog.=) 'object' THEN
        INSERT INTO singletable.dynamodb_tables
        SELECT * FROM pg_catalog.jsonb_populate_record(NULL::singletable.dynamodb_tables,
                                                       (r -> 'dynamodb_tables') OPERATOR(pg_catalog.||) k);
    END IF;
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION singletable.cluster_registry_apply() IS
  'Trigger on singletable.cluster_registry: on a Citus worker, writes a distributed table''s registry rows into the node''s own registries, for its shell of the table';
CREATE TRIGGER cluster_registry_apply AFTER INSERT OR UPDATE OR DELETE ON singletable.cluster_registry
    FOR EACH ROW EXECUTE FUNCTION singletable.cluster_registry_apply();

-- A dropped distributed table's row leaves the cluster registry (on the coordinator; each
-- worker's own registries lose its rows by on_sql_drop when Citus drops its shell there).
-- SECURITY DEFINER for the reason given at singletable.on_sql_drop.
CREATE FUNCTION singletable.on_cluster_registry_sql_drop()
RETURNS event_trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nsps pg_catalog.text[];
    rels pg_catalog.text[];
BEGIN
    IF singletable.citus_group() IS DISTINCT FROM 0 THEN
        RETURN;
    END IF;
    -- the names first: Citus sends the DELETE of a reference table to every node, where
    -- pg_event_trigger_dropped_objects() cannot be called
    SELECT pg_catalog.array_agg(d.schema_name), pg_catalog.array_agg(d.object_name) INTO nsps, rels
      FROM pg_catalog.pg_event_trigger_dropped_objects() d
     WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
       AND d.objsubid OPERATOR(pg_catalog.=) 0
       AND d.object_type OPERATOR(pg_catalog.=) 'table'
       AND NOT d.is_temporary;
    -- only a table the cluster registry holds: dropping any other costs no write on every node
    IF nsps IS NULL OR NOT EXISTS (SELECT FROM singletable.cluster_registry r, unnest(nsps, rels) x(nsp, rel)
                                    WHERE r.table_schema OPERATOR(pg_catalog.=) x.nsp
                                      AND r.table_name OPERATOR(pg_catalog.=) x.rel) THEN
        RETURN;
    END IF;
    DELETE FROM singletable.cluster_registry r
     USING unnest(nsps, rels) x(nsp, rel)
     WHERE r.table_schema OPERATOR(pg_catalog.=) x.nsp AND r.table_name OPERATOR(pg_catalog.=) x.rel;
END;
$$;
COMMENT ON FUNCTION singletable.on_cluster_registry_sql_drop() IS
  'Event trigger: on a Citus coordinator, removes the singletable.cluster_registry rows of dropped tables';
CREATE EVENT TRIGGER singletable_cluster_registry_sql_drop ON sql_drop
    EXECUTE FUNCTION singletable.on_cluster_registry_sql_drop();
