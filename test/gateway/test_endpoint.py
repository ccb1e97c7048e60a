#!/usr/bin/python3
"""test/gateway/test_endpoint.py: the in-server endpoint, singletable_endpoint (issue 26):
the gateway's HTTP side run by background workers of PostgreSQL, each call in the worker's
own backend. test/gateway/run.sh starts the server with it preloaded and sets
ENDPOINT_PORT (singletable_endpoint.listen's port), ENDPOINT_CREDENTIALS (its credentials
file, which this test writes), ENDPOINT_LOG (the server's log) and ENDPOINT_WORKERS; the
workers log in as postgres, run with request_timeout = 6 s and log_level = info. The SDK
suites (test_sdk.py, ...) run against the same endpoint afterwards (sdk_harness.py).

- the workers: ENDPOINT_WORKERS of them in pg_stat_activity, one thread each, the health
  answer;
- SigV4: unsigned, wrong secret, unknown key and an unsigned X-Amz-Target replayed with
  another target are refused; keys added or removed take effect on pg_reload_conf();
- DynamoDB's errors: a failed condition, a cancelled transaction with its reasons (the
  extension's DETAIL body verbatim), a missing table; a failed call leaves no write behind;
  the x-singletable-warning header of an entity check;
- the role switch: a tenant's trigger that tries RESET ROLE or SET ROLE to another tenant
  fails, its write with it, and the other tenant's table is untouched;
- a call cancelled (pg_cancel_backend, as statement_timeout does) answers an error at
  once, writes nothing, and the worker serves the next request;
- after calls that failed (whose abort unblocks every signal), pg_reload_conf() still
  reaches every worker;
- 1,024 slow clients from eight addresses: a normal signed request is answered within 2 s,
  and the slow ones are closed by the request deadline;
- pg_terminate_backend of a worker: the others serve, and it is started again;
- ALTER SYSTEM refuses a listening address that is not HOST:PORT and a worker count out of
  range, writing nothing;
- at the end: no backend of the server died of a signal (the postmaster never restarted).

Prints one TAP-style line per test and "N passed, N failed"; exits 1 on any failure."""

import os
import re
import subprocess
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_gateway as tg  # noqa: E402  (sign, request, check, expect_error, psql)
import test_loop as tl  # noqa: E402  (SlowClients)

check = tg.check
PORT = int(os.environ["ENDPOINT_PORT"])
CREDS = os.environ["ENDPOINT_CREDENTIALS"]
LOG = os.environ["ENDPOINT_LOG"]
WORKERS = int(os.environ.get("ENDPOINT_WORKERS", "2"))
EP_KEYS = {
    "AKIDEPA": ("ep-a-secret", "gw_ep_a"),
    "AKIDEPB": ("ep-b-secret", "gw_ep_b"),
    "AKIDEPADMIN": ("ep-admin-secret", "-"),
}
tg.KEYS.update(EP_KEYS)


def psql(sql):
    return tg.psql(sql)


def write_keys(keys):
    with open(CREDS, "w") as f:
        f.write("# test_endpoint.py\n")
        for k, (secret, role) in keys.items():
            f.write(f"{k} {secret} {role}\n")


def reload_and_wait(key, want):
    """pg_reload_conf(), then until 12 signed requests in a row (new connections, so any
    worker) with key get status want."""
    psql("SELECT pg_reload_conf()")
    streak = 0
    for _ in range(300):
        try:
            status = req("ListTables", {}, key=key).status
        except OSError:
            status = 0
        streak = streak + 1 if status == want else 0
        if streak >= 12:
            return
        time.sleep(0.05)
    raise AssertionError(f"after pg_reload_conf, {key} never got {want} from every worker")


def add_and_remove_key(key_id):
    """A key added to the credentials file is accepted by every worker after pg_reload_conf(),
    and refused again once removed."""
    tg.KEYS[key_id] = (key_id.lower() + "-secret", "gw_ep_a")
    write_keys(dict(EP_KEYS, **{key_id: tg.KEYS[key_id]}))
    reload_and_wait(key_id, 200)
    write_keys(EP_KEYS)
    reload_and_wait(key_id, 400)


def req(operation, doc=None, key="AKIDEPADMIN", **kw):
    return tg.request(PORT, operation, doc, key=key, **kw)


def worker_pids():
    out = psql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'singletable endpoint' ORDER BY pid")
    return [int(p) for p in out.split()] if out else []


def log_size():
    return os.path.getsize(LOG)


def log_since(offset):
    with open(LOG, errors="replace") as f:
        f.seek(offset)
        return f.read()


