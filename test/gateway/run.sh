#!/usr/bin/env bash
# test/gateway/run.sh: tests of singletable-gateway, the DynamoDB HTTP endpoint. Starts a
# throwaway PostgreSQL server (test/lib.sh), loads the test double of
# singletable.dynamodb (test/gateway/double.sql), and runs test/gateway/test_gateway.py
# against the installed binary ($(pg_config --bindir)/singletable-gateway; GATEWAY=path
# overrides). Arguments: names of single tests to run (default: all).
#   PG_CONFIG=$(/work/devtools/stage.sh NAME) make install && test/gateway/run.sh
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
python3 "$TOP/test/gateway/test_gateway.py" "$@"
