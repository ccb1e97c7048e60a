#!/usr/bin/python3
"""test/gateway/test_partiql_cli.py: the posting app's access patterns as PartiQL through
singletable-gateway with the AWS CLI (Debian 12's awscli, /usr/bin/aws) — `aws dynamodb
execute-statement` (select by key, by begins_with, on the GSI "posting_cli"."gsi1",
insert-if-absent and the duplicate's error, a conditional update and the failed one,
delete, pages by --next-token), `batch-execute-statement` and `execute-transaction` (and a
cancelled one) — against the extension's real singletable.dynamodb. An error is seen as
the CLI shows it: exit code 254 and "An error occurred (Code) when calling the ...
operation: message" on stderr.

Run by test/gateway/run.sh after test_partiql.py, with the same environment (GATEWAY,
PGHOST, PGPORT; CREATE EXTENSION singletable done). Starts its own gateway, creates the
table posting_cli and deletes it at the end. TAP-style lines as test_sdk.py. No
/usr/bin/aws is a failure, not a skip: CI installs awscli (test/lib.sh). Always
/usr/bin/aws, never an `aws` found first on PATH (pyenv, pip): CI tests what Debian 12
ships; PARTIQL_CLI=path tries another one by hand."""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sdk_harness import SdkRun  # noqa: E402

AWS = os.environ.get("PARTIQL_CLI", "/usr/bin/aws")
TABLE = "posting_cli"
run = SdkRun("partiql-cli", "AKIDCLI cli-secret -\n")
step = run.step
ENV = {"PATH": "/usr/bin:/bin", "HOME": run.work, "LANG": "C.UTF-8",
       "AWS_ACCESS_KEY_ID": "AKIDCLI", "AWS_SECRET_ACCESS_KEY": "cli-secret",
       "AWS_DEFAULT_REGION": "us-east-1", "AWS_REGION": "us-east-1",
       "AWS_CONFIG_FILE": "/dev/null", "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
       "AWS_PAGER": "", "AWS_EC2_METADATA_DISABLED": "true"}


def aws(*args):
    """Runs `aws dynamodb ARGS --endpoint-url ...`; returns (exit code, parsed stdout or
    None, stderr)."""
    p = subprocess.run([AWS, "dynamodb", *args, "--endpoint-url", f"http://127.0.0.1:{run.port}",
                        "--output", "json", "--no-cli-pager"],
                       env=ENV, capture_output=True, text=True, timeout=120)
    out = json.loads(p.stdout) if p.stdout.strip() else None
    return p.returncode, out, p.stderr.strip()


def ok(*args):
    """aws(...) that must succeed: its parsed output (an exception otherwise: a failed step)."""
    rc, out, err = aws(*args)
    if rc != 0:
        raise RuntimeError(f"aws exited {rc}: {err}")
    return out


def es(stmt, params=None, *extra):
    args = ["execute-statement", "--statement", stmt]
    if params is not None:
        args += ["--parameters", json.dumps(params)]
    return [*args, *extra]


def error(rc_out_err):
    """The exit code and the error line of the CLI's stderr."""
    rc, _, err = rc_out_err
    return rc, err.splitlines()[-1] if err else ""


def plain(items):
    """The items with their AttributeValues' values (S, N as text, ...)."""
    return [{k: next(iter(v.values())) for k, v in i.items()} for i in items]


S = lambda s: {"S": s}  # noqa: E731
INSERT = f"INSERT INTO \"{TABLE}\" VALUE {{'pk': ?, 'sk': ?, 'title': ?, 'status': ?}}"

if not os.access(AWS, os.X_OK):
    # Counted as a failure: CI installs awscli (test/lib.sh, ST_PKG_TEST).
    print(f"not ok 1 - partiql-cli: no {AWS} (apt-get install awscli)")
    sys.exit(1)
step("aws --version: the CLI runs", lambda: subprocess.run(
    [AWS, "--version"], env=ENV, capture_output=True, text=True, timeout=60).stdout.startswith("aws-cli/"), True)
print("# " + subprocess.run([AWS, "--version"], env=ENV, capture_output=True, text=True, timeout=60).stdout.strip())

