#!/usr/bin/python3
"""test/gateway/test_partiql.py: the posting app's access patterns as PartiQL through
singletable-gateway with boto3's client — execute_statement (select by key, begins_with,
a GSI "posting_pql"."gsi1", insert-if-absent, a conditional update, delete, pages by
NextToken), batch_execute_statement and execute_transaction — against the extension's
real singletable.dynamodb. Each answer is checked against its exact items.

Run by test/gateway/run.sh after test_resource.py, with the same environment (GATEWAY,
PGHOST, PGPORT; CREATE EXTENSION singletable done). Starts its own gateway, creates the
table posting_pql and deletes it at the end. TAP-style lines as test_sdk.py."""

import os
import sys
import uuid

import boto3
import botocore.config
import botocore.exceptions
from boto3.dynamodb.types import TypeDeserializer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sdk_harness import SdkRun  # noqa: E402

TABLE = "posting_pql"
run = SdkRun("partiql", "AKIDPQL pql-secret -\n")
step = run.step
ddb = boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{run.port}", region_name="us-east-1",
                   aws_access_key_id="AKIDPQL", aws_secret_access_key="pql-secret",
                   config=botocore.config.Config(retries={"total_max_attempts": 1}))
des = TypeDeserializer()


def plain(items):
    return [{k: des.deserialize(v) for k, v in i.items()} for i in items]


def err(fn):
    try:
        fn()
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
    return None


def ex(stmt, params=None, **kw):
    if params is not None:
        kw["Parameters"] = params
    return ddb.execute_statement(Statement=stmt, **kw)


try:
    ddb.delete_table(TableName=TABLE)
except botocore.exceptions.ClientError:
    pass
ddb.create_table(
    TableName=TABLE, BillingMode="PAY_PER_REQUEST",
    AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "gsi1pk", "gsi1sk")],
    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    GlobalSecondaryIndexes=[{"IndexName": "gsi1", "Projection": {"ProjectionType": "ALL"},
                             "KeySchema": [{"AttributeName": "gsi1pk", "KeyType": "HASH"},
                                           {"AttributeName": "gsi1sk", "KeyType": "RANGE"}]}])
ddb.get_waiter("table_exists").wait(TableName=TABLE)

INSERT = f'INSERT INTO "{TABLE}" VALUE {{\'pk\': ?, \'sk\': ?, \'title\': ?, \'status\': ?}}'
S = lambda s: {"S": s}  # noqa: E731


def load():
    for sk, title, status in (("POST#p_0017", "Single-table on Postgres", "approved"),
                              ("POST#p_0018", "Key overloading", "draft"),
                              ("POST#p_0019", "begins_with is a range", "draft")):
        ex(INSERT, [S("USER#u_1001"), S(sk), S(title), S(status)])
    ex(f"INSERT INTO \"{TABLE}\" VALUE {{'pk': 'USER#u_1001', 'sk': 'PROFILE', 'name': 'Aiko', 'likes': 0}}")
    ex(f"UPDATE \"{TABLE}\" SET gsi1pk = 'STATUS#approved', gsi1sk = '2026-06-23' "
       "WHERE pk = 'USER#u_1001' AND sk = 'POST#p_0017'")
    return len(ex(f'SELECT sk FROM "{TABLE}" WHERE pk = ?', [S("USER#u_1001")])["Items"])


step("INSERT with parameters, UPDATE SET: 4 items", load, 4)
step("INSERT of an existing key: DuplicateItemException", lambda: err(lambda: ex(INSERT, [
    S("USER#u_1001"), S("POST#p_0017"), S("x"), S("draft")])),
    ("DuplicateItemException", "Duplicate primary key exists in table"))
step("SELECT by the full key (GetItem)", lambda: plain(ex(
    f"SELECT name FROM \"{TABLE}\" WHERE pk = 'USER#u_1001' AND sk = 'PROFILE'")["Items"]), [{"name": "Aiko"}])
step("SELECT begins_with on the sort key, ORDER BY DESC", lambda: [i["sk"] for i in plain(ex(
    f"SELECT sk FROM \"{TABLE}\" WHERE pk = 'USER#u_1001' AND begins_with(sk, 'POST#') ORDER BY sk DESC")["Items"])],
    ["POST#p_0019", "POST#p_0018", "POST#p_0017"])
step("SELECT on the GSI gsi1", lambda: plain(ex(
    f"SELECT sk, title FROM \"{TABLE}\".\"gsi1\" WHERE gsi1pk = ?", [S("STATUS#approved")])["Items"]),
    [{"sk": "POST#p_0017", "title": "Single-table on Postgres"}])


def pages():
    got, token = [], None
    while True:
        kw = {"Limit": 2}
        if token:
            kw["NextToken"] = token
        r = ex(f"SELECT sk FROM \"{TABLE}\" WHERE pk = 'USER#u_1001'", **kw)
        got.append(len(r["Items"]))
        token = r.get("NextToken")
        if not token:
            return got


step("Limit 2 and NextToken: the pages", pages, [2, 2, 0])
step("UPDATE with a condition (a draft is approved once)", lambda: plain(ex(
    f"UPDATE \"{TABLE}\" SET status = 'approved' WHERE pk = 'USER#u_1001' AND sk = 'POST#p_0018' "
    "AND status = 'draft' RETURNING ALL NEW *")["Items"])[0]["status"], "approved")
