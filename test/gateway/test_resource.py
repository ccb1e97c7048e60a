#!/usr/bin/python3
"""test/gateway/test_resource.py: the posting app (test/regress/sql/dynamodb_posting.sql) through
singletable-gateway with boto3's resource API — Table objects, batch_writer, Key and Attr
conditions, Python values with Decimal numbers — against the extension's real
singletable.dynamodb. Each access pattern is checked against its exact items.

Run by test/gateway/run.sh after test_sdk.py, with the same environment (GATEWAY, PGHOST,
PGPORT; CREATE EXTENSION singletable done; the role gw_sdk_reader with SELECT on the tables
of schema public). Starts its own gateway with a credentials file, creates the table
posting_py and deletes it at the end. TAP-style lines as test_gateway.py and test_sdk.py."""

import base64
import os
import sys
import time
from decimal import Decimal

import boto3
import botocore.config
import botocore.exceptions
from boto3.dynamodb.conditions import Attr, Key
from boto3.dynamodb.types import Binary

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sdk_harness import SdkRun  # noqa: E402

TABLE = "posting_py"
run = SdkRun("resource", "AKIDPYADMIN py-admin-secret -\nAKIDPYREADER py-reader-secret gw_sdk_reader\n")
port = run.port
step = run.step


def error(fn):
    """The error code, HTTP status and response of a call that must fail."""
    try:
        fn()
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"], e.response
    return None, 200, None


def code(fn):
    return error(fn)[:2]


def resource(key, secret):
    # What an application writes (README "The DynamoDB endpoint"); one attempt, so that a
    # failure shows instead of being retried away.
    return boto3.resource("dynamodb", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                          aws_access_key_id=key, aws_secret_access_key=secret,
                          config=botocore.config.Config(retries={"total_max_attempts": 1}))


ddb = resource("AKIDPYADMIN", "py-admin-secret")
try:
    ddb.Table(TABLE).delete()  # a leftover of an earlier run
except botocore.exceptions.ClientError as e:
    if e.response["Error"]["Code"] != "ResourceNotFoundException":
        raise

PNG = base64.b64decode("iVBORw0KGgo=")
ITEMS = [
    {"pk": "USER#u_1001", "sk": "PROFILE", "name": "Aiko", "plan": "pro"},
    {"pk": "USER#u_1001", "sk": "POST#p_0017", "title": "Single-table on Postgres", "status": "approved",
     "publishAt": "2026-06-23T09:00:00Z", "gsi1pk": "STATUS#approved", "gsi1sk": "2026-06-23T09:00:00Z"},
    {"pk": "USER#u_1001", "sk": "POST#p_0018", "title": "Key overloading", "status": "draft"},
    {"pk": "USER#u_1001", "sk": "POST#p_0019", "title": "begins_with is a range", "status": "draft"},
    {"pk": "USER#u_1001", "sk": "LIBRARY#HASHTAG#postgres", "tags": {"#postgres", "#dynamodb"}},
    {"pk": "USER#u_1001", "sk": "INTEG#GOOGLE", "account": "aiko@example.com"},
    {"pk": "USER#u_1001", "sk": "INTEG#X#aiko_dev", "handle": "aiko_dev"},
    {"pk": "USER#u_1001", "sk": "INTEG#X#aiko_news", "handle": "aiko_news"},
    {"pk": "USER#u_1001", "sk": "SOURCE#FOLDER#fld_01", "name": "Campaign assets"},
    {"pk": "USER#u_1001", "sk": "ANALYTICS#p_0017", "impressions": 4210, "likes": 233},
    {"pk": "USER#u_1002", "sk": "PROFILE", "name": "Ben", "plan": "free"},
    {"pk": "USER#u_1002", "sk": "POST#p_0101", "title": "Launch checklist", "status": "approved",
     "publishAt": "2026-06-24T07:30:00Z", "gsi1pk": "STATUS#approved", "gsi1sk": "2026-06-24T07:30:00Z"},
    {"pk": "POST#p_0017", "sk": "SOURCE#f_01", "file": "cover.png", "bytes": Binary(PNG)},
    {"pk": "POST#p_0017", "sk": "SOURCE#f_02", "file": "draft.md"},
    {"pk": "POST#p_0017", "sk": "METRICS#2026-06-23T10:00Z", "views": 120, "expiresAt": 4102444800},
    {"pk": "POST#p_0017", "sk": "METRICS#2026-06-23T11:00Z", "views": 310, "expiresAt": 4102444800},
    {"pk": "POST#p_0017", "sk": "METRICS#2026-06-23T12:00Z", "views": 540, "expiresAt": 4102444800},
]
U1001 = sorted(i["sk"] for i in ITEMS if i["pk"] == "USER#u_1001")


