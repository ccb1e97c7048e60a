#!/usr/bin/env bash
# test/gateway/run.sh: tests of singletable-gateway, the DynamoDB HTTP endpoint. Starts a
# throwaway PostgreSQL server (test/lib.sh), loads the test double of
# singletable.dynamodb (test/gateway/double.sql), and runs test/gateway/test_gateway.py
# against the installed binary ($(pg_config --bindir)/singletable-gateway; GATEWAY=path
# overrides) and test/gateway/test_loop.py (the event loop: slow clients, the request
# deadline, the per-address limit, pipelined calls, start-up checks); then, when the
# installed extension has singletable.dynamodb_as, test/gateway/test_sdk.py (boto3 end to
# end), test/gateway/test_partiql.py (PartiQL), test/gateway/test_partiql_cli.py (PartiQL
# through Debian's AWS CLI, /usr/bin/aws), test/gateway/test_export.py (the programs of
# singletable.export_code, after npm ci), test/gateway/test_resource.py (the posting
# app through boto3's resource API) and test/gateway/js/posting_app.test.js (the posting
# app through the JavaScript DocumentClient; `npm ci` installs its pinned SDK first when
# node_modules is missing or older than package-lock.json), then, on the server restarted
# with wal_level = logical and the library preloaded, test/gateway/test_streams.py and
# test/gateway/js/streams.test.js (DynamoDB Streams through boto3's dynamodbstreams and
# @aws-sdk/client-dynamodb-streams), then, on the server restarted with the in-server
# endpoint (singletable_endpoint) preloaded, test/gateway/test_endpoint.py and the SDK suites
# against it (test_sdk, test_multikey, test_resource, test_partiql) and fuzz.py --endpoint,
# and test/gateway/fuzz.py for
# 20 seconds (GATEWAY_FUZZ_SECONDS). Arguments: names of single tests of test_gateway.py
# to run (default: all, the SDK tests and fuzz.py).
#   PG_CONFIG=$(/work/devtools/stage.sh NAME) make install && test/gateway/run.sh
# The Python tests run with Debian's /usr/bin/python3 and its python3-boto3 (test/lib.sh
# installs them), never a python3 found first on PATH (pyenv, a virtualenv) with another
# boto3: CI tests what Debian 12 ships. GATEWAY_PYTHON=python3 tries another one by hand.
set -uo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

GATEWAY=${GATEWAY:-$PGBIN/singletable-gateway}
if [[ ! -x $GATEWAY ]]; then
    echo "no $GATEWAY: build and install it first (make && make install)" >&2
    exit 1
fi
st_start_server || exit 1
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -f "$TOP/test/gateway/double.sql" >/dev/null || exit 1
export GATEWAY PATH="$PGBIN:$PATH"
# -I: neither PYTHONPATH nor the user's site-packages can bring in another boto3
PYTHON=("${GATEWAY_PYTHON:-/usr/bin/python3}" -I)
"${PYTHON[@]}" -c 'import sys, boto3, botocore; print(sys.executable, sys.version.split()[0],
    "boto3", boto3.__version__, "botocore", botocore.__version__)' 2>&1 | sed 's/^/# /'
rc=0
"${PYTHON[@]}" "$TOP/test/gateway/test_gateway.py" "$@" || rc=1

