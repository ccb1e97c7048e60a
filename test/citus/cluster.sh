# shellcheck shell=bash
# test/citus/cluster.sh: a throwaway three-node Citus cluster (source it, don't run it).
#
#   cl_start [LINE...]   initdb and start a coordinator and two workers (each LINE is appended
#                        to every node's postgresql.conf), CREATE EXTENSION citus and
#                        singletable on all three, register the workers with the coordinator
#   cl_add_worker NODE   one more worker, set up the same way, added with citus_add_node
#   cl_psql NODE ARG...  psql -X to NODE (coord, worker1, worker2) in database postgres
#   cl_log NODE          the path of NODE's server log
#   cl_backtraces        gdb backtraces of the core files of crashed backends, if any
#   cl_info              how to connect to / stop the cluster (printed at exit for ST_KEEP=1)
#   cl_stop              EXIT trap: stops every node and removes CL_DIR (unless ST_KEEP=1)
#
# Each node runs as the OS user postgres (when we are root), with trust authentication, on
# a Unix socket in its own directory $CL_DIR/NODE and on no TCP address
# (listen_addresses = ''). The nodes reach each other by libpq over those sockets: a node's
# name in Citus's metadata (citus_add_node, citus.local_hostname) is its socket directory,
# which libpq takes as a Unix socket when a host starts with '/'. Ports are distinct (the
# socket file is named after the port, and Citus tells nodes apart by name and port).
# cl_start exports PGHOST/PGPORT/PGUSER/PGDATABASE for the coordinator, CL_DIR,
# CL_HOST[NODE] and CL_PORT[NODE]. ST_KEEP=1 leaves the cluster running at exit.
# Where it runs, without editing this file: CL_PORT_BASE (default 54340) is the first port
# tried, the nodes taking the next free ones within 200; CL_PARENT_DIR (default $TMPDIR or
# /tmp) holds CL_DIR, a new singletable_citus.XXXXXX directory (its sockets' paths must stay
# under the 107 bytes of a Unix socket name).
# The extensions must be installed in $PG_CONFIG's PostgreSQL (test/citus/build.sh installs
# Citus; singletable by `make install`).

# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

CL_NODES=(coord worker1 worker2)
CL_LINES=()
declare -gA CL_HOST=() CL_PORT=()
CL_DIR=
CL_PARENT=${CL_PARENT_DIR:-${TMPDIR:-/tmp}}

# cl_as_owner CMD...: CMD as the servers' OS user (st_as_owner runs in $ST_DIR).
cl_as_owner() {
    ST_DIR=$CL_DIR st_as_owner "$@"
}