def create():
    t = ddb.create_table(
        TableName=TABLE, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "gsi1pk", "gsi1sk")],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{"IndexName": "GSI1", "Projection": {"ProjectionType": "ALL"},
                                 "KeySchema": [{"AttributeName": "gsi1pk", "KeyType": "HASH"},
                                               {"AttributeName": "gsi1sk", "KeyType": "RANGE"}]}])
    t.wait_until_exists()  # the DescribeTable waiter
    t.reload()  # the attributes of create_table's answer were CREATING
    return t.name, t.table_status, [g["IndexName"] for g in t.global_secondary_indexes]


step("create_table with GSI1, wait_until_exists", create, (TABLE, "ACTIVE", ["GSI1"]))
posting = ddb.Table(TABLE)


def write_all():
    # Numbers go in as int (the serializer takes int and Decimal, not float).
    with posting.batch_writer() as w:
        for item in ITEMS:
            w.put_item(Item=item)
    return posting.scan(Select="COUNT")["Count"]


step("batch_writer: the 17 items", write_all, 17)


def items(r):
    return r["Items"]


def sks(r):
    return [i["sk"] for i in r["Items"]]


step("query Key.eq & Key.begins_with: a user's posts (projection, #name)", lambda: items(posting.query(
    KeyConditionExpression=Key("pk").eq("USER#u_1001") & Key("sk").begins_with("POST#"),
    ProjectionExpression="sk, title, #s", ExpressionAttributeNames={"#s": "status"})), [
    {"sk": "POST#p_0017", "title": "Single-table on Postgres", "status": "approved"},
    {"sk": "POST#p_0018", "title": "Key overloading", "status": "draft"},
    {"sk": "POST#p_0019", "title": "begins_with is a range", "status": "draft"}])
step("query begins_with: the library (a string set comes back as a set)", lambda: items(posting.query(
    KeyConditionExpression=Key("pk").eq("USER#u_1001") & Key("sk").begins_with("LIBRARY#"))),
    [{"pk": "USER#u_1001", "sk": "LIBRARY#HASHTAG#postgres", "tags": {"#dynamodb", "#postgres"}}])
step("query begins_with: the X integrations", lambda: items(posting.query(
    KeyConditionExpression=Key("pk").eq("USER#u_1001") & Key("sk").begins_with("INTEG#X#"),
    ProjectionExpression="handle")), [{"handle": "aiko_dev"}, {"handle": "aiko_news"}])
step("query begins_with: the folders", lambda: items(posting.query(
    KeyConditionExpression=Key("pk").eq("USER#u_1001") & Key("sk").begins_with("SOURCE#FOLDER#"),
    ProjectionExpression="sk, #n", ExpressionAttributeNames={"#n": "name"})),
    [{"sk": "SOURCE#FOLDER#fld_01", "name": "Campaign assets"}])
step("get_item: a profile", lambda: posting.get_item(Key={"pk": "USER#u_1002", "sk": "PROFILE"})["Item"],
     {"pk": "USER#u_1002", "sk": "PROFILE", "name": "Ben", "plan": "free"})
step("get_item of a missing item: no Item", lambda: "Item" in posting.get_item(
    Key={"pk": "USER#u_1002", "sk": "NOPE"}), False)