def setup():
    psql("""
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'gw_ep_a') THEN CREATE ROLE gw_ep_a; END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'gw_ep_b') THEN CREATE ROLE gw_ep_b; END IF;
END $$;
GRANT CREATE ON SCHEMA public TO gw_ep_a, gw_ep_b;
""")
    write_keys(EP_KEYS)
    reload_and_wait("AKIDEPA", 200)
    for key, table in (("AKIDEPA", "ep_a"), ("AKIDEPB", "ep_b")):
        r = req("CreateTable", {"TableName": table, "BillingMode": "PAY_PER_REQUEST",
                                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                              {"AttributeName": "sk", "KeyType": "RANGE"}],
                                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                                         {"AttributeName": "sk", "AttributeType": "S"}]}, key=key)
        check(r.status == 200, f"CreateTable {table} as {key}: {r!r}")


def item(pk, sk, **attrs):
    d = {"pk": {"S": pk}, "sk": {"S": sk}}
    d.update({k: {"S": v} for k, v in attrs.items()})
    return d


# --- the tests -----------------------------------------------------------------------

def test_workers():
    pids = worker_pids()
    check(len(pids) == WORKERS, f"{len(pids)} endpoint workers in pg_stat_activity, expected {WORKERS}")
    for pid in pids:
        with open(f"/proc/{pid}/status") as f:
            threads = int(re.search(r"^Threads:\s+(\d+)", f.read(), re.M).group(1))
        check(threads == 1, f"worker {pid} runs {threads} threads")
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
    conn.request("GET", "/")
    r = conn.getresponse()
    body = r.read()
    check(r.status == 200 and body.startswith(b"healthy"), f"health: {r.status} {body!r}")


def test_signatures():
    tg.expect_error(req("ListTables", {}, key=None), 400, "com.amazon.coral.service#MissingAuthenticationTokenException")
    r = req("ListTables", {}, key="AKIDNOBODY")
    tg.expect_error(r, 400, "com.amazon.coral.service#UnrecognizedClientException")
    r = req("ListTables", {}, key="AKIDEPA", tamper=lambda b: b.replace(b"{", b"{ "))
    tg.expect_error(r, 400, "com.amazon.coral.service#InvalidSignatureException")
    # a GetItem signed over host and x-amz-date only, replayed as DeleteItem: refused
    check(req("PutItem", {"TableName": "ep_a", "Item": item("p", "keep")}, key="AKIDEPA").status == 200, "put")
    r = req("GetItem", {"TableName": "ep_a", "Key": item("p", "keep")}, key="AKIDEPA",
            target="DynamoDB_20120810.DeleteItem", sign_kw={"signed": ("host", "x-amz-date")})
    tg.expect_error(r, 400, "com.amazon.coral.service#InvalidSignatureException")
    r = req("GetItem", {"TableName": "ep_a", "Key": item("p", "keep")}, key="AKIDEPA")
    check(r.status == 200 and "Item" in r.json(), f"the item is still there: {r!r}")
    # a key added, then removed, with pg_reload_conf()
    add_and_remove_key("AKIDEPNEW")


def test_errors():
    check(req("PutItem", {"TableName": "ep_a", "Item": item("c", "1", v="a")}, key="AKIDEPA").status == 200, "put")
    r = req("PutItem", {"TableName": "ep_a", "Item": item("c", "1", v="b"), "ConditionExpression": "attribute_not_exists(pk)",
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}, key="AKIDEPA")
    tg.expect_error(r, 400, "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException")
    check(r.json().get("Item", {}).get("v") == {"S": "a"}, f"the old item in the error: {r!r}")
    # a transaction whose second condition fails: nothing written, reasons in order
    r = req("TransactWriteItems", {"TransactItems": [
        {"Put": {"TableName": "ep_a", "Item": item("t", "new")}},
        {"ConditionCheck": {"TableName": "ep_a", "Key": item("c", "1"), "ConditionExpression": "v = :x",
                            "ExpressionAttributeValues": {":x": {"S": "zzz"}}}}]}, key="AKIDEPA")
    tg.expect_error(r, 400, "com.amazonaws.dynamodb.v20120810#TransactionCanceledException")
    codes = [x.get("Code") for x in r.json().get("CancellationReasons", [])]
    check(codes == ["None", "ConditionalCheckFailed"], f"reasons {codes}")
    r = req("GetItem", {"TableName": "ep_a", "Key": item("t", "new"), "ConsistentRead": True}, key="AKIDEPA")
    check(r.status == 200 and "Item" not in r.json(), f"the cancelled transaction wrote: {r!r}")
    tg.expect_error(req("GetItem", {"TableName": "nope", "Key": item("a", "b")}, key="AKIDEPA"), 400,
                    "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException")
    # tenant B may not read tenant A's table (grants decide, as through the gateway)
    r = req("GetItem", {"TableName": "ep_a", "Key": item("c", "1")}, key="AKIDEPB")
    check(r.status == 400 and r.type.endswith("AccessDeniedException"), f"B reads A's table: {r!r}")
    # an entity check's WARNING: in x-singletable-warning, the item written
    psql("SELECT singletable.define_entity('ep_a', 'user', pk => 'USER#{id}', sk => 'PROFILE')")
    r = req("PutItem", {"TableName": "ep_a", "Item": item("USR#1", "PROFILE")}, key="AKIDEPA")
    check(r.status == 200 and r.headers.get("x-singletable-warning", "").startswith('item for table "ep_a" matches no entity'),
          f"warning header: {r.headers.get('x-singletable-warning')!r}")
    r = req("PutItem", {"TableName": "ep_a", "Item": item("USER#1", "PROFILE")}, key="AKIDEPA")
    check(r.status == 200 and "x-singletable-warning" not in r.headers, f"no warning: {r.headers}")


