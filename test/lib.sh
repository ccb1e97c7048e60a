# shellcheck shell=bash
# test/lib.sh: shell functions shared by test/run.sh and test/demo.sh (source it, don't run it).
#
#   st_install_deps [GROUP...]   install the missing Debian 12 packages of the groups
#                                ST_PKG_<GROUP> below (root only; none named: ST_PACKAGES)
#   st_build_install [COPT]      make clean, make COPT="-Werror [COPT]" (warnings are errors in
#                                CI only: the Makefile leaves -Werror out), make install;
#                                ST_BUILD_GATEWAY=0 leaves singletable-gateway out, =1 requires it
#   st_start_server [LINE...]    throwaway PostgreSQL 15 server on a private Unix socket;
#                                each LINE is appended to its postgresql.conf
#   st_restart_server [LINE...]  restart it, each LINE first appended to its postgresql.conf
#   st_stream_conf               the postgresql.conf lines DynamoDB Streams need (one a line)
#   st_server_info               how to connect to / stop the server (used with ST_KEEP=1)
#
# Every function returns non-zero on failure instead of relying on `set -e`: the callers run
# them inside `if`/`||`, where bash ignores `set -e` within the function body.
#
# Environment: ST_KEEP=1 leaves the server running and its directory in place at exit;
# PG_CONFIG overrides the pg_config used (default: Debian's PostgreSQL 15); ST_SETUP_LOG=FILE
# sends the output of apt-get and make to FILE instead of the terminal (see st_run).