step("query Key.eq on both keys, Select COUNT", lambda: {k: v for k, v in posting.query(
    KeyConditionExpression=Key("pk").eq("USER#u_1002") & Key("sk").eq("PROFILE"), Select="COUNT").items()
    if k != "ResponseMetadata"}, {"Count": 1, "ScannedCount": 1})
step("query begins_with: a post's sources (a B attribute comes back as Binary)", lambda: items(posting.query(
    KeyConditionExpression=Key("pk").eq("POST#p_0017") & Key("sk").begins_with("SOURCE#"))), [
    {"pk": "POST#p_0017", "sk": "SOURCE#f_01", "file": "cover.png", "bytes": Binary(PNG)},
    {"pk": "POST#p_0017", "sk": "SOURCE#f_02", "file": "draft.md"}])


def pages():
    """The latest metrics newest first, two per page, following LastEvaluatedKey to the end."""
    out, start = [], None
    while len(out) < 10:
        kw = {"ExclusiveStartKey": start} if start else {}
        r = posting.query(KeyConditionExpression=Key("pk").eq("POST#p_0017") & Key("sk").begins_with("METRICS#"),
                          ScanIndexForward=False, Limit=2, ProjectionExpression="sk, #v",
                          ExpressionAttributeNames={"#v": "views"}, **kw)
        out.append((r["Items"], r.get("LastEvaluatedKey")))
        start = r.get("LastEvaluatedKey")
        if not start:
            break
    return out


step("query ScanIndexForward=False, Limit 2, ExclusiveStartKey paging to the end (Decimal numbers)", pages, [
    ([{"sk": "METRICS#2026-06-23T12:00Z", "views": Decimal(540)}, {"sk": "METRICS#2026-06-23T11:00Z", "views": Decimal(310)}],
     {"pk": "POST#p_0017", "sk": "METRICS#2026-06-23T11:00Z"}),
    ([{"sk": "METRICS#2026-06-23T10:00Z", "views": Decimal(120)}], None)])
step("query Key.between: metrics in a time window", lambda: items(posting.query(
    KeyConditionExpression=Key("pk").eq("POST#p_0017") & Key("sk").between("METRICS#2026-06-23T10:30Z",
                                                                            "METRICS#2026-06-23T11:59Z"),
    ProjectionExpression="sk")), [{"sk": "METRICS#2026-06-23T11:00Z"}])
step("query Key.eq: the whole user collection, in sort key order", lambda: sks(posting.query(
    KeyConditionExpression=Key("pk").eq("USER#u_1001"))), U1001)
step("query IndexName GSI1: the scheduler, approved posts by publish time", lambda: items(posting.query(
    IndexName="GSI1", KeyConditionExpression=Key("gsi1pk").eq("STATUS#approved"),
    ProjectionExpression="gsi1sk, pk, sk, title")), [
    {"pk": "USER#u_1001", "sk": "POST#p_0017", "title": "Single-table on Postgres", "gsi1sk": "2026-06-23T09:00:00Z"},
    {"pk": "USER#u_1002", "sk": "POST#p_0101", "title": "Launch checklist", "gsi1sk": "2026-06-24T07:30:00Z"}])

approve = dict(Key={"pk": "USER#u_1001", "sk": "POST#p_0019"},
               UpdateExpression="SET #s = :approved, publishAt = :at, gsi1pk = :gpk, gsi1sk = :at",
               ConditionExpression=Attr("status").eq("draft"), ExpressionAttributeNames={"#s": "status"},
               ExpressionAttributeValues={":approved": "approved", ":at": "2026-06-26T12:30:00Z",
                                          ":gpk": "STATUS#approved"})
step("update_item with an Attr condition: the approval succeeds once (UPDATED_NEW)", lambda: posting.update_item(
    ReturnValues="UPDATED_NEW", **approve)["Attributes"],
    {"status": "approved", "publishAt": "2026-06-26T12:30:00Z", "gsi1pk": "STATUS#approved",
     "gsi1sk": "2026-06-26T12:30:00Z"})


