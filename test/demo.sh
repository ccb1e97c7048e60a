#!/usr/bin/env bash
# test/demo.sh [--keep] [--gateway]: the posting-app demo, for a first look. As root on Debian 12:
#   1. installs the missing packages it needs with apt-get: postgresql-15,
#      postgresql-server-dev-15, make, gcc; --gateway adds the gateway's build packages and
#      python3-boto3 (test/lib.sh, ST_PKG_*);
#   2. builds the extension (--gateway: and singletable-gateway) and installs it into PostgreSQL 15;
#   3. starts a throwaway server, creates the extension and runs test/demo/posting_app.sql
#      (every statement is printed before its result); --gateway instead starts
#      singletable-gateway in front of the server (development mode: no credentials) and runs
#      the same access patterns through it with boto3, unchanged DynamoDB client code
#      (test/demo/posting_app_boto3.py);
#   4. says what to do next and what it left on the machine.
# The output of apt-get and make goes to a setup log (/tmp/singletable-demo.*/setup.log, kept);
# the terminal gets one line per step, and the end of the log when a step fails.
# --keep leaves the server running afterwards; without, it is stopped and deleted at exit.
set -euo pipefail

# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
    cat <<EOF
usage: $0 [--keep] [--gateway]
The posting app's access patterns on a throwaway PostgreSQL 15 server with singletable (as
root on Debian 12: it installs the packages it needs, builds and installs the extension).
  --keep     leave the server running afterwards, to try things in psql (prints how to
             connect and how to stop it)
  --gateway  the access patterns through singletable-gateway, the DynamoDB endpoint, with
             boto3 (also installs the gateway's build packages and python3-boto3)
EOF
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

fail() {
    echo "demo.sh: $1 failed" >&2
    exit 1
}

# apt-get's and make's output: in a log of its own that outlives the server's directory
ST_SETUP_LOG=$(mktemp -d /tmp/singletable-demo.XXXXXX)/setup.log
export ST_SETUP_LOG
: >"$ST_SETUP_LOG"

if ((GATEWAY_DEMO == 0)); then
    echo "singletable demo: the posting app's access patterns in SQL (test/demo/posting_app.sql)"
    groups=(EXTENSION)
    export ST_BUILD_GATEWAY=0
else
    echo "singletable demo: the posting app's access patterns through the DynamoDB endpoint, with boto3"
    groups=(EXTENSION GATEWAY BOTO3)
    export ST_BUILD_GATEWAY=1
fi
st_log "the output of apt-get and make goes to $ST_SETUP_LOG"
st_install_deps "${groups[@]}" || fail "installing the packages"
if ((${#ST_INSTALLED[@]} > 0)); then
    st_log "installed ${ST_INSTALLED_COUNT:-the} packages"
fi
st_build_install || fail "building the extension"
st_start_server || fail "starting the server"

psql=("$PGBIN/psql" -X -v ON_ERROR_STOP=1)
gateway_cmd=
if ((GATEWAY_DEMO == 0)); then
    st_log "psql: test/demo/posting_app.sql, each statement printed before its result"
    "${psql[@]}" --echo-queries -c 'CREATE EXTENSION singletable' || fail "CREATE EXTENSION singletable"
    "${psql[@]}" -f "$TOP/test/demo/posting_app.sql" || fail "test/demo/posting_app.sql"
else
    "${psql[@]}" -q -c 'CREATE EXTENSION singletable' || fail "CREATE EXTENSION singletable"
    # the gateway on a free port of 127.0.0.1, as the login user, until this script exits
    dsn="host=$PGHOST port=$PGPORT user=postgres dbname=postgres"
    gateway_cmd="$PGBIN/singletable-gateway --listen 127.0.0.1:8000 --dsn '$dsn'"
    log=$ST_DIR/gateway.log
    "$PGBIN/singletable-gateway" --listen 127.0.0.1:0 --dsn "$dsn" --pool 2 >"$log" 2>&1 &
    gw=$!
    trap 'kill "$gw" 2>/dev/null; wait "$gw" 2>/dev/null; st_stop_server' EXIT
    port=
    for _ in $(seq 50); do
        port=$(sed -n 's/.*listening on .* port \([0-9]*\).*/\1/p' "$log" | head -1)
        [[ -n $port ]] && break
        sleep 0.1
    done
    [[ -n $port ]] || { cat "$log" >&2; fail "starting singletable-gateway"; }
    st_log "singletable-gateway on http://127.0.0.1:$port (development mode: no credentials)"
    st_log "/usr/bin/python3 test/demo/posting_app_boto3.py: each call, then what came back"
    # Debian's python, which has python3-boto3 (a pyenv python may be first on PATH)
    ENDPOINT=http://127.0.0.1:$port /usr/bin/python3 "$TOP/test/demo/posting_app_boto3.py" ||
        fail "test/demo/posting_app_boto3.py"
fi

# What next, and what this run left on the machine.
echo
if [[ ${ST_KEEP:-0} == 1 ]]; then
    stop="$PGBIN/pg_ctl -D $ST_DIR/data -m fast stop"
    ((EUID == 0)) && stop="runuser -u postgres -- $stop"
    ST_INFO_SHOWN=1  # for st_stop_server at exit: said here
    echo "Done. The server is still running (--keep), with the demo's table posting_app."
    echo "  connect:  psql -h $ST_DIR -p $PGPORT -U postgres postgres"
    echo "  stop it and delete its files (its log: $ST_DIR/server.log):"
    echo "            $stop && rm -rf $ST_DIR"
    if [[ -n $gateway_cmd ]]; then
        echo "  the gateway has stopped; to start it again on port 8000:"
        echo "            $gateway_cmd"
    fi
    echo "What next:"
else
    echo "Done. What next:"
    echo "  test/demo.sh --keep     the same, and the server stays up to try things in psql"
fi
((GATEWAY_DEMO == 1)) ||
    echo "  test/demo.sh --gateway  the same through the DynamoDB endpoint, with boto3"
echo "  README.md               A short tour; then docs/: tables-and-items.md, queries.md,"
echo "                          indexes.md, endpoint.md (the DynamoDB endpoint), functions.md"
echo "  test/run.sh             the whole test suite (it installs more, e.g. Node.js;"
echo "                          docs/development.md)"
echo "Left on this machine:"
if ((${#ST_INSTALLED[@]} > 0)); then
    echo "  - ${ST_INSTALLED_COUNT:-the} packages from apt-get: the ${#ST_INSTALLED[@]} above and what they depend on;"
    echo "    to remove them (apt may keep a few that other packages still want):"
    echo "      apt-get purge --autoremove ${ST_INSTALLED[*]}"
fi
if ((GATEWAY_DEMO == 0)); then
    echo "  - the extension, installed into PostgreSQL 15; to remove it:"
else
    echo "  - the extension and the gateway, installed into PostgreSQL 15; to remove them:"
fi
echo "      make -C $TOP uninstall PG_CONFIG=$PG_CONFIG"
echo "  - the setup log: $ST_SETUP_LOG"
no_main=/etc/postgresql-common/createcluster.d/no-main.conf
if [[ $(cat "$no_main" 2>/dev/null) == 'create_main_cluster = false' ]]; then
    # test/lib.sh removes the drop-in it makes right after installing; earlier versions left it
    echo "  - $no_main, probably from an earlier"
    echo "    test/demo.sh or test/run.sh: while it is there, installing a PostgreSQL creates no"
    echo "    default cluster (create_main_cluster = false); delete it to get Debian's default back"
fi