step("the same UPDATE again: ConditionalCheckFailedException", lambda: err(lambda: ex(
    f"UPDATE \"{TABLE}\" SET status = 'approved' WHERE pk = 'USER#u_1001' AND sk = 'POST#p_0018' "
    "AND status = 'draft'"))[0], "ConditionalCheckFailedException")
step("UPDATE without the full key: ValidationException", lambda: err(lambda: ex(
    f"UPDATE \"{TABLE}\" SET a = 1 WHERE pk = 'USER#u_1001'")),
    ("ValidationException", "Where clause does not contain a mandatory equality on all key attributes"))
step("DELETE a draft, RETURNING ALL OLD *", lambda: plain(ex(
    f"DELETE FROM \"{TABLE}\" WHERE pk = 'USER#u_1001' AND sk = 'POST#p_0019' AND status = 'draft' "
    "RETURNING ALL OLD *")["Items"])[0]["title"], "begins_with is a range")
step("a malformed statement: ValidationException", lambda: err(lambda: ex("SELEC * FROM x"))[0],
     "ValidationException")


def batch():
    r = ddb.batch_execute_statement(Statements=[
        {"Statement": f"SELECT name FROM \"{TABLE}\" WHERE pk = ? AND sk = ?",
         "Parameters": [S("USER#u_1001"), S("PROFILE")]},
        {"Statement": f"SELECT * FROM \"{TABLE}\" WHERE pk = 'USER#u_1001'"}])["Responses"]
    return plain([r[0]["Item"]]), r[1]["Error"]["Code"]


step("BatchExecuteStatement: a read, and a non-key SELECT's Error", batch, ([{"name": "Aiko"}], "ValidationError"))


def batch_writes():
    r = ddb.batch_execute_statement(Statements=[
        {"Statement": INSERT, "Parameters": [S("USER#u_1002"), S("POST#p_0101"), S("Launch"), S("draft")]},
        {"Statement": INSERT, "Parameters": [S("USER#u_1001"), S("PROFILE"), S("x"), S("x")]}])["Responses"]
    return "Error" in r[0], r[1]["Error"]["Code"]


step("BatchExecuteStatement: writes, one DuplicateItem", batch_writes, (False, "DuplicateItem"))


def transaction():
    # the same ClientRequestToken twice: applied once (a token lives 10 minutes, so one per run)
    for _ in range(2):
        write_transaction(TOKEN)
    r = ddb.execute_transaction(TransactStatements=[
        {"Statement": f"SELECT likes FROM \"{TABLE}\" WHERE pk = 'USER#u_1001' AND sk = 'PROFILE'"}])
    return plain([r["Responses"][0]["Item"]])


TOKEN = str(uuid.uuid4())


def write_transaction(token):
    ddb.execute_transaction(ClientRequestToken=token, TransactStatements=[
        {"Statement": f"UPDATE \"{TABLE}\" SET likes = likes + 1 WHERE pk = 'USER#u_1001' AND sk = 'PROFILE'"},
        {"Statement": f"EXISTS(SELECT * FROM \"{TABLE}\" WHERE pk = 'USER#u_1002' AND sk = 'POST#p_0101' AND status = 'draft')"},
        {"Statement": INSERT, "Parameters": [S("USER#u_1002"), S("POST#p_0102"), S("Two"), S("draft")]}])


step("ExecuteTransaction twice with one token: applied once; then a read transaction", transaction, [{"likes": 1}])


def cancelled():
    try:
        ddb.execute_transaction(TransactStatements=[
            {"Statement": f"UPDATE \"{TABLE}\" SET likes = likes + 1 WHERE pk = 'USER#u_1001' AND sk = 'PROFILE'"},
            {"Statement": f"EXISTS(SELECT * FROM \"{TABLE}\" WHERE pk = 'USER#u_1002' AND sk = 'nope' AND status = 'draft')"}])
    except botocore.exceptions.ClientError as e:
        return (e.response["Error"]["Code"], [r["Code"] for r in e.response["CancellationReasons"]],
                plain(ex(f"SELECT likes FROM \"{TABLE}\" WHERE pk = 'USER#u_1001' AND sk = 'PROFILE'")["Items"]))
    return None


step("ExecuteTransaction cancelled: nothing applied", cancelled,
     ("TransactionCanceledException", ["None", "ConditionalCheckFailed"], [{"likes": 1}]))



def duplicate_reason():
    try:
        ddb.execute_transaction(TransactStatements=[
            {"Statement": INSERT, "Parameters": [S("USER#u_1003"), S("POST#p_1"), S("x"), S("draft")]},
            {"Statement": INSERT, "Parameters": [S("USER#u_1001"), S("PROFILE"), S("x"), S("draft")]}])
    except botocore.exceptions.ClientError as e:
        return e.response["CancellationReasons"]
    return None


step("ExecuteTransaction: an INSERT of an existing key is the reason DuplicateItem", duplicate_reason,
     [{"Code": "None"}, {"Code": "DuplicateItem", "Message": "Duplicate primary key exists in table"}])

ddb.delete_table(TableName=TABLE)
run.finish()