OLD_ITEM = {"pk": {"S": "USER#u_1001"}, "sk": {"S": "POST#p_0019"}, "title": {"S": "begins_with is a range"},
            "status": {"S": "approved"}, "publishAt": {"S": "2026-06-26T12:30:00Z"},
            "gsi1pk": {"S": "STATUS#approved"}, "gsi1sk": {"S": "2026-06-26T12:30:00Z"}}


def approve_again():
    c, status, resp = error(lambda: posting.update_item(ReturnValuesOnConditionCheckFailure="ALL_OLD", **approve))
    return c, status, resp and resp.get("Item")


def approve_again_raw():
    """The same UpdateItem in DynamoDB's own JSON (the Attr condition written out)."""
    status, body = run.post("UpdateItem", {
        "TableName": TABLE, "Key": {"pk": {"S": "USER#u_1001"}, "sk": {"S": "POST#p_0019"}},
        "UpdateExpression": approve["UpdateExpression"], "ConditionExpression": "#s = :draft",
        "ExpressionAttributeNames": {"#s": "status"},
        "ExpressionAttributeValues": {":approved": {"S": "approved"}, ":at": {"S": "2026-06-26T12:30:00Z"},
                                      ":gpk": {"S": "STATUS#approved"}, ":draft": {"S": "draft"}},
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}, "AKIDPYADMIN", "py-admin-secret")
    return body.get("__type", "").rpartition("#")[2], status, body.get("Item")


# Older botocore (Debian 12's 1.29) does not know ReturnValuesOnConditionCheckFailure and
# refuses the call before sending it. The same request, signed but sent without the SDK's
# client, checks the gateway's answer whatever the botocore (so that this path is tested
# where the SDK's is too).
if "ReturnValuesOnConditionCheckFailure" in \
        posting.meta.client.meta.service_model.operation_model("UpdateItem").input_shape.members:
    step("update_item again: ConditionalCheckFailedException, ALL_OLD gives the item", approve_again,
         ("ConditionalCheckFailedException", 400, OLD_ITEM))
else:
    print(f"# skipped: update_item with ReturnValuesOnConditionCheckFailure through boto3: botocore "
          f"{botocore.__version__} does not know the parameter (the next step sends it without boto3)", flush=True)
step("UpdateItem again, signed, without boto3: ConditionalCheckFailedException, ALL_OLD gives the item",
     approve_again_raw, ("ConditionalCheckFailedException", 400, OLD_ITEM))
step("query GSI1 Key.gt: the approved post joined the scheduler", lambda: sks(posting.query(
    IndexName="GSI1", KeyConditionExpression=Key("gsi1pk").eq("STATUS#approved") & Key("gsi1sk").gt("2026-06-24"))),
    ["POST#p_0101", "POST#p_0019"])
like = dict(Key={"pk": "USER#u_1001", "sk": "ANALYTICS#p_0017"}, UpdateExpression="ADD likes :one",
            ExpressionAttributeValues={":one": Decimal(1)}, ReturnValues="UPDATED_NEW")
step("update_item ADD: the counter, twice (Decimal)", lambda: [posting.update_item(**like)["Attributes"],
                                                               posting.update_item(**like)["Attributes"]],
     [{"likes": Decimal(234)}, {"likes": Decimal(235)}])
frac = dict(Key={"pk": "USER#u_1001", "sk": "ANALYTICS#p_0017"}, UpdateExpression="ADD score :x",
            ReturnValues="UPDATED_NEW")
step("update_item ADD fractions: 0.1 + 0.2 is exactly 0.3 (Decimal, no binary floating point)", lambda: [
    posting.update_item(ExpressionAttributeValues={":x": Decimal("0.1")}, **frac)["Attributes"],
    posting.update_item(ExpressionAttributeValues={":x": Decimal("0.2")}, **frac)["Attributes"]],
    [{"score": Decimal("0.1")}, {"score": Decimal("0.3")}])
