#!/usr/bin/python3
"""test/gateway/fuzz.py: malformed HTTP and JSON against singletable-gateway for N seconds
(issue 15), with Python's standard library only (raw sockets, SigV4 computed here).

  fuzz.py [--seconds N] [--seed S] [--threads T] [--endpoint]

Needs GATEWAY (the binary) and a reachable PostgreSQL server (PGHOST/PGPORT), as
test/gateway/run.sh provides. When the database has the extension's
singletable.dynamodb(text, jsonb) the requests reach it (a table "fuzz" is created
first); else the test double of test/gateway/double.sql (--schema gateway_double).

Two gateways run, each with --pool 2: one with a credentials file (every request is
checked by SigV4: signed, mis-signed and unsigned requests) and one in development mode
(no credentials, so every body reaches the JSON check and the database). Each case is one
connection carrying one of: truncated bodies (Content-Length larger than sent, then
close), wrong or missing content types, huge headers and many headers, header lines
without a colon, invalid UTF-8 in JSON strings and in X-Amz-Target, nesting 10^5 deep,
huge numbers, NUL bytes, chunked bodies with bad chunk sizes, pipelined garbage after a
valid request, random byte mutations of valid requests of every operation (signed after
the mutation, so they pass SigV4 and reach the parser and the database, or mutated after
signing), and a bounded number of slowloris connections (partial requests trickled a few
bytes at a time, held at most a few seconds).

After every batch (about two seconds) it checks, for each gateway: the process is alive;
a valid request is answered 200; pg_stat_activity shows no more of its connections
(application_name) than its pool; its open file descriptors are back to the level after
warm-up (no leaked socket); and it samples VmRSS from /proc/PID/status. At the end: the
largest RSS of the last quarter of the run is at most the largest of the first quarter
(warm-up) plus RSS_SLACK_KB. Prints one TAP-style line per check ("ok N - fuzz: ...",
counted by test/run.sh's parser), the figures, and exits 1 on any failure, keeping the
gateways' logs and the case that preceded a crash.

--endpoint fuzzes the in-server endpoint instead (singletable_endpoint, on ENDPOINT_PORT with
the credentials file ENDPOINT_CREDENTIALS, as test/gateway/run.sh sets them): its key is
added to that file and the configuration reloaded; every case is sent to its workers (signed
as in the first gateway); "alive" means the same worker processes and the same postmaster
(a crash of one would restart every backend); the memory checked is the workers' RssAnon
(their RSS counts the shared buffers they touch), the open files their sockets, and the
database connections the workers themselves; at the end, the postmaster is the one of the start."""

import argparse
import datetime
import hashlib
import hmac
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

GATEWAY = os.environ["GATEWAY"]
POOL = 2
RSS_SLACK_KB = 4096
MAX_SLOW = 8                 # slowloris connections open at once, per batch
KEY_ID, SECRET = "AKIDFUZZ", "fuzz-secret/+="
# the table of the checks between batches: no fuzzed request names it (a mutated
# DeleteTable of "fuzz_other1" may well delete "fuzz")
PROBE = "gwprobe"
WORK = tempfile.mkdtemp(prefix="gateway-fuzz.")


def psql(sql):
    out = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def sign(headers, body, key_id=KEY_ID, secret=SECRET):
    """Adds X-Amz-Date and a SigV4 Authorization header over headers (str -> bytes|str)."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    headers["X-Amz-Date"] = now
    lower = {k.lower(): v for k, v in headers.items()}
    names = sorted(n for n in ("content-type", "host", "x-amz-date", "x-amz-target") if n in lower)

    def val(v):
        v = v if isinstance(v, bytes) else v.encode()
        return b" ".join(v.split())
    canonical = b"\n".join([
        b"POST", b"/", b"",
        b"".join(n.encode() + b":" + val(lower[n]) + b"\n" for n in names),
        ";".join(names).encode(),
        hashlib.sha256(body).hexdigest().encode(),
    ])
    scope = f"{now[:8]}/us-east-1/dynamodb/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", now, scope, hashlib.sha256(canonical).hexdigest()])
    k = ("AWS4" + secret).encode()
    for part in (now[:8], "us-east-1", "dynamodb", "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    sig = hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest()
    headers["Authorization"] = (f"AWS4-HMAC-SHA256 Credential={key_id}/{scope}, "
                                f"SignedHeaders={';'.join(names)}, Signature={sig}")
    return headers


def http_bytes(headers, body, method=b"POST", version=b"HTTP/1.1", content_length=None):
    """One request's bytes; content_length overrides the true length (or False: no header)."""
    lines = [method + b" / " + version]
    for k, v in headers.items():
        lines.append(k.encode() + b": " + (v if isinstance(v, bytes) else v.encode()))
    if content_length is not False:
        lines.append(b"Content-Length: %d" % (len(body) if content_length is None else content_length))
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