# End to end with boto3, when the installed extension has the gateway's call,
# singletable.dynamodb_as (issue 14, issue 26).
if (($# == 0)); then
    "${PYTHON[@]}" "$TOP/test/gateway/test_loop.py" || rc=1
    "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION singletable" >/dev/null || exit 1
    if [[ $("$PGBIN/psql" -X -At -c "SELECT to_regprocedure('singletable.dynamodb_as(text,text,text)') IS NOT NULL") == t ]]; then
        "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL' || exit 1
CREATE ROLE gw_sdk_reader;
GRANT gw_sdk_reader TO postgres;
GRANT USAGE ON SCHEMA public TO gw_sdk_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE postgres IN SCHEMA public GRANT SELECT ON TABLES TO gw_sdk_reader;
SQL
        "${PYTHON[@]}" "$TOP/test/gateway/test_sdk.py" || rc=1
        "${PYTHON[@]}" "$TOP/test/gateway/test_multikey.py" || rc=1
        "${PYTHON[@]}" "$TOP/test/gateway/test_resource.py" || rc=1
        "${PYTHON[@]}" "$TOP/test/gateway/test_partiql.py" || rc=1
        # the same patterns through Debian's AWS CLI (/usr/bin/aws; missing: "not ok")
        "${PYTHON[@]}" "$TOP/test/gateway/test_partiql_cli.py" || rc=1
        js=$TOP/test/gateway/js
        if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
            # Counted as a failure: CI installs nodejs and npm (test/lib.sh).
            echo "not ok 1 - js: node and npm are needed for test/gateway/js (apt-get install nodejs npm)"
            rc=1
        elif [[ ! -e $js/node_modules/.package-lock.json || $js/package-lock.json -nt $js/node_modules/.package-lock.json ]] &&
            ! (cd "$js" && npm ci --no-audit --no-fund >&2); then
            echo "not ok 1 - js: npm ci in test/gateway/js failed"
            rc=1
        else
            node "$js/posting_app.test.js" || rc=1
            # export_code's programs (JavaScript with the SDK installed above, Python, SQL)
            "${PYTHON[@]}" "$TOP/test/gateway/test_export.py" || rc=1
        fi
        # DynamoDB Streams (issue 27): capture needs wal_level = logical and the library
        # preloaded (its stream worker); the TTL sweep every second for the TTL record
        mapfile -t stream_conf < <(st_stream_conf)
        if st_restart_server "${stream_conf[@]}" "singletable.ttl_interval = 1"; then
            "${PYTHON[@]}" "$TOP/test/gateway/test_streams.py" || rc=1
            if command -v node >/dev/null && [[ -e $js/node_modules/@aws-sdk/client-dynamodb-streams ]]; then
                node "$js/streams.test.js" || rc=1
            else
                echo "not ok 1 - js-streams: @aws-sdk/client-dynamodb-streams is not installed (npm ci in test/gateway/js)"
                rc=1
            fi
        else
            echo "not ok 1 - streams: the server did not restart with wal_level = logical"
            rc=1
        fi
        # The in-server endpoint (singletable_endpoint, issue 26): the gateway's HTTP side run
        # by two background workers of the server, each call in the worker's own backend. A
        # database of its own (the suites above created their tables here): the SDK suites
        # against it (sdk_harness.py's endpoint mode), then its own checks (test_endpoint.py).
        ep_port=$("${PYTHON[@]}" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        ep_creds=$ST_DIR/endpoint-credentials
        install -m 600 -o "$(stat -c %U "$ST_DIR/data")" /dev/null "$ep_creds"
        if "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE endpoint_test" >/dev/null &&
            "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d endpoint_test >/dev/null <<'SQL' &&
CREATE EXTENSION singletable;
GRANT USAGE ON SCHEMA public TO gw_sdk_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE postgres IN SCHEMA public GRANT SELECT ON TABLES TO gw_sdk_reader;
SQL
            st_restart_server "shared_preload_libraries = 'singletable, singletable_endpoint'" \
                "singletable_endpoint.listen = '127.0.0.1:$ep_port'" \
                "singletable_endpoint.workers = 2" \
                "singletable_endpoint.database = 'endpoint_test'" \
                "singletable_endpoint.user = 'postgres'" \
                "singletable_endpoint.credentials = '$ep_creds'" \
                "singletable_endpoint.request_timeout = 6" \
                "singletable_endpoint.log_level = info"; then
            export ENDPOINT_PORT=$ep_port ENDPOINT_CREDENTIALS=$ep_creds ENDPOINT_LOG=$ST_DIR/server.log \
                ENDPOINT_WORKERS=2 ENDPOINT_DATABASE=endpoint_test
            for suite in test_sdk test_multikey test_resource test_partiql test_endpoint; do
                PGDATABASE=endpoint_test "${PYTHON[@]}" "$TOP/test/gateway/$suite.py" || rc=1
            done
            # malformed HTTP and JSON against its workers (their parser runs inside the server)
            PGDATABASE=endpoint_test "${PYTHON[@]}" "$TOP/test/gateway/fuzz.py" --endpoint \
                --seconds "${GATEWAY_FUZZ_SECONDS:-20}" || rc=1
            unset ENDPOINT_PORT ENDPOINT_CREDENTIALS ENDPOINT_LOG ENDPOINT_WORKERS ENDPOINT_DATABASE
        else
            echo "not ok 1 - endpoint: the server did not restart with singletable_endpoint preloaded"
            rc=1
        fi
    else
        echo "# test_sdk.py skipped: the installed extension has no singletable.dynamodb_as(text, text, text)"
    fi
    # Malformed HTTP and JSON for 20 seconds (fuzz.py; issue 15 asks for 10 minutes by hand:
    # /usr/bin/python3 test/gateway/fuzz.py --seconds 600 in the same environment).
    "${PYTHON[@]}" "$TOP/test/gateway/fuzz.py" --seconds "${GATEWAY_FUZZ_SECONDS:-20}" || rc=1
fi
exit $rc
