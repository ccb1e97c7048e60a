#!/usr/bin/python3
"""test/gateway/test_sdk.py: boto3 (client and resource API) through singletable-gateway
against the extension's real singletable.dynamodb — end to end, no test double. Run by
test/gateway/run.sh when the installed extension has that function (GATEWAY, PGHOST,
PGPORT set; the database has CREATE EXTENSION singletable and the role gw_sdk_reader
with SELECT on the tables of schema public). TAP-style lines as test_gateway.py."""

import os
import subprocess
import sys

import boto3
import botocore.config
import botocore.exceptions

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sdk_harness import SdkRun  # noqa: E402

run = SdkRun("sdk", "AKIDADMIN admin-secret -\nAKIDREADER reader-secret gw_sdk_reader\n")
port = run.port
step = run.step


def client(key, secret):
    return boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                        aws_access_key_id=key, aws_secret_access_key=secret,
                        config=botocore.config.Config(retries={"total_max_attempts": 1}))


def code(fn):
    try:
        fn()
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"]
    return None


ddb = client("AKIDADMIN", "admin-secret")
key = {"pk": {"S": "U#1"}, "sk": {"S": "P#1"}}
step("CreateTable", lambda: ddb.create_table(
    TableName="app", BillingMode="PAY_PER_REQUEST",
    AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                          {"AttributeName": "sk", "AttributeType": "S"}],
    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
               {"AttributeName": "sk", "KeyType": "RANGE"}])["TableDescription"]["TableName"], "app")
step("ListTables", lambda: ddb.list_tables()["TableNames"], ["app"])
step("PutItem", lambda: [ddb.put_item(TableName="app", Item={"pk": {"S": "U#1"}, "sk": {"S": f"P#{i}"},
                                                             "n": {"N": str(i)}})["ResponseMetadata"]["HTTPStatusCode"]
                         for i in range(3)], [200, 200, 200])
step("GetItem", lambda: ddb.get_item(TableName="app", Key=key)["Item"],
     {"pk": {"S": "U#1"}, "sk": {"S": "P#1"}, "n": {"N": "1"}})
step("Query, begins_with, descending", lambda: [i["sk"]["S"] for i in ddb.query(
    TableName="app", KeyConditionExpression="pk = :p AND begins_with(sk, :s)",
    ExpressionAttributeValues={":p": {"S": "U#1"}, ":s": {"S": "P#"}}, ScanIndexForward=False)["Items"]],
    ["P#2", "P#1", "P#0"])
step("UpdateItem ADD", lambda: ddb.update_item(
    TableName="app", Key=key, UpdateExpression="ADD n :one",
    ExpressionAttributeValues={":one": {"N": "1"}}, ReturnValues="UPDATED_NEW")["Attributes"], {"n": {"N": "2"}})
step("ConditionalCheckFailedException", lambda: code(lambda: ddb.put_item(
    TableName="app", Item=key, ConditionExpression="attribute_not_exists(pk)")),
    ("ConditionalCheckFailedException", 400))
step("ResourceNotFoundException", lambda: code(lambda: ddb.get_item(TableName="nope", Key={"pk": {"S": "x"}})),
     ("ResourceNotFoundException", 400))
step("ValidationException", lambda: code(lambda: ddb.get_item(TableName="app", Key={"pk": {"S": "x"}})),
     ("ValidationException", 400))
step("Scan COUNT", lambda: ddb.scan(TableName="app", Select="COUNT")["Count"], 3)
reader = client("AKIDREADER", "reader-secret")
step("a read-only key reads", lambda: reader.get_item(TableName="app", Key=key)["Item"]["sk"], {"S": "P#1"})
step("a read-only key may not write: AccessDeniedException", lambda: code(lambda: reader.put_item(
    TableName="app", Item={"pk": {"S": "U#3"}, "sk": {"S": "x"}})), ("AccessDeniedException", 400))
res = boto3.resource("dynamodb", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                     aws_access_key_id="AKIDADMIN", aws_secret_access_key="admin-secret")
step("resource API: Table.get_item", lambda: res.Table("app").get_item(Key={"pk": "U#1", "sk": "P#2"})["Item"],
     {"pk": "U#1", "sk": "P#2", "n": 2})

step("BatchWriteItem", lambda: ddb.batch_write_item(RequestItems={"app": [
    {"PutRequest": {"Item": {"pk": {"S": "U#2"}, "sk": {"S": f"B#{i}"}, "tags": {"SS": ["x", "y"]}}}}
    for i in range(3)]})["UnprocessedItems"], {})
