-- dynamodb_as: singletable.dynamodb_as(role, operation, request), the gateway's call.
-- The response is singletable.dynamodb's, as text; the call runs as role with a switch that
-- user code running during it (a trigger, a row-level security policy's function, an index
-- expression) cannot undo; the session user must be a member of role; PUBLIC may not execute it.
SET client_min_messages = warning;
CREATE ROLE st_as_gateway LOGIN;
CREATE ROLE st_as_tenant_a;
CREATE ROLE st_as_tenant_b;
CREATE ROLE st_as_other;
GRANT st_as_tenant_a, st_as_tenant_b TO st_as_gateway;
GRANT EXECUTE ON FUNCTION singletable.dynamodb_as(text, text, text) TO st_as_gateway;
CREATE SCHEMA st_as;
GRANT USAGE ON SCHEMA st_as TO PUBLIC;
GRANT CREATE ON SCHEMA st_as TO st_as_tenant_a, st_as_tenant_b;
SET singletable.dynamodb_schema = st_as;
-- each tenant's table, owned by the tenant; neither may touch the other's
SET ROLE st_as_tenant_a;
SELECT singletable.create_table('st_as.a_items');
SET ROLE st_as_tenant_b;
SELECT singletable.create_table('st_as.b_items');
RESET ROLE;

-- as the gateway's login role (its session user)
SET SESSION AUTHORIZATION st_as_gateway;
SELECT singletable.dynamodb_as('st_as_tenant_a', 'PutItem',
  '{"TableName": "a_items", "Item": {"pk": {"S": "A#1"}, "sk": {"S": "x"}, "n": {"N": "1"}}}');
-- the response is dynamodb's, as JSON text (GetItem, Query and Scan write it directly, compact: dynamodb_text)
SELECT singletable.dynamodb_as('st_as_tenant_a', 'GetItem',
  '{"TableName": "a_items", "Key": {"pk": {"S": "A#1"}, "sk": {"S": "x"}}}');
-- the grants of role decide: tenant a may not read b's table
SELECT singletable.dynamodb_as('st_as_tenant_a', 'GetItem',
  '{"TableName": "b_items", "Key": {"pk": {"S": "B#1"}, "sk": {"S": "x"}}}');
-- the call ran as role; the caller's user is back afterwards
SELECT current_user, session_user;
-- a role the session user is not a member of, a role that does not exist: 42501
SELECT singletable.dynamodb_as('st_as_other', 'GetItem',
  '{"TableName": "a_items", "Key": {"pk": {"S": "A#1"}, "sk": {"S": "x"}}}');
SELECT singletable.dynamodb_as('st_as_nobody', 'GetItem', '{}');
-- validation: operation, request
SELECT singletable.dynamodb_as('st_as_tenant_a', NULL, '{}');
SELECT singletable.dynamodb_as('st_as_tenant_a', 'NoSuchOperation', '{}');
SELECT singletable.dynamodb_as('st_as_tenant_a', 'GetItem', NULL);
SELECT singletable.dynamodb_as('st_as_tenant_a', 'GetItem', '{"TableName": ');
SELECT singletable.dynamodb_as('st_as_tenant_a', 'GetItem', '[1]');
-- after a failed call inside a subtransaction, the user is the caller's again
DO $$
BEGIN
  PERFORM singletable.dynamodb_as('st_as_tenant_a', 'GetItem',
    '{"TableName": "b_items", "Key": {"pk": {"S": "B#1"}, "sk": {"S": "x"}}}');
EXCEPTION WHEN insufficient_privilege THEN
  RAISE WARNING 'refused; current_user is %', current_user;
END $$;
RESET SESSION AUTHORIZATION;

-- PUBLIC may not execute it
SET ROLE st_as_other;
SELECT singletable.dynamodb_as(NULL, 'ListTables', '{}');
RESET ROLE;
-- NULL role: as the current user
SELECT singletable.dynamodb_as(NULL, 'ListTables', '{}')::jsonb -> 'TableNames';

-- The escapes. Tenant a's own code tries to become tenant b during a call.
SET ROLE st_as_tenant_a;
CREATE FUNCTION st_as.escape() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  RESET ROLE;
  SET ROLE st_as_tenant_b;
  INSERT INTO st_as.b_items (pk, sk, item) VALUES ('B#stolen', 'x', '{}');
  RETURN true;
