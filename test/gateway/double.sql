-- test/gateway/double.sql: the database side of test/gateway/run.sh.
--
-- TEST DOUBLE. gateway_double.dynamodb(text, jsonb) stands in for the extension's
-- singletable.dynamodb(operation, request): it answers a few operations and raises
-- errors with the error contract's SQLSTATEs and DETAIL bodies (README "SQLSTATEs and
-- the error contract"), so that the gateway's HTTP, SigV4, pool and error mapping are
-- tested on their own; gateway_double.dynamodb_as(role, operation, request), the
-- gateway's call, wraps it as the extension's singletable.dynamodb_as wraps
-- singletable.dynamodb. The gateway runs with --schema gateway_double; nothing here is
-- part of the extension.

-- the gateway's login role, the roles of its access keys, one role it may not assume
CREATE ROLE gw_login LOGIN;
CREATE ROLE gw_alice;
CREATE ROLE gw_bob;
CREATE ROLE gw_stranger;
CREATE ROLE gw_tenant2;
GRANT gw_alice, gw_bob, gw_tenant2 TO gw_login;
-- a login role that may not execute dynamodb_as (the gateway refuses to start with it)
CREATE ROLE gw_noexec LOGIN;

CREATE SCHEMA gateway_double;
GRANT USAGE ON SCHEMA gateway_double TO PUBLIC;

CREATE TABLE gateway_double.items (
    tbl  text NOT NULL,
    pk   text NOT NULL,
    item jsonb NOT NULL,
    PRIMARY KEY (tbl, pk)
);
-- alice may read and write; bob and the login user may not
GRANT SELECT, INSERT, UPDATE, DELETE ON gateway_double.items TO gw_alice;
-- tenant2 may too, but row-level security limits it to the keys starting with "t2#"
-- (IAM's dynamodb:LeadingKeys)
GRANT SELECT, INSERT, UPDATE, DELETE ON gateway_double.items TO gw_tenant2;
ALTER TABLE gateway_double.items ENABLE ROW LEVEL SECURITY;
CREATE POLICY everything ON gateway_double.items TO gw_alice USING (true);
CREATE POLICY own_keys ON gateway_double.items TO gw_tenant2
    USING (pg_catalog.starts_with(pk, 't2#'));

CREATE FUNCTION gateway_double.dynamodb(operation text, request jsonb)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    found_item jsonb;
BEGIN
    -- "_sleep": seconds to wait first (pool, drain and kill tests)
    IF request ? '_sleep' THEN
        PERFORM pg_catalog.pg_sleep((request->>'_sleep')::float8);
    END IF;
    -- "_warn": a WARNING the call raises (x-singletable-warning of pipelined calls)
    IF request ? '_warn' THEN
        RAISE WARNING '%', request->>'_warn';
    END IF;

    CASE operation
    WHEN 'DescribeLimits' THEN
        -- "_whoami": who runs the call, on which backend
        IF request ? '_whoami' THEN
            RETURN jsonb_build_object('user', current_user::text, 'pid', pg_catalog.pg_backend_pid());
        END IF;
        RETURN '{"AccountMaxReadCapacityUnits": 80000, "AccountMaxWriteCapacityUnits": 80000,
                 "TableMaxReadCapacityUnits": 40000, "TableMaxWriteCapacityUnits": 40000}';
    WHEN 'PutItem' THEN
        -- PostgreSQL's own permission error (42501 without a JSON DETAIL) for a role without INSERT
        IF request ? 'ConditionExpression' AND EXISTS (
                SELECT FROM gateway_double.items
                WHERE tbl = request->>'TableName' AND pk = request->'Item'->>'pk') THEN
            RAISE EXCEPTION 'conditional check failed for table "%"', request->>'TableName'
                USING ERRCODE = '23S01',
                      DETAIL = '{"__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", "message": "The conditional request failed"}';
        END IF;
        INSERT INTO gateway_double.items
        VALUES (request->>'TableName', request->'Item'->>'pk', request->'Item')
        ON CONFLICT (tbl, pk) DO UPDATE SET item = EXCLUDED.item;
        RETURN '{}';
    WHEN 'GetItem' THEN
        SELECT item INTO found_item FROM gateway_double.items
        WHERE tbl = request->>'TableName' AND pk = request->'Key'->>'pk';
        RETURN CASE WHEN found_item IS NULL THEN '{}'::jsonb
                    ELSE jsonb_build_object('Item', found_item) END;
    WHEN 'DeleteItem' THEN
        -- the extension's own rights check: 42501 with DynamoDB's body in DETAIL
        IF NOT pg_catalog.has_table_privilege('gateway_double.items', 'DELETE') THEN
            RAISE EXCEPTION 'permission denied to delete from table "%"', request->>'TableName'
                USING ERRCODE = '42501',
                      DETAIL = '{"__type": "com.amazon.coral.service#AccessDeniedException", "message": "User is not authorized to perform: dynamodb:DeleteItem"}';
        END IF;
        DELETE FROM gateway_double.items
        WHERE tbl = request->>'TableName' AND pk = request->'Key'->>'pk';
        RETURN '{}';
    WHEN 'TransactWriteItems' THEN
        RAISE EXCEPTION 'transaction canceled'
            USING ERRCODE = '23S02',
                  DETAIL = '{"__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException", "message": "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]", "CancellationReasons": [{"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}, {"Code": "None"}]}';
    WHEN 'Scan' THEN
        -- "_raise": errors of the other kinds (also as ExclusiveStartKey._raise.S, for an SDK)
        CASE coalesce(request->>'_raise', request->'ExclusiveStartKey'->'_raise'->>'S')
        WHEN 'throttle' THEN
            RAISE EXCEPTION 'lock timeout' USING ERRCODE = '55P03';
        WHEN 'internal' THEN
            RAISE EXCEPTION 'something broke inside' USING ERRCODE = 'XX000';
        WHEN 'serialization' THEN
            RAISE EXCEPTION 'wrong JSON type'
                USING ERRCODE = '22S02',
                      DETAIL = '{"__type": "com.amazon.coral.service#SerializationException", "message": "NUMBER_VALUE cannot be converted to String"}';
        WHEN 'validation' THEN
            RAISE EXCEPTION 'bad limit' USING ERRCODE = '22023';
        WHEN 'serialization_bare' THEN
            -- the contract's SQLSTATE without a DETAIL body: mapped by the gateway's table
            RAISE EXCEPTION 'wrong JSON type' USING ERRCODE = '22S02';
        ELSE
            RETURN '{"Items": [], "Count": 0, "ScannedCount": 0}';
        END CASE;
    ELSE
        RAISE EXCEPTION 'unknown operation "%"', operation
            USING ERRCODE = '42S01',
                  DETAIL = '{"__type": "com.amazon.coral.service#UnknownOperationException"}';
    END CASE;