step("BatchGetItem", lambda: sorted(i["sk"]["S"] for i in ddb.batch_get_item(RequestItems={"app": {"Keys": [
    {"pk": {"S": "U#2"}, "sk": {"S": "B#0"}}, {"pk": {"S": "U#2"}, "sk": {"S": "B#2"}},
    {"pk": {"S": "U#2"}, "sk": {"S": "none"}}]}})["Responses"]["app"]), ["B#0", "B#2"])
step("TransactWriteItems: Update ADD and a ConditionCheck apply together", lambda: (ddb.transact_write_items(
    TransactItems=[{"Update": {"TableName": "app", "Key": key, "UpdateExpression": "ADD n :one",
                               "ExpressionAttributeValues": {":one": {"N": "1"}}}},
                   {"ConditionCheck": {"TableName": "app", "Key": {"pk": {"S": "U#2"}, "sk": {"S": "B#1"}},
                                       "ConditionExpression": "attribute_exists(tags)"}}],
    ClientRequestToken="sdk-token-1")["ResponseMetadata"]["HTTPStatusCode"],
    ddb.get_item(TableName="app", Key=key)["Item"]["n"]), (200, {"N": "3"}))


def cancelled():
    try:
        ddb.transact_write_items(TransactItems=[
            {"Update": {"TableName": "app", "Key": key, "UpdateExpression": "ADD n :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}}}},
            {"Put": {"TableName": "app", "Item": {"pk": {"S": "U#2"}, "sk": {"S": "B#0"}},
                     "ConditionExpression": "attribute_not_exists(pk)"}}])
    except botocore.exceptions.ClientError as e:
        return (e.response["Error"]["Code"], [r["Code"] for r in e.response.get("CancellationReasons", [])],
                ddb.get_item(TableName="app", Key=key)["Item"]["n"])
    return None


step("TransactionCanceledException: reasons in action order, nothing written", cancelled,
     ("TransactionCanceledException", ["None", "ConditionalCheckFailed"], {"N": "3"}))
step("TransactGetItems", lambda: [r.get("Item", {}).get("sk") for r in ddb.transact_get_items(TransactItems=[
    {"Get": {"TableName": "app", "Key": key}}, {"Get": {"TableName": "app", "Key": {"pk": {"S": "U#9"}, "sk": {"S": "x"}}}}])
    ["Responses"]], [{"S": "P#1"}, None])


# The typo guard (singletable.prefix_check): an entity on the table, then a Query with the
# USERS# typo; the WARNING comes back in the x-singletable-warning header and goes to the
# gateway's log as "Query: warning <message>".
subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                "SELECT singletable.define_entity('app', 'User', pk => 'TENANT#{tenantId}', sk => 'USER#{userId}')"],
               check=True, stdout=subprocess.DEVNULL)
TYPO = ("no entity of table \"app\" has a sort key beginning with 'USERS#'; "
        "did you mean 'USER#' (entity User)?")


def typo_query():
    r = ddb.query(TableName="app", KeyConditionExpression="pk = :p AND begins_with(sk, :s)",
                  ExpressionAttributeValues={":p": {"S": "TENANT#acme"}, ":s": {"S": "USERS#"}})
    return r["Count"], r["ResponseMetadata"]["HTTPHeaders"].get("x-singletable-warning")


step("Query with the USERS# typo: the warning in x-singletable-warning", typo_query, (0, TYPO))
step("a Query without a typo: no header", lambda: "x-singletable-warning" in ddb.query(
    TableName="app", KeyConditionExpression="pk = :p AND begins_with(sk, :s)",
    ExpressionAttributeValues={":p": {"S": "TENANT#acme"}, ":s": {"S": "USER#"}})["ResponseMetadata"]["HTTPHeaders"],
    False)
step("PutItem of no entity: its warning in the header, the item written", lambda: (
    ddb.put_item(TableName="app", Item={"pk": {"S": "TENANT#acme"}, "sk": {"S": "USR#u_1"}})
    ["ResponseMetadata"]["HTTPHeaders"].get("x-singletable-warning", "").startswith(
        "item for table \"app\" matches no entity"),
    "Item" in ddb.get_item(TableName="app", Key={"pk": {"S": "TENANT#acme"}, "sk": {"S": "USR#u_1"}})), (True, True))
# the gateway logs "<Operation>: warning <text>"; the in-server endpoint's backend logs the WARNING itself
step("the gateway's log has the warning, without the item's key", lambda: (
    (f"Query: warning {TYPO}" if run.proc else TYPO) in run.read_log(),
    "u_1" in run.read_log()), (True, False))

run.finish()
