"""test/gateway/sdk_harness.py: what test_sdk.py and test_resource.py share — a gateway of
their own with a credentials file, their TAP-style steps ("ok N - TAG: name" /
"not ok N - TAG: name" and "# why"), ending with "N passed, N failed" and the exit code, and
a signed request without the SDK's client (for what the installed botocore cannot send).
Needs GATEWAY (the binary) and a PostgreSQL server reachable as user postgres.

With ENDPOINT_PORT and ENDPOINT_CREDENTIALS set (test/gateway/run.sh, the in-server
endpoint's run), no gateway is started: the steps talk to singletable_endpoint's workers on
that port, whose credentials file ENDPOINT_CREDENTIALS is; the run's lines are added to it
and the server's configuration reloaded (pg_reload_conf), so that every worker knows them."""

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
        self.proc = None
        if os.environ.get("ENDPOINT_PORT"):
            self._use_endpoint(credentials)
            return
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

    def _use_endpoint(self, credentials):
        """The in-server endpoint: this run's keys added to its credentials file, the
        configuration reloaded, and each worker seen to know them (new connections land on
        any worker: 12 signed ListTables in a row must be answered 200)."""
        path = os.environ["ENDPOINT_CREDENTIALS"]
        with open(path) as f:
            known = {line.split()[0] for line in f if line.strip() and not line.lstrip().startswith("#")}
        # a key listed twice would make the file fail to load (a suite run again by hand)
        new = [line for line in credentials.splitlines() if line.split() and line.split()[0] not in known]
        with open(path, "a") as f:
            f.write("\n" + "\n".join(new) + "\n")
        subprocess.run(["psql", "-X", "-q", "-U", "postgres", "-d", os.environ.get("ENDPOINT_DATABASE", "postgres"),
                        "-c", "SELECT pg_reload_conf()"], check=True, stdout=subprocess.DEVNULL)
        self.port = int(os.environ["ENDPOINT_PORT"])
        self.log_path = os.environ["ENDPOINT_LOG"]     # the server's log, from here on (read_log)
        self.log_offset = os.path.getsize(self.log_path)
        first = next(line.split() for line in credentials.splitlines()
                     if line.strip() and not line.lstrip().startswith("#"))
        streak = 0
        for _ in range(200):
            try:
                status, _body = self.post("ListTables", {}, first[0], first[1])
            except OSError:
                status = 0
            streak = streak + 1 if status == 200 else 0
            if streak >= 12:
                return
            time.sleep(0.05)
        print(f"not ok 1 - {self.tag}: the in-server endpoint on port {self.port} did not take the new keys")
        sys.exit(1)

    def read_log(self):
        """The gateway's log; with the in-server endpoint, the server's log since this run began."""
        with open(self.log_path, errors="replace") as f:
            f.seek(getattr(self, "log_offset", 0))
            return f.read()

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
        """SIGTERM drains and stops the gateway (a step of its own); prints the summary and exits.
        The in-server endpoint keeps running (its own tests stop it)."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGTERM)
            self.step("SIGTERM: exit 0", lambda: self.proc.wait(10), 0)
            self.log.close()
        print(f"{self.passed} passed, {self.failed} failed")
        if self.failed and self.proc is not None:
            print(f"# gateway log: {self.log_path}")
        else:
            shutil.rmtree(self.work, ignore_errors=True)
        sys.exit(1 if self.failed else 0)
