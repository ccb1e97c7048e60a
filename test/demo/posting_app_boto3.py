#!/usr/bin/env python3
"""The posting app's access patterns through singletable-gateway with boto3, unchanged
DynamoDB client code (test/demo.sh --gateway runs it; ENDPOINT is the gateway's URL).

Every step prints the DynamoDB call and what came back. The table is the single-table
design of test/demo/posting_app.sql, written as DynamoDB requests: users, posts,
comments in collections under USER#/POST#, and the scheduler's sparse GSI1.
"""
import json
import os
import sys

import boto3
import botocore

endpoint = os.environ["ENDPOINT"]
ddb = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                   aws_access_key_id="demo", aws_secret_access_key="demo")
posting = boto3.resource("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                         aws_access_key_id="demo", aws_secret_access_key="demo").Table("posting")


def show(title, result):
    print(f"--- {title}")
    if isinstance(result, dict):
        result = {k: v for k, v in result.items() if k != "ResponseMetadata"}
    print(json.dumps(result, default=str, sort_keys=True))


show("CreateTable posting (pk, sk) with the sparse, overloaded GSI1 (gsi1pk, gsi1sk)",
     ddb.create_table(
         TableName="posting", BillingMode="PAY_PER_REQUEST",
         AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "gsi1pk", "gsi1sk")],
         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
         GlobalSecondaryIndexes=[{"IndexName": "GSI1", "Projection": {"ProjectionType": "ALL"},
                                  "KeySchema": [{"AttributeName": "gsi1pk", "KeyType": "HASH"},
                                                {"AttributeName": "gsi1sk", "KeyType": "RANGE"}]}])
     ["TableDescription"]["TableStatus"])

# the items, with the resource API's batch writer (BatchWriteItem, 25 at a time)
with posting.batch_writer() as w:
    w.put_item(Item={"pk": "USER#u_1001", "sk": "PROFILE", "name": "Aiko Tanaka", "plan": "pro", "views": 0})
    w.put_item(Item={"pk": "USER#u_1002", "sk": "PROFILE", "name": "Ben Okafor", "plan": "free", "views": 0})
    for i, (status, at) in enumerate([("approved", "2026-06-24T09:00Z"), ("draft", None),
                                      ("approved", "2026-06-25T18:30Z")], start=1):
        item = {"pk": "USER#u_1001", "sk": f"POST#p_000{i}", "title": f"Post {i}", "status": status}
        if at:
            item.update(gsi1pk="STATUS#approved", gsi1sk=at)
        w.put_item(Item=item)
    for c in range(1, 6):
        w.put_item(Item={"pk": "POST#p_0001", "sk": f"COMMENT#{c:03d}", "by": "USER#u_1002", "text": f"comment {c}"})
print("--- BatchWriteItem (batch_writer): 2 profiles, 3 posts, 5 comments")

show("1. GetItem: a user's profile", posting.get_item(Key={"pk": "USER#u_1001", "sk": "PROFILE"}))
show("2. Query: a user's posts (begins_with is one index range)",
     ddb.query(TableName="posting", KeyConditionExpression="pk = :u AND begins_with(sk, :p)",
               ExpressionAttributeValues={":u": {"S": "USER#u_1001"}, ":p": {"S": "POST#"}},
               ProjectionExpression="sk, title, #s", ExpressionAttributeNames={"#s": "status"},
               ReturnConsumedCapacity="TOTAL"))
page = ddb.query(TableName="posting", KeyConditionExpression="pk = :p AND begins_with(sk, :c)",
                 ExpressionAttributeValues={":p": {"S": "POST#p_0001"}, ":c": {"S": "COMMENT#"}}, Limit=2)
show("3. Query: a post's comments, a page of 2", page)
show("   ... the next page from its LastEvaluatedKey",
     ddb.query(TableName="posting", KeyConditionExpression="pk = :p AND begins_with(sk, :c)",
               ExpressionAttributeValues={":p": {"S": "POST#p_0001"}, ":c": {"S": "COMMENT#"}}, Limit=2,
               ExclusiveStartKey=page["LastEvaluatedKey"]))
