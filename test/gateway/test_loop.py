#!/usr/bin/python3
"""test/gateway/test_loop.py: singletable-gateway's event loop (issue 26), against the test
double of test/gateway/double.sql, with the helpers of test_gateway.py. Started by
test/gateway/run.sh (PGHOST/PGPORT, GATEWAY).

- 1,024 slow clients from eight loopback addresses (127.0.0.2 to 127.0.0.9), each sending
  a partial request (headers or body) and then one byte every 2 s: while they are held, a
  normal signed request is answered within 2 s, the gateway runs one thread, and the slow
  ones are closed by the request deadline (--request-timeout), not by inactivity; the
  per-address limit refuses an address's connection past --max-connections-per-address.
- A keep-alive connection idle past the deadline is closed; one used in time is not.
- Calls pipelined on one database connection each get their own result and WARNINGs.
- RLIMIT_NOFILE: raised to what --max-connections needs; a hard limit too low is refused
  clearly (or lowers the default); a schema without dynamodb_as and a login role that may
  not execute it stop the gateway with one line saying so.

Prints one TAP-style line per test and "N passed, N failed"; exits 1 on any failure."""

import os
import re
import resource
import selectors
import shutil
import socket
import subprocess
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_gateway as tg  # noqa: E402  (GATEWAY, Gateway, request, sign, check)

check = tg.check
SLOW = 1024
ADDRESSES = [f"127.0.0.{i}" for i in range(2, 10)]


def threads_of(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"^Threads:\s+(\d+)", f.read(), re.M).group(1))


def nofile_of(pid):
    with open(f"/proc/{pid}/limits") as f:
        m = re.search(r"^Max open files\s+(\d+)\s+(\d+)", f.read(), re.M)
    return int(m.group(1)), int(m.group(2))


def with_nofile(soft, fn):
    """Runs fn with this process's RLIMIT_NOFILE soft limit at `soft` (children inherit it)."""
    old = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, old[1]))
    try:
        return fn()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, old)


def partial_request(i, port):
    """Half of them stop within the headers, half within a body they announced."""
    if i % 2:
        return b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Ta"
    return (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\n"
            b"X-Amz-Target: DynamoDB_20120810.GetItem\r\nContent-Length: 1000\r\n\r\n{\"TableName\": ")


