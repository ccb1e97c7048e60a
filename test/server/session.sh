# test/server/session.sh: sourced by shell test suites after test/tap.sh. A background psql
# session that stays connected (one backend) while the script runs other sessions:
#   session_start NAME DB [USER]   starts it (psql reading from a fifo)
#   session_run NAME SQL           runs SQL in it and prints its output; waits for the
#                                  end by a marker the session echoes, never by sleeping
#   session_send NAME SQL          sends SQL without waiting (e.g. to keep a lock open)
#   session_stop NAME              ends it
# Sessions are ended at exit by session_stop_all (call it from the script's EXIT trap).

declare -A SESSION_PID SESSION_FD

session_start() {
    local name=$1 db=$2 user=${3:-${PGUSER:-postgres}} fd
    mkfifo "$WORK/$name.in" || return 1
    : >"$WORK/$name.out"
    "$PGBIN/psql" -X -q -A -t -U "$user" -d "$db" -v VERBOSITY=verbose \
        <"$WORK/$name.in" >>"$WORK/$name.out" 2>&1 &
    SESSION_PID[$name]=$!
    exec {fd}>"$WORK/$name.in"
    SESSION_FD[$name]=$fd
}

session_send() {
    printf '%s\n' "$2" >&"${SESSION_FD[$1]}"
}

# session_run NAME SQL [TIMEOUT]: fails (status 1) when the marker does not come in
# TIMEOUT seconds (default 60) or the session died.
session_run() {
    local name=$1 sql=$2 timeout=${3:-60} marker start out
    # unique without a counter: callers often run this in a subshell, $(session_run ...)
    marker="__session_${name}_$(date +%s%N)_${RANDOM}__"
    start=$(wc -l <"$WORK/$name.out")
    session_send "$name" "$sql"
    session_send "$name" "\\echo $marker"
    local deadline=$((SECONDS + timeout))
    while ! grep -qx -- "$marker" "$WORK/$name.out"; do
        if ((SECONDS > deadline)) || ! kill -0 "${SESSION_PID[$name]}" 2>/dev/null; then
            tail -n +"$((start + 1))" "$WORK/$name.out"
            return 1
        fi
        sleep 0.02    # between polls of the file
    done
    out=$(tail -n +"$((start + 1))" "$WORK/$name.out" | grep -vx -- "$marker")
    printf '%s\n' "$out"
}

session_stop() {
    local name=$1
    [[ -n ${SESSION_PID[$name]:-} ]] || return 0
    local fd=${SESSION_FD[$name]}
    session_send "$name" '\q' 2>/dev/null
    exec {fd}>&-
    wait "${SESSION_PID[$name]}" 2>/dev/null
    unset "SESSION_PID[$name]"
}

session_stop_all() {
    local name
    for name in "${!SESSION_PID[@]}"; do
        kill "${SESSION_PID[$name]}" 2>/dev/null
    done
}