show("4. Query GSI1: the scheduler, approved posts due by a time (drafts are not in the index)",
     ddb.query(TableName="posting", IndexName="GSI1", KeyConditionExpression="gsi1pk = :s AND gsi1sk <= :t",
               ExpressionAttributeValues={":s": {"S": "STATUS#approved"}, ":t": {"S": "2026-06-30T00:00Z"}}))
show("5. UpdateItem: approve a draft only if it is still a draft (it enters GSI1)",
     ddb.update_item(TableName="posting", Key={"pk": {"S": "USER#u_1001"}, "sk": {"S": "POST#p_0002"}},
                     UpdateExpression="SET #s = :a, gsi1pk = :g, gsi1sk = :t",
                     ConditionExpression="#s = :d", ExpressionAttributeNames={"#s": "status"},
                     ExpressionAttributeValues={":a": {"S": "approved"}, ":d": {"S": "draft"},
                                                ":g": {"S": "STATUS#approved"}, ":t": {"S": "2026-06-26T08:00Z"}},
                     ReturnValues="UPDATED_NEW"))
try:
    ddb.update_item(TableName="posting", Key={"pk": {"S": "USER#u_1001"}, "sk": {"S": "POST#p_0002"}},
                    UpdateExpression="SET #s = :a", ConditionExpression="#s = :d",
                    ExpressionAttributeNames={"#s": "status"},
                    ExpressionAttributeValues={":a": {"S": "approved"}, ":d": {"S": "draft"}})
except botocore.exceptions.ClientError as e:
    show("   ... again: it is no longer a draft", e.response["Error"])
show("6. UpdateItem ADD: a view counter",
     posting.update_item(Key={"pk": "USER#u_1001", "sk": "PROFILE"}, UpdateExpression="ADD #v :one",
                         ExpressionAttributeNames={"#v": "views"}, ExpressionAttributeValues={":one": 1},
                         ReturnValues="UPDATED_NEW"))
show("7. TransactWriteItems: a new post and the user's post counter, all or nothing, idempotent",
     ddb.transact_write_items(ClientRequestToken="demo-post-4", ReturnConsumedCapacity="TOTAL", TransactItems=[
         {"Put": {"TableName": "posting", "ConditionExpression": "attribute_not_exists(pk)",
                  "Item": {"pk": {"S": "USER#u_1002"}, "sk": {"S": "POST#p_0004"}, "title": {"S": "Hello"},
                           "status": {"S": "draft"}}}},
         {"Update": {"TableName": "posting", "Key": {"pk": {"S": "USER#u_1002"}, "sk": {"S": "PROFILE"}},
                     "UpdateExpression": "ADD posts :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}}]))
try:
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": "posting", "ConditionExpression": "attribute_not_exists(pk)",
                 "Item": {"pk": {"S": "USER#u_1002"}, "sk": {"S": "POST#p_0004"}}}},
        {"Update": {"TableName": "posting", "Key": {"pk": {"S": "USER#u_1002"}, "sk": {"S": "PROFILE"}},
                    "UpdateExpression": "ADD posts :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}}])
except botocore.exceptions.ClientError as e:
    show("   ... the same post again (no token): cancelled, nothing written",
         {"Code": e.response["Error"]["Code"], "CancellationReasons": e.response.get("CancellationReasons")})
show("8. BatchGetItem: both profiles (the post counter is 1)",
     ddb.batch_get_item(RequestItems={"posting": {"Keys": [
         {"pk": {"S": "USER#u_1001"}, "sk": {"S": "PROFILE"}}, {"pk": {"S": "USER#u_1002"}, "sk": {"S": "PROFILE"}}],
         "ProjectionExpression": "pk, #n, posts, #v", "ExpressionAttributeNames": {"#n": "name", "#v": "views"}}}))
show("9. DescribeTable", {k: v for k, v in ddb.describe_table(TableName="posting")["Table"].items()
                         if k in ("TableName", "TableStatus", "ItemCount", "KeySchema")})
sys.exit(0)
