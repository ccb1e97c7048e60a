#!/usr/bin/env bash
# test/demo.sh [--keep]: the posting-app demo. As root on Debian 12: installs missing
# packages, builds and installs the extension, starts a throwaway server, creates the
# extension and runs test/demo/posting_app.sql (every statement is echoed before its result).
# With --keep the server keeps running afterwards and the script says how to connect to it
# and how to stop it; without, it is stopped and deleted at exit.
set -euo pipefail

# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
    echo "usage: $0 [--keep]"
    echo "  --keep  leave the demo server running (prints how to connect and to stop it)"
}

for arg in "$@"; do
    case $arg in
        --keep) export ST_KEEP=1 ;;
        -h | --help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done

st_install_deps
st_build_install || { echo "demo.sh: build failed" >&2; exit 1; }
st_start_server || { echo "demo.sh: could not start the server" >&2; exit 1; }

psql=("$PGBIN/psql" -X -v ON_ERROR_STOP=1)
"${psql[@]}" --echo-queries -c 'CREATE EXTENSION singletable'
"${psql[@]}" -f "$TOP/test/demo/posting_app.sql"

if [[ ${ST_KEEP:-0} == 1 ]]; then
    echo
    st_server_info
fi
