#!/usr/bin/python3
"""test/gateway/test_multikey.py: the posting app's scheduler on a GSI with a multi-attribute
sort key (DynamoDB's multi-attribute keys, November 2025) through singletable-gateway with
boto3: CreateTable with GSI "scheduler" of partition key status and sort key publishDate +
publishTime, posts written through the SDK, the scheduler's queries (= on the date, a range
on the time; a range on the date alone), paginated by the client's paginator and by hand
with every index key attribute in LastEvaluatedKey, the resource API's Key conditions, the
key condition's rules with DynamoDB's messages, a draft entering the scheduler when it is
approved (the index is sparse).

Run by test/gateway/run.sh after test_sdk.py, with the same environment (GATEWAY, PGHOST,
PGPORT; CREATE EXTENSION singletable done; the role gw_sdk_reader with SELECT on the tables
of schema public). Starts its own gateway with a credentials file, creates the table
posting_mk and deletes it at the end. TAP-style lines as test_sdk.py."""

import os
import sys

import boto3
import botocore.config
import botocore.exceptions
from boto3.dynamodb.conditions import Key

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sdk_harness import SdkRun  # noqa: E402

TABLE = "posting_mk"
run = SdkRun("multikey", "AKIDMKADMIN mk-admin-secret -\nAKIDMKREADER mk-reader-secret gw_sdk_reader\n")
port = run.port
step = run.step


def client(key, secret):
    return boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                        aws_access_key_id=key, aws_secret_access_key=secret,
                        config=botocore.config.Config(retries={"total_max_attempts": 1}))


def error(fn):
    """The error code and message of a call that must fail."""
    try:
        fn()
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
    return None


ddb = client("AKIDMKADMIN", "mk-admin-secret")
reader = client("AKIDMKREADER", "mk-reader-secret")
table = boto3.resource("dynamodb", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                       aws_access_key_id="AKIDMKADMIN", aws_secret_access_key="mk-admin-secret").Table(TABLE)
S = [{"AttributeName": "status", "KeyType": "HASH"},
     {"AttributeName": "publishDate", "KeyType": "RANGE"},
     {"AttributeName": "publishTime", "KeyType": "RANGE"}]

