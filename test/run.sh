#!/usr/bin/env bash
# test/run.sh: the whole test suite (what CI runs). As root on Debian 12:
#   installs missing packages, builds and installs the extension, starts a throwaway server,
#   runs every suite against it, and ends with the line "N passed, N failed".
# Exits non-zero when anything failed, when no test ran, or when the build failed.
# ST_KEEP=1 test/run.sh leaves the server running afterwards for inspection.
set -euo pipefail

# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PASSED=0
FAILED=0

# Prints the summary as the very last line of output and exits accordingly.
finish() {
    if [[ ${ST_KEEP:-0} == 1 && -n ${ST_DIR:-} ]]; then
        st_server_info >&2
    fi
    if ((PASSED + FAILED == 0)); then
        echo "no test ran" >&2
    fi
    echo "$PASSED passed, $FAILED failed"
    if ((FAILED == 0 && PASSED > 0)); then
        exit 0
    fi
    exit 1
}

# A step before the tests failed: count it as one failure and stop.
setup_failed() {
    echo "run.sh: $1 failed" >&2
    FAILED=$((FAILED + 1))
    finish
}

# Prints "PASSED FAILED" counted in the log file $2, read as the output of parser $1:
#   pg_regress  pg_regress and pg_isolation_regress: PG15 prints one line per test,
#               "test name ... ok  12 ms" (or "     name ... ok" inside a parallel group),
#               "... FAILED" or "... failed (ignored)"; PG16+ prints TAP-style
#               "ok 1 - name" / "not ok 1 - name" instead, also counted.
#   prove       prove's summary: "Files=N, Tests=M, ..." and, for each failed script,
#               "t/x.pl (Wstat: W (exited E) Tests: T Failed: F)", then "Result: PASS|FAIL".
#               Passed = assertions run minus assertions failed; failed = failed assertions,
#               or 1 for a script that died with none failed (bad plan, non-zero exit).
parse_counts() {
    local parser=$1 log=$2
    case $parser in
        pg_regress)
            awk '
                /\.\.\. ok( |$)/                            { p++ }
                /\.\.\. (FAILED|failed \(ignored\))/        { f++ }
                /^ok [0-9]+ +[-+] /                         { p++ }
                /^not ok [0-9]+ +[-+] /                     { f++ }
                END { print p + 0, f + 0 }' "$log"
            ;;
        prove)
            awk '
                /^Files=[0-9]+, Tests=[0-9]+/ {
                    s = $0; sub(/.*Tests=/, "", s); sub(/[^0-9].*/, "", s); tests += s
                }
                /\(Wstat: [0-9]+.* Tests: [0-9]+ Failed: [0-9]+\)/ {
                    k = $0; sub(/.*Failed: /, "", k); sub(/[^0-9].*/, "", k)
                    w = $0; sub(/.*Wstat: /, "", w); sub(/[^0-9].*/, "", w)
                    failed_asserts += k
                    if (k > 0) f += k; else if (w != 0) f++
                }
                /^Result: FAIL/ { result_fail = 1 }
                END {
                    if (result_fail && f == 0) f = 1
                    print tests - failed_asserts, f + 0
                }' "$log"
            ;;
        *)
            echo "run.sh: unknown parser '$parser'" >&2
            echo "0 1"
            ;;
    esac
}

# run_suite NAME PARSER CMD...: runs CMD, showing its output and keeping a copy, counts its
# results with PARSER (see parse_counts) and adds them to PASSED/FAILED. A command that
# fails without any failed test being counted (crash, cannot connect) counts as 1 failure.
# On failure prints the regression diffs to stderr.
run_suite() {
    local name=$1 parser=$2
    shift 2
    local log="$ST_DIR/$name.log" rc=0 p f diffs
    # Diffs of an earlier run must not be mistaken for this one's.
    local diff_files=("$TOP/regression.diffs" "$TOP/output_iso/regression.diffs")
    rm -f "${diff_files[@]}"

    st_log "suite $name: $*"
    "$@" 2>&1 | tee "$log" || rc=${PIPESTATUS[0]}
    read -r p f < <(parse_counts "$parser" "$log")
    if ((rc != 0 && f == 0)); then
        echo "run.sh: suite $name: command exited with status $rc" >&2
        f=1
    fi
    st_log "suite $name: $p passed, $f failed"
    PASSED=$((PASSED + p))
    FAILED=$((FAILED + f))

    if ((f > 0)); then
        for diffs in "${diff_files[@]}"; do
            if [[ -s $diffs ]]; then
                echo "===== $diffs =====" >&2
                cat "$diffs" >&2
            fi
        done
        if [[ $parser == prove ]]; then
            echo "TAP logs: $TOP/tmp_check/log/" >&2
        fi
    fi
}

# Dependencies are installed in a subshell because st_install_deps exits when not root.
(st_install_deps EXTENSION GATEWAY TEST) || setup_failed "installing dependencies"