def test_role_escape():
    """A tenant's trigger runs during the call as the key's role; it cannot leave it."""
    psql("""
CREATE FUNCTION public.ep_escape() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.pk = 'reset' THEN RESET ROLE; END IF;
  IF NEW.pk = 'setrole' THEN SET ROLE gw_ep_b; END IF;
  IF NEW.pk = 'session' THEN SET SESSION AUTHORIZATION postgres; END IF;
  INSERT INTO public.ep_b (pk, sk, item) VALUES ('stolen', NEW.pk, '{}');
  RETURN NEW;
END $$;
ALTER FUNCTION public.ep_escape() OWNER TO gw_ep_a;
CREATE TRIGGER ep_escape BEFORE INSERT ON public.ep_a FOR EACH ROW WHEN (NEW.pk IN ('reset', 'setrole', 'session'))
  EXECUTE FUNCTION public.ep_escape();
""")
    try:
        for how in ("reset", "setrole", "session"):
            r = req("PutItem", {"TableName": "ep_a", "Item": item(how, "x")}, key="AKIDEPA")
            check(r.status >= 400, f"{how}: the trigger's role change succeeded: {r!r}")
            r = req("GetItem", {"TableName": "ep_a", "Key": item(how, "x"), "ConsistentRead": True}, key="AKIDEPA")
            check(r.status == 200 and "Item" not in r.json(), f"{how}: written: {r!r}")
        check(psql("SELECT count(*) FROM public.ep_b WHERE pk = 'stolen'") == "0", "tenant B's table was written")
    finally:
        psql("DROP TRIGGER ep_escape ON public.ep_a; DROP FUNCTION public.ep_escape()")


def test_cancel():
    """A call cancelled as statement_timeout cancels it (SIGINT to the worker)."""
    psql("""
CREATE FUNCTION public.ep_slow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$;
CREATE TRIGGER ep_slow BEFORE INSERT ON public.ep_a FOR EACH ROW WHEN (NEW.pk = 'slow') EXECUTE FUNCTION public.ep_slow();
""")
    try:
        result = {}

        def call():
            start = time.monotonic()
            result["r"] = req("PutItem", {"TableName": "ep_a", "Item": item("slow", "1")}, key="AKIDEPA")
            result["took"] = time.monotonic() - start

        t = threading.Thread(target=call)
        t.start()
        pid = None
        for _ in range(100):
            pid = psql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'singletable endpoint' "
                       "AND wait_event = 'PgSleep'")
            if pid:
                break
            time.sleep(0.05)
        check(pid, "no worker is running the slow call")
        check(psql(f"SELECT pg_cancel_backend({pid})") == "t", "pg_cancel_backend")
        t.join(10)
        r = result.get("r")
        check(r is not None and r.status >= 400, f"the cancelled call: {r!r}")
        check(result["took"] < 5, f"the cancelled call took {result['took']:.1f} s")
        r = req("GetItem", {"TableName": "ep_a", "Key": item("slow", "1"), "ConsistentRead": True}, key="AKIDEPA")
        check(r.status == 200 and "Item" not in r.json(), f"the cancelled call wrote: {r!r}")
        for _ in range(2 * WORKERS):
            check(req("ListTables", {}).status == 200, "served after the cancel")
    finally:
        psql("DROP TRIGGER ep_slow ON public.ep_a; DROP FUNCTION public.ep_slow()")


def test_reload_after_errors():
    """After calls that raised errors (their transaction's abort unblocks every signal), a
    reload still reaches every worker."""
    for _ in range(4 * WORKERS):
        tg.expect_error(req("GetItem", {"TableName": "nope", "Key": item("a", "b")}, key="AKIDEPA"), 400,
                        "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException")
    add_and_remove_key("AKIDEPNEW2")