# Repository root, from this file's location (works whatever the caller's cwd is).
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
# Fall back to Debian's path when pg_config is missing, so st_install_deps can still run first.
PGBIN=$("$PG_CONFIG" --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
# The Debian 12 packages, in groups for st_install_deps (apt-get adds their dependencies).
# EXTENSION: build the extension with PGXS, install it and run it (the server-dev package
# brings clang and llvm too: PGXS also builds the bitcode for the server's JIT).
ST_PKG_EXTENSION=(postgresql-15 postgresql-server-dev-15 make gcc)
# GATEWAY: build singletable-gateway (gateway/Makefile).
ST_PKG_GATEWAY=(pkg-config libmicrohttpd-dev libpq-dev libssl-dev zlib1g-dev)
# BOTO3: the DynamoDB client of test/demo.sh --gateway.
# shellcheck disable=SC2034  # st_install_deps reads the groups by name
ST_PKG_BOTO3=(python3 python3-boto3)
# TEST: what test/run.sh's suites need on top of these: IPC::Run (the TAP tests, test/t),
# python3, python3-boto3, curl and awscli (the gateway's tests; awscli: /usr/bin/aws for
# test/gateway/test_partiql_cli.py); chromium (the viewer's browser test, test/viewer, with
# puppeteer-core from npm); nodejs and npm (test/gateway/js and the differential
# test, test/diff) unless a node is on PATH (installed otherwise: Debian's npm would
# replace it).
ST_PKG_TEST=(libipc-run-perl python3 python3-boto3 curl awscli chromium)
command -v node >/dev/null 2>&1 || ST_PKG_TEST+=(nodejs npm)
# All of them: what st_install_deps installs when no group is named (scripts that need more
# append to it before calling st_install_deps, as test/citus/build.sh does).
ST_PACKAGES=("${ST_PKG_EXTENSION[@]}" "${ST_PKG_GATEWAY[@]}" "${ST_PKG_TEST[@]}")

st_log() { printf '==> %s\n' "$*" >&2; }

# Runs CMD with its output (stdout and stderr) appended to $ST_SETUP_LOG when that is set,
# else shown as usual. When it fails with a log, prints its last lines of output and the log's
# path.
st_run() {
    local rc=0 start
    if [[ -z ${ST_SETUP_LOG:-} ]]; then
        "$@"
        return
    fi
    printf '\n$ %s\n' "$*" >>"$ST_SETUP_LOG"
    start=$(($(stat -c %s "$ST_SETUP_LOG") + 1))
    "$@" >>"$ST_SETUP_LOG" 2>&1 </dev/null || rc=$?
    if ((rc != 0)); then
        {
            echo "failed (exit status $rc): $*"
            echo "--- its last lines in $ST_SETUP_LOG:"
            tail -c +"$start" "$ST_SETUP_LOG" | tail -n 30
            echo "--- the whole log: $ST_SETUP_LOG"
        } >&2
    fi
    return "$rc"
}

# Installs the missing packages of the groups named (st_install_deps EXTENSION GATEWAY
# installs those of ST_PKG_EXTENSION and ST_PKG_GATEWAY), or of ST_PACKAGES when none is
# named. Exits 1 when that needs root and we are not. Sets ST_INSTALLED to the packages asked
# for (the missing ones; apt-get also installs their dependencies) and ST_INSTALLED_COUNT
# to how many packages apt-get installed in all (empty when it did not say).
# shellcheck disable=SC2034,SC2120  # ST_INSTALLED* are for the caller; the groups are optional
st_install_deps() {
    local group pkg wanted=() missing=()
    ST_INSTALLED=()
    ST_INSTALLED_COUNT=
    if (($# == 0)); then
        wanted=("${ST_PACKAGES[@]}")
    fi
    for group in "$@"; do
        if ! declare -p "ST_PKG_$group" >/dev/null 2>&1; then
            echo "st_install_deps: no package group $group (ST_PKG_$group)" >&2
            return 1
        fi
        local -n pkgs="ST_PKG_$group"
        wanted+=("${pkgs[@]}")
        unset -n pkgs
    done
    if ! command -v dpkg-query >/dev/null 2>&1; then
        st_log "not a Debian system: assuming ${wanted[*]} (or equivalents) are installed"
        return 0
    fi
    for pkg in "${wanted[@]}"; do
        [[ " ${missing[*]} " == *" $pkg "* ]] && continue
        if [[ $(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null) != "install ok installed" ]]; then
            missing+=("$pkg")
        fi
    done
    ((${#missing[@]} == 0)) && return 0

    if ((EUID != 0)); then
        echo "missing packages: ${missing[*]}" >&2
        echo "install them with: sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi

    # postgresql-common would create and start a default cluster "main" on port 5432 when
    # postgresql-15 is installed; we never use it, so stop it from being created at all, with
    # a drop-in that must be in place before the package is installed. Unless the machine
    # already says whether to create one, the drop-in is ours and is removed right after the
    # install (whether it worked or not), so that the machine's setting is as it was: a
    # PostgreSQL installed later gets its default cluster as usual.
    local ccd=/etc/postgresql-common/createcluster.d dropin='' made_dirs=() dir rc=0 traps
    if [[ " ${missing[*]} " =~ \ postgresql-[0-9]+\  ]] &&
            ! grep -qsE '^[[:space:]]*create_main_cluster' "$ccd"/*.conf; then
        for dir in /etc/postgresql-common "$ccd"; do
            [[ -d $dir ]] || made_dirs=("$dir" "${made_dirs[@]}")
        done
        dropin=$ccd/no-main.conf
        mkdir -p "$ccd" || return 1
        echo 'create_main_cluster = false' >"$dropin" || return 1
        # undone on Ctrl-C too (the caller's traps for these are restored afterwards)
        traps=$(trap -p INT TERM)
        trap 'st_undo_no_main; exit 130' INT
        trap 'st_undo_no_main; exit 143' TERM
    fi
    st_log "apt-get update"
    if st_run apt-get update; then
        st_log "apt-get install: ${#missing[@]} packages and what they depend on: ${missing[*]}"
        DEBIAN_FRONTEND=noninteractive st_run apt-get install -y --no-install-recommends "${missing[@]}" ||
            rc=$?
    else
        rc=1
    fi
    if [[ -n $dropin ]]; then
        st_undo_no_main
        trap - INT TERM
        eval "$traps"
    fi
    ((rc == 0)) || return "$rc"
    ST_INSTALLED=("${missing[@]}")
    if [[ -n ${ST_SETUP_LOG:-} ]]; then
        # apt-get's "N upgraded, N newly installed, N to remove and N not upgraded."
        ST_INSTALLED_COUNT=$(sed -n 's/.* \([0-9][0-9]*\) newly installed,.*/\1/p' "$ST_SETUP_LOG" | tail -n 1)
    fi
}

# For st_install_deps (it sees its variables dropin and made_dirs): removes the drop-in and the
# directories made for it, unless a package owns them now.
st_undo_no_main() {
    local dir
    rm -f "$dropin"
    for dir in "${made_dirs[@]}"; do
        dpkg-query -S "$dir" >/dev/null 2>&1 || rmdir "$dir" 2>/dev/null || true
    done
}

# Builds the extension from scratch, warnings as errors (PGXS appends COPT to CFLAGS), with
# the extra compiler flags $1 (e.g. -DUSE_ASSERT_CHECKING), and installs it into the
# PostgreSQL 15 installation. singletable-gateway: ST_BUILD_GATEWAY=1 builds and installs it
# too (`make gateway install-gateway`, which fail when its libraries are missing),
# ST_BUILD_GATEWAY=0 leaves it out (GATEWAY=no); unset, `make` and `make install` build and
# install it when pkg-config finds its libraries.
# shellcheck disable=SC2120  # the extra compiler flags are optional
st_build_install() {
    local copt="-Werror${1:+ $1}" jobs what='' make_vars=() build=(all) install=(install) dirs
    jobs=$(nproc 2>/dev/null || echo 2)
    case ${ST_BUILD_GATEWAY:-} in
        0) make_vars=(GATEWAY=no); what="; the extension only" ;;
        # GATEWAY=no: `all` must not also start the gateway's make (gateway-if-found), which
        # under -j would race the `gateway` target's make in the same directory
        1) make_vars=(GATEWAY=no); build+=(gateway); install+=(install-gateway)
           what="; the extension and the gateway" ;;
    esac
    st_log "building in $TOP (COPT='$copt'$what)"
    st_run make -C "$TOP" "${make_vars[@]}" clean PG_CONFIG="$PG_CONFIG" >/dev/null || return 1
    st_run make -C "$TOP" "${make_vars[@]}" -j"$jobs" PG_CONFIG="$PG_CONFIG" COPT="$copt" "${build[@]}" || return 1
    dirs="${DESTDIR:-}$("$PG_CONFIG" --pkglibdir), ${DESTDIR:-}$("$PG_CONFIG" --sharedir)/extension"
    [[ ${ST_BUILD_GATEWAY:-} == 1 ]] && dirs+=", ${DESTDIR:-}$("$PG_CONFIG" --bindir)"
    st_log "make install: $dirs"
    st_run make -C "$TOP" "${make_vars[@]}" PG_CONFIG="$PG_CONFIG" "${install[@]}" || return 1
}

# Runs a command as the server's OS user: "postgres" when we are root (initdb and postgres
# refuse to run as root), else ourselves. The cd avoids warnings when postgres cannot read
# the caller's cwd (e.g. /root).
st_as_owner() {
    if ((EUID == 0)); then
        (cd "$ST_DIR" && runuser -u postgres -- "$@")
    else
        (cd "$ST_DIR" && "$@")
    fi
}

# Prints the first port from 54329 on that no other local server uses (neither on
# 127.0.0.1 nor by a socket in /tmp, /tmp/singletable.* or /var/run/postgresql). The server
# listens only on a socket in its own directory, so no port can really clash; a distinct
# port just avoids confusion when connecting with `psql -p` by hand (e.g. to a kept demo).
st_free_port() {
    local port socket taken
    for ((port = 54329; port < 54429; port++)); do
        taken=0
        for socket in /tmp/.s.PGSQL."$port" /tmp/singletable.*/.s.PGSQL."$port" \
                      /var/run/postgresql/.s.PGSQL."$port"; do
            [[ -S $socket ]] && taken=1
        done
        # bash's /dev/tcp: the connection succeeds when the port is taken
        if ((taken == 0)) && ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return 0
        fi
    done
    echo 54329
}

# Starts a throwaway server; exports ST_DIR, PGHOST, PGPORT, PGUSER, PGDATABASE and arranges
# for the server to be stopped and its directory removed at exit (unless ST_KEEP=1).
# shellcheck disable=SC2120  # the extra postgresql.conf lines are optional
st_start_server() {
    local line
    if ((EUID == 0)) && ! id postgres >/dev/null 2>&1; then
        echo "OS user 'postgres' does not exist (it comes with postgresql-common)" >&2
        return 1
    fi
    # Again: the packages may have been installed since this file was sourced.
    PGBIN=$("$PG_CONFIG" --bindir) || return 1
    ST_DIR=$(mktemp -d /tmp/singletable.XXXXXX) || return 1
    export ST_DIR
    # Set the trap as soon as there is something to clean up. INT/TERM go through exit so
    # that the EXIT trap runs for them too.
    trap st_stop_server EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    if ((EUID == 0)); then
        chown postgres: "$ST_DIR" || return 1
    fi

    st_log "initdb: a throwaway PostgreSQL server in $ST_DIR/data"
    if ! st_as_owner "$PGBIN/initdb" --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
            -D "$ST_DIR/data" >"$ST_DIR/initdb.log" 2>&1; then
        cat "$ST_DIR/initdb.log" >&2
        return 1
    fi

    PGPORT=$(st_free_port)
    {
        echo
        echo "# --- added by test/lib.sh st_start_server ---"
        echo "listen_addresses = ''"
        echo "unix_socket_directories = '$ST_DIR'"
        echo "port = $PGPORT"
        echo "# a throwaway server: its data is deleted at exit, so durability buys nothing"
        echo "fsync = off"
        for line in "$@"; do
            echo "$line"
        done
    } >>"$ST_DIR/data/postgresql.conf" || return 1

    st_log "starting it (socket $ST_DIR, port $PGPORT)"
    if ! st_as_owner "$PGBIN/pg_ctl" -D "$ST_DIR/data" -l "$ST_DIR/server.log" -w -t 60 start >/dev/null; then
        cat "$ST_DIR/server.log" >&2
        return 1
    fi

    export PGHOST=$ST_DIR PGPORT PGUSER=postgres PGDATABASE=postgres
    # These would override PGHOST/PGPORT or change the session, so don't inherit them.
    unset PGHOSTADDR PGSERVICE PGSERVICEFILE PGOPTIONS
}

# Restarts the server started by st_start_server, after appending each LINE to its
# postgresql.conf (a later line overrides an earlier one), e.g. to change
# shared_preload_libraries or to load a reinstalled library that it preloads.
# The postgresql.conf lines DynamoDB Streams need, one a line: logical decoding, the library
# preloaded (its stream worker), replication slots, and — on a PostgreSQL build that has the
# setting output_plugin_libraries (not every build does; Debian's has not) — singletable
# among the plugins it allows. For st_start_server / st_restart_server:
#   mapfile -t conf < <(st_stream_conf) && st_start_server "${conf[@]}"
st_stream_conf() {
    echo "wal_level = logical"
    echo "shared_preload_libraries = 'singletable'"
    echo "max_replication_slots = 10"
    # grep reads to the end (not -q): under pipefail an early exit would SIGPIPE postgres
    if "$PGBIN/postgres" --describe-config 2>/dev/null | grep '^output_plugin_libraries' >/dev/null; then
        echo "output_plugin_libraries = 'pgoutput, test_decoding, singletable'"
    fi
}

st_restart_server() {
    local line
    for line in "$@"; do
        echo "$line" >>"$ST_DIR/data/postgresql.conf" || return 1
    done
    st_log "restarting server (socket $ST_DIR, port $PGPORT)"
    if ! st_as_owner "$PGBIN/pg_ctl" -D "$ST_DIR/data" -l "$ST_DIR/server.log" -m fast -w -t 60 \
            restart >/dev/null; then
        cat "$ST_DIR/server.log" >&2
        return 1
    fi
}

# Prints how to connect to and stop the server (st_stop_server prints it at exit for ST_KEEP=1 unless already shown).
st_server_info() {
    local stop="$PGBIN/pg_ctl -D $ST_DIR/data -m fast stop"
    ((EUID == 0)) && stop="runuser -u postgres -- $stop"
    ST_INFO_SHOWN=1
    cat <<EOF
The server is still running (ST_KEEP=1); its log is $ST_DIR/server.log.
Connect with:
  psql -h $ST_DIR -p $PGPORT -U postgres postgres
Stop it and delete its files with:
  $stop && rm -rf $ST_DIR
EOF
}

# EXIT trap: stops the server and removes its directory, or with ST_KEEP=1 says how to.
# Silent otherwise, so that a script's last line of output stays its own.
st_stop_server() {
    [[ -n ${ST_DIR:-} && -d $ST_DIR ]] || return 0
    if [[ ${ST_KEEP:-0} == 1 ]]; then
        [[ -n ${ST_INFO_SHOWN:-} ]] || st_server_info >&2
        return 0
    fi
    if [[ -f $ST_DIR/data/postmaster.pid ]]; then
        st_as_owner "$PGBIN/pg_ctl" -D "$ST_DIR/data" -m fast -w stop >/dev/null 2>&1
    fi
    rm -rf "$ST_DIR"
}
