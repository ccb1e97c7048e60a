# test/tap.sh: sourced by the shell test suites (dump_restore.sh, concurrency.sh).
# Starts a throwaway server when the suite runs on its own (ST_DIR unset; run.sh sets
# it), removes the suite's WORK directory at exit, and prints TAP lines, which
# run.sh's pg_regress parser counts ("ok N - ..." / "not ok N - ...").

TAP_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ -z ${ST_DIR:-} ]]; then
    # shellcheck source=test/lib.sh
    source "$TAP_HERE/lib.sh"
    st_start_server || { echo "Bail out! could not start a test server"; exit 1; }
fi
PGBIN=${PGBIN:-$("${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}" --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)}
WORK=$(mktemp -d /tmp/singletable_tap.XXXXXX) || exit 1

# shellcheck disable=SC2317  # called by the EXIT trap
tap_cleanup() {
    rm -rf "$WORK"
    if declare -F st_stop_server >/dev/null; then
        st_stop_server
    fi
}
trap tap_cleanup EXIT

N=0
FAILURES=0

ok() {
    N=$((N + 1))
    echo "ok $N - $1"
}

not_ok() {
    N=$((N + 1))
    FAILURES=$((FAILURES + 1))
    echo "not ok $N - $1"
}

# Prints its stdin (or its arguments) as TAP diagnostics.
diag() {
    if (($# > 0)); then
        printf '%s\n' "$@" | sed 's/^/# /'
    else
        sed 's/^/# /'
    fi
}

# Ends the run early: later checks would only repeat the same failure.
bail() {
    echo "1..$N"
    echo "Bail out! $1"
    exit 1
}

# expect DB DESC EXPECTED SQL: runs SQL in database DB; ok when its output is EXPECTED.
expect() {
    local db=$1 desc=$2 expected=$3 sql=$4 out
    if ! out=$(q "$db" <<<"$sql" 2>&1); then
        not_ok "$desc"
        diag "failed in database $db:" "$out"
        return
    fi
    if [[ $out != "$expected" ]]; then
        not_ok "$desc"
        diag "expected:" "$expected" "got:" "$out"
        return
    fi
    ok "$desc"
}

# q DB: runs the SQL on stdin in database DB, unaligned and without headers; stops at the
# first error.
q() {
    "$PGBIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$1" -f -
}
