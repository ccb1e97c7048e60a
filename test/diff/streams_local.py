#!/usr/bin/python3
"""test/diff/streams_local.py GATEWAY_PORT LOCAL_PORT: sends the same DynamoDB Streams
requests (and the stream members of CreateTable, UpdateTable and DescribeTable) to
singletable-gateway and to AWS's DynamoDB Local and prints, for each, whether the normalised
answers agree and the differences when not. Run by test/diff/streams_local.sh, which starts
both in a network namespace of their own. Values no two servers share (labels, ARNs'
labels, shard ids, sequence numbers, event ids, times, SizeBytes) are replaced by
placeholders; error bodies are compared by __type and message ("Message" in DynamoDB
Local's bodies). Exit 0 always: the differences are for reading, each argued in
test/diff/README.md."""

import json
import re
import sys
import time
import urllib.error
import urllib.request

GW, LOCAL = int(sys.argv[1]), int(sys.argv[2])
STREAM_OPS = {"ListStreams", "DescribeStream", "GetShardIterator", "GetRecords"}


def call(port, op, body):
    target = ("DynamoDBStreams_20120810." if op in STREAM_OPS else "DynamoDB_20120810.") + op
    req = urllib.request.Request(f"http://127.0.0.1:{port}/", data=json.dumps(body).encode(), headers={
        "X-Amz-Target": target, "Content-Type": "application/x-amz-json-1.0",
        "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDLOCAL/20260101/us-east-1/dynamodb/aws4_request, "
                         "SignedHeaders=host, Signature=0"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


class Side:
    """One server, with what its answers taught us (its ARNs and shard ids by role)."""

    def __init__(self, name, port):
        self.name, self.port = name, port
        self.names = {}      # a value no two servers share -> its placeholder
        self.counts = {}     # placeholders made per kind
        self.saved = {}

    def placeholder(self, kind, value):
        if value not in self.names:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            self.names[value] = f"<{kind}{self.counts[kind]}>"
        return self.names[value]

    def norm(self, v, key=None):
        if isinstance(v, dict):
            out = {}
            for k, x in v.items():
                if k == "Message":
                    k = "message"
                out[k] = self.norm(x, k)
            return out
        if isinstance(v, list):
            return [self.norm(x, key) for x in v]
        if key in ("StreamArn", "LatestStreamArn", "LastEvaluatedStreamArn", "ExclusiveStartStreamArn"):
            # the table's first, second... stream (labels differ between the servers)
            m = re.match(r"arn:aws:dynamodb:[^:]*:[^:]*:table/([^/]*)/stream/", v)
            return self.placeholder(f"arn {m.group(1)} #" if m else "arn ", v)
        if key in ("StreamLabel", "LatestStreamLabel"):
            return "<label>"
        if key in ("ShardId", "LastEvaluatedShardId", "ParentShardId"):
            return self.placeholder("shard", v)
        if key in ("StartingSequenceNumber", "EndingSequenceNumber", "SequenceNumber"):
            # their values are the server's own (ours: one counter per database)
            return "<seq>" if re.fullmatch(r"[0-9]{21,40}", v) else v
        if key in ("ShardIterator", "NextShardIterator"):
            return "<iterator>"
        if key in ("eventID",):
            return "<id>"
        if key in ("CreationRequestDateTime", "ApproximateCreationDateTime", "CreationDateTime", "SizeBytes"):
            return f"<{key}>"
        if key == "message" and isinstance(v, str):
            v = re.sub(r"arn:aws:dynamodb:[^ ]*", "<arn>", v)
            v = re.sub(r"table/[^/ ]*/stream/[0-9T:.-]+", "<arn>", v)
        return v

    def send(self, op, body):
        body = json.loads(json.dumps(body), object_hook=lambda d: {k: self.saved.get(x, x) if isinstance(x, str) else x
                                                                   for k, x in d.items()})
        return call(self.port, op, body)


gw, lo = Side("singletable", GW), Side("dynamodb-local", LOCAL)
agree = differ = 0


def table_view(doc):
    """Only the stream members of a table description, and its status and name."""
    for k in ("Table", "TableDescription"):
        if k in doc:
            t = doc[k]
            return {k: {m: t[m] for m in ("TableName", "StreamSpecification", "LatestStreamArn", "LatestStreamLabel")
                        if m in t}}
    return doc


def compare(title, op, body, save=None, view=None):
    """Sends body to both; save: {name: fn(answer) -> value} remembered per side for later bodies."""
    global agree, differ
    answers = []
    for side in (gw, lo):
        status, doc = side.send(op, body)
        for name, fn in (save or {}).items():
            try:
                side.saved[name] = fn(doc)
            except (KeyError, IndexError, TypeError):
                pass
        doc = view(doc) if view else doc
        answers.append((status, side.norm(doc)))
    a = json.dumps(answers[0], indent=1, sort_keys=True).splitlines()
    b = json.dumps(answers[1], indent=1, sort_keys=True).splitlines()
    if a == b:
        agree += 1
        print(f"ok   {op}: {title}")
    else:
        differ += 1
        print(f"DIFF {op}: {title}")
        import difflib
        for line in difflib.unified_diff(a, b, gw.name, lo.name, n=1, lineterm=""):
            print("     " + line)


def wait_enabled(name):
    """Our stream becomes ENABLED once the worker has its slot (DynamoDB Local: at once)."""
    for _ in range(300):
        s, d = gw.send("DescribeStream", {"StreamArn": name})
        if d.get("StreamDescription", {}).get("StreamStatus") == "ENABLED":
            return
        time.sleep(0.2)


KS = {"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
      "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
      "BillingMode": "PAY_PER_REQUEST"}
arn_of = {"arn": lambda d: (d.get("TableDescription") or d.get("Table"))["LatestStreamArn"]}

for spec in ({}, {"StreamEnabled": True}, {"StreamEnabled": False, "StreamViewType": "KEYS_ONLY"},
             {"StreamEnabled": True, "StreamViewType": "ALL"}):
    compare(f"CreateTable StreamSpecification {json.dumps(spec)}", "CreateTable",
            {"TableName": "sl_bad", **KS, "StreamSpecification": spec}, view=table_view)
compare("CreateTable without a stream (StreamEnabled false)", "CreateTable",
        {"TableName": "sl_plain", **KS, "StreamSpecification": {"StreamEnabled": False}}, view=table_view)
compare("UpdateTable disabling a stream the table does not have", "UpdateTable",
        {"TableName": "sl_plain", "StreamSpecification": {"StreamEnabled": False}}, view=table_view)
compare("CreateTable NEW_AND_OLD_IMAGES", "CreateTable",
        {"TableName": "sl_a", **KS, "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}},
        save={"$ARN1": arn_of["arn"]}, view=table_view)
wait_enabled(gw.saved.get("$ARN1", ""))
compare("DescribeTable", "DescribeTable", {"TableName": "sl_a"}, view=table_view)
compare("UpdateTable enabling an enabled stream", "UpdateTable",
        {"TableName": "sl_a", "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}}, view=table_view)
compare("ListStreams by table", "ListStreams", {"TableName": "sl_a"})
compare("ListStreams of no table", "ListStreams", {"TableName": "sl_none"})
compare("ListStreams Limit 0", "ListStreams", {"Limit": 0})
compare("ListStreams Limit 101", "ListStreams", {"Limit": 101})
compare("DescribeStream", "DescribeStream", {"StreamArn": "$ARN1"},
        save={"$SHARD1": lambda d: d["StreamDescription"]["Shards"][0]["ShardId"]})
compare("DescribeStream Limit 0", "DescribeStream", {"StreamArn": "$ARN1", "Limit": 0})
compare("DescribeStream Limit 101", "DescribeStream", {"StreamArn": "$ARN1", "Limit": 101})
compare("DescribeStream of an unknown stream", "DescribeStream",
        {"StreamArn": "arn:aws:dynamodb:ddblocal:000000000000:table/sl_a/stream/2020-01-01T00:00:00.000"})
compare("DescribeStream ExclusiveStartShardId too short", "DescribeStream", {"StreamArn": "$ARN1", "ExclusiveStartShardId": "x"})
compare("DescribeStream after the last shard", "DescribeStream", {"StreamArn": "$ARN1", "ExclusiveStartShardId": "$SHARD1"})
compare("GetShardIterator AT_SEQUENCE_NUMBER without SequenceNumber", "GetShardIterator",
        {"StreamArn": "$ARN1", "ShardId": "$SHARD1", "ShardIteratorType": "AT_SEQUENCE_NUMBER"})
compare("GetShardIterator LATEST with SequenceNumber", "GetShardIterator",
        {"StreamArn": "$ARN1", "ShardId": "$SHARD1", "ShardIteratorType": "LATEST", "SequenceNumber": "0" * 21})
compare("GetShardIterator SequenceNumber too short", "GetShardIterator",
        {"StreamArn": "$ARN1", "ShardId": "$SHARD1", "ShardIteratorType": "AT_SEQUENCE_NUMBER", "SequenceNumber": "12"})
compare("GetShardIterator of an unknown shard", "GetShardIterator",
        {"StreamArn": "$ARN1", "ShardId": "shardId-00000000000000000000-00000000", "ShardIteratorType": "LATEST"})
compare("GetShardIterator TRIM_HORIZON", "GetShardIterator",
        {"StreamArn": "$ARN1", "ShardId": "$SHARD1", "ShardIteratorType": "TRIM_HORIZON"},
        save={"$IT1": lambda d: d["ShardIterator"]})
compare("GetRecords of an invalid iterator", "GetRecords", {"ShardIterator": "garbage"})
compare("GetRecords Limit 0", "GetRecords", {"ShardIterator": "$IT1", "Limit": 0})
compare("GetRecords Limit 1001", "GetRecords", {"ShardIterator": "$IT1", "Limit": 1001})

# records: one of each kind, read once the worker has stored them
for op, body in (("PutItem", {"TableName": "sl_a", "Item": {"pk": {"S": "a"}, "sk": {"S": "1"}, "v": {"N": "1"},
                                                              "l": {"L": [{"S": "x"}, {"BOOL": True}]}}}),
                 ("UpdateItem", {"TableName": "sl_a", "Key": {"pk": {"S": "a"}, "sk": {"S": "1"}},
                                 "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"N": "2"}}}),
                 ("DeleteItem", {"TableName": "sl_a", "Key": {"pk": {"S": "a"}, "sk": {"S": "1"}}})):
    for side in (gw, lo):
        side.send(op, body)
for _ in range(150):
    s, d = gw.send("GetRecords", {"ShardIterator": gw.saved.get("$IT1", "")})
    if len(d.get("Records", [])) >= 3:
        break
    time.sleep(0.2)
compare("GetRecords TRIM_HORIZON: INSERT, MODIFY, REMOVE", "GetRecords", {"ShardIterator": "$IT1"})

compare("UpdateTable disable", "UpdateTable", {"TableName": "sl_a", "StreamSpecification": {"StreamEnabled": False}},
        view=table_view)
compare("DescribeTable after disabling", "DescribeTable", {"TableName": "sl_a"}, view=table_view)
compare("UpdateTable re-enable KEYS_ONLY", "UpdateTable",
        {"TableName": "sl_a", "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}},
        save={"$ARN2": arn_of["arn"]}, view=table_view)
wait_enabled(gw.saved.get("$ARN2", ""))
# our worker closes a disabled stream's shard once it has decoded past the disabling (about a second)
for _ in range(100):
    _, d = gw.send("DescribeStream", {"StreamArn": "$ARN1"})
    if all("EndingSequenceNumber" in h["SequenceNumberRange"] for h in d.get("StreamDescription", {}).get("Shards", [{}])
           if "SequenceNumberRange" in h):
        break
    time.sleep(0.1)
compare("DescribeStream of the disabled stream", "DescribeStream", {"StreamArn": "$ARN1"})
compare("ListStreams by table: both", "ListStreams", {"TableName": "sl_a"})
compare("ListStreams by table, Limit 1", "ListStreams", {"TableName": "sl_a", "Limit": 1})
print(f"# {agree} agree, {differ} differ")