step("CreateTable: GSI scheduler, partition status, sort publishDate + publishTime",
     lambda: ddb.create_table(
         TableName=TABLE, BillingMode="PAY_PER_REQUEST",
         AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"}
                               for n in ("pk", "sk", "status", "publishDate", "publishTime")],
         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
         GlobalSecondaryIndexes=[{"IndexName": "scheduler", "KeySchema": S,
                                  "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["title"]}}])
     ["TableDescription"]["GlobalSecondaryIndexes"][0]["KeySchema"], S)
step("DescribeTable: the scheduler's KeySchema, every element in order, ACTIVE",
     lambda: [(g["KeySchema"], g["IndexStatus"]) for g in ddb.describe_table(TableName=TABLE)["Table"]["GlobalSecondaryIndexes"]],
     [(S, "ACTIVE")])

# posts of 3 users: approved ones with a publish date and time, drafts without (not in the index)
POSTS = [("u1", 1, "2026-06-24", "09:00"), ("u2", 2, "2026-06-24", "12:30"), ("u1", 3, "2026-06-24", "18:00"),
         ("u3", 4, "2026-06-25", "08:15"), ("u2", 5, "2026-06-25", "09:45"), ("u1", 6, "2026-06-25", "10:00"),
         ("u3", 7, "2026-06-25", "13:20"), ("u2", 8, "2026-06-25", "17:05"), ("u1", 9, "2026-06-25", "21:40"),
         ("u3", 10, "2026-06-26", "07:00"), ("u2", 11, "2026-06-26", "11:11")]


def put_posts():
    with table.batch_writer() as w:
        for user in ("u1", "u2", "u3"):
            w.put_item(Item={"pk": f"USER#{user}", "sk": "PROFILE", "name": user})
        for user, n, day, at in POSTS:
            w.put_item(Item={"pk": f"USER#{user}", "sk": f"POST#{n:03d}", "title": f"Post {n}", "body": "...",
                             "status": "approved", "publishDate": day, "publishTime": at})
        w.put_item(Item={"pk": "USER#u1", "sk": "POST#012", "title": "Post 12", "status": "draft"})
        w.put_item(Item={"pk": "USER#u3", "sk": "POST#013", "title": "Post 13", "status": "draft",
                         "publishDate": "2026-06-25"})
    return table.scan(Select="COUNT")["Count"]


step("PutItem through batch_writer: 3 profiles, 11 approved posts, 2 drafts", put_posts, 16)


def sks(items):
    return [i["sk"]["S"] if isinstance(i["sk"], dict) else i["sk"] for i in items]


Q = {"TableName": TABLE, "IndexName": "scheduler",
     "KeyConditionExpression": "#s = :a AND publishDate = :d AND publishTime BETWEEN :t1 AND :t2",
     "ExpressionAttributeNames": {"#s": "status"},
     "ExpressionAttributeValues": {":a": {"S": "approved"}, ":d": {"S": "2026-06-25"},
                                   ":t1": {"S": "09:00"}, ":t2": {"S": "18:00"}}}
step("Query: = on status and publishDate, BETWEEN on publishTime, in time order",
     lambda: sks(ddb.query(**Q)["Items"]), ["POST#005", "POST#006", "POST#007", "POST#008"])


def by_hand():
    pages, start = [], None
    while True:
        r = ddb.query(**Q, Limit=3, **({"ExclusiveStartKey": start} if start else {}))
        pages.append(sks(r["Items"]))
        start = r.get("LastEvaluatedKey")
        if start is None:
            return pages
        if sorted(start) != ["pk", "publishDate", "publishTime", "sk", "status"]:
            return f"LastEvaluatedKey holds {sorted(start)}"


step("Query pages of 3 by hand: LastEvaluatedKey holds status, publishDate, publishTime, pk, sk",
     by_hand, [["POST#005", "POST#006", "POST#007"], ["POST#008"]])
# a page that ends at the Limit has a LastEvaluatedKey even when nothing follows (as DynamoDB)
step("Query pages of 2 by the client's paginator",
     lambda: [sks(p["Items"]) for p in ddb.get_paginator("query").paginate(**Q, PaginationConfig={"PageSize": 2})],
     [["POST#005", "POST#006"], ["POST#007", "POST#008"], []])
step("Query: a range on publishDate alone, newest first (the drafts are not in the index)",
     lambda: sks(ddb.query(TableName=TABLE, IndexName="scheduler", ScanIndexForward=False,
                           KeyConditionExpression="#s = :a AND publishDate >= :d",
                           ExpressionAttributeNames={"#s": "status"},
                           ExpressionAttributeValues={":a": {"S": "approved"}, ":d": {"S": "2026-06-25"}})["Items"]),
     ["POST#011", "POST#010", "POST#009", "POST#008", "POST#007", "POST#006", "POST#005", "POST#004"])
step("Query by the resource API: Key conditions, the INCLUDE projection",
     lambda: table.query(IndexName="scheduler",
                         KeyConditionExpression=Key("status").eq("approved") & Key("publishDate").eq("2026-06-24")
                         & Key("publishTime").lt("18:00"))["Items"],
     [{"pk": "USER#u1", "sk": "POST#001", "status": "approved", "publishDate": "2026-06-24", "publishTime": "09:00",
       "title": "Post 1"},
      {"pk": "USER#u2", "sk": "POST#002", "status": "approved", "publishDate": "2026-06-24", "publishTime": "12:30",
       "title": "Post 2"}])
step("Query with begins_with on publishTime, the reader's credentials (SELECT only)",
     lambda: sks(reader.query(TableName=TABLE, IndexName="scheduler",
                              KeyConditionExpression="#s = :a AND publishDate = :d AND begins_with(publishTime, :h)",
                              ExpressionAttributeNames={"#s": "status"},
                              ExpressionAttributeValues={":a": {"S": "approved"}, ":d": {"S": "2026-06-25"},
                                                         ":h": {"S": "1"}})["Items"]),
     ["POST#006", "POST#007", "POST#008"])
step("Query: a condition on publishTime without one on publishDate",
     lambda: error(lambda: ddb.query(TableName=TABLE, IndexName="scheduler",
                                     KeyConditionExpression="#s = :a AND publishTime > :t",
                                     ExpressionAttributeNames={"#s": "status"},
                                     ExpressionAttributeValues={":a": {"S": "approved"}, ":t": {"S": "09:00"}})),
     ("ValidationException", "RANGE key attributes publishDate must have equality conditions specified in the query "
      "because a condition is present on key attribute publishTime"))
step("Query: a range on publishDate and a condition on publishTime",
     lambda: error(lambda: ddb.query(TableName=TABLE, IndexName="scheduler",
                                     KeyConditionExpression="#s = :a AND publishDate > :d AND publishTime > :t",
                                     ExpressionAttributeNames={"#s": "status"},
                                     ExpressionAttributeValues={":a": {"S": "approved"}, ":d": {"S": "2026-06-24"},
                                                                ":t": {"S": "09:00"}})),
     ("ValidationException", "RANGE key attributes publishDate must have equality conditions specified in the query "
      "because a condition is present on key attribute publishTime"))
step("UpdateItem: approving draft 13 with a publish time puts it in the scheduler",
     lambda: (ddb.update_item(TableName=TABLE, Key={"pk": {"S": "USER#u3"}, "sk": {"S": "POST#013"}},
                              UpdateExpression="SET #s = :a, publishTime = :t", ExpressionAttributeNames={"#s": "status"},
                              ExpressionAttributeValues={":a": {"S": "approved"}, ":t": {"S": "12:00"}}),
              sks(ddb.query(**Q)["Items"]))[1],
     ["POST#005", "POST#006", "POST#013", "POST#007", "POST#008"])
step("Scan of the scheduler: 12 posts, the profiles and the remaining draft are not in it",
     lambda: ddb.scan(TableName=TABLE, IndexName="scheduler", Select="COUNT")["Count"], 12)
step("UpdateTable: a second GSI of two HASH attributes (status, publishDate) and no RANGE",
     lambda: ddb.update_table(TableName=TABLE,
                              AttributeDefinitions=[{"AttributeName": "status", "AttributeType": "S"},
                                                    {"AttributeName": "publishDate", "AttributeType": "S"}],
                              GlobalSecondaryIndexUpdates=[{"Create": {
                                  "IndexName": "by-day", "Projection": {"ProjectionType": "KEYS_ONLY"},
                                  "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"},
                                                {"AttributeName": "publishDate", "KeyType": "HASH"}]}}])
     ["TableDescription"]["TableName"], TABLE)
