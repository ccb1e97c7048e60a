#!/usr/bin/env bash
# test/tap/run.sh: runs the TAP tests of test/tap/t/*.pl (PostgreSQL::Test::Cluster from
# postgresql-server-dev-15) with prove, against the installed extension, and prints prove's
# output (its summary is what test/run.sh's "prove" parser counts). Exits with prove's status.
#
#   test/tap/run.sh [TEST...]      e.g. test/tap/run.sh t/001_ttl_worker.pl
#
# Why not `make installcheck` with TAP_TESTS = 1: PGXS's installcheck then runs prove too,
# after the regression and isolation tests, from the top directory (t/*.pl) and as the
# calling user; test/run.sh runs `make installcheck` as root for pg_regress, and
# PostgreSQL::Test::Cluster refuses to run initdb as root. So the Makefile has no TAP_TESTS
# and this script is the way to run them, the same by hand and in CI.
#
# As root (CI) the tests run as the OS user "postgres", in a fresh directory under /tmp
# that it owns (TESTDIR; the nodes live in TESTDIR/tmp_check); otherwise as the caller.
# Afterwards the TAP logs (each test's log and its servers' logs) are copied to
# tmp_check/log/ in the repository. Each test starts its own servers: no server need run.
#
# Environment: PG_CONFIG (default Debian's PostgreSQL 15), PROVE_FLAGS (default --verbose; empty for none),
# PG_TEST_NOCLEAN=1 keeps the test directory (its path is printed).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
BINDIR=$("$PG_CONFIG" --bindir)
# pg_config --pgxs is .../lib/pgxs/src/makefiles/pgxs.mk
PGXS_DIR=$(cd "$(dirname "$("$PG_CONFIG" --pgxs)")/../.." && pwd)
PERL_DIR=$PGXS_DIR/src/test/perl
PG_REGRESS=$PGXS_DIR/src/test/regress/pg_regress

for f in "$PERL_DIR/PostgreSQL/Test/Cluster.pm" "$PG_REGRESS"; do
    if [[ ! -e $f ]]; then
        echo "Bail out! $f is missing (apt-get install postgresql-server-dev-15)"
        exit 1
    fi
done
if ! perl -MIPC::Run -e 1 2>/dev/null; then
    echo "Bail out! the Perl module IPC::Run is missing (apt-get install libipc-run-perl)"
    exit 1
fi

WORK=$(mktemp -d /tmp/singletable_prove.XXXXXX)
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
    local keep=${PG_TEST_NOCLEAN:-}
    # the logs, for a look after a failure (run.sh points there)
    if [[ -d $WORK/tmp_check/log ]]; then
        if ! { rm -rf "$TOP/tmp_check/log" && mkdir -p "$TOP/tmp_check" &&
               cp -r "$WORK/tmp_check/log" "$TOP/tmp_check/log"; } 2>/dev/null; then
            echo "# cannot copy the logs to $TOP/tmp_check/log: they stay in $WORK/tmp_check/log" >&2
            keep=1
        fi
    fi
    if [[ -n $keep ]]; then
        echo "# test directory kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

# The tests are copied, so that the user running them needs no access to the repository.
cp -r "$TOP/test/tap/t" "$WORK/t"
mkdir "$WORK/tmp_check"

as_tester=()
if ((EUID == 0)); then
    if ! id postgres >/dev/null 2>&1; then
        echo "Bail out! OS user 'postgres' does not exist (it comes with postgresql-common)"
        exit 1
    fi
    chown -R postgres: "$WORK"
    as_tester=(runuser -u postgres --)
fi

cd "$WORK"
if (($# == 0)); then
    set -- t/*.pl
fi
rc=0
# shellcheck disable=SC2086  # PROVE_FLAGS is a list of flags
"${as_tester[@]}" env \
    PATH="$BINDIR:$PATH" \
    PERL5LIB="$PERL_DIR${PERL5LIB:+:$PERL5LIB}" \
    PG_REGRESS="$PG_REGRESS" \
    TESTDIR="$WORK" \
    PG_CONFIG="$PG_CONFIG" \
    ${PG_TEST_NOCLEAN:+PG_TEST_NOCLEAN=1} \
    prove ${PROVE_FLAGS---verbose} "$@" || rc=$?
exit "$rc"
