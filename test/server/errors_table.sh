#!/usr/bin/env bash
# test/server/errors_table.sh: the error table src/utils/errors.tab is the single source of what
# the extension and the gateway answer for an error, checked row by row on what they do:
#
#   generator  src/utils/gen_errors.awk writes the same headers every time, the built
#              ones are the table's, and it refuses a malformed table
#   extension  for every SQLSTATE of the table, one of each class fallback and a few of
#              "otherwise": a trigger on an item table raises it (bare, without a DETAIL)
#              under singletable.dynamodb('PutItem', ...), whose error must keep the
#              SQLSTATE and carry the table's exception as "__type" in its DETAIL body
#   gateway    (the installed singletable-gateway; skipped when there is none) the same
#              SQLSTATEs raised bare by a stand-in dynamodb() give the table's exception
#              and its HTTP status (the gateway's own SQLSTATE table); every exception of
#              the table, as the __type of a DETAIL body, gets the table's HTTP status; and
#              the SQLSTATEs through the real singletable.dynamodb end to end
#
# Prints TAP lines. Runs against the installed extension and gateway (make install).
set -uo pipefail

# shellcheck source=test/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
ROOT=$(cd "$TAP_HERE/.." && pwd)
TABLE=$ROOT/src/utils/errors.tab
GEN=$ROOT/src/utils/gen_errors.awk
DB=singletable_errors_table
GATEWAY=${GATEWAY:-$PGBIN/singletable-gateway}

# -- the table, read here with awk as the generator reads it
declare -A EXC_TYPE EXC_STATUS STATE_EXC CLASS_EXC
EXCEPTIONS=() STATES=() CLASSES=() OTHERWISE=
while read -r kind a b c; do
    case $kind in
        exception) EXC_STATUS[$a]=$b EXC_TYPE[$a]=$c EXCEPTIONS+=("$a") ;;
        sqlstate) STATE_EXC[$a]=$b STATES+=("$a") ;;
        class) CLASS_EXC[$a]=$b CLASSES+=("$a") ;;
        otherwise) OTHERWISE=$a ;;
    esac