step("Query by-day: = on both partition attributes",
     lambda: sorted(sks(ddb.query(TableName=TABLE, IndexName="by-day", KeyConditionExpression="#s = :a AND publishDate = :d",
                                  ExpressionAttributeNames={"#s": "status"},
                                  ExpressionAttributeValues={":a": {"S": "approved"}, ":d": {"S": "2026-06-24"}})["Items"])),
     ["POST#001", "POST#002", "POST#003"])
step("Query by-day: one partition attribute missing",
     lambda: error(lambda: ddb.query(TableName=TABLE, IndexName="by-day", KeyConditionExpression="#s = :a",
                                     ExpressionAttributeNames={"#s": "status"},
                                     ExpressionAttributeValues={":a": {"S": "approved"}})),
     ("ValidationException", "HASH key attributes publishDate must have equality conditions specified in the query"))
step("CreateTable: a HASH attribute after a RANGE one",
     lambda: error(lambda: ddb.create_table(
         TableName="posting_mk_bad", BillingMode="PAY_PER_REQUEST",
         AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "a", "b")],
         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
         GlobalSecondaryIndexes=[{"IndexName": "gsi", "Projection": {"ProjectionType": "ALL"},
                                  "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"},
                                                {"AttributeName": "pk", "KeyType": "RANGE"},
                                                {"AttributeName": "b", "KeyType": "HASH"}]}])),
     ("ValidationException", "One or more parameter values were invalid: "
      "All HASH key attributes must precede RANGE key attributes in the KeySchema"))
step("DeleteTable", lambda: ddb.delete_table(TableName=TABLE)["TableDescription"]["TableName"], TABLE)
run.finish()
