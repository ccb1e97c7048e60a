#!/usr/bin/env bash
# test/demo.sh [--keep] [--gateway]: the posting-app demo. As root on Debian 12: installs
# missing packages, builds and installs the extension, starts a throwaway server, creates the
# extension and runs test/demo/posting_app.sql (every statement is echoed before its result).
# With --gateway it instead starts singletable-gateway in front of the server (development
# mode: no credentials) and runs the posting app's access patterns through it with boto3,
# unchanged DynamoDB client code (test/demo/posting_app_boto3.py).
# With --keep the server keeps running afterwards and the script says how to connect to it
# and how to stop it; without, it is stopped and deleted at exit.
set -euo pipefail

# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
    echo "usage: $0 [--keep] [--gateway]"
    echo "  --keep     leave the demo server running (prints how to connect and to stop it)"
    echo "  --gateway  the access patterns through singletable-gateway with boto3"
}

GATEWAY_DEMO=0
for arg in "$@"; do
    case $arg in
        --keep) export ST_KEEP=1 ;;
        --gateway) GATEWAY_DEMO=1 ;;
        -h | --help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done

st_install_deps
st_build_install || { echo "demo.sh: build failed" >&2; exit 1; }
st_start_server || { echo "demo.sh: could not start the server" >&2; exit 1; }

psql=("$PGBIN/psql" -X -v ON_ERROR_STOP=1)
"${psql[@]}" --echo-queries -c 'CREATE EXTENSION singletable'
if ((GATEWAY_DEMO == 0)); then
    "${psql[@]}" -f "$TOP/test/demo/posting_app.sql"
else
    # the gateway on a free port of 127.0.0.1, as the login user, until this script exits
    log=$ST_DIR/gateway.log
    "$PGBIN/singletable-gateway" --listen 127.0.0.1:0 --dsn "host=$PGHOST port=$PGPORT user=postgres dbname=postgres" \
        --pool 2 >"$log" 2>&1 &
    gw=$!
    trap 'kill "$gw" 2>/dev/null; wait "$gw" 2>/dev/null; st_stop_server' EXIT
    port=
    for _ in $(seq 50); do
        port=$(sed -n 's/.*listening on .* port \([0-9]*\).*/\1/p' "$log" | head -1)
        [[ -n $port ]] && break
        sleep 0.1
    done
    [[ -n $port ]] || { cat "$log" >&2; echo "demo.sh: the gateway did not start" >&2; exit 1; }
    echo "=== singletable-gateway on http://127.0.0.1:$port (development mode: any signature is accepted)"
    ENDPOINT=http://127.0.0.1:$port python3 "$TOP/test/demo/posting_app_boto3.py"
fi

if [[ ${ST_KEEP:-0} == 1 ]]; then
    echo
    st_server_info
fi