END;
$$;
COMMENT ON FUNCTION gateway_double.dynamodb(text, jsonb) IS
    'TEST DOUBLE of singletable.dynamodb for test/gateway: a few operations and the error contract';

-- The gateway's call: dynamodb's response as text, run as role (NULL: the caller). The
-- extension switches role with SECURITY_LOCAL_USERID_CHANGE; the double, in PL/pgSQL, with
-- SET LOCAL ROLE, undone when the request's implicit transaction ends (each request has its
-- own sync point). The errors of a role the login user may not use: 42501 and
-- PostgreSQL's own SET ROLE message, which the gateway maps to AccessDeniedException.
CREATE FUNCTION gateway_double.dynamodb_as(role text, operation text, request text)
RETURNS text
LANGUAGE plpgsql
AS $$
BEGIN
    IF role IS NOT NULL THEN
        IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = role) THEN
            RAISE EXCEPTION 'role "%" does not exist', role USING ERRCODE = '42501';
        END IF;
        IF NOT pg_catalog.pg_has_role(session_user, role, 'MEMBER') THEN
            RAISE EXCEPTION 'permission denied to set role "%"', role USING ERRCODE = '42501';
        END IF;
        PERFORM pg_catalog.set_config('role', role, true);
    END IF;
    RETURN gateway_double.dynamodb(operation, request::jsonb)::text;
END;
$$;
COMMENT ON FUNCTION gateway_double.dynamodb_as(text, text, text) IS
    'TEST DOUBLE of singletable.dynamodb_as for test/gateway: the double''s dynamodb, as role';
-- as the extension's: not for PUBLIC, the gateway's login role may execute it
REVOKE ALL ON FUNCTION gateway_double.dynamodb_as(text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION gateway_double.dynamodb_as(text, text, text) TO gw_login;