# Two builds, each running the regression suite once: first a debug build with
# assertions enabled (USE_ASSERT_CHECKING in the extension's own code and in the server
# headers' inline functions and macros, such as castNode; it works against Debian's
# server built without them; -O0 compiles fastest) on a server that preloads the
# library (shared_preload_libraries), so that _PG_init runs in the postmaster and the
# backends inherit it; then the normal build, which every suite runs against, on the
# same server restarted without preloading. One extra build and one extra regression
# run cover both variants.
st_build_install "-DUSE_ASSERT_CHECKING -O0" || setup_failed "build with assertions"
# The TTL workers stay off on this server: the regression tests sweep with ttl_sweep()
# themselves, deterministically (test/tap/t/ tests the workers).
st_start_server "shared_preload_libraries = 'singletable'" "singletable.ttl_enabled = off" ||
    setup_failed "starting the test server"
[[ $("$PGBIN/psql" -X -A -t -d postgres -c 'SHOW shared_preload_libraries') == singletable ]] ||
    setup_failed "preloading singletable"

# pg_regress (test/regress/sql/*.sql against expected/*.out). It runs as root but connects as
# PGUSER=postgres over the socket, which trust authentication allows. `make installcheck`
# alone runs the regression and then the isolation tests; here they are separate suites
# (ISOLATION= / REGRESS= turn one off), so that a failed regression test does not keep
# the isolation tests from running.
run_suite regress_assert_preload pg_regress make -C "$TOP" installcheck PG_CONFIG="$PG_CONFIG" ISOLATION=

st_build_install || setup_failed "build"
st_restart_server "shared_preload_libraries = ''" ||
    setup_failed "restarting the test server without preloading"

run_suite regress pg_regress make -C "$TOP" installcheck PG_CONFIG="$PG_CONFIG" ISOLATION=
# Each layer of src/ calls only the layers below it (src/README.md), read off the objects
# just built.
run_suite layers pg_regress bash "$TOP/test/checks/layers.sh"
# Every relative link and anchor of README.md, CHANGELOG.md, docs/ and the folder READMEs resolves.
run_suite links pg_regress bash "$TOP/test/checks/links.sh"
# Both sides answer what src/utils/errors.tab says, row by row (extension, gateway, and the two together).
run_suite errors_table pg_regress bash "$TOP/test/server/errors_table.sh"

# pg_isolation_regress (test/isolation/specs/*.spec against expected/*.out, results in output_iso/):
# concurrent put_item/delete_item on the same item.
run_suite isolation pg_regress make -C "$TOP" installcheck PG_CONFIG="$PG_CONFIG" REGRESS=

# pg_dump of a database using singletable, restored with psql (TAP lines, one per check).
run_suite dump pg_regress bash "$TOP/test/server/dump_restore.sh"
# CREATE EXTENSION in fresh databases: the check of a pre-existing schema singletable.
run_suite install pg_regress bash "$TOP/test/server/install.sh"
# The released versions updated to the default one, compared with a fresh install.
run_suite upgrade pg_regress bash "$TOP/test/server/upgrade.sh"
run_suite concurrency pg_regress bash "$TOP/test/server/concurrency.sh"
# hot keys under a skewed pgbench load, on a server of its own that preloads the library
run_suite hot_keys pg_regress bash "$TOP/test/server/hot_keys.sh"
# The expression engine outside the server: the fuzz corpus, the inputs of past
# findings and deeply nested inputs, replayed once under ASan/UBSan (seconds).
run_suite fuzz pg_regress bash "$TOP/test/fuzz/regress.sh"

# The TTL background workers (launcher and per-database workers, which need
# shared_preload_libraries): test/tap/t/*.pl with PostgreSQL::Test::Cluster, each starting its
# own servers with the installed extension; prove's summary is counted. About a minute.
run_suite tap prove bash "$TOP/test/tap/run.sh"
run_suite lock_privileges pg_regress bash "$TOP/test/server/lock_privileges.sh"
run_suite cache pg_regress bash "$TOP/test/server/cache.sh"
run_suite log_privacy pg_regress bash "$TOP/test/server/log_privacy.sh"
run_suite gateway pg_regress bash "$TOP/test/gateway/run.sh"
# The viewer (singletable-gateway --viewer) in headless Chromium with puppeteer-core (TAP
# lines, one per check; npm ci into test/viewer/node_modules on the first run).
run_suite viewer pg_regress bash "$TOP/test/viewer/run.sh"
# singletable.dynamodb against dynalite (test/diff: 1000 generated cases, seed 1, one TAP
# line per DynamoDB operation; npm ci into test/diff/node_modules on the first run).
run_suite diff pg_regress bash "$TOP/test/diff/run.sh" --ci
# The distributed case: Citus built from ../shared/vendor (once; cached in
# /var/cache/singletable), a coordinator and two workers of its own (not the test server),
# the posting app on a distributed table (TAP lines, one per check).
run_suite citus pg_regress bash "$TOP/test/citus/run.sh"
# The Debian packages: dpkg-buildpackage, lintian, then installed into a clean Debian 12 root
# (debootstrap, cached in /var/cache/singletable) where CREATE EXTENSION works and the
# packaged gateway, started as its systemd unit says, answers signed requests.
run_suite packaging pg_regress bash "$TOP/test/packaging/run.sh"

finish
