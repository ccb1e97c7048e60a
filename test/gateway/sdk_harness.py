"""test/gateway/sdk_harness.py: what test_sdk.py and test_resource.py share — a gateway of
their own with a credentials file, their TAP-style steps ("ok N - TAG: name" /
"not ok N - TAG: name" and "# why"), ending with "N passed, N failed" and the exit code, and
a signed request without the SDK's client (for what the installed botocore cannot send).
Needs GATEWAY (the binary) and a PostgreSQL server reachable as user postgres."""

import atexit
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time


class SdkRun:
    """Starts a gateway (--credentials with the given lines, --pool 2, a free port) and
    counts steps; a gateway that does not start is one failed step and exit 1."""

    def __init__(self, tag, credentials):
        self.tag = tag
        self.passed = self.failed = 0
        self.work = tempfile.mkdtemp(prefix=f"gateway-{tag}.")
        creds = os.path.join(self.work, "credentials")
        with open(creds, "w") as f:
            f.write(credentials)
        os.chmod(creds, 0o600)
        self.log_path = os.path.join(self.work, "gateway.log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([os.environ["GATEWAY"], "--listen", "127.0.0.1:0", "--dsn", "user=postgres",
                                      "--credentials", creds, "--pool", "2"], stdout=self.log, stderr=self.log)
        atexit.register(lambda: self.proc.poll() is None and self.proc.kill())  # whatever ends the script
        self.port = None
        for _ in range(100):
            m = re.search(r"listening on 127\.0\.0\.1 port (\d+)", open(self.log_path).read())
            if m:
                self.port = int(m.group(1))
                break
            time.sleep(0.05)
        if self.port is None:
            print(f"not ok 1 - {tag}: the gateway did not start\n# "
                  + open(self.log_path).read().replace("\n", "\n# "))
            sys.exit(1)

    def step(self, name, fn, expect):
        """One check: fn() must return expect; an exception is a failure."""
        try:
            got = fn()
            ok = got == expect
            detail = f"got {got!r}, expected {expect!r}"
        except Exception as e:  # noqa: BLE001 - any exception is a failed step
            ok, detail = False, f"{type(e).__name__}: {e}"
        n = self.passed + self.failed + 1
        if ok:
            self.passed += 1
            print(f"ok {n} - {self.tag}: {name}", flush=True)
        else:
            self.failed += 1
            print(f"not ok {n} - {self.tag}: {name}\n# {detail}", flush=True)

    def post(self, operation, doc, key, secret, region="us-east-1"):
        """POSTs one DynamoDB request as JSON, signed with botocore's SigV4 signer but
        neither validated nor serialized by an SDK client; returns (status, parsed body).
        For parameters the installed botocore does not know (its client refuses them)."""
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials
        req = AWSRequest("POST", f"http://127.0.0.1:{self.port}/", data=json.dumps(doc).encode(),
                         headers={"Content-Type": "application/x-amz-json-1.0",
                                  "X-Amz-Target": f"DynamoDB_20120810.{operation}"})
        SigV4Auth(Credentials(key, secret), "dynamodb", region).add_auth(req)
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request("POST", "/", body=req.body, headers=dict(req.headers.items()))
            resp = conn.getresponse()
            return resp.status, json.loads(resp.read())
        finally:
            conn.close()

    def finish(self):
        """SIGTERM drains and stops the gateway (a step of its own); prints the summary and exits."""
        self.proc.send_signal(signal.SIGTERM)
        self.step("SIGTERM: exit 0", lambda: self.proc.wait(10), 0)
        self.log.close()
        print(f"{self.passed} passed, {self.failed} failed")
        if self.failed:
            print(f"# gateway log: {self.log_path}")
        else:
            shutil.rmtree(self.work, ignore_errors=True)
        sys.exit(1 if self.failed else 0)
