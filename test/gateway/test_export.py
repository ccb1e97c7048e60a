#!/usr/bin/python3
"""test/gateway/test_export.py: the programs of singletable.export_code run against
singletable-gateway (issue 29): for each request of the posting app (its posts by
begins_with, paged two at a time; one post by GetItem; the approved posts of GSI1; a
filtered Scan), the JavaScript program (AWS SDK v3 DocumentClient, run by node from
test/gateway/js, whose node_modules has the SDK), the Python program (boto3's Table
resource, Debian's python3) and the SQL program (psql) are written by export_code and run;
all three print the same items, in the same order, as the request itself answers through
boto3. The programs' inputs (the entity fields of the keys) are given once too: another
user's posts.

Run by test/gateway/run.sh after the JavaScript tests (npm ci done), with the same
environment (GATEWAY, PGHOST, PGPORT, PATH with psql). TAP-style lines as test_sdk.py."""

import json
import os
import subprocess
import sys
import tempfile

import boto3

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sdk_harness import SdkRun  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = "posting_export"
run = SdkRun("export", "AKIDEXPORT export-secret -\n")
step = run.step
endpoint = f"http://127.0.0.1:{run.port}"
env = dict(os.environ, DYNAMODB_ENDPOINT=endpoint, AWS_ACCESS_KEY_ID="AKIDEXPORT",
           AWS_SECRET_ACCESS_KEY="export-secret", AWS_REGION="us-east-1", AWS_DEFAULT_REGION="us-east-1",
           AWS_CONFIG_FILE="/dev/null", AWS_SHARED_CREDENTIALS_FILE="/dev/null")
ddb = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                   aws_access_key_id="AKIDEXPORT", aws_secret_access_key="export-secret")
work = tempfile.mkdtemp(prefix="export.")


def psql(sql, *args):
    return subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", *args, "-c", sql],
                          capture_output=True, text=True, check=True, env=env).stdout


def export(request, language):
    return psql("SELECT singletable.export_code(%s, %s::jsonb, %s)" % (
        "'" + TABLE + "'", "'" + json.dumps(request).replace("'", "''") + "'", "'" + language + "'"))


def lines(out):
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def canonical(v):
    """One form for the three programs' items: a set as its sorted strings ({"$SS": [...]}
    in SQL's plain JSON, an array in the programs' output), numbers as numbers."""
    if isinstance(v, dict):
        if len(v) == 1 and next(iter(v)) in ("$SS", "$NS"):
            return sorted(str(e) for e in next(iter(v.values())))
        return {k: canonical(e) for k, e in v.items()}
    if isinstance(v, list):
        return [canonical(e) for e in v]
    return v


def run_program(request, language, *inputs):
    text = export(request, language)
    if language == "javascript":
        # in test/gateway/js, so that its node_modules resolves the SDK's packages
        path = os.path.join(HERE, "js", f".export-{os.getpid()}.mjs")
        cmd = ["node", path, *inputs]
    elif language == "python":
        path = os.path.join(work, "program.py")
        cmd = ["/usr/bin/python3", "-I", path, *inputs]
    else:
        path = os.path.join(work, "program.sql")
        names = [ln.split()[1] for ln in text.splitlines() if ln.startswith("\\set ")]
        cmd = ["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-f", path]
        for name, value in zip(names, inputs):
            cmd[1:1] = ["-v", f"{name}={value}"]
    with open(path, "w") as f:
        f.write(text)
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    finally:
        if language == "javascript":
            os.unlink(path)
    if out.returncode != 0:
        raise RuntimeError(f"{language} program failed:\n{out.stderr}\n{text}")
    return [canonical(i) for i in lines(out.stdout)]


def deserialized(items):
    from boto3.dynamodb.types import TypeDeserializer
    d = TypeDeserializer()
    out = []
    for item in items:
        plain = {k: d.deserialize(v) for k, v in item.items()}
        out.append(canonical(json.loads(json.dumps(plain, default=lambda v: (
            sorted(str(e) for e in v) if isinstance(v, (set, frozenset)) else
            int(v) if v == v.to_integral_value() else float(v))))))
    return out


def answered(op, request):
    """The items the request itself answers through boto3, every page."""
    items, req = [], dict(request, TableName=TABLE)
    while True:
        page = getattr(ddb, op)(**req)
        items += page.get("Items", [page["Item"]] if "Item" in page else [])
        if "LastEvaluatedKey" not in page:
            return deserialized(items)
        req["ExclusiveStartKey"] = page["LastEvaluatedKey"]