done < <(awk '!/^[ \t]*(#|$)/ { print $1, $2, $3, $4 }' "$TABLE")
if ((${#EXCEPTIONS[@]} == 0 || ${#STATES[@]} == 0)) || [[ -z $OTHERWISE ]]; then
    bail "could not read $TABLE"
fi

# The exception the table gives a SQLSTATE.
exception_of() {
    local code=$1
    if [[ -n ${STATE_EXC[$code]:-} ]]; then
        echo "${STATE_EXC[$code]}"
    elif [[ -n ${CLASS_EXC[${code:0:2}]:-} ]]; then
        echo "${CLASS_EXC[${code:0:2}]}"
    else
        echo "$OTHERWISE"
    fi
}

# The SQLSTATEs tried: every one of the table, then for each class one it does not list,
# then some of no listed class (PostgreSQL's internal_error, unique_violation, a class 55
# and a class 42 code not listed).
CODES=("${STATES[@]}")
for cc in "${CLASSES[@]}"; do
    CODES+=("${cc}Z98")
done
for code in XX000 23505 55000 42P02; do
    [[ -z ${STATE_EXC[$code]:-} && -z ${CLASS_EXC[${code:0:2}]:-} ]] && CODES+=("$code")
done

# The "__type" of the first JSON body in the text on stdin.
type_of() {
    sed -n 's/.*"__type": *"\([^"]*\)".*/\1/p' | head -n 1
}

# -- the generator
for side in extension gateway; do
    a=$(awk -v side=$side -f "$GEN" "$TABLE") && b=$(awk -v side=$side -f "$GEN" "$TABLE")
    if [[ -n $a && $a == "$b" ]]; then
        ok "generator: the $side header is the same on every run"
    else
        not_ok "generator: the $side header is the same on every run"
    fi
done
for built in "src/utils/errors_table.h extension" "gateway/errors_table.h gateway"; do
    read -r path side <<<"$built"
    if [[ ! -e $ROOT/$path ]]; then
        ok "generator: the built $path is the table's # SKIP not built"
    elif cmp -s "$ROOT/$path" <(awk -v side="$side" -f "$GEN" "$TABLE"); then
        ok "generator: the built $path is the table's"
    else
        not_ok "generator: the built $path is the table's"
        diag "it was generated from another table: make again"
    fi
done
bad=$(printf '%s\n' 'exception A 400 x#A' 'sqlstate 22S99 B ERRCODE_ST_B' 'otherwise A' |
    awk -v side=extension -f "$GEN" 2>&1 >/dev/null)
if [[ $? -ne 0 && $bad == *"no exception B declared"* ]]; then
    ok "generator: a SQLSTATE of an undeclared exception is refused"
else
    not_ok "generator: a SQLSTATE of an undeclared exception is refused"
    diag "$bad"
fi

# -- the extension
"$PGBIN/psql" -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null ||
    bail "could not create database $DB"
q "$DB" <<'SQL' >/dev/null || bail "setup failed"
CREATE EXTENSION singletable;
-- the SQLSTATE to raise next: a table, so that the gateway's calls see it too
CREATE TABLE raise_next (code text NOT NULL);
INSERT INTO raise_next VALUES ('XX000');
CREATE FUNCTION raise_next() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    c text := (SELECT code FROM raise_next);
BEGIN
    RAISE EXCEPTION 'raised %', c USING ERRCODE = c;
END;
$$;
DO $$
BEGIN
    EXECUTE format('CREATE TRIGGER raise_next BEFORE INSERT OR UPDATE ON %s
                    FOR EACH ROW EXECUTE FUNCTION raise_next()',
                   singletable.create_table('errtab', 'pk', NULL));
END;
$$;
-- the gateway's stand-in: raises the request's "code" bare, or an error whose DETAIL is a
-- body of the request's "type"
CREATE SCHEMA errtab_double;
CREATE FUNCTION errtab_double.dynamodb(operation text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
BEGIN
    IF request ? 'type' THEN
        RAISE EXCEPTION 'typed' USING ERRCODE = 'XX000',
            DETAIL = jsonb_build_object('__type', request->>'type', 'message', 'a message')::text;
    END IF;
    RAISE EXCEPTION 'raised %', request->>'code' USING ERRCODE = request->>'code';
END;
$$;
-- the gateway calls dynamodb_as(role, operation, request), as the extension's wraps dynamodb
CREATE FUNCTION errtab_double.dynamodb_as(role text, operation text, request text) RETURNS text
LANGUAGE sql AS $$ SELECT errtab_double.dynamodb(operation, request::jsonb)::text $$;
SQL
PUT='{"TableName": "errtab", "Item": {"pk": {"S": "a"}}}'

for code in "${CODES[@]}"; do
    exc=$(exception_of "$code")
    desc="extension: $code is ${EXC_TYPE[$exc]#*#}"
    out=$("$PGBIN/psql" -X -q -d "$DB" -v ON_ERROR_STOP=1 2>&1 <<SQL
UPDATE raise_next SET code = '$code';
\set VERBOSITY verbose
SELECT singletable.dynamodb('PutItem', '$PUT');
SQL
    )
    got=$(type_of <<<"$out")
    if [[ $out != *"ERROR:  $code:"* ]]; then
        not_ok "$desc"
        diag "the error does not keep SQLSTATE $code:" "$out"
    elif [[ $got != "${EXC_TYPE[$exc]}" ]]; then
        not_ok "$desc"
        diag "expected __type ${EXC_TYPE[$exc]}, got:" "$out"
    else
        ok "$desc"
    fi
done

# -- the gateway
if [[ ! -x $GATEWAY ]]; then
    ok "gateway: no $GATEWAY # SKIP the gateway is not installed"
    echo "1..$N"
    exit $((FAILURES > 0))
fi

GW_PID='' GW_PORT=''
# shellcheck disable=SC2317  # called by the EXIT trap
stop_gateway() {
    if [[ -n $GW_PID ]]; then
        kill "$GW_PID" 2>/dev/null && wait "$GW_PID" 2>/dev/null
        GW_PID=
    fi
}
trap 'stop_gateway; tap_cleanup' EXIT

# start_gateway SCHEMA: a gateway on a free port calling SCHEMA.dynamodb_as, no credentials
start_gateway() {
    local log=$WORK/gateway-$1.log
    stop_gateway
    "$GATEWAY" --listen 127.0.0.1:0 --dsn "dbname=$DB" --pool 1 --schema "$1" \
        --log-level info >"$log" 2>&1 &
    GW_PID=$!
    for _ in $(seq 200); do
        GW_PORT=$(sed -n 's/.*listening on 127\.0\.0\.1 port \([0-9]*\).*/\1/p' "$log" | head -n 1)
        [[ -n $GW_PORT ]] && return 0
        kill -0 "$GW_PID" 2>/dev/null || break
        sleep 0.05
    done
    cat "$log" >&2
    bail "the gateway did not start (schema $1)"
}

# call OPERATION BODY: prints the HTTP status, a blank, then the response body
call() {
    curl -s -w '\n%{http_code}' -X POST "http://127.0.0.1:$GW_PORT/" \
        -H 'Content-Type: application/x-amz-json-1.0' -H "X-Amz-Target: DynamoDB_20120810.$1" \
        --data-binary "$2" | awk '{ line[NR] = $0 } END { print line[NR]; for (i = 1; i < NR; i++) print line[i] }'
}

# expect_response DESC EXCEPTION RESPONSE: ok when RESPONSE has the exception's type and status
expect_response() {
    local desc=$1 exc=$2 status body
    status=$(head -n 1 <<<"$3")
    body=$(tail -n +2 <<<"$3")
    if [[ $status != "${EXC_STATUS[$exc]}" || $(type_of <<<"$body") != "${EXC_TYPE[$exc]}" ]]; then
        not_ok "$desc"
        diag "expected ${EXC_STATUS[$exc]} ${EXC_TYPE[$exc]}, got $status $body"
    else
        ok "$desc"
    fi
}

start_gateway errtab_double
for code in "${CODES[@]}"; do
    exc=$(exception_of "$code")
    expect_response "gateway: $code without a body is ${EXC_STATUS[$exc]} ${EXC_TYPE[$exc]#*#}" "$exc" \
        "$(call Scan "{\"code\": \"$code\"}")"
done
for exc in "${EXCEPTIONS[@]}"; do
    expect_response "gateway: ${EXC_TYPE[$exc]#*#} is HTTP ${EXC_STATUS[$exc]}" "$exc" \
        "$(call Scan "{\"type\": \"${EXC_TYPE[$exc]}\"}")"
done

start_gateway singletable
for code in "${CODES[@]}"; do
    exc=$(exception_of "$code")
    q "$DB" <<<"UPDATE raise_next SET code = '$code'" >/dev/null || bail "could not set the SQLSTATE"
    expect_response "gateway and extension: $code is ${EXC_STATUS[$exc]} ${EXC_TYPE[$exc]#*#}" "$exc" \
        "$(call PutItem "$PUT")"
done
stop_gateway

echo "1..$N"
exit $((FAILURES > 0))