END $$;
-- 1. a BEFORE INSERT trigger on tenant a's table
CREATE FUNCTION st_as.escape_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM st_as.escape();
  RETURN NEW;
END $$;
CREATE TRIGGER escape BEFORE INSERT ON st_as.a_items
  FOR EACH ROW WHEN (NEW.pk = 'A#trigger') EXECUTE FUNCTION st_as.escape_trigger();
RESET ROLE;
SET SESSION AUTHORIZATION st_as_gateway;
-- the old way, SET ROLE; dynamodb(); RESET ROLE, lets it escape: this is what the gateway must not do
SET ROLE st_as_tenant_a;
SELECT singletable.dynamodb('PutItem',
  '{"TableName": "a_items", "Item": {"pk": {"S": "A#trigger"}, "sk": {"S": "x"}}}');
SELECT current_user;
RESET ROLE;
SELECT count(*) AS stolen FROM st_as.b_items WHERE pk = 'B#stolen';
-- dynamodb_as: the trigger's RESET ROLE fails, the call fails, nothing is written
SELECT singletable.dynamodb_as('st_as_tenant_a', 'PutItem',
  '{"TableName": "a_items", "Item": {"pk": {"S": "A#trigger"}, "sk": {"S": "y"}}}');
SELECT current_user;
RESET SESSION AUTHORIZATION;
SELECT sk FROM st_as.a_items WHERE pk = 'A#trigger' ORDER BY sk;
DELETE FROM st_as.b_items WHERE pk = 'B#stolen';
-- 2. a row-level security policy's function, on a read
ALTER TABLE st_as.a_items OWNER TO st_as_tenant_a;
SET ROLE st_as_tenant_a;
CREATE FUNCTION st_as.policy_escape(pk text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF pk = 'A#policy' THEN
    PERFORM set_config('role', 'st_as_tenant_b', true);
  END IF;
  RETURN true;
END $$;
INSERT INTO st_as.a_items (pk, sk, item) VALUES ('A#policy', 'x', '{}');
ALTER TABLE st_as.a_items ENABLE ROW LEVEL SECURITY;
ALTER TABLE st_as.a_items FORCE ROW LEVEL SECURITY;
CREATE POLICY escape ON st_as.a_items USING (st_as.policy_escape(pk)) WITH CHECK (true);
RESET ROLE;
SET SESSION AUTHORIZATION st_as_gateway;
SELECT singletable.dynamodb_as('st_as_tenant_a', 'GetItem',
  '{"TableName": "a_items", "Key": {"pk": {"S": "A#policy"}, "sk": {"S": "x"}}}');
-- the policy admits the other rows
SELECT singletable.dynamodb_as('st_as_tenant_a', 'GetItem',
  '{"TableName": "a_items", "Key": {"pk": {"S": "A#1"}, "sk": {"S": "x"}}}');
RESET SESSION AUTHORIZATION;
ALTER TABLE st_as.a_items DISABLE ROW LEVEL SECURITY;
-- 3. an index expression, on a write
SET ROLE st_as_tenant_a;
CREATE FUNCTION st_as.index_escape(pk text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF pk = 'A#index' THEN
    PERFORM set_config('session_authorization', 'st_as_tenant_b', false);
  END IF;
  RETURN pk;
END $$;
CREATE INDEX a_items_escape ON st_as.a_items (st_as.index_escape(pk));
RESET ROLE;
SET SESSION AUTHORIZATION st_as_gateway;
SELECT singletable.dynamodb_as('st_as_tenant_a', 'PutItem',
  '{"TableName": "a_items", "Item": {"pk": {"S": "A#index"}, "sk": {"S": "x"}}}');
SELECT singletable.dynamodb_as('st_as_tenant_a', 'PutItem',
  '{"TableName": "a_items", "Item": {"pk": {"S": "A#2"}, "sk": {"S": "x"}}}');
RESET SESSION AUTHORIZATION;
SELECT pk FROM st_as.a_items ORDER BY pk;

RESET singletable.dynamodb_schema;
DROP SCHEMA st_as CASCADE;
REVOKE EXECUTE ON FUNCTION singletable.dynamodb_as(text, text, text) FROM st_as_gateway;
DROP ROLE st_as_gateway, st_as_tenant_a, st_as_tenant_b, st_as_other;