# Prints a free port from $1 on, skipping ports already given to a node of this cluster.
cl_free_port() {
    local port=$1 p used socket
    for ((; port < $1 + 200 && port <= 65535; port++)); do
        used=0
        for p in "${CL_PORT[@]}"; do
            ((p == port)) && used=1
        done
        for socket in /tmp/.s.PGSQL."$port" /tmp/singletable*/.s.PGSQL."$port" \
                      "$CL_PARENT"/singletable_citus.*/*/.s.PGSQL."$port" /var/run/postgresql/.s.PGSQL."$port"; do
            [[ -S $socket ]] && used=1
        done
        if ((used == 0)) && ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return 0
        fi
    done
    return 1
}

cl_log() {
    echo "$CL_DIR/$1/server.log"
}

cl_psql() {
    local node=$1
    shift
    "$PGBIN/psql" -X -h "${CL_HOST[$node]}" -p "${CL_PORT[$node]}" -U postgres -d postgres "$@"
}

# cl_sql NODE SQL: runs SQL on NODE quietly, stopping at the first error; prints the
# unaligned, header-less output.
cl_sql() {
    cl_psql "$1" -q -A -t -v ON_ERROR_STOP=1 -c "$2"
}

# cl_init_node NODE PORT: initdb and start NODE on the first free port from PORT, with the
# settings of every node and cl_start's LINEs (CL_LINES)
cl_init_node() {
    local node=$1 port=$2 line
    cl_as_owner mkdir -p "$CL_DIR/$node" || return 1
    if ! cl_as_owner "$PGBIN/initdb" --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
            -D "$CL_DIR/$node/data" >"$CL_DIR/$node/initdb.log" 2>&1; then
        cat "$CL_DIR/$node/initdb.log" >&2
        return 1
    fi
    port=$(cl_free_port "$port") || { echo "no free port for $node" >&2; return 1; }
    CL_HOST[$node]=$CL_DIR/$node
    CL_PORT[$node]=$port
    {
        echo
        echo "# --- added by test/citus/cluster.sh cl_start ---"
        echo "shared_preload_libraries = 'citus'"
        echo "listen_addresses = ''"
        echo "unix_socket_directories = '$CL_DIR/$node'"
        echo "port = $port"
        echo "# throwaway servers: durability buys nothing"
        echo "fsync = off"
        echo "synchronous_commit = off"
        echo "full_page_writes = off"
        echo "# Citus's maintenance daemon and its background tasks are workers too"
        echo "max_worker_processes = 16"
        echo "# multi-node transactions commit with two-phase commit on the workers"
        echo "max_prepared_transactions = 100"
        echo "# how this node connects to itself (e.g. for shard moves): its own socket"
        echo "citus.local_hostname = '$CL_DIR/$node'"
        echo "log_line_prefix = '%m [%p] %q%a '"
        for line in "${CL_LINES[@]}"; do
            echo "$line"
        done
    } >>"$CL_DIR/$node/data/postgresql.conf" || return 1
    st_log "starting Citus $node (socket $CL_DIR/$node, port $port)"
    # -c: core files allowed (ulimit -c unlimited), for cl_backtraces after a crash
    if ! cl_as_owner "$PGBIN/pg_ctl" -D "$CL_DIR/$node/data" -l "$CL_DIR/$node/server.log" \
            -c -w -t 60 start >/dev/null; then
        cat "$CL_DIR/$node/server.log" >&2
        return 1
    fi
}

# cl_add_worker NODE: a node more, started as cl_start's (same settings), with both
# extensions, then registered with the coordinator (citus_add_node): Citus syncs its
# metadata there and copies the reference tables to it.
cl_add_worker() {
    local node=$1 last=0 n
    for n in "${CL_NODES[@]}"; do
        ((CL_PORT[$n] > last)) && last=${CL_PORT[$n]}
    done
    CL_NODES+=("$node")
    cl_init_node "$node" $((last + 1)) || return 1
    cl_sql "$node" "SET client_min_messages = warning;
                    CREATE EXTENSION citus; CREATE EXTENSION singletable;" || return 1
    cl_sql coord "SELECT citus_add_node('${CL_HOST[$node]}', ${CL_PORT[$node]});" >/dev/null
}

cl_start() {
    local node port=${CL_PORT_BASE:-54340}
    CL_PARENT=${CL_PARENT_DIR:-${TMPDIR:-/tmp}}
    if [[ ! $port =~ ^[0-9]+$ ]] || ((port < 1024 || port > 65535)); then
        echo "CL_PORT_BASE must be a port from 1024 to 65535, not \"$port\"" >&2
        return 1
    fi
    if [[ ! -d $CL_PARENT ]]; then
        echo "CL_PARENT_DIR \"$CL_PARENT\" is not a directory" >&2
        return 1
    fi
    # CL_DIR/worker2/.s.PGSQL.NNNNN within a Unix socket name's 107 bytes
    local socket_tail=/singletable_citus.XXXXXX/worker2/.s.PGSQL.65535
    if ((${#CL_PARENT} + ${#socket_tail} > 107)); then
        echo "CL_PARENT_DIR \"$CL_PARENT\" is too long for the nodes' Unix socket paths (107 bytes)" >&2
        return 1
    fi
    if ((EUID == 0)) && ! id postgres >/dev/null 2>&1; then
        echo "OS user 'postgres' does not exist (it comes with postgresql-common)" >&2
        return 1
    fi
    PGBIN=$("$PG_CONFIG" --bindir) || return 1
    if [[ ! -f $("$PG_CONFIG" --pkglibdir)/citus.so ]]; then
        echo "Citus is not installed in $PG_CONFIG's PostgreSQL (run test/citus/build.sh)" >&2
        return 1
    fi
    CL_DIR=$(mktemp -d "$CL_PARENT/singletable_citus.XXXXXX") || return 1
    export CL_DIR
    trap cl_stop EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    if ((EUID == 0)); then
        chown postgres: "$CL_DIR" || return 1
    fi

    CL_LINES=("$@")
    for node in "${CL_NODES[@]}"; do
        cl_init_node "$node" "$port" || return 1
        port=$((CL_PORT[$node] + 1))
    done

    export PGHOST=${CL_HOST[coord]} PGPORT=${CL_PORT[coord]} PGUSER=postgres PGDATABASE=postgres
    unset PGHOSTADDR PGSERVICE PGSERVICEFILE PGOPTIONS

    # Both extensions on every node, before the workers are registered: the workers' shards
    # are plain tables there, but the SQL that the extension's functions send to them may
    # call its operators and functions (e.g. singletable.begins_with).
    for node in "${CL_NODES[@]}"; do
        cl_sql "$node" "SET client_min_messages = warning;
                        CREATE EXTENSION citus; CREATE EXTENSION singletable;" || return 1
    done
    # The coordinator's own name in the metadata (Citus connects to it by this name, e.g.
    # from the workers for metadata syncing); then the workers, by their socket directories.
    cl_sql coord "SELECT citus_set_coordinator_host('${CL_HOST[coord]}', ${CL_PORT[coord]});" >/dev/null || return 1
    for node in worker1 worker2; do
        cl_sql coord "SELECT citus_add_node('${CL_HOST[$node]}', ${CL_PORT[$node]});" >/dev/null || return 1
    done
}

# Prints a gdb backtrace of every core file that a node's crashed backend left in its data
# directory (kernel.core_pattern "core", as on Debian by default; the nodes start with
# pg_ctl -c), and moves each core aside so that it is reported once. Prints nothing when
# there is none or gdb is missing.
cl_backtraces() {
    local core node
    command -v gdb >/dev/null 2>&1 || return 0
    for node in "${CL_NODES[@]}"; do
        for core in "$CL_DIR/$node/data"/core*; do
            [[ -f $core ]] || continue
            echo "backtrace of $core ($node):"
            gdb -q -batch -ex 'bt 30' "$PGBIN/postgres" "$core" 2>&1 |
                grep -E '^#[0-9]+ |signal|Program terminated' | awk '!seen[$0]++'
            mv "$core" "$CL_DIR/$node/reported.${core##*/}"
        done
    done
}