step("update_item ReturnValues UPDATED_OLD, then ALL_NEW with REMOVE", lambda: [
    posting.update_item(Key={"pk": "USER#u_1002", "sk": "PROFILE"}, UpdateExpression="SET #p = :p",
                        ExpressionAttributeNames={"#p": "plan"}, ExpressionAttributeValues={":p": "pro"},
                        ReturnValues="UPDATED_OLD")["Attributes"],
    posting.update_item(Key={"pk": "USER#u_1002", "sk": "PROFILE"}, UpdateExpression="SET seats = :n REMOVE #p",
                        ExpressionAttributeNames={"#p": "plan"}, ExpressionAttributeValues={":n": 3},
                        ReturnValues="ALL_NEW")["Attributes"]],
    [{"plan": "free"}, {"pk": "USER#u_1002", "sk": "PROFILE", "name": "Ben", "seats": Decimal(3)}])
step("put_item with Attr condition and ReturnValues ALL_OLD replaces an item", lambda: posting.put_item(
    Item={"pk": "USER#u_1002", "sk": "PROFILE", "name": "Ben", "plan": "free"},
    ConditionExpression=Attr("seats").exists(), ReturnValues="ALL_OLD")["Attributes"],
    {"pk": "USER#u_1002", "sk": "PROFILE", "name": "Ben", "seats": Decimal(3)})
step("put_item with Attr.not_exists on an existing item: ConditionalCheckFailedException", lambda: code(
    lambda: posting.put_item(Item={"pk": "USER#u_1002", "sk": "PROFILE"}, ConditionExpression=Attr("pk").not_exists())),
    ("ConditionalCheckFailedException", 400))

# The resource API has no transactions: applications call them on Table.meta.client, which
# serializes native values the resource's way (the resource registered its transformation;
# condition objects are built only for top-level parameters, so expressions here are strings).
token = f"py-post-{os.getpid()}-{time.time_ns()}"  # tokens outlive the table (the account's in DynamoDB)


def new_post(tok=None):
    return dict(TransactItems=[
        {"Put": {"TableName": TABLE, "ConditionExpression": "attribute_not_exists(pk)",
                 "Item": {"pk": "USER#u_1002", "sk": "POST#p_0102", "title": "Hello", "status": "draft"}}},
        {"Update": {"TableName": TABLE, "Key": {"pk": "USER#u_1002", "sk": "PROFILE"},
                    "UpdateExpression": "ADD posts :one", "ExpressionAttributeValues": {":one": 1}}}],
        **({"ClientRequestToken": tok} if tok else {}))


def posts():
    return posting.get_item(Key={"pk": "USER#u_1002", "sk": "PROFILE"}, ProjectionExpression="posts")["Item"]


step("transact_write_items: a new post and the counter, applied together", lambda: (
    posting.meta.client.transact_write_items(**new_post(token))["ResponseMetadata"]["HTTPStatusCode"], posts()),
    (200, {"posts": Decimal(1)}))


def cancelled():
    c, status, resp = error(lambda: posting.meta.client.transact_write_items(**new_post()))
    return c, status, [r["Code"] for r in (resp or {}).get("CancellationReasons", [])], posts()


step("transact_write_items again: cancelled with its reasons in order, nothing written", cancelled,
     ("TransactionCanceledException", 400, ["ConditionalCheckFailed", "None"], {"posts": Decimal(1)}))
step("batch_get_item (resource): both profiles and a missing key", lambda: sorted(
    ddb.batch_get_item(RequestItems={TABLE: {
        "Keys": [{"pk": "USER#u_1001", "sk": "PROFILE"}, {"pk": "USER#u_1002", "sk": "PROFILE"},
                 {"pk": "USER#u_9", "sk": "PROFILE"}],
        "ProjectionExpression": "pk, #n, posts", "ExpressionAttributeNames": {"#n": "name"}}})["Responses"][TABLE],
    key=lambda i: i["pk"]), [{"pk": "USER#u_1001", "name": "Aiko"}, {"pk": "USER#u_1002", "name": "Ben",
                                                                     "posts": Decimal(1)}])


