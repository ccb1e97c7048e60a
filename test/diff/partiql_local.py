#!/usr/bin/python3
"""test/diff/partiql_local.py GATEWAY_PORT LOCAL_PORT: sends the same PartiQL requests
(ExecuteStatement, BatchExecuteStatement, ExecuteTransaction) to singletable-gateway and to
AWS's DynamoDB Local and prints, for each, whether the normalised answers agree and the
differences when not. Run by test/diff/partiql_local.sh, which starts both in a network
namespace of their own. Items are compared as sets (a Scan's order differs), NextToken and
ConsumedCapacity are left out (opaque / not computed by DynamoDB Local), errors are
compared by the Name of __type and the message. Exit 0 always: the differences are for
reading, each argued in docs/partiql.md."""

import json
import sys
import urllib.error
import urllib.request

GW, LOCAL = int(sys.argv[1]), int(sys.argv[2])


def call(port, op, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/", data=json.dumps(body).encode(), headers={
        "X-Amz-Target": "DynamoDB_20120810." + op, "Content-Type": "application/x-amz-json-1.0",
        "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDLOCAL/20260101/us-east-1/dynamodb/aws4_request, "
                         "SignedHeaders=host, Signature=0"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def norm(status, doc):
    if status != 200:
        return {"error": doc.get("__type", "").split("#")[-1],
                "message": doc.get("message", doc.get("Message")),
                "reasons": doc.get("CancellationReasons")}
    doc = {k: v for k, v in doc.items() if k not in ("NextToken", "ConsumedCapacity")}
    if "Items" in doc:
        doc["Items"] = sorted(json.dumps(i, sort_keys=True) for i in doc["Items"])
    return doc


T = "pql_diff"
H = "pql_diff_h"
SETUP = [
    ("CreateTable", {"TableName": T, "BillingMode": "PAY_PER_REQUEST",
                     "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                     "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                              {"AttributeName": "sk", "AttributeType": "N"},
                                              {"AttributeName": "g", "AttributeType": "S"}],
                     "GlobalSecondaryIndexes": [{"IndexName": "gsi1", "Projection": {"ProjectionType": "ALL"},
                                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}]}]}),
    ("CreateTable", {"TableName": H, "BillingMode": "PAY_PER_REQUEST",
                     "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
                     "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}]}),
]


def es(stmt, **kw):
    return ("ExecuteStatement", dict(Statement=stmt, **kw))


CASES = [
    es(f"INSERT INTO \"{T}\" VALUE {{'pk': 'a', 'sk': 1, 'x': 5, 'g': 'G', 'n': NULL, 'l': [1, 'b'], 'm': {{'k': <<'s', 't'>>}}}}"),
    es(f"INSERT INTO \"{T}\" VALUE {{'pk': 'a', 'sk': 2, 'x': 6}}"),
    es(f"INSERT INTO \"{T}\" VALUE {{'pk': ?, 'sk': ?, 'x': ?}}", Parameters=[{"S": "b"}, {"N": "1"}, {"N": "7"}]),
    es(f"INSERT INTO \"{T}\" VALUE {{'pk': 'a', 'sk': 1}}"),
    es(f"INSERT INTO \"{T}\" VALUE {{'pk': 'a'}}"),
    es("INSERT INTO \"nope_table\" VALUE {'pk': 'a'}"),
    es(f"SELECT * FROM \"{T}\" WHERE pk = 'a'"),
    es(f"SELECT x, l[1], m.k FROM \"{T}\" WHERE pk = 'a' AND sk = 1"),
    es(f"SELECT sk FROM \"{T}\" WHERE pk = 'a' AND sk > 1"),
    es(f"SELECT sk FROM \"{T}\" WHERE pk = 'a' AND sk BETWEEN 1 AND 2 ORDER BY sk DESC"),
    es(f"SELECT sk FROM \"{T}\" WHERE pk = 'a' AND sk > 0 AND sk < 2"),
    es(f"SELECT * FROM \"{T}\".\"gsi1\" WHERE g = 'G'"),
    es(f"SELECT * FROM \"{T}\".\"nogsi\" WHERE g = 'G'"),
    es(f"SELECT pk FROM \"{T}\" WHERE x IN [5, 7]"),
    es(f"SELECT pk FROM \"{T}\" WHERE n IS NULL"),
    es(f"SELECT pk FROM \"{T}\" WHERE n IS NOT NULL"),
    es(f"SELECT pk FROM \"{T}\" WHERE g IS MISSING"),
    es(f"SELECT pk FROM \"{T}\" WHERE NOT x = 5 AND begins_with(pk, 'a')"),
    es(f"SELECT pk FROM \"{T}\" WHERE contains(l, 'b') OR size(l) > 5"),
    es(f"SELECT pk FROM \"{T}\" WHERE g = MISSING"),
    es(f"SELECT * FROM \"{T}\" ORDER BY sk"),
    es(f"SELECT * FROM \"{T}\" WHERE x = 5 ORDER BY sk"),
    es(f"SELECT * FROM \"{T}\" WHERE pk = 'a' ORDER BY x"),
    es(f"SELECT * FROM \"{T}\" WHERE pk = ?"),
    es(f"SELECT * FROM \"{T}\" WHERE pk = 'a' AND begins_with(sk, 1)"),
    es(f"UPDATE \"{T}\" SET x = x + 1, y = 'new' REMOVE g WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW *"),
    es(f"UPDATE \"{T}\" SET x = 1 WHERE pk = 'a' AND sk = 1 AND x = 99"),
    es(f"UPDATE \"{T}\" SET x = 1 WHERE pk = 'zz' AND sk = 1"),
    es(f"UPDATE \"{T}\" SET x = 1 WHERE pk = 'a'"),
    es(f"UPDATE \"{T}\" SET sk = 3 WHERE pk = 'a' AND sk = 1"),
    es(f"DELETE FROM \"{T}\" WHERE pk = 'zz' AND sk = 1"),
    es(f"DELETE FROM \"{T}\" WHERE pk = 'a' AND sk = 2 AND x = 99"),
    es(f"DELETE FROM \"{T}\" WHERE pk = 'a' AND sk = 2 RETURNING ALL OLD *"),
    ("BatchExecuteStatement", {"Statements": [
        {"Statement": f"SELECT * FROM \"{T}\" WHERE pk = 'a' AND sk = 1"},
        {"Statement": f"SELECT * FROM \"{T}\" WHERE pk = 'a'"},
        {"Statement": f"SELECT * FROM \"{T}\" WHERE pk = 'none' AND sk = 1"}]}),
    ("BatchExecuteStatement", {"Statements": [
        {"Statement": f"INSERT INTO \"{H}\" VALUE {{'id': 'q'}}"},
        {"Statement": f"INSERT INTO \"{H}\" VALUE {{'id': 'q2'}}"},
        {"Statement": f"UPDATE \"{H}\" SET a = 1 WHERE id = 'none'"}]}),
    ("BatchExecuteStatement", {"Statements": [
        {"Statement": f"SELECT * FROM \"{H}\" WHERE id = 'q'"}, {"Statement": f"INSERT INTO \"{H}\" VALUE {{'id': 'r'}}"}]}),
    ("ExecuteTransaction", {"TransactStatements": [
        {"Statement": f"INSERT INTO \"{H}\" VALUE {{'id': 't1'}}"},
        {"Statement": f"UPDATE \"{H}\" SET a = 1 WHERE id = 'q'"},
        {"Statement": f"EXISTS(SELECT * FROM \"{T}\" WHERE pk = 'b' AND sk = 1 AND x = 7)"}]}),
    ("ExecuteTransaction", {"TransactStatements": [
        {"Statement": f"INSERT INTO \"{H}\" VALUE {{'id': 't2'}}"},
        {"Statement": f"INSERT INTO \"{H}\" VALUE {{'id': 't1'}}"}]}),
    ("ExecuteTransaction", {"TransactStatements": [
        {"Statement": f"SELECT * FROM \"{H}\" WHERE id = 'q'"}, {"Statement": f"SELECT * FROM \"{H}\" WHERE id = 'none'"}]}),
    ("ExecuteTransaction", {"TransactStatements": [
        {"Statement": f"SELECT * FROM \"{H}\" WHERE id = 'q'"}, {"Statement": f"DELETE FROM \"{H}\" WHERE id = 'r'"}]}),
    ("ExecuteTransaction", {"TransactStatements": [{"Statement": f"SELECT * FROM \"{H}\""}]}),
]

for op, body in SETUP:
    call(GW, op, body)
    call(LOCAL, op, body)
same = 0
for op, body in CASES:
    g, l = norm(*call(GW, op, body)), norm(*call(LOCAL, op, body))
    text = body.get("Statement") or json.dumps(body)[:160]
    if g == l:
        same += 1
        print(f"same  {op}: {text}")
    else:
        print(f"DIFF  {op}: {text}\n  singletable:    {json.dumps(g)}\n  DynamoDB Local: {json.dumps(l)}")
print(f"{same} of {len(CASES)} answers agree")
for name in (T, H):
    call(GW, "DeleteTable", {"TableName": name})
