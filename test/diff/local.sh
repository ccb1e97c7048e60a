#!/usr/bin/env bash
# test/diff/local.sh [CASES] [SEED]: by hand, not in CI. What dynalite lacks —
# TransactWriteItems (conditions, ConditionCheck, cancellation reasons, ClientRequestToken
# replayed and reused with another request), TransactGetItems, UpdateTimeToLive with
# DescribeTimeToLive — compared between singletable.dynamodb and AWS's DynamoDB Local
# (installed by run.sh with DIFF_LOCAL=1; java 17; as root, in a network namespace of its own).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export DIFF_LOCAL=1 DIFF_KINDS=local
exec bash "$HERE/run.sh" "${1:-300}" "${2:-1}"
