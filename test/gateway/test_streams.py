#!/usr/bin/python3
"""test/gateway/test_streams.py: DynamoDB Streams end to end — the posting app's writes
through boto3's dynamodb client (put, conditional update, a failed condition, a write that
changes nothing, a transaction, a batch, a delete, a TTL expiry) and a plain SQL UPDATE,
read back with boto3's dynamodbstreams client through singletable-gateway: the exact
records in commit order, images per view type, sequence numbers increasing, each iterator
type, paging by Limit, an expired iterator, disable and re-enable (a new ARN). Run by
test/gateway/run.sh on a server with wal_level = logical and the library preloaded
(GATEWAY, PGHOST, PGPORT set; CREATE EXTENSION singletable done). TAP-style lines."""

import datetime
import os
import subprocess
import sys
import time

import boto3
import botocore.config
import botocore.exceptions

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sdk_harness import SdkRun  # noqa: E402

run = SdkRun("streams", "AKIDADMIN admin-secret -\n")
step = run.step
cfg = botocore.config.Config(retries={"total_max_attempts": 1})
kw = dict(endpoint_url=f"http://127.0.0.1:{run.port}", region_name="us-east-1",
          aws_access_key_id="AKIDADMIN", aws_secret_access_key="admin-secret", config=cfg)
ddb = boto3.client("dynamodb", **kw)
streams = boto3.client("dynamodbstreams", **kw)
WAIT = float(os.environ.get("STREAMS_WAIT", "60"))


def psql(sql):
    """One statement as the superuser (PGHOST, PGPORT of the server; run.sh puts its psql first on PATH)."""
    return subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-U", "postgres", "-c", sql],
                          check=True, capture_output=True, text=True).stdout.strip()


def code(fn):
    try:
        fn()
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"]
    return None


def wait_enabled(arn):
    deadline = time.time() + WAIT
    while time.time() < deadline:
        if streams.describe_stream(StreamArn=arn)["StreamDescription"]["StreamStatus"] == "ENABLED":
            return True
        time.sleep(0.2)
    return False


def read_iterator(it, limit=None, want=None, pages=None):
    """Every record from iterator it on, following NextShardIterator; with want, polls until
    that many arrived (the worker stores them after commit) or WAIT passed."""
    out = []
    deadline = time.time() + WAIT
    while it:
        r = streams.get_records(ShardIterator=it, **({"Limit": limit} if limit else {}))
        if pages is not None:
            pages.append(len(r["Records"]))
        out += r["Records"]
        nxt = r.get("NextShardIterator")
        if not r["Records"]:
            if want is None or len(out) >= want or time.time() > deadline:
                break
            time.sleep(0.2)
        it = nxt
    return out


def iterator(arn, kind, seq=None):
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][-1]["ShardId"]
    args = {"StreamArn": arn, "ShardId": shard, "ShardIteratorType": kind}
    if seq:
        args["SequenceNumber"] = seq
    return streams.get_shard_iterator(**args)["ShardIterator"]