aws("delete-table", "--table-name", TABLE)
step("create-table with gsi1", lambda: ok(
    "create-table", "--table-name", TABLE, "--billing-mode", "PAY_PER_REQUEST",
    "--attribute-definitions", *[f"AttributeName={n},AttributeType=S" for n in ("pk", "sk", "gsi1pk", "gsi1sk")],
    "--key-schema", "AttributeName=pk,KeyType=HASH", "AttributeName=sk,KeyType=RANGE",
    "--global-secondary-indexes", json.dumps([{
        "IndexName": "gsi1", "Projection": {"ProjectionType": "ALL"},
        "KeySchema": [{"AttributeName": "gsi1pk", "KeyType": "HASH"},
                      {"AttributeName": "gsi1sk", "KeyType": "RANGE"}]}]))["TableDescription"]["TableName"], TABLE)


def load():
    for sk, title, status in (("POST#p_0017", "Single-table on Postgres", "approved"),
                              ("POST#p_0018", "Key overloading", "draft"),
                              ("POST#p_0019", "begins_with is a range", "draft")):
        ok(*es(INSERT, [S("USER#u_1001"), S(sk), S(title), S(status)]))
    ok(*es(f"INSERT INTO \"{TABLE}\" VALUE {{'pk': 'USER#u_1001', 'sk': 'PROFILE', 'name': 'Aiko', 'likes': 0}}"))
    ok(*es(f"UPDATE \"{TABLE}\" SET gsi1pk = 'STATUS#approved', gsi1sk = '2026-06-23' "
           "WHERE pk = 'USER#u_1001' AND sk = 'POST#p_0017'"))
    return len(ok(*es(f'SELECT sk FROM "{TABLE}" WHERE pk = ?', [S("USER#u_1001")]))["Items"])


step("insert-if-absent (INSERT with --parameters), UPDATE SET: 4 items", load, 4)
step("INSERT of an existing key: exit 254, DuplicateItemException on stderr",
     lambda: error(aws(*es(INSERT, [S("USER#u_1001"), S("POST#p_0017"), S("x"), S("draft")]))),
     (254, "An error occurred (DuplicateItemException) when calling the ExecuteStatement operation: "
           "Duplicate primary key exists in table"))
step("select by key", lambda: plain(ok(*es(
    f"SELECT name, likes FROM \"{TABLE}\" WHERE pk = 'USER#u_1001' AND sk = 'PROFILE'"))["Items"]),
    [{"name": "Aiko", "likes": "0"}])
step("select by begins_with, ORDER BY sk DESC", lambda: [i["sk"] for i in plain(ok(*es(
    f"SELECT sk FROM \"{TABLE}\" WHERE pk = 'USER#u_1001' AND begins_with(sk, 'POST#') ORDER BY sk DESC"))["Items"])],
    ["POST#p_0019", "POST#p_0018", "POST#p_0017"])
step("select on the GSI \"gsi1\"", lambda: plain(ok(*es(
    f"SELECT sk, title FROM \"{TABLE}\".\"gsi1\" WHERE gsi1pk = ?", [S("STATUS#approved")]))["Items"]),
    [{"sk": "POST#p_0017", "title": "Single-table on Postgres"}])
step("select a key range (two sort-key terms) and pk IN [...]", lambda: (
    [i["sk"] for i in plain(ok(*es(f"SELECT sk FROM \"{TABLE}\" WHERE pk = 'USER#u_1001' "
                                   "AND sk > 'POST#p_0017' AND sk <= 'POST#p_0019'"))["Items"])],
    [i["pk"] for i in plain(ok(*es(f"SELECT pk FROM \"{TABLE}\" WHERE pk IN ['USER#none', 'USER#u_1001'] "
                                   "AND sk = 'PROFILE'"))["Items"])]),
    (["POST#p_0018", "POST#p_0019"], ["USER#u_1001"]))


def pages():
    # --limit with --next-token by hand (the CLI does not page execute-statement itself)
    got, token = [], None
    while True:
        extra = ["--limit", "2"] + (["--next-token", token] if token else [])
        r = ok(*es(f"SELECT sk FROM \"{TABLE}\" WHERE pk = 'USER#u_1001'", None, *extra))
        got.append(len(r["Items"]))
        token = r.get("NextToken")
        if not token or len(got) > 5:
            return got


step("--limit 2 and --next-token: the pages", pages, [2, 2, 0])
step("conditional update (a draft is approved once), RETURNING ALL NEW *", lambda: plain(ok(*es(
    f"UPDATE \"{TABLE}\" SET status = 'approved' WHERE pk = 'USER#u_1001' AND sk = 'POST#p_0018' "
    "AND status = 'draft' RETURNING ALL NEW *"))["Items"])[0]["status"], "approved")
