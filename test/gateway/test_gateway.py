#!/usr/bin/python3
"""test/gateway/test_gateway.py: singletable-gateway over HTTP, with curl and Python's
standard library only (SigV4 computed here), against the test double of
test/gateway/double.sql. Started by test/gateway/run.sh, which provides a throwaway
server (PGHOST/PGPORT) and GATEWAY (the binary).

Each test starts the gateway it needs (on a free port, read from its log), sends
requests and checks status, headers and DynamoDB's error bodies. Prints one TAP-style
line per test ("ok N - name", "not ok N - name", as test/run.sh's pg_regress parser
counts them) and "N passed, N failed" at the end; exits 1 on any failure."""

import datetime
import hashlib
import hmac
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zlib

GATEWAY = os.environ["GATEWAY"]
WORK = tempfile.mkdtemp(prefix="gateway-test.")
DSN = "user=gw_login"
KEYS = {
    "AKIDALICE": ("alice-secret/+=", "gw_alice"),
    "AKIDBOB": ("bob-secret", "gw_bob"),
    "AKIDLOGIN": ("login-secret", "-"),
    "AKIDSTRANGER": ("stranger-secret", "gw_stranger"),
    "AKIDTENANT2": ("tenant2-secret", "gw_tenant2"),
}
NS = "com.amazonaws.dynamodb.v20120810#"
SVC = "com.amazon.coral.service#"


def write_credentials(path, keys):
    with open(path, "w") as f:
        f.write("# access key id   secret   role\n\n")
        for k, (secret, role) in keys.items():
            f.write(f"{k}\t{secret}   {role}\n")
    os.chmod(path, 0o600)