cl_info() {
    local node stop=''
    CL_INFO_SHOWN=1
    for node in "${CL_NODES[@]}"; do
        stop+="${stop:+; }$PGBIN/pg_ctl -D $CL_DIR/$node/data -m fast stop"
    done
    ((EUID == 0)) && stop="runuser -u postgres -- sh -c '$stop'"
    stop+=" && rm -rf $CL_DIR"
    cat <<EOF
The Citus cluster is still running (ST_KEEP=1); logs: $CL_DIR/*/server.log.
Connect to the coordinator with:
  psql -h ${CL_HOST[coord]} -p ${CL_PORT[coord]} -U postgres postgres
  (workers: -h ${CL_HOST[worker1]} -p ${CL_PORT[worker1]}, -h ${CL_HOST[worker2]} -p ${CL_PORT[worker2]})
Stop it and delete its files with:
  $stop
EOF
}

cl_stop() {
    local node
    [[ -n ${CL_DIR:-} && -d $CL_DIR ]] || return 0
    if [[ ${ST_KEEP:-0} == 1 ]]; then
        [[ -n ${CL_INFO_SHOWN:-} ]] || cl_info >&2
        return 0
    fi
    for node in "${CL_NODES[@]}"; do
        if [[ -f $CL_DIR/$node/data/postmaster.pid ]]; then
            cl_as_owner "$PGBIN/pg_ctl" -D "$CL_DIR/$node/data" -m immediate -w stop >/dev/null 2>&1
        fi
    done
    rm -rf "$CL_DIR"
}