class Gateway:
    """One singletable-gateway on a free port, with its own application_name."""

    def __init__(self, name, schema, credentials):
        self.name = name
        self.log_path = os.path.join(WORK, f"{name}.log")
        cmd = [GATEWAY, "--listen", "127.0.0.1:0", "--pool", str(POOL), "--schema", schema,
               "--dsn", f"application_name=gw-fuzz-{name}", "--max-connections", "256"]
        if credentials:
            path = os.path.join(WORK, "credentials")
            with open(path, "w") as f:
                f.write(f"{KEY_ID} {SECRET} -\n")
            os.chmod(path, 0o600)
            cmd += ["--credentials", path]
        self.signed = credentials
        self.log = open(self.log_path, "w")
        # one malloc arena: with thread-per-connection every thread may otherwise get an
        # arena of its own (up to 8 per core), and RSS would measure how many were touched
        env = {**os.environ, "MALLOC_ARENA_MAX": "1"}
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=self.log, env=env)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with open(self.log_path) as f:
                m = re.search(r"listening on 127\.0\.0\.1 port (\d+)", f.read())
            if m:
                self.port = int(m.group(1))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise SystemExit(f"gateway {name} did not start; log: {self.log_path}")

    def status_kb(self, field="VmRSS"):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        return 0

    def fds(self):
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def db_connections(self):
        return int(psql("SELECT count(*) FROM pg_stat_activity "
                        f"WHERE application_name = 'gw-fuzz-{self.name}'"))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def exchange(port, data, timeout=3.0, half_close=True, read=True):
    """Sends data on a new connection and reads until the server closes; the reply bytes."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    out = []
    try:
        s.sendall(data)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        while read:
            c = s.recv(65536)
            if not c:
                break
            out.append(c)
    except OSError:
        pass
    finally:
        s.close()
    return b"".join(out)


class Cases:
    """The generators: each returns (bytes to send, how to send them)."""

    def __init__(self, rnd, real, worker=0):
        self.rnd = rnd
        self.real = real
        t = "fuzz"
        # each worker creates and deletes a table of its own: concurrent CreateTable of one
        # name is an extension bug of its own (a 500 from a catalog unique violation)
        other = f"fuzz_other{worker}"
        key = {"pk": {"S": "p#1"}, "sk": {"S": "s#1"}}
        item = {**key, "n": {"N": "42"}, "s": {"S": "héllo"}, "l": {"L": [{"BOOL": True}, {"NULL": True}]},
                "m": {"M": {"b": {"B": "AAEC"}, "ss": {"SS": ["a", "b"]}}}}
        self.requests = [
            ("PutItem", {"TableName": t, "Item": item, "ConditionExpression": "attribute_not_exists(#k) OR n < :v",
                         "ExpressionAttributeNames": {"#k": "pk"}, "ExpressionAttributeValues": {":v": {"N": "100"}}}),
            ("GetItem", {"TableName": t, "Key": key, "ProjectionExpression": "n, m.b, l[0]", "ConsistentRead": True}),
            ("UpdateItem", {"TableName": t, "Key": key, "UpdateExpression": "SET n = n + :one, #x = list_append(if_not_exists(#x, :e), :e)",
                            "ExpressionAttributeNames": {"#x": "x"},
                            "ExpressionAttributeValues": {":one": {"N": "1"}, ":e": {"L": [{"S": "z"}]}},
                            "ReturnValues": "ALL_NEW"}),
            ("DeleteItem", {"TableName": t, "Key": {"pk": {"S": "p#gone"}, "sk": {"S": "x"}}, "ReturnValues": "ALL_OLD"}),
            ("Query", {"TableName": t, "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
                       "ExpressionAttributeValues": {":p": {"S": "p#1"}, ":s": {"S": "s#"}}, "Limit": 10,
                       "ScanIndexForward": False, "FilterExpression": "size(s) > :z",
                       "ExclusiveStartKey": key}),
            ("Scan", {"TableName": t, "Limit": 5, "Segment": 0, "TotalSegments": 2, "Select": "COUNT"}),
            ("BatchGetItem", {"RequestItems": {t: {"Keys": [key, {"pk": {"S": "p#2"}, "sk": {"S": "s"}}]}}}),
            ("BatchWriteItem", {"RequestItems": {t: [{"PutRequest": {"Item": {**key, "sk": {"S": "s#2"}}}},
                                                     {"DeleteRequest": {"Key": {"pk": {"S": "p#3"}, "sk": {"S": "s"}}}}]}}),
            ("TransactGetItems", {"TransactItems": [{"Get": {"TableName": t, "Key": key}}]}),
            ("TransactWriteItems", {"TransactItems": [
                {"Update": {"TableName": t, "Key": key, "UpdateExpression": "ADD c :one",
                            "ExpressionAttributeValues": {":one": {"N": "1"}}}},
                {"ConditionCheck": {"TableName": t, "Key": {"pk": {"S": "p#4"}, "sk": {"S": "s"}},
                                    "ConditionExpression": "attribute_not_exists(pk)"}}],
                "ClientRequestToken": "tok"}),
            ("CreateTable", {"TableName": other, "BillingMode": "PAY_PER_REQUEST",
                             "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}],
                             "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}]}),
            ("DescribeTable", {"TableName": t}),
            ("ListTables", {"Limit": 3, "ExclusiveStartTableName": "a"}),
            ("DeleteTable", {"TableName": other}),
            ("DescribeLimits", {}),
            ("DescribeTimeToLive", {"TableName": t}),
            ("DescribeEndpoints", {}),
            ("ListTagsOfResource", {"ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:table/fuzz"}),
            ("UpdateTimeToLive", {"TableName": t, "TimeToLiveSpecification": {"Enabled": False, "AttributeName": "ttl"}}),
            ("NoSuchOperation", {}),
        ]
        self.kinds = [getattr(self, n) for n in dir(self) if n.startswith("k_")]

    def headers(self, op, host=b"127.0.0.1", ct=b"application/x-amz-json-1.0"):
        h = {"Host": host}
        if ct is not None:
            h["Content-Type"] = ct
        h["X-Amz-Target"] = b"DynamoDB_20120810." + (op if isinstance(op, bytes) else op.encode())
        return h

    def valid(self, signed):
        op, doc = self.rnd.choice(self.requests)
        body = json.dumps(doc, ensure_ascii=self.rnd.random() < 0.5).encode()
        h = self.headers(op)
        if signed:
            sign(h, body)
        return op, h, body

    def mutate(self, b):
        r = self.rnd
        b = bytearray(b)
        for _ in range(r.randint(1, 6)):
            if not b:
                break
            i = r.randrange(len(b))
            m = r.randrange(8)
            if m == 0:
                b[i] = r.randrange(256)
            elif m == 1:
                b.insert(i, r.choice(b'{}[]",:\\\x00\xff\xc3\xed'))
            elif m == 2:
                del b[i:i + r.randint(1, 20)]
            elif m == 3:
                b[i:i] = b[i:i + r.randint(1, 50)] * r.randint(1, 20)
            elif m == 4:
                b[i:i] = r.choice([b'\xc3\x28', b'\xed\xa0\x80', b'\xf8\x88\x80\x80\x80', b'\x80', b'\\ud800',
                                   b'\\u0000', b'\x00', b'1e999999999', b'-0', b'9' * 400, b'"' + b'\\' * 9])
            elif m == 5:
                b[i:] = b[i:i + r.randint(0, 3)]
            elif m == 6:
                b[i:i] = r.choice([b'[', b'{"a":']) * r.randint(1, 400)
            else:
                b[i:i] = r.choice([b'{"S":"x"}', b'{"N":"1"}', b'{"L":[]}', b'{"M":{}}', b'null', b'true', b'{}'])
        return bytes(b)

    # --- the kinds of cases: each returns (data, mode) ---------------------------------

    def k_mutated_body_signed_after(self, gw):
        op, doc = self.rnd.choice(self.requests)
        body = self.mutate(json.dumps(doc).encode())
        h = self.headers(op)
        if gw.signed:
            sign(h, body)
        return http_bytes(h, body), "full"

    def k_mutated_body_signed_before(self, gw):
        op, h, body = self.valid(gw.signed)
        return http_bytes(h, self.mutate(body)), "full"

    def k_mutated_request_bytes(self, gw):
        op, h, body = self.valid(gw.signed)
        return self.mutate(http_bytes(h, body)), "full"

    def k_mutated_authorization(self, gw):
        op, h, body = self.valid(True)
        h["Authorization"] = self.mutate(h["Authorization"].encode())
        if self.rnd.random() < 0.3:
            h["X-Amz-Date"] = self.mutate(h["X-Amz-Date"].encode())
        return http_bytes(h, body), "full"

    def k_truncated_body(self, gw):
        op, h, body = self.valid(gw.signed)
        cut = self.rnd.randrange(len(body) + 1)
        return http_bytes(h, body[:cut], content_length=len(body) + self.rnd.randint(1, 100000)), \
            self.rnd.choice(["close", "full"])

    def k_truncated_anywhere(self, gw):
        op, h, body = self.valid(gw.signed)
        data = http_bytes(h, body)
        return data[:self.rnd.randrange(len(data))], self.rnd.choice(["close", "full"])

    def k_content_type(self, gw):
        op, doc = self.rnd.choice(self.requests)
        body = json.dumps(doc).encode()
        ct = self.rnd.choice([None, b"text/plain", b"application/json; charset=utf-8", b"application/x-amz-json-1.1",
                              b"", b";;;", b"application/x-amz-json-1.0" + b" " * 5000, b"\xff\xfe", b"multipart/form-data; boundary=x",
                              b"application/x-www-form-urlencoded"])
        h = self.headers(op, ct=ct)
        if gw.signed and self.rnd.random() < 0.7:
            sign(h, body)
        return http_bytes(h, body), "full"

    def k_huge_headers(self, gw):
        op, h, body = self.valid(gw.signed)
        r = self.rnd.randrange(4)
        if r == 0:
            h["X-Big"] = b"a" * self.rnd.choice([4000, 70000, 300000])
        elif r == 1:
            for i in range(self.rnd.choice([100, 2000, 20000])):
                h[f"X-H{i}"] = b"v"
        elif r == 2:
            h["X-Amz-Target"] = h["X-Amz-Target"] + b"A" * self.rnd.choice([50, 5000, 100000])
        else:
            h["Authorization"] = b"AWS4-HMAC-SHA256 Credential=" + b"A/" * 30000
        return http_bytes(h, body), "full"

    def k_header_without_colon(self, gw):
        op, h, body = self.valid(gw.signed)
        data = http_bytes(h, body)
        head, _, rest = data.partition(b"\r\n")
        bad = self.rnd.choice([b"NoColonHere", b" folded continuation", b"\tx", b":", b"X-A:\x00b", b"X-\xff: y",
                               b"Content-Length: 5", b"Content-Length: -1", b"Content-Length: 99999999999999999999",
                               b"Transfer-Encoding: chunked", b"Host: a\r\nHost: b", b"\r"])
        return head + b"\r\n" + bad + b"\r\n" + rest, "full"

    def k_bad_target(self, gw):
        op, doc = self.rnd.choice(self.requests)
        body = json.dumps(doc).encode()
        target = self.rnd.choice([b"DynamoDB_20120810.Get\xc3\x28Item", b"DynamoDB_20120810.\xed\xa0\x80",
                                  b"DynamoDB_20120810.", b"DynamoDB_20120810", b"DynamoDB_20120810.Put Item",
                                  b"dynamodb_20120810.PutItem", b"DynamoDB_20120810.PutItem\x00x", b"\xff" * 64,
                                  b"DynamoDB_20120810." + b"A" * 65, b"DynamoDBStreams_20120810.ListStreams",
                                  b"DynamoDBStreams_20120810.PutItem", b"DynamoDB_20120810.GetRecords"])
        h = {"Host": b"127.0.0.1", "Content-Type": b"application/x-amz-json-1.0", "X-Amz-Target": target}
        if gw.signed:
            sign(h, body)
        return http_bytes(h, body), "full"

    def k_invalid_utf8_json(self, gw):
        bad = self.rnd.choice([b"\xc3\x28", b"\xa0\xa1", b"\xe2\x28\xa1", b"\xf0\x28\x8c\xbc", b"\xed\xa0\x80",
                               b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\xff", b"\\ud800", b"\\udc00\\ud800", b"\\u0000"])
        body = (b'{"TableName":"fuzz","Item":{"pk":{"S":"' + bad + b'"},"sk":{"S":"s"},"' + bad + b'":{"S":"v"}}}')
        h = self.headers("PutItem")
        if gw.signed:
            sign(h, body)
        return http_bytes(h, body), "full"

    def k_deep_nesting(self, gw):
        depth = self.rnd.choice([257, 1000, 100000])
        r = self.rnd.randrange(4)
        if r == 0:
            body = b"[" * depth + b"]" * depth
        elif r == 1:
            body = b'{"a":' * depth + b"1" + b"}" * depth
        elif r == 2:
            body = b'{"TableName":"fuzz","Item":{"pk":{"S":"p"},"sk":{"S":"s"},"x":' + b'{"L":[' * depth + b"]}" * depth + b"}}"
        else:
            body = b'{"a":' + b"[" * depth            # unclosed
        op = self.rnd.choice(["PutItem", "DescribeLimits", "Query"])
        h = self.headers(op)
        if gw.signed:
            sign(h, body)
        return http_bytes(h, body), "full"

    def k_huge_numbers(self, gw):
        num = self.rnd.choice([b"1" * 100000, b"1e999999999", b"-" + b"9" * 5000 + b".5e-99999", b"0." + b"0" * 50000 + b"1",
                               b"1e", b"--1", b"1.e5", b"NaN", b"Infinity"])
        r = self.rnd.randrange(3)
        if r == 0:
            body = b'{"TableName":"fuzz","Limit":' + num + b"}"
        elif r == 1:
            body = b'{"TableName":"fuzz","Item":{"pk":{"S":"p"},"sk":{"S":"s"},"n":{"N":"' + num + b'"}}}'
        else:
            body = b'{"x":[' + b",".join([num] * 10) + b"]}"
        op = {0: "Query", 1: "PutItem", 2: "DescribeLimits"}[r]
        h = self.headers(op)
        if gw.signed:
            sign(h, body)
        return http_bytes(h, body), "full"

    def k_nul_bytes(self, gw):
        op, doc = self.rnd.choice(self.requests)
        body = bytearray(json.dumps(doc).encode())
        for _ in range(self.rnd.randint(1, 5)):
            body.insert(self.rnd.randrange(len(body) + 1), 0)
        h = self.headers(op)
        if gw.signed:
            sign(h, bytes(body))
        data = http_bytes(h, bytes(body))
        if self.rnd.random() < 0.3:
            i = self.rnd.randrange(data.index(b"\r\n\r\n"))
            data = data[:i] + b"\x00" + data[i:]
        return data, "full"

    def k_bad_chunked(self, gw):
        op, h, body = self.valid(gw.signed)
        h["Transfer-Encoding"] = self.rnd.choice([b"chunked", b"chunked, gzip", b"gzip", b"identity", b"chunked\x00"])
        size = self.rnd.choice([b"%x" % len(body), b"zz", b"-1", b"ffffffffffffffffffff", b"%x" % (len(body) + 50),
                                b"0", b"1;ext=\xff", b"", b" 5", b"%x" % (len(body) // 2)])
        data = http_bytes(h, b"", content_length=False) + size + b"\r\n" + body + b"\r\n"
        data += self.rnd.choice([b"0\r\n\r\n", b"", b"0\r\nTrailer: x\r\n\r\n", b"5\r\nab", b"0\r\n"])
        return data, "full"

    def k_pipelined(self, gw):
        reqs = []
        for _ in range(self.rnd.randint(2, 6)):
            op, h, body = self.valid(gw.signed)
            reqs.append(http_bytes(h, body))
        garbage = bytes(self.rnd.randrange(256) for _ in range(self.rnd.randint(1, 300)))
        reqs.insert(self.rnd.randrange(len(reqs) + 1), self.rnd.choice([garbage, b"\r\n\r\n", b"GET /x HTTP/1.1\r\n\r\n"]))
        return b"".join(reqs), self.rnd.choice(["full", "close"])

    def k_random_bytes(self, gw):
        n = self.rnd.choice([1, 16, 400, 5000])
        prefix = self.rnd.choice([b"", b"POST / HTTP/1.1\r\n", b"GET / HTTP/1.0\r\n", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"])
        return prefix + bytes(self.rnd.randrange(256) for _ in range(n)), "full"

    def k_methods_versions(self, gw):
        op, h, body = self.valid(gw.signed)
        method = self.rnd.choice([b"PUT", b"DELETE", b"OPTIONS", b"PATCH", b"CONNECT", b"TRACE", b"G\xffT", b"POST" * 100])
        version = self.rnd.choice([b"HTTP/1.0", b"HTTP/1.1", b"HTTP/2.0", b"HTTP/0.9", b"HTTP/1.1x", b""])
        return http_bytes(h, body, method=method, version=version), "full"

    def k_expect_continue(self, gw):
        op, h, body = self.valid(gw.signed)
        h["Expect"] = self.rnd.choice([b"100-continue", b"100-continue, x", b"nothing"])
        data = http_bytes(h, body)
        return data[:data.index(b"\r\n\r\n") + 4 + self.rnd.randrange(len(body) + 1)], "full"


def run_case(gw, cases, stats):
    data, mode = cases.rnd.choice(cases.kinds)(gw)
    stats["bytes"] += len(data)
    if mode == "close":
        # send and hang up at once, without reading: the gateway must notice and clean up
        exchange(gw.port, data, half_close=False, read=False)
    else:
        reply = exchange(gw.port, data)
        stats["replies"] += bool(reply)
        m = re.match(rb"HTTP/1\.[01] (\d{3})", reply)
        if m:
            stats["status"][m.group(1).decode()] = stats["status"].get(m.group(1).decode(), 0) + 1
            if m.group(1) == b"500":
                stats["5xx"].append(data[:300] + b" -> " + reply[reply.find(b"\r\n\r\n") + 4:][:200])
    stats["requests"] += 1


def slowloris(gw, rnd, seconds, stats):
    """MAX_SLOW partial requests trickled a few bytes at a time for `seconds`, then closed."""
    op, doc = rnd.choice(Cases(rnd, True).requests)
    body = json.dumps(doc).encode()
    h = {"Host": "127.0.0.1", "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810." + op}
    data = http_bytes(h, body)
    socks = []
    for _ in range(MAX_SLOW):
        try:
            socks.append(socket.create_connection(("127.0.0.1", gw.port), timeout=1))
        except OSError:
            pass
    end = time.monotonic() + seconds
    pos = 0
    while time.monotonic() < end and pos < len(data) - 1:
        n = rnd.randint(1, 3)
        for s in socks:
            try:
                s.sendall(data[pos:pos + n])
            except OSError:
                pass
        pos += n
        time.sleep(0.05)
    for s in socks:
        s.close()
    stats["slow"] += len(socks)


class Endpoint:
    """The in-server endpoint's workers, behind the interface of Gateway."""

    def __init__(self, name):
        self.name = name
        self.port = int(os.environ["ENDPOINT_PORT"])
        self.signed = True
        path = os.environ["ENDPOINT_CREDENTIALS"]
        with open(path) as f:
            known = any(line.split()[:1] == [KEY_ID] for line in f)
        if not known:               # a key listed twice would make the file fail to load
            with open(path, "a") as f:
                f.write(f"\n{KEY_ID} {SECRET} -\n")
        psql("SELECT pg_reload_conf()")
        self.postmaster = psql("SELECT pg_postmaster_start_time()")
        self.pids = self.worker_pids()
        self.returncode = None
        self.proc = self                        # proc.poll(), proc.pid, proc.returncode

    @staticmethod
    def worker_pids():
        out = psql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'singletable endpoint' ORDER BY pid")
        return [int(p) for p in out.split()]

    @property
    def pid(self):
        return self.pids

    def poll(self):
        """None while the same workers run: a backend's crash makes the postmaster end every
        backend, these included, before it starts them again (called before every case: no
        query here)."""
        if self.returncode is None and any(not os.path.exists(f"/proc/{p}") for p in self.pids):
            self.returncode = 1
        return self.returncode

    def status_kb(self, field="RssAnon"):
        total = 0
        for pid in self.pids:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith(field + ":"):
                        total += int(line.split()[1])
        return total

    def fds(self):
        """The workers' sockets (a backend opens relation files as it needs them)."""
        n = 0
        for pid in self.pids:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    n += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
                except OSError:
                    pass
        return n

    def db_connections(self):
        return len(self.worker_pids())

    def stop(self):
        pass