class Gateway:
    """One singletable-gateway process, listening on a free port."""

    def __init__(self, *args, credentials=True, pool=2, keys=KEYS):
        self.log_path = os.path.join(WORK, f"gateway-{time.monotonic_ns()}.log")
        self.cred_path = os.path.join(WORK, f"credentials-{time.monotonic_ns()}")
        cmd = [GATEWAY, "--listen", "127.0.0.1:0", "--dsn", DSN, "--pool", str(pool),
               "--schema", "gateway_double", "--log-level", "debug", *args]
        if credentials:
            write_credentials(self.cred_path, keys)
            cmd += ["--credentials", self.cred_path]
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=self.log)
        self.port = None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            m = re.search(r"listening on 127\.0\.0\.1 port (\d+)", self.read_log())
            if m:
                self.port = int(m.group(1))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise AssertionError("gateway did not start:\n" + self.read_log())

    def read_log(self):
        with open(self.log_path) as f:
            return f.read()

    def wait_log(self, pattern, timeout=5.0, after=0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if re.search(pattern, self.read_log()[after:]):
                return
            time.sleep(0.02)
        raise AssertionError(f"log never matched {pattern!r}:\n{self.read_log()}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def sign(headers, body, key_id, secret, amz_date=None, region="us-east-1",
         signed=("content-type", "host", "x-amz-date", "x-amz-target"), path="/"):
    """Adds X-Amz-Date and a SigV4 Authorization header, as the SDKs compute them."""
    now = amz_date or datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    headers["X-Amz-Date"] = now
    lower = {k.lower(): " ".join(str(v).split()) for k, v in headers.items()}
    names = sorted(signed)
    canonical = "\n".join([
        "POST", path, "",
        "".join(f"{n}:{lower.get(n, '')}\n" for n in names),
        ";".join(names),
        hashlib.sha256(body).hexdigest(),
    ])
    scope = f"{now[:8]}/{region}/dynamodb/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", now, scope,
                         hashlib.sha256(canonical.encode()).hexdigest()])
    k = ("AWS4" + secret).encode()
    for part in (now[:8], region, "dynamodb", "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    sig = hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest()
    headers["Authorization"] = (f"AWS4-HMAC-SHA256 Credential={key_id}/{scope}, "
                                f"SignedHeaders={';'.join(names)}, Signature={sig}")
    return headers


class Reply:
    def __init__(self, resp):
        self.status = resp.status
        self.headers = {k.lower(): v for k, v in resp.getheaders()}
        self.raw = resp.read()

    def json(self):
        return json.loads(self.raw)

    @property
    def type(self):
        return self.json().get("__type")

    def __repr__(self):
        return f"<{self.status} {self.raw[:300]!r}>"


def request(port, operation, doc=None, key="AKIDALICE", body=None, target=None,
            content_type="application/x-amz-json-1.0", headers=None, tamper=None,
            sign_kw=None, timeout=30, path="/"):
    """POSTs one DynamoDB request; signed with `key` unless key is None."""
    if body is None:
        body = json.dumps(doc if doc is not None else {}).encode()
    h = {"Host": f"127.0.0.1:{port}"}
    if content_type:
        h["Content-Type"] = content_type
    h["X-Amz-Target"] = target if target is not None else f"DynamoDB_20120810.{operation}"
    h.update(headers or {})
    if key is not None:
        secret = KEYS[key][0] if key in KEYS else "nobody-knows"
        sign(h, body, key, secret, path=path, **(sign_kw or {}))
    if tamper:
        body = tamper(body)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("POST", path, body=body, headers=h)
    r = Reply(conn.getresponse())
    conn.close()
    return r


def psql(sql):
    out = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def expect_error(r, status, type_, message=None):
    check(r.status == status, f"status {r.status}, expected {status}: {r!r}")
    check(r.type == type_, f"__type {r.type!r}, expected {type_!r}: {r!r}")
    if message is not None:
        check(re.search(message, r.json().get("message", "")),
              f"message {r.json().get('message')!r} does not match {message!r}")
    check_crc(r)


def check_crc(r):
    check(r.headers.get("x-amz-crc32") == str(zlib.crc32(r.raw)),
          f"x-amz-crc32 {r.headers.get('x-amz-crc32')} != crc32 {zlib.crc32(r.raw)}")
    # DynamoDB answers every request with "Server: Server"
    check(r.headers.get("server") == "Server", f"Server header {r.headers.get('server')!r}")


# --- the tests -----------------------------------------------------------------------

def test_health():
    with Gateway() as g:
        out = subprocess.run(["curl", "-sS", "-i", f"http://127.0.0.1:{g.port}/"],
                             capture_output=True, text=True)
        check(out.stdout.startswith("HTTP/1.1 200"), out.stdout)
        check("healthy: singletable-gateway" in out.stdout, out.stdout)


def test_cors_endpoints_paths():
    """CORS preflights and headers, DescribeEndpoints, paths other than / (issue 28)."""
    with Gateway() as g:
        # a browser's preflight: no credentials, the asked method and headers allowed
        conn = http.client.HTTPConnection("127.0.0.1", g.port, timeout=30)
        asked = "authorization,content-type,x-amz-date,x-amz-target,x-amz-user-agent"
        conn.request("OPTIONS", "/", headers={"Origin": "http://localhost:5173",
                                              "Access-Control-Request-Method": "POST",
                                              "Access-Control-Request-Headers": asked})
        r = Reply(conn.getresponse())
        conn.close()
        check(r.status == 200 and r.raw == b"", repr(r))
        check(r.headers.get("access-control-allow-origin") == "*", r.headers)
        check(r.headers.get("access-control-allow-methods") == "POST", r.headers)
        check(r.headers.get("access-control-allow-headers") == asked, r.headers)
        check(r.headers.get("access-control-max-age") == "172800", r.headers)
        check_crc(r)
        # OPTIONS without an Origin is no preflight: as any other method
        conn = http.client.HTTPConnection("127.0.0.1", g.port, timeout=30)
        conn.request("OPTIONS", "/")
        r = Reply(conn.getresponse())
        conn.close()
        check(r.status == 404 and r.raw == b"<UnknownOperationException/>\n", repr(r))
        check("access-control-allow-origin" not in r.headers, r.headers)
        # a call from a page: any origin, the headers an SDK reads exposed
        r = request(g.port, "DescribeLimits", {}, headers={"Origin": "http://localhost:5173"})
        check(r.status == 200, repr(r))
        check(r.headers.get("access-control-allow-origin") == "*", r.headers)
        check("x-amzn-RequestId" in r.headers.get("access-control-expose-headers", ""), r.headers)
        r = request(g.port, "DescribeLimits", {}, key="AKIDNOBODY", headers={"Origin": "http://x"})
        check(r.status == 400 and r.headers.get("access-control-allow-origin") == "*", repr(r))
        check("access-control-allow-origin" not in request(g.port, "DescribeLimits", {}).headers, "no Origin")
        # DescribeEndpoints: the host and port the client called
        r = request(g.port, "DescribeEndpoints", {})
        check(r.status == 200 and r.json() == {"Endpoints": [{"Address": f"127.0.0.1:{g.port}",
                                                              "CachePeriodInMinutes": 1440}]}, repr(r))
        check_crc(r)
        r = request(g.port, "DescribeEndpoints", {}, headers={"Host": "db.example.com:8000"})
        check(r.json()["Endpoints"][0]["Address"] == "db.example.com:8000", repr(r))
        r = request(g.port, "DescribeEndpoints", {}, key="AKIDNOBODY")
        expect_error(r, 400, "com.amazon.coral.service#UnrecognizedClientException")
        # another path: answered as on / (the signature covers the path)
        r = request(g.port, "DescribeLimits", {}, path="/some/path")
        check(r.status == 200 and r.json()["AccountMaxReadCapacityUnits"] == 80000, repr(r))


def test_signed_request_accepted():
    with Gateway() as g:
        r = request(g.port, "DescribeLimits", {})
        check(r.status == 200, repr(r))
        check(r.json()["AccountMaxReadCapacityUnits"] == 80000, repr(r))
        check(r.headers["content-type"] == "application/x-amz-json-1.0", r.headers)
        check_crc(r)
        ids = {request(g.port, "DescribeLimits", {}).headers["x-amzn-requestid"] for _ in range(20)}
        check(len(ids) == 20, "request ids repeat")
        check(all(re.fullmatch(r"[A-Z0-9]{52}", i) for i in ids), ids)
        # a write and a read as alice, and the role the call ran as
        r = request(g.port, "PutItem", {"TableName": "t", "Item": {"pk": "a", "v": 1}})
        check(r.status == 200 and r.json() == {}, repr(r))
        r = request(g.port, "GetItem", {"TableName": "t", "Key": {"pk": "a"}})
        check(r.json() == {"Item": {"pk": "a", "v": 1}}, repr(r))
        check(request(g.port, "DescribeLimits", {"_whoami": 1}).json()["user"] == "gw_alice", "role")
        check(request(g.port, "DescribeLimits", {"_whoami": 1}, key="AKIDLOGIN").json()["user"]
              == "gw_login", "a '-' key runs as the login user")


def test_curl_signed():
    """curl's own SigV4 (--aws-sigv4) is accepted too: an independent signer."""
    with Gateway() as g:
        out = subprocess.run(
            ["curl", "-sS", "-i", "--aws-sigv4", "aws:amz:us-east-1:dynamodb",
             "--user", f"AKIDALICE:{KEYS['AKIDALICE'][0]}",
             "-H", "Content-Type: application/x-amz-json-1.0",
             "-H", "X-Amz-Target: DynamoDB_20120810.DescribeLimits",
             "--data", "{}", f"http://127.0.0.1:{g.port}/"],
            capture_output=True, text=True)
        check(out.stdout.startswith("HTTP/1.1 200"), out.stdout + out.stderr)


def test_wrong_signature_rejected():
    with Gateway() as g:
        bad = "does not match the signature you provided"
        expect_error(request(g.port, "DescribeLimits", {}, key="AKIDALICE",
                             sign_kw={"region": "us-east-1"}, tamper=lambda b: b + b" "),
                     400, SVC + "InvalidSignatureException", bad)
        # right key id, wrong secret
        h = sign({"Host": f"127.0.0.1:{g.port}", "Content-Type": "application/x-amz-json-1.0",
                  "X-Amz-Target": "DynamoDB_20120810.DescribeLimits"}, b"{}", "AKIDALICE", "wrong")
        conn = http.client.HTTPConnection("127.0.0.1", g.port)
        conn.request("POST", "/", body=b"{}", headers=h)
        expect_error(Reply(conn.getresponse()), 400, SVC + "InvalidSignatureException", bad)
        # a signed header changed after signing
        h["X-Amz-Target"] = "DynamoDB_20120810.Scan"
        conn.request("POST", "/", body=b"{}", headers=h)
        expect_error(Reply(conn.getresponse()), 400, SVC + "InvalidSignatureException", bad)
        conn.close()
        expect_error(request(g.port, "DescribeLimits", {}, key="AKIDNOBODY"),
                     400, SVC + "UnrecognizedClientException", "security token included in the request is invalid")
        g.wait_log(r"info: DescribeLimits: 400 UnrecognizedClientException in ")
        g.wait_log(r"info: DescribeLimits: 400 InvalidSignatureException in ")
        check("AKIDNOBODY" not in g.read_log(), "no access key in the log")
        old = (datetime.datetime.now(datetime.timezone.utc)
               - datetime.timedelta(minutes=20)).strftime("%Y%m%dT%H%M%SZ")
        expect_error(request(g.port, "DescribeLimits", {}, sign_kw={"amz_date": old}),
                     400, SVC + "InvalidSignatureException", "^Signature expired: " + old)
        expect_error(request(g.port, "DescribeLimits", {},
                             sign_kw={"signed": ("content-type", "x-amz-date", "x-amz-target")}),
                     400, SVC + "InvalidSignatureException", "'Host' must be a 'SignedHeader'")
        expect_error(request(g.port, "DescribeLimits", {}, key=None,
                             headers={"Authorization": "AWS4-HMAC-SHA256 Credential=AKIDALICE/x",
                                      "X-Amz-Date": "20240101T000000Z"}),
                     400, SVC + "IncompleteSignatureException", "requires 'Signature' parameter")
        expect_error(request(g.port, "DescribeLimits", {}, key=None,
                             headers={"Authorization": "AWS4-HMAC-SHA1 Credential=a/b/c/d/e, "
                                                       "SignedHeaders=host, Signature=00"}),
                     400, SVC + "IncompleteSignatureException", "Unsupported AWS 'algorithm'")


def test_signed_headers_required():
    """Host, X-Amz-Date, X-Amz-Target and a sent Content-Type must be signed: else a captured
    request can be replayed as another operation (a GetItem resent as DeleteItem)."""
    with Gateway() as g:
        r = request(g.port, "PutItem", {"TableName": "t", "Item": {"pk": "replay", "v": 1}})
        check(r.status == 200, repr(r))
        body = json.dumps({"TableName": "t", "Key": {"pk": "replay"}}).encode()
        base = {"Host": f"127.0.0.1:{g.port}", "Content-Type": "application/x-amz-json-1.0",
                "X-Amz-Target": "DynamoDB_20120810.GetItem"}
        h = sign(dict(base), body, "AKIDALICE", KEYS["AKIDALICE"][0], signed=("host", "x-amz-date"))
        conn = http.client.HTTPConnection("127.0.0.1", g.port)
        conn.request("POST", "/", body=body, headers=h)
        expect_error(Reply(conn.getresponse()), 400, SVC + "InvalidSignatureException",
                     "^'X-Amz-Target' must be a 'SignedHeader' in the AWS Authorization.$")
        # the replay: the same signature with another target is refused too, the item stays
        h["X-Amz-Target"] = "DynamoDB_20120810.DeleteItem"
        conn.request("POST", "/", body=body, headers=h)
        expect_error(Reply(conn.getresponse()), 400, SVC + "InvalidSignatureException",
                     "'X-Amz-Target' must be a 'SignedHeader'")
        conn.close()
        r = request(g.port, "GetItem", {"TableName": "t", "Key": {"pk": "replay"}})
        check(r.json() == {"Item": {"pk": "replay", "v": 1}}, repr(r))
        for signed, name in ((("content-type", "host", "x-amz-target"), "X-Amz-Date"),
                             (("host", "x-amz-date", "x-amz-target"), "Content-Type")):
            expect_error(request(g.port, "DescribeLimits", {}, sign_kw={"signed": signed}),
                         400, SVC + "InvalidSignatureException", f"^'{name}' must be a 'SignedHeader'")
        # without a Content-Type header, host;x-amz-date;x-amz-target is enough
        h = sign({"Host": f"127.0.0.1:{g.port}", "X-Amz-Target": "DynamoDB_20120810.DescribeLimits"},
                 b"{}", "AKIDALICE", KEYS["AKIDALICE"][0], signed=("host", "x-amz-date", "x-amz-target"))
        conn = http.client.HTTPConnection("127.0.0.1", g.port)
        conn.request("POST", "/", body=b"{}", headers=h)
        r = Reply(conn.getresponse())
        check(r.status == 200, repr(r))
        conn.close()


def test_unsigned_request():
    with Gateway() as g:
        expect_error(request(g.port, "DescribeLimits", {}, key=None),
                     400, SVC + "MissingAuthenticationTokenException", "^Request is missing Authentication Token$")
    # without --credentials anything goes, said loudly at start, as --role or the login user
    with Gateway(credentials=False) as g:
        check("NO AUTHENTICATION" in g.read_log(), g.read_log())
        r = request(g.port, "DescribeLimits", {"_whoami": 1}, key=None)
        check(r.status == 200 and r.json()["user"] == "gw_login", repr(r))
        r = request(g.port, "DescribeLimits", {"_whoami": 1}, key="AKIDNOBODY")
        check(r.status == 200, repr(r))
    with Gateway("--role", "gw_alice", credentials=False) as g:
        r = request(g.port, "DescribeLimits", {"_whoami": 1}, key=None)
        check(r.status == 200 and r.json()["user"] == "gw_alice", repr(r))


def test_unknown_target():
    with Gateway() as g:
        for target in ("DynamoDB_20111205.GetItem", "Foo.PutItem", "DynamoDB_20120810.",
                       "DynamoDB_20120810.Get Item", "",
                       # the two services' operations under each other's target (DynamoDB Streams)
                       "DynamoDBStreams_20120810.PutItem", "DynamoDBStreams_20120810.Frobnicate",
                       "DynamoDB_20120810.GetRecords", "DynamoDB_20120810.ListStreams"):
            expect_error(request(g.port, None, {}, target=target), 400, SVC + "UnknownOperationException")
        # a well-formed name the database does not know: its UnknownOperationException
        expect_error(request(g.port, "Frobnicate", {}), 400, SVC + "UnknownOperationException")
        # a body that is not DynamoDB's content type, and methods other than GET/POST
        r = request(g.port, "DescribeLimits", {}, content_type="text/plain")
        check(r.status == 404 and r.raw == b"<UnknownOperationException/>\n", repr(r))
        check(request(g.port, "DescribeLimits", {}, content_type="application/json").status == 200, "json")
        conn = http.client.HTTPConnection("127.0.0.1", g.port)
        conn.request("PUT", "/", body=b"{}")
        check(conn.getresponse().status == 404, "PUT")
        conn.close()


def test_malformed_json():
    with Gateway() as g:
        for body in (b'{"a":', b"{'a': 1}", b'{"a": 1} x', b"", b"[1, 2]", b'"str"',
                     b'{"a": "\xff"}', b'{"a": "\xc0\xaf"}', b'{"a": "\xed\xa0\x80"}',
                     b'{"a": "\x00"}', b'{"a": 01}', b'{"a": "\\ud800"}', b'{"a" 1}',
                     b"\x00{}", b'{"a": tru}'):
            expect_error(request(g.port, "DescribeLimits", body=body), 400,
                         SVC + "SerializationException")
        deep = b'{"a":' + b"[" * 300 + b"]" * 300 + b"}"
        expect_error(request(g.port, "DescribeLimits", body=deep), 400,
                     "com.amazon.coral.validate#ValidationException", "Nesting Levels")
        ok = b'{"a":' + b"[" * 100 + b"]" * 100 + b', "s": "\\u00e9\\ud83d\\ude00 \xc3\xa9"}'
        check(request(g.port, "DescribeLimits", body=ok).status == 200, "valid nesting and escapes")
        # valid JSON that jsonb refuses: a class 22 error, ValidationException
        expect_error(request(g.port, "DescribeLimits", body=b'{"a": "\\u0000"}'), 400,
                     "com.amazon.coral.validate#ValidationException")
        # the SQL side's own SerializationException passes through
        expect_error(request(g.port, "Scan", {"_raise": "serialization"}), 400,
                     SVC + "SerializationException", "NUMBER_VALUE")


def raw_http(port, data, read_timeout=20):
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(read_timeout)
    try:
        s.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass
    chunks = []
    try:
        while True:
            c = s.recv(65536)
            if not c:
                break
            chunks.append(c)
    except (ConnectionResetError, socket.timeout):
        pass
    s.close()
    return b"".join(chunks)


def test_huge_body():
    with Gateway() as g:
        limit = 16 * 1024 * 1024
        head = (f"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\n"
                f"X-Amz-Target: DynamoDB_20120810.PutItem\r\nContent-Length: {limit + 1}\r\n\r\n").encode()
        out = raw_http(g.port, head)
        check(out.startswith(b"HTTP/1.1 413"), out[:200])
        check(b"Request size exceeded 16777216 bytes" in out, out[:400])
        # streamed (chunked) past the limit: the same answer once the body is in
        head = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\n"
                b"X-Amz-Target: DynamoDB_20120810.PutItem\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"x" * (1024 * 1024)
        body = b"".join(b"%x\r\n" % len(chunk) + chunk + b"\r\n" for _ in range(17)) + b"0\r\n\r\n"
        start = time.monotonic()
        out = raw_http(g.port, head + body)
        check(out.startswith(b"HTTP/1.1 413"), out[:200])
        check(time.monotonic() - start < 5, "the connection is closed after a 413")
        # a body just under the limit is read whole and checked (here: not JSON)
        r = request(g.port, "PutItem", body=b"x" * (limit - 1))
        expect_error(r, 400, SVC + "SerializationException")
        # huge headers: libmicrohttpd refuses them; the gateway lives on
        out = raw_http(g.port, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200000 + b"\r\n\r\n")
        check(re.match(rb"HTTP/1.1 4(13|31)", out) or out == b"", out[:200])
        check(request(g.port, "DescribeLimits", {}).status == 200, "alive after huge requests")


def test_garbage():
    """Malformed HTTP and bodies (bounded: 400 requests, a few seconds): never a crash,
    never a lost or leaked database connection."""
    import random
    rnd = random.Random(15)
    good = (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
            b"X-Amz-Target: DynamoDB_20120810.DescribeLimits\r\nContent-Length: 2\r\n\r\n{}")
    with Gateway(pool=2) as g:
        for i in range(400):
            kind = i % 8
            if kind == 0:
                data = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 400)))
            elif kind == 1:
                data = good[:rnd.randrange(len(good))]                     # truncated anywhere
            elif kind == 2:
                data = good.replace(b"Content-Length: 2", b"Content-Length: 999")[:-1]
            elif kind == 3:
                data = good.replace(b"{}", bytes(rnd.randrange(256) for _ in range(2)))
            elif kind == 4:
                body = b'{"a":' * 50 + b'"\xf0\x9f' + b"}" * rnd.randrange(60)
                data = good.replace(b"Content-Length: 2", b"Content-Length: %d" % len(body)).replace(b"{}", body)
            elif kind == 5:
                data = good.replace(b"Content-Length: 2\r\n", b"Transfer-Encoding: chunked\r\n") + b"zz\r\n"
            elif kind == 6:
                data = good.replace(b"HTTP/1.1", rnd.choice([b"HTTP/9.9", b"", b"HTTP/1.1 extra"]))
            else:
                data = good.replace(b"Host: x", b"Host: x\r\n" + b"X-A: b\r\n" * rnd.randrange(1, 3000))
            s = socket.create_connection(("127.0.0.1", g.port))
            s.settimeout(0.5)
            try:
                s.sendall(data)
                s.shutdown(socket.SHUT_WR)
                while s.recv(65536):
                    pass
            except OSError:
                pass
            s.close()
        check(g.proc.poll() is None, "the gateway died:\n" + g.read_log()[-3000:])
        check(request(g.port, "DescribeLimits", {}).status == 200, "serves after the garbage")
        check(psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'singletable-gateway'")
              == "2", "the pool kept its 2 connections")


