#!/usr/bin/python3
"""test/bench/streams_lag.py ENDPOINT [SECONDS] [WRITERS]: the lag from a write's
acknowledgement to its record's visibility through GetRecords, under a steady put_item load,
through singletable-gateway (boto3; never part of CI).

Creates the table lag_bench with a NEW_AND_OLD_IMAGES stream (dropped at the end), waits
until the stream is ENABLED, takes a LATEST iterator, then WRITERS threads put items for
SECONDS while one reader follows the shard with GetRecords (Limit 1000, polling every 10 ms
when a page is empty). For each item: lag = the time its record was first returned - the time
its PutItem returned. Prints puts/s, records/s and the lag's p50, p90, p99 and max.
The server needs wal_level = logical and the library preloaded; the gateway any credentials
mode (the keys below are used when it checks them: AKIDBENCH / bench-secret)."""

import sys
import threading
import time

import boto3
import botocore.config

endpoint = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 20
writers = int(sys.argv[3]) if len(sys.argv) > 3 else 4
kw = dict(endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="AKIDBENCH",
          aws_secret_access_key="bench-secret",
          config=botocore.config.Config(retries={"total_max_attempts": 1}, max_pool_connections=writers + 2))
ddb = boto3.client("dynamodb", **kw)
streams = boto3.client("dynamodbstreams", **kw)
TABLE = "lag_bench"

try:
    ddb.delete_table(TableName=TABLE)
    time.sleep(1)
except Exception:  # noqa: BLE001 - absent is fine
    pass
arn = ddb.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                             {"AttributeName": "sk", "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                       StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
                       )["TableDescription"]["LatestStreamArn"]
for _ in range(600):
    d = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    if d["StreamStatus"] == "ENABLED":
        break
    time.sleep(0.1)
shard = d["Shards"][-1]["ShardId"]
it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="LATEST")["ShardIterator"]

acked = {}          # key -> time its PutItem returned
seen = {}           # key -> time its record was first returned
stop = threading.Event()
lock = threading.Lock()


def writer(w):
    client = boto3.client("dynamodb", **kw)
    i = 0
    while not stop.is_set():
        key = f"W{w}#{i}"
        client.put_item(TableName=TABLE, Item={"pk": {"S": f"W{w}"}, "sk": {"S": key}, "n": {"N": str(i)},
                                               "body": {"S": "x" * 200}})
        with lock:
            acked[key] = time.monotonic()
        i += 1


def reader():
    global it
    quiet_since = None
    while True:
        r = streams.get_records(ShardIterator=it, Limit=1000)
        now = time.monotonic()
        for rec in r["Records"]:
            seen.setdefault(rec["dynamodb"]["Keys"]["sk"]["S"], now)
        it = r["NextShardIterator"]
        if not r["Records"]:
            if stop.is_set():
                with lock:
                    if len(seen) >= len(acked):
                        return
                quiet_since = quiet_since or now
                if stop.is_set() and now - quiet_since > 30:
                    return
            time.sleep(0.01)
        else:
            quiet_since = None


threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
rt = threading.Thread(target=reader)
rt.start()
t0 = time.monotonic()
for t in threads:
    t.start()
time.sleep(seconds)
stop.set()
for t in threads:
    t.join()
elapsed = time.monotonic() - t0
rt.join()
lags = sorted(seen[k] - acked[k] for k in acked if k in seen)
missing = sum(1 for k in acked if k not in seen)


def pct(p):
    return lags[min(len(lags) - 1, int(p / 100 * len(lags)))] * 1000 if lags else float("nan")


print(f"writers {writers}, {elapsed:.1f} s: {len(acked)} puts ({len(acked) / elapsed:.0f}/s), "
      f"{len(seen)} records seen, {missing} missing")
print(f"lag from PutItem's answer to GetRecords: p50 {pct(50):.0f} ms, p90 {pct(90):.0f} ms, "
      f"p99 {pct(99):.0f} ms, max {lags[-1] * 1000 if lags else float('nan'):.0f} ms")
if missing:
    print("# missing, e.g.:", sorted(k for k in acked if k not in seen)[:10], "- table lag_bench kept")
else:
    ddb.delete_table(TableName=TABLE)