def summary(recs):
    return [(r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"], r["dynamodb"]["Keys"]["sk"]["S"]) for r in recs]


S = lambda v: {"S": v}  # noqa: E731
N = lambda v: {"N": str(v)}  # noqa: E731
KEYS = [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}]
SCHEMA = [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]

# -- a stream-enabled table: CreateTable's and DescribeTable's stream members
created = ddb.create_table(TableName="posts", BillingMode="PAY_PER_REQUEST", AttributeDefinitions=KEYS,
                           KeySchema=SCHEMA,
                           StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
desc = created["TableDescription"]
arn = desc.get("LatestStreamArn", "")
step("CreateTable answers StreamSpecification and LatestStreamArn",
     lambda: (desc.get("StreamSpecification"), arn.startswith("arn:aws:dynamodb:ddblocal:000000000000:table/posts/stream/"),
              arn.endswith(desc.get("LatestStreamLabel", "?"))),
     ({"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}, True, True))
step("DescribeTable: the same stream", lambda: (ddb.describe_table(TableName="posts")["Table"]["LatestStreamArn"],
                                                 ddb.describe_table(TableName="posts")["Table"]["StreamSpecification"]),
     (arn, {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}))
step("the stream becomes ENABLED", lambda: wait_enabled(arn), True)
step("ListStreams by table", lambda: [(s["StreamArn"], s["TableName"]) for s in
                                      streams.list_streams(TableName="posts")["Streams"]], [(arn, "posts")])
step("ListStreams of an unknown table: none", lambda: streams.list_streams(TableName="nosuch")["Streams"], [])
sd = streams.describe_stream(StreamArn=arn)["StreamDescription"]
step("DescribeStream", lambda: (sd["StreamStatus"], sd["StreamViewType"], sd["TableName"], sd["KeySchema"],
                                len(sd["Shards"]), "EndingSequenceNumber" in sd["Shards"][0]["SequenceNumberRange"],
                                len(sd["Shards"][0]["SequenceNumberRange"]["StartingSequenceNumber"]),
                                isinstance(sd["CreationRequestDateTime"], datetime.datetime)),
     ("ENABLED", "NEW_AND_OLD_IMAGES", "posts", SCHEMA, 1, False, 21, True))
latest = iterator(arn, "LATEST")

# -- the posting app's writes
ddb.update_time_to_live(TableName="posts", TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
ddb.put_item(TableName="posts", Item={"pk": S("U#1"), "sk": S("PROFILE"), "name": S("ann")})
ddb.put_item(TableName="posts", Item={"pk": S("U#1"), "sk": S("P#1"), "title": S("hello"), "likes": N(0)})
ddb.update_item(TableName="posts", Key={"pk": S("U#1"), "sk": S("P#1")}, UpdateExpression="SET likes = likes + :one",
                ConditionExpression="attribute_exists(pk)", ExpressionAttributeValues={":one": N(1)})
step("a failed condition", lambda: code(lambda: ddb.update_item(
    TableName="posts", Key={"pk": S("U#1"), "sk": S("P#1")}, UpdateExpression="SET likes = :ten",
    ConditionExpression="likes = :ten", ExpressionAttributeValues={":ten": N(10)})), "ConditionalCheckFailedException")
# the item as it is: a write that changes nothing writes no record
ddb.put_item(TableName="posts", Item={"pk": S("U#1"), "sk": S("P#1"), "title": S("hello"), "likes": N(1)})
ddb.transact_write_items(TransactItems=[
    {"Put": {"TableName": "posts", "Item": {"pk": S("U#1"), "sk": S("P#2"), "title": S("two")}}},
    {"Update": {"TableName": "posts", "Key": {"pk": S("U#1"), "sk": S("PROFILE")},
                "UpdateExpression": "SET posts = :n", "ExpressionAttributeValues": {":n": N(2)}}}])
ddb.batch_write_item(RequestItems={"posts": [
    {"PutRequest": {"Item": {"pk": S("U#2"), "sk": S("PROFILE"), "name": S("bob")}}},
    {"PutRequest": {"Item": {"pk": S("U#2"), "sk": S("P#1"), "title": S("bob's"), "likes": N(0)}}},
    {"DeleteRequest": {"Key": {"pk": S("U#1"), "sk": S("P#2")}}}]})
ddb.delete_item(TableName="posts", Key={"pk": S("U#1"), "sk": S("P#1")})
# a plain SQL UPDATE of the item table is a change like any other
psql("UPDATE public.posts SET item = jsonb_set(item, '{likes}', '5') WHERE pk = 'U#2' AND sk = 'P#1'")
# a rolled-back SQL write is none
psql("BEGIN; UPDATE public.posts SET item = jsonb_set(item, '{likes}', '6') WHERE pk = 'U#2' AND sk = 'P#1'; ROLLBACK")
ddb.put_item(TableName="posts", Item={"pk": S("U#3"), "sk": S("SESSION"), "expires": N(int(time.time()) - 60)})

expected = [("INSERT", "U#1", "PROFILE"), ("INSERT", "U#1", "P#1"), ("MODIFY", "U#1", "P#1"),
            ("INSERT", "U#1", "P#2"), ("MODIFY", "U#1", "PROFILE"),
            ("INSERT", "U#2", "PROFILE"), ("INSERT", "U#2", "P#1"), ("REMOVE", "U#1", "P#2"),
            ("REMOVE", "U#1", "P#1"), ("MODIFY", "U#2", "P#1"), ("INSERT", "U#3", "SESSION"),
            ("REMOVE", "U#3", "SESSION")]


def grouped(s):
    """The records of one transaction (TransactWriteItems, BatchWriteItem) in any order."""
    return s[:3] + sorted(s[3:5]) + sorted(s[5:8]) + s[8:]


recs = read_iterator(iterator(arn, "TRIM_HORIZON"), want=len(expected))
step("TRIM_HORIZON: one record per committed change, in commit order (TTL expiry last)",
     lambda: grouped(summary(recs)), grouped(expected))
seqs = [int(r["dynamodb"]["SequenceNumber"]) for r in recs]
step("sequence numbers increase, 21 digits", lambda: (seqs == sorted(set(seqs)),
                                                       {len(r["dynamodb"]["SequenceNumber"]) for r in recs}), (True, {21}))
by = {(e, p, s): r for r, (e, p, s) in zip(recs, summary(recs))}
mod = by.get(("MODIFY", "U#1", "P#1"), {}).get("dynamodb", {})
step("MODIFY: Keys, OldImage and NewImage", lambda: (mod.get("Keys"), mod.get("OldImage"), mod.get("NewImage")),
     ({"pk": S("U#1"), "sk": S("P#1")},
      {"pk": S("U#1"), "sk": S("P#1"), "title": S("hello"), "likes": N(0)},
      {"pk": S("U#1"), "sk": S("P#1"), "title": S("hello"), "likes": N(1)}))
ins = by.get(("INSERT", "U#1", "PROFILE"), {})
step("INSERT: the record's members", lambda: (
    ins.get("eventVersion"), ins.get("eventSource"), ins.get("awsRegion"), "OldImage" in ins.get("dynamodb", {}),
    ins.get("dynamodb", {}).get("NewImage"), ins.get("dynamodb", {}).get("StreamViewType"),
    ins.get("dynamodb", {}).get("SizeBytes", 0) > 0, "userIdentity" in ins,
    abs(ins["dynamodb"]["ApproximateCreationDateTime"].timestamp() - time.time()) < 600),
    ("1.1", "aws:dynamodb", "ddblocal", False, {"pk": S("U#1"), "sk": S("PROFILE"), "name": S("ann")},
     "NEW_AND_OLD_IMAGES", True, False, True))
rem = by.get(("REMOVE", "U#1", "P#1"), {}).get("dynamodb", {})
step("REMOVE: OldImage only", lambda: ("NewImage" in rem, rem.get("OldImage")),
     (False, {"pk": S("U#1"), "sk": S("P#1"), "title": S("hello"), "likes": N(1)}))
sql = by.get(("MODIFY", "U#2", "P#1"), {}).get("dynamodb", {})
step("the plain SQL UPDATE: its images", lambda: (sql.get("OldImage", {}).get("likes"), sql.get("NewImage", {}).get("likes")),
     (N(0), N(5)))
ttl = by.get(("REMOVE", "U#3", "SESSION"), {})
step("the TTL deletion carries userIdentity (the service model's names, which boto3 reads)",
     lambda: ttl.get("userIdentity"), {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"})
step("no other record has userIdentity", lambda: sum("userIdentity" in r for r in recs), 1)
step("eventIDs unique", lambda: len({r["eventID"] for r in recs}), len(recs))

# -- iterators
step("LATEST taken before the writes: the same records", lambda: summary(read_iterator(latest, want=len(recs))),
     summary(recs))
pages = []
step("paging by Limit 2: the same records", lambda: summary(read_iterator(iterator(arn, "TRIM_HORIZON"), limit=2,
                                                                          pages=pages)), summary(recs))
step("pages of at most 2", lambda: max(pages) <= 2 and len(pages) >= len(recs) // 2, True)
s3 = recs[3]["dynamodb"]["SequenceNumber"] if len(recs) > 4 else "0" * 21
step("AT_SEQUENCE_NUMBER", lambda: streams.get_records(ShardIterator=iterator(arn, "AT_SEQUENCE_NUMBER", s3),
                                                       Limit=1)["Records"][0]["dynamodb"]["SequenceNumber"], s3)
step("AFTER_SEQUENCE_NUMBER", lambda: streams.get_records(ShardIterator=iterator(arn, "AFTER_SEQUENCE_NUMBER", s3),
                                                          Limit=1)["Records"][0]["dynamodb"]["SequenceNumber"],
     recs[4]["dynamodb"]["SequenceNumber"] if len(recs) > 4 else None)
step("LATEST now: nothing yet", lambda: streams.get_records(ShardIterator=iterator(arn, "LATEST"))["Records"], [])
step("an invalid iterator: ValidationException", lambda: code(lambda: streams.get_records(ShardIterator="x" * 40)),
     "ValidationException")
step("an unknown stream: ResourceNotFoundException",
     lambda: code(lambda: streams.describe_stream(StreamArn=arn + "0")), "ResourceNotFoundException")
step("an unknown shard: ResourceNotFoundException", lambda: code(lambda: streams.get_shard_iterator(
    StreamArn=arn, ShardId="shardId-00000000000000000000-00000000", ShardIteratorType="LATEST")),
    "ResourceNotFoundException")
old = iterator(arn, "TRIM_HORIZON")
psql("ALTER SYSTEM SET singletable.stream_iterator_lifetime = '1s'")
psql("SELECT pg_catalog.pg_reload_conf()")
time.sleep(2.5)
step("an expired iterator: ExpiredIteratorException", lambda: code(lambda: streams.get_records(ShardIterator=old)),
     "ExpiredIteratorException")
psql("ALTER SYSTEM RESET singletable.stream_iterator_lifetime")
psql("SELECT pg_catalog.pg_reload_conf()")
time.sleep(0.5)

# -- disable, re-enable with other view types: new ARNs, images per view type
step("enabling an enabled stream: ValidationException", lambda: code(lambda: ddb.update_table(
    TableName="posts", StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})), "ValidationException")
arns = [arn]
for view in ("KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE"):
    off = ddb.update_table(TableName="posts", StreamSpecification={"StreamEnabled": False})["TableDescription"]
    step(f"disable before {view}: no StreamSpecification, LatestStreamArn kept",
         lambda: ("StreamSpecification" in off, off.get("LatestStreamArn")), (False, arns[-1]))
    on = ddb.update_table(TableName="posts",
                          StreamSpecification={"StreamEnabled": True, "StreamViewType": view})["TableDescription"]
    new = on["LatestStreamArn"]
    step(f"re-enable {view}: a new ARN", lambda: (new not in arns, on["StreamSpecification"]["StreamViewType"]),
         (True, view))
    arns.append(new)
    step(f"{view}: ENABLED", lambda: wait_enabled(new), True)
    ddb.update_item(TableName="posts", Key={"pk": S("U#2"), "sk": S("PROFILE")}, UpdateExpression="SET v = :v",
                    ExpressionAttributeValues={":v": S(view)})
    got = read_iterator(iterator(new, "TRIM_HORIZON"), want=1)
    d = got[0]["dynamodb"] if got else {}
    step(f"{view}: the images of a MODIFY", lambda: (len(got), d.get("StreamViewType"), sorted(k for k in d if k.endswith("Image")),
                                                     d.get("Keys")),
         (1, view, {"KEYS_ONLY": [], "NEW_IMAGE": ["NewImage"], "OLD_IMAGE": ["OldImage"]}[view],
          {"pk": S("U#2"), "sk": S("PROFILE")}))
old_desc = streams.describe_stream(StreamArn=arns[0])["StreamDescription"]
step("the first stream: DISABLED, its records still readable",
     lambda: (old_desc["StreamStatus"], len(read_iterator(iterator(arns[0], "TRIM_HORIZON")))), ("DISABLED", len(recs)))
step("ListStreams by table: all four, newest first",
     lambda: [s["StreamArn"] for s in streams.list_streams(TableName="posts")["Streams"]], arns[::-1])
step("ListStreams paged by Limit 1", lambda: (
    lambda a: (len(a["Streams"]), a.get("LastEvaluatedStreamArn"),
               streams.list_streams(TableName="posts", Limit=1, ExclusiveStartStreamArn=a["LastEvaluatedStreamArn"])
               ["Streams"][0]["StreamArn"]))(streams.list_streams(TableName="posts", Limit=1)),
    (1, arns[-1], arns[-2]))
# singletable.dynamodb (a jsonb built) and dynamodb_as (the gateway's call, text written
# directly) answer the same GetRecords document
same_sql = ("WITH i AS (SELECT singletable.dynamodb('GetShardIterator', jsonb_build_object('StreamArn', '%s',"
            " 'ShardId', (singletable.dynamodb('DescribeStream', '{\"StreamArn\": \"%s\"}')"
            " #>> '{StreamDescription,Shards,0,ShardId}'), 'ShardIteratorType', 'TRIM_HORIZON')) ->> 'ShardIterator' AS it)"
            " SELECT (singletable.dynamodb('GetRecords', jsonb_build_object('ShardIterator', it)) #- '{NextShardIterator}')"
            " = (singletable.dynamodb_as(NULL, 'GetRecords', jsonb_build_object('ShardIterator', it)::text)::jsonb"
            " #- '{NextShardIterator}') FROM i") % (arns[0], arns[0])
step("dynamodb and dynamodb_as: the same GetRecords", lambda: psql(same_sql), "t")
ddb.delete_table(TableName="posts")
run.finish()