step("the same update again: exit 254, ConditionalCheckFailedException", lambda: error(aws(*es(
    f"UPDATE \"{TABLE}\" SET status = 'approved' WHERE pk = 'USER#u_1001' AND sk = 'POST#p_0018' "
    "AND status = 'draft'")))[1].split(":")[0],
    "An error occurred (ConditionalCheckFailedException) when calling the ExecuteStatement operation")
step("delete a draft, RETURNING ALL OLD *", lambda: plain(ok(*es(
    f"DELETE FROM \"{TABLE}\" WHERE pk = 'USER#u_1001' AND sk = 'POST#p_0019' AND status = 'draft' "
    "RETURNING ALL OLD *"))["Items"])[0]["title"], "begins_with is a range")
step("the item is gone", lambda: ok(*es(
    f"SELECT * FROM \"{TABLE}\" WHERE pk = 'USER#u_1001' AND sk = 'POST#p_0019'"))["Items"], [])
step("a malformed statement: exit 254, ValidationException", lambda: error(aws(*es("SELEC * FROM x")))[1]
     .startswith("An error occurred (ValidationException) when calling the ExecuteStatement operation"), True)


def batch_writes():
    r = ok("batch-execute-statement", "--statements", json.dumps([
        {"Statement": INSERT, "Parameters": [S("USER#u_1002"), S("POST#p_0101"), S("Launch"), S("draft")]},
        {"Statement": INSERT, "Parameters": [S("USER#u_1001"), S("PROFILE"), S("x"), S("x")]}]))["Responses"]
    return "Error" in r[0], r[1]["Error"]["Code"]


def batch_reads():
    r = ok("batch-execute-statement", "--statements", json.dumps([
        {"Statement": f"SELECT name FROM \"{TABLE}\" WHERE pk = ? AND sk = ?",
         "Parameters": [S("USER#u_1001"), S("PROFILE")]},
        {"Statement": f"SELECT title FROM \"{TABLE}\" WHERE pk = 'USER#u_1002' AND sk = 'POST#p_0101'"},
        {"Statement": f"SELECT * FROM \"{TABLE}\" WHERE pk = 'USER#u_1001'"}]))["Responses"]
    return plain([r[0]["Item"], r[1]["Item"]]), r[2]["Error"]["Code"]


step("batch-execute-statement: writes, one DuplicateItem", batch_writes, (False, "DuplicateItem"))
step("batch-execute-statement: reads, a non-key SELECT's Error", batch_reads,
     ([{"name": "Aiko"}, {"title": "Launch"}], "ValidationError"))


def transaction():
    ok("execute-transaction", "--transact-statements", json.dumps([
        {"Statement": f"UPDATE \"{TABLE}\" SET likes = likes + 1 WHERE pk = 'USER#u_1001' AND sk = 'PROFILE'"},
        {"Statement": f"EXISTS(SELECT * FROM \"{TABLE}\" WHERE pk = 'USER#u_1002' AND sk = 'POST#p_0101' AND status = 'draft')"},
        {"Statement": INSERT, "Parameters": [S("USER#u_1002"), S("POST#p_0102"), S("Two"), S("draft")]}]))
    r = ok("execute-transaction", "--transact-statements", json.dumps([
        {"Statement": f"SELECT likes FROM \"{TABLE}\" WHERE pk = 'USER#u_1001' AND sk = 'PROFILE'"},
        {"Statement": f"SELECT title FROM \"{TABLE}\" WHERE pk = 'USER#u_1002' AND sk = 'POST#p_0102'"}]))
    return plain([x["Item"] for x in r["Responses"]])


step("execute-transaction: writes, then a read transaction", transaction, [{"likes": "1"}, {"title": "Two"}])


def cancelled():
    rc, _, err = aws("execute-transaction", "--transact-statements", json.dumps([
        {"Statement": f"UPDATE \"{TABLE}\" SET likes = likes + 1 WHERE pk = 'USER#u_1001' AND sk = 'PROFILE'"},
        {"Statement": f"EXISTS(SELECT * FROM \"{TABLE}\" WHERE pk = 'USER#u_1002' AND sk = 'nope' AND status = 'draft')"}]))
    likes = plain(ok(*es(f"SELECT likes FROM \"{TABLE}\" WHERE pk = 'USER#u_1001' AND sk = 'PROFILE'"))["Items"])
    return rc, "(TransactionCanceledException)" in err and "[None, ConditionalCheckFailed]" in err, likes


step("execute-transaction cancelled: exit 254, the reasons on stderr, nothing applied", cancelled,
     (254, True, [{"likes": "1"}]))

step("delete-table", lambda: ok("delete-table", "--table-name", TABLE)["TableDescription"]["TableName"], TABLE)
run.finish()