step("CreateTable posting_export with GSI1", lambda: ddb.create_table(
    TableName=TABLE, BillingMode="PAY_PER_REQUEST",
    AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "gsi1pk", "gsi1sk")],
    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    GlobalSecondaryIndexes=[{"IndexName": "GSI1", "Projection": {"ProjectionType": "ALL"},
                             "KeySchema": [{"AttributeName": "gsi1pk", "KeyType": "HASH"},
                                           {"AttributeName": "gsi1sk", "KeyType": "RANGE"}]}],
)["TableDescription"]["TableName"], TABLE)
step("define_entity user and post (GSI1: approved posts by publish time)", lambda: psql(
    f"SELECT singletable.define_entity('{TABLE}', 'user', 'USER#{{userId}}', 'PROFILE');"
    f"SELECT singletable.define_entity('{TABLE}', 'post', 'USER#{{userId}}', 'POST#{{postId:int(4)}}',"
    " indexes => '{\"GSI1\": {\"pk\": \"STATUS#{status}\", \"sk\": \"{publishedAt:timestamp}\"}}')"), "\n\n")


def put_posts():
    for user in ("u_1001", "u_1002"):
        ddb.put_item(TableName=TABLE, Item={"pk": {"S": f"USER#{user}"}, "sk": {"S": "PROFILE"},
                                            "name": {"S": user.upper()}})
        for i in range(1, 6):
            item = {"pk": {"S": f"USER#{user}"}, "sk": {"S": f"POST#{i:04d}"}, "title": {"S": f"post {i}"},
                    "views": {"N": str(i * 100)}, "tags": {"SS": ["pg", f"t{i}"]},
                    "meta": {"M": {"draft": {"BOOL": i % 2 == 0}, "words": {"L": [{"N": "1"}, {"S": "x"}]}}}}
            if i % 2 == 1:
                item["gsi1pk"] = {"S": "STATUS#approved"}
                item["gsi1sk"] = {"S": f"2026-06-{20 + i:02d}T08:00Z"}
            ddb.put_item(TableName=TABLE, Item=item)
    return len(lines_of_table())


def lines_of_table():
    return answered("scan", {})


step("put the posting app's items through boto3", put_posts, 12)

REQUESTS = [
    ("posts of a user by begins_with, two a page", "query",
     {"KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
      "ExpressionAttributeValues": {":p": {"S": "USER#u_1001"}, ":s": {"S": "POST#"}}, "Limit": 2},
     ["u_1002"], 5),
    ("one post by GetItem, with a projection", "get_item",
     {"Key": {"pk": {"S": "USER#u_1001"}, "sk": {"S": "POST#0003"}},
      "ProjectionExpression": "title, #v, tags", "ExpressionAttributeNames": {"#v": "views"}},
     ["u_1002", "0004"], 1),
    ("approved posts on GSI1 after a time, newest first", "query",
     {"IndexName": "GSI1", "KeyConditionExpression": "gsi1pk = :s AND gsi1sk > :t",
      "ExpressionAttributeValues": {":s": {"S": "STATUS#approved"}, ":t": {"S": "2026-06-21T08:00Z"}},
      "ScanIndexForward": False},
     ["approved", "2026-06-23T08:00Z"], 4),
    ("a filtered Scan, one item a page", "scan",
     {"FilterExpression": "#v >= :n AND contains(tags, :t)", "ExpressionAttributeNames": {"#v": "views"},
      "ExpressionAttributeValues": {":n": {"N": "300"}, ":t": {"S": "pg"}}, "Limit": 1},
     [], 6),
]

for name, op, request, inputs, count in REQUESTS:
    expected = answered(op, request)
    step(f"{name}: the request answers {count} items", lambda e=expected: len(e), count)
    for language in ("javascript", "python", "sql"):
        step(f"{name}: the {language} program prints them",
             lambda r=request, lang=language: run_program(r, lang), expected)
    if inputs:
        # the same programs with the entity fields of their keys given
        js = run_program(request, "javascript", *inputs)
        step(f"{name}: with inputs {inputs}, python prints what javascript does",
             lambda r=request: run_program(r, "python", *inputs), js)
        step(f"{name}: with inputs {inputs}, sql prints what javascript does",
             lambda r=request: run_program(r, "sql", *inputs), js)
        step(f"{name}: with inputs {inputs}, other items", lambda: bool(js) and js != expected, True)

step("a typo in a prefix is refused at export", lambda: subprocess.run(
    ["psql", "-X", "-At", "-c", "SELECT singletable.export_code('%s', '%s')" % (TABLE, json.dumps({
        "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
        "ExpressionAttributeValues": {":p": {"S": "USER#u_1001"}, ":s": {"S": "POSTS#"}}}))],
    capture_output=True, text=True, env=env).stderr.splitlines()[0],
     "ERROR:  no entity of table \"posting_export\" has a sort key beginning with 'POSTS#'; "
     "did you mean 'POST#' (entity post)?")
step("DeleteTable", lambda: ddb.delete_table(TableName=TABLE)["TableDescription"]["TableName"], TABLE)
run.finish()