def connect_from(address, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((address, 0))
    s.connect(("127.0.0.1", port))
    return s


def closed_by_server(s, timeout):
    """True if the server closes s (end of file or reset) within timeout seconds."""
    s.settimeout(timeout)
    try:
        while True:
            if not s.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


class SlowClients:
    """SLOW slow clients of a server on port, from ADDRESSES in turn, each having sent a
    partial request; trickle_and_watch keeps them trickling and notes when each is closed."""

    def __init__(self, port):
        self.slow = []              # (socket, when it connected)
        self.closed_at = {}         # fileno -> when the server closed it
        self.sel = selectors.DefaultSelector()
        for i in range(SLOW):
            s = connect_from(ADDRESSES[i % len(ADDRESSES)], port)
            s.sendall(partial_request(i, port))
            self.slow.append((s, time.monotonic()))
            self.sel.register(s, selectors.EVENT_READ)
        self.opened = time.monotonic()

    def trickle_and_watch(self, until):
        """Sends a byte to every slow socket every 2 s; notes when the server closes each."""
        next_byte = time.monotonic()
        while time.monotonic() < until and len(self.closed_at) < SLOW:
            if time.monotonic() >= next_byte:
                for s, _ in self.slow:
                    if s.fileno() not in self.closed_at:
                        try:
                            s.send(b"a")
                        except OSError:
                            pass
                next_byte += 2
            for key, _ in self.sel.select(timeout=0.1):
                s = key.fileobj
                try:
                    data = s.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    self.closed_at[s.fileno()] = time.monotonic()
                    self.sel.unregister(s)

    def check_closed_by_deadline(self, timeout):
        """Trickling on: every one closed about `timeout` s after it connected, none before."""
        self.trickle_and_watch(self.opened + timeout + 6)
        closed_at = self.closed_at
        check(len(closed_at) == SLOW, f"{SLOW - len(closed_at)} slow connections still open "
                                      f"{time.monotonic() - self.opened:.1f} s after the last connected")
        early = [closed_at[s.fileno()] - t for s, t in self.slow if closed_at[s.fileno()] - t < timeout - 0.5]
        check(not early, f"{len(early)} closed before the deadline, e.g. after {min(early or [0]):.1f} s")
        late = max(closed_at[s.fileno()] - t for s, t in self.slow)
        check(late < timeout + 4, f"one was closed {late:.1f} s after it connected (deadline {timeout} s)")

    def close(self):
        for s, _ in self.slow:
            s.close()


def test_slow_clients():
    timeout = 6
    per_address = SLOW // len(ADDRESSES) + 2
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    check(hard >= SLOW + 200, f"this test needs {SLOW + 200} open files; the hard limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    # started with a soft limit of 1024: it must raise its own to hold 1,024 clients and more
    g = with_nofile(1024, lambda: tg.Gateway("--request-timeout", str(timeout),
                                             "--max-connections-per-address", str(per_address),
                                             "--max-connections", "4000", pool=2))
    slow = None
    try:
        check(nofile_of(g.proc.pid)[0] >= 4000, f"RLIMIT_NOFILE not raised: {nofile_of(g.proc.pid)}")
        slow = SlowClients(g.port)

        # while they are held: normal signed requests, promptly
        for _ in range(3):
            start = time.monotonic()
            r = tg.request(g.port, "DescribeLimits", {}, timeout=10)
            took = time.monotonic() - start
            check(r.status == 200, repr(r))
            check(took < 2, f"a normal request took {took:.2f} s with {SLOW} slow clients held")
            slow.trickle_and_watch(time.monotonic() + 0.5)
        check(threads_of(g.proc.pid) == 1, f"{threads_of(g.proc.pid)} threads: connections hold no worker")
        check(not slow.closed_at, f"{len(slow.closed_at)} slow connections closed before their deadline")

        # the per-address limit: 127.0.0.2 holds SLOW/8 slow ones; two more are taken, a third refused
        extra = [connect_from(ADDRESSES[0], g.port) for _ in range(per_address - SLOW // len(ADDRESSES))]
        refused = connect_from(ADDRESSES[0], g.port)
        check(closed_by_server(refused, 2), f"connection {per_address + 1} of {ADDRESSES[0]} was not refused")
        refused.close()
        body = b"{}"
        h = tg.sign({"Host": f"127.0.0.1:{g.port}", "Content-Type": "application/x-amz-json-1.0",
                     "X-Amz-Target": "DynamoDB_20120810.DescribeLimits"}, body, "AKIDALICE", tg.KEYS["AKIDALICE"][0])
        req = b"POST / HTTP/1.1\r\n" + b"".join(f"{k}: {v}\r\n".encode() for k, v in h.items()) + \
            b"Content-Length: 2\r\n\r\n" + body
        extra[-1].sendall(req)
        extra[-1].settimeout(5)
        check(extra[-1].recv(65536).startswith(b"HTTP/1.1 200"), f"connection {per_address} of an address is served")
        for s in extra:
            s.close()

        # the deadline: every slow one closed about `timeout` s after it connected, while still trickling
        slow.check_closed_by_deadline(timeout)
        g.wait_log(r"closed \d+ connections? that sent no whole request within 6 s")
        r = tg.request(g.port, "DescribeLimits", {})
        check(r.status == 200, f"serves after the slow clients: {r!r}")
    finally:
        if slow is not None:
            slow.close()
        g.stop()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_keepalive_deadline():
    """An idle keep-alive connection is closed at the deadline; the deadline restarts after each response."""
    with tg.Gateway("--request-timeout", "2") as g:
        s = socket.create_connection(("127.0.0.1", g.port))
        get = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
        for _ in range(3):
            time.sleep(1.2)             # 3.6 s in all: more than the deadline, less than it each time
            s.sendall(get)
            s.settimeout(2)
            check(b"healthy" in s.recv(65536), "a request within the deadline is served")
        start = time.monotonic()
        check(closed_by_server(s, 4), "an idle keep-alive connection is closed at the deadline")
        check(1.5 < time.monotonic() - start < 3.5, f"closed after {time.monotonic() - start:.1f} s")
        s.close()


def test_pipelined_calls():
    """32 clients at once on one database connection: the calls are pipelined (at most 4 in
    flight on it); each answer and each x-singletable-warning is its own request's."""
    with tg.Gateway(pool=1) as g:
        replies = {}

        def one(i):
            replies[i] = tg.request(g.port, "DescribeLimits", {"_warn": f"warning number {i}", "_whoami": 1},
                                    key="AKIDALICE" if i % 2 else "AKIDTENANT2")
        threads = [threading.Thread(target=one, args=(i,)) for i in range(32)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        for i in range(32):
            r = replies.get(i)
            check(r is not None and r.status == 200, f"request {i}: {r!r}")
            check(r.headers.get("x-singletable-warning") == f"warning number {i}",
                  f"request {i} got warning {r.headers.get('x-singletable-warning')!r}")
            check(r.json()["user"] == ("gw_alice" if i % 2 else "gw_tenant2"), f"request {i} ran as {r.json()}")
        n = tg.psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'singletable-gateway'")
        check(n == "1", f"{n} database connections, --pool 1")
        depths = [int(d) for d in re.findall(r"connection 0: (\d+) calls in flight", g.read_log())]
        check(depths and max(depths) <= 4, f"pipeline depths {sorted(set(depths))}: some above 1, none above 4")


def run_gateway(args, soft=None, hard=None, timeout=20):
    def limits():
        if soft is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return subprocess.run([tg.GATEWAY, "--listen", "127.0.0.1:0", "--dsn", tg.DSN, "--schema", "gateway_double",
                           *args], capture_output=True, text=True, timeout=timeout, preexec_fn=limits)


def test_startup_checks():
    # a hard limit of open files too low for --max-connections: refused, saying what to do
    out = run_gateway(["--max-connections", "5000"], soft=1024, hard=1024)
    check(out.returncode == 2 and "needs 5" in out.stderr and "hard limit" in out.stderr, out.stderr)
    # ... for the default, lowered to fit, with a warning (then started; stopped by SIGTERM)
    log = os.path.join(tg.WORK, "lowered.log")
    with open(log, "w") as f:
        p = subprocess.Popen([tg.GATEWAY, "--listen", "127.0.0.1:0", "--dsn", tg.DSN, "--schema", "gateway_double"],
                             stdout=f, stderr=f, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024)))
    try:
        deadline = time.monotonic() + 10
        while "listening on" not in open(log).read() and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.05)
        text = open(log).read()
        check("--max-connections lowered from 8192 to" in text and "listening on" in text, text)
    finally:
        p.terminate()
        p.wait(10)
    # no dynamodb_as in the schema (an older singletable): one line, exit 1
    out = run_gateway(["--schema", "public"])
    check(out.returncode == 1 and 'schema "public" has no function dynamodb_as(text, text, text)' in out.stderr,
          out.stderr)
    # a login role that may not execute it
    out = subprocess.run([tg.GATEWAY, "--listen", "127.0.0.1:0", "--dsn", "user=gw_noexec", "--schema",
                          "gateway_double"], capture_output=True, text=True, timeout=20)
    check(out.returncode == 1 and 'login role "gw_noexec" may not execute gateway_double.dynamodb_as' in out.stderr,
          out.stderr)
    for bad in (["--request-timeout", "0"], ["--max-connections-per-address", "-1"]):
        out = run_gateway(bad)
        check(out.returncode == 2 and bad[0] in out.stderr, out.stderr)


TESTS = [test_slow_clients, test_keepalive_deadline, test_pipelined_calls, test_startup_checks]


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
            print(f"ok {n} - loop: {t.__name__} ({time.monotonic() - start:.1f} s)", flush=True)
        except Exception:
            failed += 1
            print(f"not ok {n} - loop: {t.__name__}", flush=True)
            traceback.print_exc()
    print(f"{passed} passed, {failed} failed")
    if failed:
        print(f"gateway logs: {tg.WORK}")
    else:
        shutil.rmtree(tg.WORK, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