def test_error_mapping():
    with Gateway() as g:
        request(g.port, "PutItem", {"TableName": "t", "Item": {"pk": "item-key-c"}})
        r = request(g.port, "PutItem", {"TableName": "t", "Item": {"pk": "item-key-c"},
                                        "ConditionExpression": "attribute_not_exists(pk)"})
        expect_error(r, 400, NS + "ConditionalCheckFailedException", "^The conditional request failed$")
        # every error response is logged by operation, status and exception name, never by content
        g.wait_log(r"info: PutItem: 400 ConditionalCheckFailedException in [0-9.]+ ms")
        check("item-key-c" not in g.read_log(), "no item key in the log")
        r = request(g.port, "TransactWriteItems", {"TransactItems": []})
        expect_error(r, 400, NS + "TransactionCanceledException", "cancellation reasons")
        check(r.json()["CancellationReasons"] == [
            {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"},
            {"Code": "None"}], repr(r))
        expect_error(request(g.port, "Scan", {"_raise": "throttle"}), 400,
                     "com.amazon.coral.availability#ThrottlingException")
        expect_error(request(g.port, "Scan", {"_raise": "serialization_bare"}), 400,
                     SVC + "SerializationException", "wrong JSON type")
        expect_error(request(g.port, "Scan", {"_raise": "validation"}), 400,
                     "com.amazon.coral.validate#ValidationException", "bad limit")
        r = request(g.port, "Scan", {"_raise": "internal"})
        expect_error(r, 500, NS + "InternalServerError", "^Internal server error$")
        check(b"broke" not in r.raw, "an internal error's text stays in the log")
        g.wait_log(r"XX000: something broke inside")
        g.wait_log(r"warning: Scan: 500 InternalServerError in ")
        g.wait_log(r"info: Scan: 400 ThrottlingException in ")
        check(request(g.port, "Scan", {}).json()["Count"] == 0, "scan")


def test_access_denied():
    with Gateway(pool=1) as g:
        # PostgreSQL's own 42501 (no DynamoDB body): mapped by SQLSTATE
        expect_error(request(g.port, "PutItem", {"TableName": "t", "Item": {"pk": "b"}}, key="AKIDBOB"),
                     400, SVC + "AccessDeniedException", "permission denied for table items")
        # the extension's 42501 with DynamoDB's body in DETAIL: passed through
        expect_error(request(g.port, "DeleteItem", {"TableName": "t", "Key": {"pk": "b"}}, key="AKIDBOB"),
                     400, SVC + "AccessDeniedException", "not authorized to perform: dynamodb:DeleteItem")
        # a key whose role the login user may not assume
        expect_error(request(g.port, "DescribeLimits", {}, key="AKIDSTRANGER"),
                     400, SVC + "AccessDeniedException", "permission denied to set role")
        # alice may; and no role outlives its request on the (single) pooled connection
        check(request(g.port, "DeleteItem", {"TableName": "t", "Key": {"pk": "b"}}).status == 200, "alice")
        check(request(g.port, "DescribeLimits", {"_whoami": 1}, key="AKIDLOGIN").json()["user"]
              == "gw_login", "role reset after a successful call")
        request(g.port, "Scan", {"_raise": "internal"}, key="AKIDALICE")
        check(request(g.port, "DescribeLimits", {"_whoami": 1}, key="AKIDLOGIN").json()["user"]
              == "gw_login", "role reset after a failed call")


def test_row_level_security():
    """A tenant key sees and writes only its own leading keys (a policy on its role)."""
    with Gateway() as g:
        for pk in ("t2#1", "other#1"):
            check(request(g.port, "PutItem", {"TableName": "rls", "Item": {"pk": pk}}).status == 200, pk)
        r = request(g.port, "GetItem", {"TableName": "rls", "Key": {"pk": "t2#1"}}, key="AKIDTENANT2")
        check(r.json() == {"Item": {"pk": "t2#1"}}, repr(r))
        r = request(g.port, "GetItem", {"TableName": "rls", "Key": {"pk": "other#1"}}, key="AKIDTENANT2")
        check(r.status == 200 and r.json() == {}, f"another tenant's item is invisible: {r!r}")
        expect_error(request(g.port, "PutItem", {"TableName": "rls", "Item": {"pk": "other#2"}}, key="AKIDTENANT2"),
                     400, SVC + "AccessDeniedException", "row-level security")
        check(request(g.port, "PutItem", {"TableName": "rls", "Item": {"pk": "t2#2"}}, key="AKIDTENANT2").status
              == 200, "its own key")


def test_killed_backend_replaced():
    with Gateway(pool=1) as g:
        pid = request(g.port, "DescribeLimits", {"_whoami": 1}).json()["pid"]
        check(psql(f"SELECT pg_terminate_backend({pid})") == "t", "terminate")
        time.sleep(0.3)
        r = request(g.port, "DescribeLimits", {"_whoami": 1})
        check(r.status == 200 and r.json()["pid"] != pid, f"idle killed connection replaced: {r!r}\n{g.read_log()}")
        # a request in flight when its backend dies: 500 InternalServerError; the next one succeeds
        pid = r.json()["pid"]
        result = {}
        t = threading.Thread(target=lambda: result.setdefault(
            "r", request(g.port, "DescribeLimits", {"_sleep": 2, "_whoami": 1})))
        t.start()
        deadline = time.monotonic() + 5
        while psql(f"SELECT count(*) FROM pg_stat_activity WHERE pid = {pid} AND state = 'active'") != "1":
            check(time.monotonic() < deadline, "the call never started")
            time.sleep(0.05)
        psql(f"SELECT pg_terminate_backend({pid})")
        t.join(10)
        expect_error(result["r"], 500, NS + "InternalServerError")
        r = request(g.port, "DescribeLimits", {"_whoami": 1})
        check(r.status == 200 and r.json()["pid"] != pid, repr(r))
        check(psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'singletable-gateway'")
              == "1", "one connection, no leak")


def test_database_unreachable():
    """While no connection can be made: 503 ServiceUnavailable (retried by the SDKs); then back."""
    with Gateway(pool=1) as g:
        pid = request(g.port, "DescribeLimits", {"_whoami": 1}).json()["pid"]
        psql("ALTER ROLE gw_login NOLOGIN")
        try:
            psql(f"SELECT pg_terminate_backend({pid})")
            time.sleep(0.3)
            expect_error(request(g.port, "DescribeLimits", {}), 503, NS + "ServiceUnavailable")
            expect_error(request(g.port, "DescribeLimits", {}), 503, NS + "ServiceUnavailable")
        finally:
            psql("ALTER ROLE gw_login LOGIN")
        check(request(g.port, "DescribeLimits", {}).status == 200, "reconnects once the database takes it")
        check(g.proc.poll() is None, "still running")


def timed_parallel(port, n, seconds):
    replies = [None] * n

    def one(i):
        replies[i] = request(port, "DescribeLimits", {"_sleep": seconds})

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    elapsed = time.monotonic() - start
    check(all(r is not None and r.status == 200 for r in replies), replies)
    return elapsed


def test_parallel_up_to_pool_then_queue():
    with Gateway(pool=2) as g:
        e = timed_parallel(g.port, 2, 0.5)
        check(0.45 < e < 0.9, f"2 requests on 2 connections took {e:.2f} s (parallel: ~0.5)")
        e = timed_parallel(g.port, 6, 0.5)
        check(1.45 < e < 2.5, f"6 requests on 2 connections took {e:.2f} s (queued: ~1.5)")


def test_sigterm_drains():
    g = Gateway(pool=1)
    try:
        result = {}
        t = threading.Thread(target=lambda: result.setdefault(
            "r", request(g.port, "DescribeLimits", {"_sleep": 1})))
        t.start()
        time.sleep(0.3)
        g.proc.send_signal(signal.SIGTERM)
        t.join(10)
        check(result["r"].status == 200, f"in-flight request finished: {result.get('r')!r}")
        check(g.proc.wait(5) == 0, "exit status 0")
        log = g.read_log()
        check("SIGTERM" in log and "stopped" in log, log)
        try:
            socket.create_connection(("127.0.0.1", g.port), timeout=1).close()
            raise AssertionError("still accepting connections")
        except ConnectionRefusedError:
            pass
        check(psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'singletable-gateway'")
              == "0", "connections closed")
    finally:
        g.stop()


def test_sighup_reload():
    keys = {"AKIDALICE": KEYS["AKIDALICE"]}
    with Gateway(keys=keys) as g:
        KEYS["AKIDCAROL"] = ("carol-secret", "gw_alice")
        try:
            expect_error(request(g.port, "DescribeLimits", {}, key="AKIDCAROL"),
                         400, SVC + "UnrecognizedClientException")
            write_credentials(g.cred_path, {"AKIDCAROL": KEYS["AKIDCAROL"]})
            mark = len(g.read_log())
            g.proc.send_signal(signal.SIGHUP)
            g.wait_log(r"loaded 1 access key from", after=mark)
            check(request(g.port, "DescribeLimits", {}, key="AKIDCAROL").status == 200, "new key")
            expect_error(request(g.port, "DescribeLimits", {}, key="AKIDALICE"),
                         400, SVC + "UnrecognizedClientException")
            # a broken file keeps the keys in force
            with open(g.cred_path, "w") as f:
                f.write("AKIDX only-two-fields\n")
            mark = len(g.read_log())
            g.proc.send_signal(signal.SIGHUP)
            g.wait_log(r"line 1: expected 3 fields", after=mark)
            check(request(g.port, "DescribeLimits", {}, key="AKIDCAROL").status == 200, "old keys kept")
            check(g.proc.poll() is None, "still running")
        finally:
            del KEYS["AKIDCAROL"]


def test_boto3():
    """The real SDK: its signer, its CRC32 check, its error parsing and its retries."""
    import boto3
    import botocore.config
    import botocore.exceptions
    with Gateway() as g:
        def client(key="AKIDALICE", secret=None, attempts=1):
            return boto3.client(
                "dynamodb", endpoint_url=f"http://127.0.0.1:{g.port}", region_name="eu-west-3",
                aws_access_key_id=key, aws_secret_access_key=secret or KEYS[key][0],
                config=botocore.config.Config(retries={"total_max_attempts": attempts, "mode": "standard"}))
        ddb = client()
        check(ddb.describe_limits()["TableMaxWriteCapacityUnits"] == 40000, "describe_limits")
        ddb.put_item(TableName="boto", Item={"pk": {"S": "k1"}})
        try:
            ddb.put_item(TableName="boto", Item={"pk": {"S": "k1"}}, ConditionExpression="attribute_not_exists(pk)")
            raise AssertionError("no ConditionalCheckFailedException")
        except ddb.exceptions.ConditionalCheckFailedException as e:
            check(e.response["Error"]["Message"] == "The conditional request failed", e.response)
        try:
            ddb.transact_write_items(TransactItems=[{"ConditionCheck": {
                "TableName": "boto", "Key": {"pk": {"S": "k1"}}, "ConditionExpression": "attribute_exists(pk)"}}])
            raise AssertionError("no TransactionCanceledException")
        except ddb.exceptions.TransactionCanceledException as e:
            check([r["Code"] for r in e.response["CancellationReasons"]] == ["ConditionalCheckFailed", "None"],
                  e.response)
        try:
            client(secret="wrong").describe_limits()
            raise AssertionError("wrong secret accepted")
        except botocore.exceptions.ClientError as e:
            check(e.response["Error"]["Code"] == "InvalidSignatureException", e.response)
        try:
            client(key="AKIDBOB").put_item(TableName="boto", Item={"pk": {"S": "k2"}})
            raise AssertionError("bob may not write")
        except botocore.exceptions.ClientError as e:
            check(e.response["Error"]["Code"] == "AccessDeniedException", e.response)
        # a 500 is retried by the SDK: three attempts reach the database (a table name of 3
        # characters or more: older botocore, such as Debian 12's 1.29, refuses shorter ones)
        mark = len(g.read_log())
        try:
            client(attempts=3).scan(TableName="boto", ExclusiveStartKey={"_raise": {"S": "internal"}})
        except botocore.exceptions.ClientError as e:
            check(e.response["Error"]["Code"] == "InternalServerError", e.response)
        check(len(re.findall(r"Scan as gw_alice: 500", g.read_log()[mark:])) == 3, g.read_log()[mark:])


def test_startup_errors():
    out = subprocess.run([GATEWAY, "--listen", "127.0.0.1:0", "--dsn", "user=nosuchrole"],
                         capture_output=True, text=True, timeout=20)
    check(out.returncode == 1 and "could not connect to the database" in out.stderr, out.stderr)
    bad = os.path.join(WORK, "bad-credentials")
    with open(bad, "w") as f:
        f.write("AKID secret role extra\n")
    out = subprocess.run([GATEWAY, "--credentials", bad, "--dsn", DSN], capture_output=True, text=True)
    check(out.returncode == 1 and "expected 3 fields" in out.stderr, out.stderr)
    out = subprocess.run([GATEWAY, "--pool", "0"], capture_output=True, text=True)
    check(out.returncode == 2 and "--pool" in out.stderr, out.stderr)


TESTS = [v for k, v in list(globals().items()) if k.startswith("test_")]


def main():
    only = sys.argv[1:]
    passed = failed = 0
    for t in TESTS:
        if only and t.__name__ not in only:
            continue
        start = time.monotonic()
        n = passed + failed + 1
        try:
            t()
            passed += 1
            print(f"ok {n} - {t.__name__} ({time.monotonic() - start:.1f} s)", flush=True)
        except Exception:
            failed += 1
            print(f"not ok {n} - {t.__name__}", flush=True)
            traceback.print_exc()
    print(f"{passed} passed, {failed} failed")
    if failed:
        print(f"gateway logs: {WORK}")
    else:
        shutil.rmtree(WORK, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
