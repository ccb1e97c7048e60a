#!/usr/bin/env python3
"""test/citus/gateways.py: one singletable-gateway per Citus node, serving the same
distributed table (issue 31, item 2), driven by boto3 exactly as an application would.

    gateways.py TABLE URL...   (the coordinator's gateway first)

Prints one line per check, "PASS <what>" or "FAIL <what>: <details>", which
test/citus/run.sh turns into TAP lines; exits 0 (the verdicts are the lines).
"""
import sys
import threading

import boto3
from botocore.config import Config

TABLE = sys.argv[1]
URLS = sys.argv[2:]
NAMES = ["coordinator", "worker1", "worker2"][: len(URLS)]


def client(url):
    return boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                        aws_access_key_id="AKIDNODES", aws_secret_access_key="secret",
                        config=Config(retries={"max_attempts": 1}))


CLIENTS = [client(u) for u in URLS]


def check(what, cond, details=""):
    print(("PASS " if cond else "FAIL ") + what + ("" if cond else ": " + str(details)), flush=True)


def key(i):
    return {"pk": {"S": "GW#%d" % i}, "sk": {"S": "ITEM"}}


# each gateway writes 30 items; every gateway reads all 90
problems = []
for n, c in enumerate(CLIENTS):
    for i in range(n * 30, n * 30 + 30):
        c.put_item(TableName=TABLE, Item=dict(key(i), by={"S": NAMES[n]}, i={"N": str(i)}))
for n, c in enumerate(CLIENTS):
    for i in range(30 * len(CLIENTS)):
        got = c.get_item(TableName=TABLE, Key=key(i), ConsistentRead=True).get("Item")
        want = dict(key(i), by={"S": NAMES[i // 30]}, i={"N": str(i)})
        if got != want:
            problems.append("%s read %s: %s" % (NAMES[n], i, got))
check("PutItem through each node's gateway, GetItem of every item through every gateway",
      not problems, problems[:5])

# a Query of one collection and a Scan count answer the same through each gateway
for i in range(10):
    CLIENTS[i % len(CLIENTS)].put_item(TableName=TABLE, Item={"pk": {"S": "GW#COLL"}, "sk": {"S": "S#%02d" % i}})
answers = [(c.query(TableName=TABLE, KeyConditionExpression="pk = :p AND begins_with(sk, :s)",
                    ExpressionAttributeValues={":p": {"S": "GW#COLL"}, ":s": {"S": "S#"}})["Items"],
            c.scan(TableName=TABLE, Select="COUNT")["Count"]) for c in CLIENTS]
check("Query and Scan through each gateway give the same answer (10 items, 100 in the table)",
      all(a == answers[0] for a in answers) and len(answers[0][0]) == 10 and answers[0][1] == 100,
      [(len(a[0]), a[1]) for a in answers])

# an atomic counter incremented through all gateways at once
CLIENTS[0].put_item(TableName=TABLE, Item={"pk": {"S": "GW#COUNTER"}, "sk": {"S": "C"}, "n": {"N": "0"}})
errors = []


def bump(c):
    for _ in range(25):
        try:
            c.update_item(TableName=TABLE, Key={"pk": {"S": "GW#COUNTER"}, "sk": {"S": "C"}},
                          UpdateExpression="ADD n :one", ExpressionAttributeValues={":one": {"N": "1"}})
        except Exception as e:  # noqa: BLE001 - reported as a failure below
            errors.append(str(e))


threads = [threading.Thread(target=bump, args=(c,)) for c in CLIENTS for _ in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join()
final = [c.get_item(TableName=TABLE, Key={"pk": {"S": "GW#COUNTER"}, "sk": {"S": "C"}})["Item"]["n"]["N"] for c in CLIENTS]
want = str(25 * len(threads))
check("UpdateItem ADD from 2 threads per gateway at once: every gateway reads %s" % want,
      not errors and final == [want] * len(CLIENTS), (final, errors[:3]))

# a transaction through a worker's gateway, over two collections, seen through the others
last = CLIENTS[-1]
last.transact_write_items(TransactItems=[
    {"Put": {"TableName": TABLE, "Item": {"pk": {"S": "GW#TX1"}, "sk": {"S": "A"}}}},
    {"Update": {"TableName": TABLE, "Key": key(0), "UpdateExpression": "SET tx = :t",
                "ExpressionAttributeValues": {":t": {"S": "yes"}}}}])
seen = [c.transact_get_items(TransactItems=[{"Get": {"TableName": TABLE, "Key": {"pk": {"S": "GW#TX1"}, "sk": {"S": "A"}}}},
                                            {"Get": {"TableName": TABLE, "Key": key(0)}}])["Responses"] for c in CLIENTS]
check("TransactWriteItems through %s's gateway; TransactGetItems through every gateway sees it" % NAMES[-1],
      all(s[0].get("Item") is not None and s[1]["Item"].get("tx") == {"S": "yes"} for s in seen), seen)

# a conditional write refused through one gateway, with DynamoDB's error, changes nothing
try:
    CLIENTS[1].put_item(TableName=TABLE, Item=dict(key(0), by={"S": "nobody"}), ConditionExpression="attribute_not_exists(pk)")
    outcome = "written"
except CLIENTS[1].exceptions.ConditionalCheckFailedException:
    outcome = "ConditionalCheckFailedException"
after = CLIENTS[0].get_item(TableName=TABLE, Key=key(0))["Item"]["by"]["S"]
check("a failed condition through a worker's gateway is ConditionalCheckFailedException and writes nothing",
      outcome == "ConditionalCheckFailedException" and after == "coordinator", (outcome, after))

# DescribeTable through each gateway: the same table
descs = [c.describe_table(TableName=TABLE)["Table"] for c in CLIENTS]
shape = [(d["KeySchema"], d["TableStatus"], sorted(g["IndexName"] for g in d.get("GlobalSecondaryIndexes", []))) for d in descs]
check("DescribeTable through each gateway: the same keys, status and GSIs", all(s == shape[0] for s in shape), shape)