def test_slow_clients():
    timeout = 6
    offset = log_size()
    slow = tl.SlowClients(PORT)
    try:
        for _ in range(3):
            start = time.monotonic()
            r = req("DescribeLimits", {}, timeout=10)
            took = time.monotonic() - start
            check(r.status == 200, repr(r))
            check(took < 2, f"a normal request took {took:.2f} s with {tl.SLOW} slow clients held")
            slow.trickle_and_watch(time.monotonic() + 0.5)
        check(not slow.closed_at, f"{len(slow.closed_at)} slow connections closed before their deadline")
        slow.check_closed_by_deadline(timeout)
        check(re.search(r"closed \d+ connections? that sent no whole request within 6 s", log_since(offset)),
              "the workers did not log the closed connections")
        check(req("DescribeLimits", {}).status == 200, "serves after the slow clients")
    finally:
        slow.close()


def test_terminate():
    pids = worker_pids()
    check(len(pids) == WORKERS, f"workers {pids}")
    check(psql(f"SELECT pg_terminate_backend({pids[0]})") == "t", "pg_terminate_backend")
    # once it has drained and exited (a connection the kernel queued to its listening socket
    # before it closed it is reset, as a stopping gateway's is; the SDKs retry those)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and os.path.exists(f"/proc/{pids[0]}"):
        time.sleep(0.05)
    check(not os.path.exists(f"/proc/{pids[0]}"), f"worker {pids[0]} did not exit")
    for _ in range(2 * WORKERS):
        check(req("ListTables", {}).status == 200, "the other workers serve")
    # started again by the postmaster (bgw_restart_time 10 s)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and (pids[0] in worker_pids() or len(worker_pids()) < WORKERS):
        time.sleep(0.2)
    now = worker_pids()
    check(len(now) == WORKERS and pids[0] not in now, f"workers after the terminate: {now} (before {pids})")
    for _ in range(2 * WORKERS):
        check(req("ListTables", {}).status == 200, "every worker serves again")


def test_settings_checked():
    """ALTER SYSTEM refuses a listening address that is not HOST:PORT and a worker count out
    of range (the settings' checks), and writes nothing to postgresql.auto.conf."""
    before = psql("SELECT coalesce(string_agg(name || '=' || setting, ',' ORDER BY name), '') "
                  "FROM pg_file_settings WHERE sourcefile LIKE '%postgresql.auto.conf'")
    for setting, value, pattern in [("listen", "nocolon", r"HOST:PORT"), ("listen", "127.0.0.1:", r"HOST:PORT"),
                                    ("listen", ":8000", r"HOST:PORT"), ("listen", "127.0.0.1:80x", r"HOST:PORT"),
                                    ("workers", "0", r"outside the valid range"),
                                    ("workers", "65", r"outside the valid range")]:
        out = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c",
                              f"ALTER SYSTEM SET singletable_endpoint.{setting} = '{value}'"],
                             capture_output=True, text=True)
        check(out.returncode != 0 and re.search(pattern, out.stderr),
              f"ALTER SYSTEM SET singletable_endpoint.{setting} = '{value}': {out.returncode} {out.stderr!r}")
    after = psql("SELECT coalesce(string_agg(name || '=' || setting, ',' ORDER BY name), '') "
                 "FROM pg_file_settings WHERE sourcefile LIKE '%postgresql.auto.conf'")
    check(after == before, f"postgresql.auto.conf changed: {before!r} -> {after!r}")


def test_no_crash():
    text = log_since(0)
    check(not re.search(r"terminated by signal|server process .* was terminated|all server processes terminated",
                        text), "a backend died of a signal: " + "; ".join(
        m.group(0) for m in re.finditer(r".*terminated by signal.*", text)))


TESTS = [test_workers, test_signatures, test_errors, test_role_escape, test_cancel, test_reload_after_errors,
         test_slow_clients, test_settings_checked,
         test_terminate, test_no_crash]


def main():
    only = sys.argv[1:]
    passed = failed = 0
    try:
        setup()
    except Exception:  # noqa: BLE001
        print("not ok 1 - endpoint: setup\n# " + traceback.format_exc().replace("\n", "\n# "))
        print("0 passed, 1 failed")
        sys.exit(1)
    for t in TESTS:
        if only and t.__name__ not in only:
            continue
        start = time.monotonic()
        n = passed + failed + 1
        try:
            t()
            passed += 1
            print(f"ok {n} - endpoint: {t.__name__} ({time.monotonic() - start:.1f} s)", flush=True)
        except Exception:  # noqa: BLE001
            failed += 1
            print(f"not ok {n} - endpoint: {t.__name__}\n# " + traceback.format_exc().replace("\n", "\n# "), flush=True)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