def scan(**kw):
    r = posting.scan(**kw)
    return sorted(i["pk"] + " " + i["sk"] for i in r["Items"]), r["Count"], r["ScannedCount"]


step("scan Attr.eq: the drafts (Count filtered, ScannedCount all 18 items)", lambda: scan(
    FilterExpression=Attr("status").eq("draft"), ProjectionExpression="pk, sk"),
    (["USER#u_1001 POST#p_0018", "USER#u_1002 POST#p_0102"], 2, 18))
step("scan Attr.gt on a number & Attr.exists", lambda: scan(
    FilterExpression=Attr("views").gt(200) & Attr("expiresAt").exists()),
    (["POST#p_0017 METRICS#2026-06-23T11:00Z", "POST#p_0017 METRICS#2026-06-23T12:00Z"], 2, 18))
step("scan Attr.contains on a set | Attr.begins_with", lambda: scan(
    FilterExpression=Attr("tags").contains("#postgres") | Attr("title").begins_with("Launch")),
    (["USER#u_1001 LIBRARY#HASHTAG#postgres", "USER#u_1002 POST#p_0101"], 2, 18))
step("query with a FilterExpression: Count after the filter, ScannedCount before", lambda: (lambda r: (
    sks(r), r["Count"], r["ScannedCount"]))(posting.query(
        KeyConditionExpression=Key("pk").eq("USER#u_1001"), FilterExpression=Attr("status").ne("draft")
        & Attr("status").exists())), (["POST#p_0017", "POST#p_0019"], 2, 10))

reader = resource("AKIDPYREADER", "py-reader-secret").Table(TABLE)
step("a key whose role has SELECT only reads", lambda: reader.get_item(
    Key={"pk": "USER#u_1001", "sk": "PROFILE"})["Item"]["name"], "Aiko")
step("a key whose role lacks the grant: put_item and update_item are AccessDeniedException", lambda: [
    code(lambda: reader.put_item(Item={"pk": "USER#u_1001", "sk": "X"})),
    code(lambda: reader.update_item(**like))], [("AccessDeniedException", 400)] * 2)
step("SigV4: a wrong secret is InvalidSignatureException", lambda: code(
    lambda: resource("AKIDPYADMIN", "wrong").Table(TABLE).get_item(Key={"pk": "a", "sk": "b"})),
    ("InvalidSignatureException", 400))

draft = dict(Key={"pk": "USER#u_1001", "sk": "POST#p_0018"}, ConditionExpression=Attr("status").eq("draft"),
             ReturnValues="ALL_OLD")
step("delete_item: a draft deleted only while it is a draft (ALL_OLD)", lambda: posting.delete_item(
    **draft)["Attributes"], {"pk": "USER#u_1001", "sk": "POST#p_0018", "title": "Key overloading", "status": "draft"})
step("delete_item again: ConditionalCheckFailedException, the item is gone", lambda: (
    code(lambda: posting.delete_item(**draft)), "Item" in posting.get_item(Key=draft["Key"])),
    (("ConditionalCheckFailedException", 400), False))

def delete_metrics():
    with posting.batch_writer() as w:
        for h in ("10", "11", "12"):
            w.delete_item(Key={"pk": "POST#p_0017", "sk": f"METRICS#2026-06-23T{h}:00Z"})
    return posting.query(KeyConditionExpression=Key("pk").eq("POST#p_0017") & Key("sk").begins_with("METRICS#"),
                         Select="COUNT")["Count"]


step("batch_writer delete_item: the metrics are gone", delete_metrics, 0)


def drop():
    posting.delete()
    posting.wait_until_not_exists()
    return TABLE in [t.name for t in ddb.tables.all()], code(lambda: posting.get_item(Key={"pk": "a", "sk": "b"}))


step("Table.delete, wait_until_not_exists, then ResourceNotFoundException", drop,
     (False, ("ResourceNotFoundException", 400)))

run.finish()