def valid_ok(gw, real):
    if real:
        op, body = "GetItem", json.dumps({"TableName": PROBE, "Key": {"pk": {"S": "probe"}, "sk": {"S": "probe"}}}).encode()
    else:
        op, body = "DescribeLimits", b"{}"
    h = {"Host": "127.0.0.1", "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810." + op}
    if gw.signed:
        sign(h, body)
    reply = exchange(gw.port, http_bytes(h, body), timeout=10)
    return reply.startswith(b"HTTP/1.1 200") and (not real or b'"probe"' in reply), reply[:300]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--endpoint", action="store_true", help="fuzz the in-server endpoint (ENDPOINT_PORT)")
    args = ap.parse_args()
    real = psql("SELECT to_regprocedure('singletable.dynamodb(text,jsonb)') IS NOT NULL") == "t"
    schema = "singletable" if real else "gateway_double"
    global POOL
    if args.endpoint:
        ep = Endpoint("inserver")
        POOL = len(ep.pids)
        gws = [ep, ep]
    else:
        gws = [Gateway("signed", schema, True), Gateway("dev", schema, False)]
    uniq = list(dict.fromkeys(gws))          # the servers checked (the endpoint takes both places)
    if real:
        table = {"BillingMode": "PAY_PER_REQUEST",
                 "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                 "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                          {"AttributeName": "sk", "AttributeType": "S"}]}
        for doc in ({"TableName": "fuzz", **table}, {"TableName": PROBE, **table},
                    {"TableName": PROBE, "Item": {"pk": {"S": "probe"}, "sk": {"S": "probe"}}}):
            op = "CreateTable" if "KeySchema" in doc else "PutItem"
            h = {"Host": "127.0.0.1", "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810." + op}
            if gws[1].signed:
                sign(h, json.dumps(doc).encode())
            reply = exchange(gws[1].port, http_bytes(h, json.dumps(doc).encode()), timeout=10)
            if not reply.startswith(b"HTTP/1.1 200") and b"ResourceInUse" not in reply:
                raise SystemExit(f"{op} failed: {reply[:400]!r}")
    print(f"# fuzz: seed {args.seed}, {args.seconds:g} s, {args.threads} threads, schema {schema}, "
          f"gateways pids {[g.proc.pid for g in gws]}, logs in {WORK}", flush=True)

    stats = {"requests": 0, "bytes": 0, "replies": 0, "slow": 0, "status": {}, "5xx": []}
    lock = threading.Lock()
    failures = {"alive": [], "valid": [], "db": [], "fds": [], "rss": []}
    samples = {g.name: [] for g in uniq}      # (elapsed, rss_kb)
    max_db = {g.name: 0 for g in uniq}
    fd_base = {}
    start = time.monotonic()
    batch = 0

    def worker(seed, gw, until, index):
        rnd = random.Random(seed)
        cases = Cases(rnd, real, index)
        local = {"requests": 0, "bytes": 0, "replies": 0, "slow": 0, "status": {}, "5xx": []}
        while time.monotonic() < until and gw.proc.poll() is None:
            run_case(gw, cases, local)
        with lock:
            for k in ("requests", "bytes", "replies", "slow"):
                stats[k] += local[k]
            for k, v in local["status"].items():
                stats["status"][k] = stats["status"].get(k, 0) + v
            stats["5xx"] += local["5xx"][:5]

    while time.monotonic() - start < args.seconds:
        batch += 1
        until = min(time.monotonic() + 2.0, start + args.seconds)
        threads = [threading.Thread(target=worker, args=(args.seed * 1000003 + batch * 101 + i, gws[i % 2], until, i))
                   for i in range(args.threads)]
        if batch % 5 == 0:
            g = gws[batch // 5 % 2]
            threads.append(threading.Thread(target=slowloris, args=(g, random.Random(batch), 1.5, stats)))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - start
        for g in uniq:
            if g.proc.poll() is not None:
                failures["alive"].append(f"{g.name} exited with {g.proc.returncode} in batch {batch}")
                continue
            ok, reply = valid_ok(g, real)
            if not ok:
                failures["valid"].append(f"{g.name} batch {batch}: {reply!r}")
            n = g.db_connections()
            max_db[g.name] = max(max_db[g.name], n)
            if n > POOL:
                failures["db"].append(f"{g.name} batch {batch}: {n} connections")
            # the connections of the batch are closed on our side; give the gateway a moment
            deadline = time.monotonic() + 5
            fds = g.fds()
            while g.name in fd_base and fds > fd_base[g.name] and time.monotonic() < deadline:
                time.sleep(0.05)
                fds = g.fds()
            if g.name not in fd_base:
                fd_base[g.name] = fds
            elif fds > fd_base[g.name]:
                failures["fds"].append(f"{g.name} batch {batch}: {fds} open files, {fd_base[g.name]} after the first batch")
            samples[g.name].append((elapsed, g.status_kb()))
            if os.environ.get("FUZZ_VERBOSE"):
                print(f"# batch {batch} {g.name}: {elapsed:.0f} s VmRSS {samples[g.name][-1][1]} kB, "
                      f"{fds} files, {n} db connections, {stats['requests']} requests", flush=True)
        if failures["alive"]:
            break

    report = {}
    for g in uniq:
        s = samples[g.name]
        q = max(1, len(s) // 4)
        first, last = max(r for _, r in s[:q]), max(r for _, r in s[-q:])
        report[g.name] = (s[0][1], first, last, s[-1][1])
        if last > first + RSS_SLACK_KB:
            failures["rss"].append(f"{g.name}: VmRSS max {first} kB in the first quarter, {last} kB in the last")
    if args.endpoint and psql("SELECT pg_postmaster_start_time()") != gws[0].postmaster:
        failures["alive"].append("the postmaster restarted (a backend crashed)")
    dead = [g for g in uniq if g.proc.poll() is not None]
    for g in uniq:
        g.stop()

    rate = stats["requests"] / max(1e-9, time.monotonic() - start)
    print(f"# fuzz: {stats['requests']} requests ({rate:.0f}/s, {stats['bytes'] / 1e6:.1f} MB), "
          f"{stats['replies']} answered, {stats['slow']} slowloris connections, {batch} batches")
    print("# fuzz: statuses " + ", ".join(f"{k}: {v}" for k, v in sorted(stats["status"].items())))
    for name, (s0, fq, lq, end) in report.items():
        print(f"# fuzz: {name}: VmRSS {s0} kB after the first batch, max {fq} kB (first quarter), "
              f"max {lq} kB (last quarter), {end} kB at the end; at most {max_db[name]} database connections "
              f"(pool {POOL}); {fd_base.get(name)} open files")
    for d in stats["5xx"][:5]:
        print(f"# fuzz: a 5xx answer to {d!r}")
    checks = [
        ("gateways alive (no crash)", failures["alive"]),
        ("a valid request answered after every batch", failures["valid"]),
        (f"database connections never above the pool ({POOL})", failures["db"]),
        ("no leaked socket (open files back to the first batch's count)", failures["fds"]),
        (f"VmRSS flat (last-quarter max <= first-quarter max + {RSS_SLACK_KB} kB)", failures["rss"]),
        ("no 500 answer", [repr(d) for d in stats["5xx"]]),
    ]
    bad = 0
    for i, (name, fails) in enumerate(checks, 1):
        if fails:
            bad += 1
            print(f"not ok {i} - fuzz: {name}")
            for f in fails[:5]:
                print(f"#   {f}")
        else:
            print(f"ok {i} - fuzz: {name}")
    if dead:
        print(f"# fuzz: gateway logs and the seed ({args.seed}) are kept in {WORK}")
    elif not bad:
        shutil.rmtree(WORK, ignore_errors=True)
    else:
        print(f"# fuzz: logs in {WORK}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
