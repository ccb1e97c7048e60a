#!/usr/bin/env bash
# test/packaging/run.sh: builds the Debian packages (debian/) and uses them as an admin would.
# As root on Debian 12:
#   1. installs the build packages that are missing (apt-get);
#   2. copies the checkout's files (git ls-files) to a temporary directory and runs
#      dpkg-buildpackage -us -uc -b there (its output goes to a log, shown on failure);
#   3. runs lintian on the .changes: no errors;
#   4. installs both .debs with apt-get into a clean Debian 12 root (debootstrap --variant=minbase
#      bookworm, cached as a tarball in $CACHE, with the .debs apt downloads), so apt resolves
#      postgresql-15 and the libraries from the host's Debian mirror;
#   5. creates and starts a UTF8 PostgreSQL 15 cluster there, CREATE EXTENSION singletable;
#   6. configures the gateway through its installed /etc/singletable/gateway.conf and
#      credentials, starts it as the installed unit would (its ExecStart, expanded from its
#      EnvironmentFile, as its User: there is no systemd in the root), and sends SigV4-signed
#      requests with curl: ListTables, CreateTable, PutItem, GetItem; unsigned and wrongly
#      signed requests must be refused;
#   7. removes the packages and installs from source in the same root, as README says:
#      with postgresql-server-dev-15, gcc and make only the extension builds and installs
#      (make names the gateway's missing packages in one line); with those, the gateway too.
# The root shares the host's network: the gateway listens on 127.0.0.1 port 0 (a free port,
# read from its log) and PostgreSQL on its Unix socket only. Mounts live in a private mount
# namespace (unshare), so they never show on the host, and are unmounted at exit anyway.
# Prints one TAP line per check and exits non-zero on any failure.
#   ST_PKG_CACHE  cache directory (default /var/cache/singletable); delete the tarball there
#                 to debootstrap again (done by itself when it is over 30 days old)
#   ST_PKG_KEEP=1 keep the work directory (packages and logs; the root, a tmpfs, goes)
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${ST_PKG_CACHE:-/var/cache/singletable}
SUITE=bookworm
PGVERSION=15

if ((EUID != 0)); then
    echo "1..0 # SKIP test/packaging/run.sh needs root (apt-get, debootstrap, chroot)"
    exit 0
fi
if ! grep -qs '^VERSION_CODENAME=bookworm$' /etc/os-release; then
    echo "1..0 # SKIP test/packaging/run.sh runs on Debian 12 (bookworm)"
    exit 0
fi
# Everything below runs in a private mount namespace: a mount in the root cannot
# propagate to the host, and all of them go away with the last process.
if [[ -z ${ST_PKG_UNSHARED:-} ]]; then
    ST_PKG_UNSHARED=1 exec unshare --mount --propagation private -- bash "${BASH_SOURCE[0]}" "$@"
fi

START=$SECONDS
N=0
FAILURES=0
ok() { N=$((N + 1)); echo "ok $N - $1"; }
not_ok() { N=$((N + 1)); FAILURES=$((FAILURES + 1)); echo "not ok $N - $1"; }
# diag: stdin as TAP comments ("..." shortened: test/run.sh counts any "... ok" line as a pass)
diag() { sed -e 's/^/# /' -e 's/\.\.\. /.. /g'; }
# check DESC CMD...: ok when CMD succeeds
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
bail() { echo "Bail out! $1"; exit 1; }
# step NAME: a diagnostic line with the time so far
step() { echo "# $1 (at $((SECONDS - START)) s)"; }
# shows the end of a log file as TAP diagnostics
show() { echo "--- ${1##*/} (last ${2:-40} lines)"; tail -n "${2:-40}" "$1"; } 2>&1

WORK=$(mktemp -d /tmp/singletable_pkg.XXXXXX) || exit 1
ROOT=$WORK/root
MOUNTS=()
GATEWAY_PID=

# run_in_root CMD...: runs CMD in the root as root, with a clean environment and no LANG
run_in_root() {
    chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"
}
# psql_root [PSQL ARGS...]: psql as postgres in the root
psql_root() { run_in_root runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 "$@"; }

cleanup() {
    local m
    if [[ -n $GATEWAY_PID ]] && kill -0 "$GATEWAY_PID" 2>/dev/null; then
        kill -KILL "$GATEWAY_PID" 2>/dev/null
        wait "$GATEWAY_PID" 2>/dev/null
    fi
    if [[ -x $ROOT/usr/bin/pg_ctlcluster ]] && [[ -d $ROOT/etc/postgresql/$PGVERSION/main ]]; then
        run_in_root pg_ctlcluster "$PGVERSION" main stop -m immediate >/dev/null 2>&1
    fi
    for ((m = ${#MOUNTS[@]} - 1; m >= 0; m--)); do
        umount "${MOUNTS[m]}" 2>/dev/null || umount -l "${MOUNTS[m]}"
    done
    # Never remove the root while anything is still mounted in it (its /dev is the host's).
    if grep -q " ${ROOT}[/ ]" /proc/self/mounts; then
        echo "# $ROOT still has mounts; left in place" >&2
    elif [[ -z ${ST_PKG_KEEP:-} ]]; then
        rm -rf "$WORK"
        echo "# cleaned up (at $((SECONDS - START)) s)"
    else
        echo "# work directory kept: $WORK" >&2
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- 1. build packages -------------------------------------------------------------------
BUILD_PACKAGES=(build-essential debhelper dpkg-dev postgresql-server-dev-all
    "postgresql-server-dev-$PGVERSION" libmicrohttpd-dev libpq-dev libssl-dev zlib1g-dev
    pkg-config lintian debootstrap debian-archive-keyring curl git)
missing=()
for p in "${BUILD_PACKAGES[@]}"; do
    [[ $(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) == installed ]] || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
    echo "# installing ${missing[*]}"
    if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" ||
        { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"; }; } \
        >"$WORK/apt-host.log" 2>&1; then
        show "$WORK/apt-host.log" | diag
        bail "could not install the build packages"
    fi
fi

# --- 2. dpkg-buildpackage ------------------------------------------------------------------
step "dpkg-buildpackage"
mkdir -p "$WORK/build/src"
if ! git -C "$TOP" -c safe.directory="$TOP" ls-files -z | tar -C "$TOP" --null --no-recursion --ignore-failed-read -T - -cf - |
    tar -C "$WORK/build/src" -xf -; then
    bail "could not copy the checkout's files (git ls-files in $TOP)"
fi
if (cd "$WORK/build/src" && dpkg-buildpackage -us -uc -b) >"$WORK/build.log" 2>&1; then
    ok "dpkg-buildpackage -us -uc -b builds the packages"
else
    not_ok "dpkg-buildpackage -us -uc -b builds the packages"
    show "$WORK/build.log" 60 | diag
    bail "no packages to test"
fi
EXT_DEB=$(echo "$WORK"/build/postgresql-"$PGVERSION"-singletable_*_amd64.deb)
GW_DEB=$(echo "$WORK"/build/singletable-gateway_*_amd64.deb)
CHANGES=$(echo "$WORK"/build/singletable_*_amd64.changes)
[[ -f $EXT_DEB && -f $GW_DEB && -f $CHANGES ]] || bail "the build made no $EXT_DEB, $GW_DEB or $CHANGES"

# has_lines TEXT LINE...: every LINE (a grep -x pattern) is a line of TEXT
has_lines() {
    local text=$1 line
    shift
    for line; do grep -qx -- "$line" <<<"$text" || return 1; done
}
ext_files=$(dpkg-deb -c "$EXT_DEB" | awk '{print $6}')
check "postgresql-$PGVERSION-singletable ships singletable.so, the control file and the SQL scripts" \
    has_lines "$ext_files" "./usr/lib/postgresql/$PGVERSION/lib/singletable.so" \
    "./usr/share/postgresql/$PGVERSION/extension/singletable.control" \
    "./usr/share/postgresql/$PGVERSION/extension/singletable--[0-9.]*\.sql"
check "postgresql-$PGVERSION-singletable does not ship the gateway (singletable-gateway does)" \
    test -z "$(grep singletable-gateway <<<"$ext_files")"
gw_conffiles=$(dpkg-deb --ctrl-tarfile "$GW_DEB" | tar -xOf - ./conffiles 2>/dev/null)
check "singletable-gateway's /etc/singletable/gateway.conf and credentials are conffiles" \
    has_lines "$gw_conffiles" /etc/singletable/gateway.conf /etc/singletable/credentials

# --- 3. lintian ------------------------------------------------------------------------------
step "lintian"
lintian --fail-on error "$CHANGES" >"$WORK/lintian.log" 2>&1
lintian_rc=$?
grep -v 'running with root privileges' "$WORK/lintian.log" | diag
check "lintian reports no errors" test "$lintian_rc" = 0

# --- 4. a clean Debian 12 root ---------------------------------------------------------------
# The host's Debian sources for SUITE: its URI (from apt-cache policy, so whatever mirror
# the host is configured with)
host_mirror() {
    apt-cache policy | awk -v s="$1/main" '$3 == s && $2 ~ /^(https?|file):/ { print $2; exit }'
}
MIRROR=$(host_mirror "$SUITE")
if [[ -z $MIRROR ]]; then
    apt-get update -q >/dev/null 2>&1
    MIRROR=$(host_mirror "$SUITE")
fi
[[ -n $MIRROR ]] || bail "no $SUITE/main source in the host's apt configuration"

step "a clean root, and apt-get install there"
# mount_in_root TARGET MOUNT ARGS...: mounts, and remembers to unmount at exit
mount_in_root() {
    local target=$ROOT$1
    shift
    mount "$@" "$target" || bail "mount $* $target failed"
    MOUNTS+=("$target")
}
# The root lives in a tmpfs: debootstrap, unpacking and dpkg run faster, and unmounting it
# is the cleanup.
mkdir -p "$CACHE/archives" "$ROOT"
mount_in_root "" -t tmpfs -o size=4g,mode=755 singletable-root
TARBALL=$CACHE/$SUITE-minbase.tar.gz
if [[ -n $(find "$TARBALL" -mtime -30 2>/dev/null) ]]; then
    tar -C "$ROOT" --numeric-owner -xzf "$TARBALL" || bail "could not unpack $TARBALL"
else
    echo "# debootstrap --variant=minbase $SUITE (cached in $TARBALL afterwards)"
    if ! debootstrap --variant=minbase "$SUITE" "$ROOT" "$MIRROR" >"$WORK/debootstrap.log" 2>&1; then
        show "$WORK/debootstrap.log" | diag
        bail "debootstrap failed"
    fi
    if ! tar -C "$ROOT" --numeric-owner -czf "$TARBALL.$$" . || ! mv "$TARBALL.$$" "$TARBALL"; then
        rm -f "$TARBALL.$$"
        bail "could not write $TARBALL"
    fi
fi
mount_in_root /proc -t proc proc
mount_in_root /sys -t sysfs sysfs
mount_in_root /dev --bind /dev
mount_in_root /dev/pts --bind /dev/pts
mount_in_root /dev/shm -t tmpfs -o mode=1777,size=256m shm

# apt in the root: the host's Debian sources (security updates included, as on a real
# system: the extension depends on the minor version it was built against), the host's DNS,
# the .debs downloaded by earlier runs; no service starts during the installation (no
# init system here), and no cluster is created by postgresql-common: step 5 creates one.
for s in "$SUITE" "$SUITE-updates" "$SUITE-security"; do
    uri=$(host_mirror "$s")
    [[ -n $uri ]] && echo "deb $uri $s main"
done >"$ROOT/etc/apt/sources.list"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
echo force-unsafe-io >"$ROOT/etc/dpkg/dpkg.cfg.d/throwaway-root" # no fsync per file
printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
chmod 755 "$ROOT/usr/sbin/policy-rc.d"
mkdir -p "$ROOT/etc/postgresql-common/createcluster.d"
echo "create_main_cluster = false" >"$ROOT/etc/postgresql-common/createcluster.d/no-main-cluster.conf"
cp "$CACHE"/archives/*.deb "$ROOT/var/cache/apt/archives/" 2>/dev/null
mkdir -p "$ROOT/tmp/debs"
cp "$EXT_DEB" "$GW_DEB" "$ROOT/tmp/debs/"

if run_in_root apt-get update -q >"$WORK/apt-root.log" 2>&1 &&
    run_in_root apt-get install -y -q --no-install-recommends \
        "/tmp/debs/${EXT_DEB##*/}" "/tmp/debs/${GW_DEB##*/}" >>"$WORK/apt-root.log" 2>&1; then
    ok "apt-get installs both packages and their dependencies into a clean Debian 12 root"
else
    not_ok "apt-get installs both packages and their dependencies into a clean Debian 12 root"
    show "$WORK/apt-root.log" | diag
    bail "nothing installed to test"
fi

passwd=$(run_in_root getent passwd singletable)
check "postinst created the system user singletable, without a login shell" \
    has_lines "$passwd" "singletable:x:[0-9]\{1,3\}:[0-9]*:.*:/usr/sbin/nologin"
# (stat runs on the host, whose names for the root's ids may differ: compare the numbers)
check "/etc/singletable/credentials is mode 600, owned by singletable" \
    test "$(stat -c '%a %u:%g' "$ROOT/etc/singletable/credentials" 2>&1)" = "600 $(run_in_root id -u singletable):$(run_in_root id -g singletable)"
UNIT=$ROOT/lib/systemd/system/singletable-gateway.service
check "the unit is installed" test -f "$UNIT"
# The host's systemd-analyze checks the unit's syntax and that its programs exist in the
# root (not the units it orders itself after: the root has no systemd).
verify_unit() {
    systemd-analyze verify --root="$ROOT" --man=no --recursive-errors=no \
        /lib/systemd/system/singletable-gateway.service >"$WORK/verify.log" 2>&1 ||
        { diag <"$WORK/verify.log"; false; }
}
if command -v systemd-analyze >/dev/null; then
    check "systemd-analyze verify accepts the unit" verify_unit
fi
# root_processes: the processes running in the root (whose / is ROOT)
root_processes() {
    local p
    for p in /proc/[0-9]*; do
        [[ $(readlink "$p/root" 2>/dev/null) == "$ROOT" ]] && echo "${p#/proc/} $(tr '\0' ' ' <"$p/cmdline")"
    done
}
check "the unit is not enabled (no .wants link) and nothing was started" \
    test -z "$(find "$ROOT/etc/systemd/system" -name singletable-gateway.service 2>/dev/null; root_processes)"
check "the gateway is /usr/bin/singletable-gateway, not also in PostgreSQL's bin directory" \
    test -x "$ROOT/usr/bin/singletable-gateway" -a ! -e "$ROOT/usr/lib/postgresql/$PGVERSION/bin/singletable-gateway"

# --- 5. a PostgreSQL 15 cluster and the extension --------------------------------------------
step "PostgreSQL cluster and extension"
# UTF8 explicitly (the extension refuses other encodings; there is no LANG here); Unix
# socket only, as the host's network is shared (a conf.d file: pg_createcluster -o
# cannot set an empty value).
if run_in_root pg_createcluster --encoding=UTF8 --locale=C.UTF-8 "$PGVERSION" main >"$WORK/cluster.log" 2>&1 &&
    echo "listen_addresses = ''" >"$ROOT/etc/postgresql/$PGVERSION/main/conf.d/unix-socket-only.conf" &&
    run_in_root pg_ctlcluster "$PGVERSION" main start >>"$WORK/cluster.log" 2>&1 &&
    [[ $(psql_root -At -c 'SHOW server_encoding' 2>>"$WORK/cluster.log") == UTF8 ]]; then
    ok "pg_createcluster creates and starts a UTF8 PostgreSQL $PGVERSION cluster"
else
    not_ok "pg_createcluster creates and starts a UTF8 PostgreSQL $PGVERSION cluster"
    show "$WORK/cluster.log" | diag
    bail "no server"
fi

# The gateway's login role is the service's user (peer authentication over the socket, as
# the packaged gateway.conf's dsn expects); its key runs as pkg_tenant, which may create
# tables in public.
if psql_root >"$WORK/sql.log" 2>&1 <<'SQL'
CREATE ROLE singletable LOGIN;
CREATE DATABASE singletable OWNER singletable;
\c singletable
CREATE EXTENSION singletable;
CREATE ROLE pkg_tenant NOLOGIN;
GRANT pkg_tenant TO singletable;
GRANT EXECUTE ON FUNCTION singletable.dynamodb_as(text, text, text) TO singletable;
GRANT USAGE, CREATE ON SCHEMA public TO pkg_tenant;
SQL
then
    version=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$ROOT/usr/share/postgresql/$PGVERSION/extension/singletable.control")
    check "CREATE EXTENSION singletable as superuser: version $version" \
        test "$(psql_root -d singletable -At -c "SELECT extversion FROM pg_extension WHERE extname = 'singletable'")" = "$version"
else
    not_ok "CREATE EXTENSION singletable as superuser"
    show "$WORK/sql.log" | diag
    bail "no extension"
fi

# --- 6. the gateway, configured and started as its unit would ---------------------------------
step "gateway"
CONF=$ROOT/etc/singletable/gateway.conf
sed -i -e 's/^GATEWAY_LISTEN=.*/GATEWAY_LISTEN=127.0.0.1:0/' -e 's/^GATEWAY_POOL=.*/GATEWAY_POOL=2/' "$CONF"
KEY=AKIAPKGTEST$(tr -dc 'A-Z0-9' </dev/urandom | head -c 8)
SECRET=$(tr -dc 'A-Za-z0-9/+' </dev/urandom | head -c 40)
echo "$KEY $SECRET pkg_tenant" >>"$ROOT/etc/singletable/credentials"

# unit_get KEY: the value of KEY= in the installed unit (continued lines joined; the last one)
unit_get() {
    sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' "$UNIT" | sed -n "s/^$1=//p" | tail -n 1
}
# This reads what the unit uses: User=, Group=, EnvironmentFile= (NAME=value lines,
# double-quoted values) and ${NAME} (one word) or $NAME (split at blanks) in ExecStart=.
# Anything else (Environment=, quotes in ExecStart=) stops the test: teach it here first.
declare -A UNIT_ENV=()
load_environment_file() {
    local line name value
    while IFS= read -r line; do
        line=${line#"${line%%[![:space:]]*}"}
        [[ -z $line || $line == '#'* || $line == ';'* ]] && continue
        [[ $line =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || return 1
        name=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]}
        if [[ $value =~ ^\"(.*)\"$ ]]; then value=${BASH_REMATCH[1]}; fi
        UNIT_ENV[$name]=$value
    done <"$1"
}
# expand_command LINE: ARGS=(LINE's words, with the variables replaced as systemd does)
expand_command() {
    local w words more
    ARGS=()
    read -ra words <<<"$1"
    for w in "${words[@]}"; do
        if [[ $w =~ ^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$ ]]; then
            ARGS+=("${UNIT_ENV[${BASH_REMATCH[1]}]-}")
        elif [[ $w =~ ^\$([A-Za-z_][A-Za-z0-9_]*)$ ]]; then
            read -ra more <<<"${UNIT_ENV[${BASH_REMATCH[1]}]-}"
            ARGS+=("${more[@]}")
        elif [[ $w == *[\$\"\'\\]* ]]; then
            return 1
        else
            ARGS+=("$w")
        fi
    done
}
[[ -z $(unit_get Environment) ]] || bail "the unit sets Environment=, which this test does not read yet"
USER_=$(unit_get User) GROUP_=$(unit_get Group) ENVFILE=$(unit_get EnvironmentFile)
load_environment_file "$ROOT${ENVFILE#-}" || bail "cannot read the unit's EnvironmentFile $ENVFILE"
expand_command "$(unit_get ExecStart)" || bail "cannot expand the unit's ExecStart: $(unit_get ExecStart)"
echo "# ExecStart as $USER_:$GROUP_: ${ARGS[*]}"
ENVIRONMENT=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin HOME=/nonexistent
    "USER=$USER_" "LOGNAME=$USER_")
for name in "${!UNIT_ENV[@]}"; do ENVIRONMENT+=("$name=${UNIT_ENV[$name]}"); done
chroot "$ROOT" /usr/bin/setpriv --reuid="$USER_" --regid="$GROUP_" --init-groups --no-new-privs \
    /usr/bin/env -i "${ENVIRONMENT[@]}" "${ARGS[@]}" >"$WORK/gateway.log" 2>&1 &
GATEWAY_PID=$!
PORT=
for _ in $(seq 100); do
    PORT=$(sed -n 's/.*listening on 127\.0\.0\.1 port \([0-9]*\) .*/\1/p' "$WORK/gateway.log")
    if [[ -n $PORT ]] || ! kill -0 "$GATEWAY_PID" 2>/dev/null; then break; fi
    sleep 0.1
done
health=$(curl -sS --noproxy "*" --max-time 5 "http://127.0.0.1:${PORT:-1}/" 2>&1)
if [[ -n $PORT && $health == "healthy: singletable-gateway"* &&
    $(stat -c %u "/proc/$GATEWAY_PID") == $(run_in_root id -u singletable) ]]; then
    ok "the unit's ExecStart starts the gateway as singletable, listening as gateway.conf says"
    echo "# listening on 127.0.0.1:$PORT"
else
    not_ok "the unit's ExecStart starts the gateway as singletable, listening as gateway.conf says"
    { echo "health check: $health"; show "$WORK/gateway.log"; } | diag
    bail "no gateway"
fi

# answer OPERATION BODY [CURL OPTIONS...]: sends a DynamoDB request; STATUS and BODY (its
# blanks removed) hold the answer
answer() {
    STATUS=$(curl -sS --noproxy "*" --max-time 10 -o "$WORK/body" -w '%{http_code}' \
        -H "X-Amz-Target: DynamoDB_20120810.$1" -H 'Content-Type: application/x-amz-json-1.0' \
        -d "$2" "${@:3}" "http://127.0.0.1:$PORT/" 2>&1)
    BODY=$(tr -d ' \n' <"$WORK/body" 2>/dev/null)
}
# check_answer DESC STATUS WANT...: ok when the answer has STATUS and its body contains each
# WANT (=TEXT: is TEXT); shows the answer if not
check_answer() {
    local desc=$1 status=$2 want good=1
    shift 2
    [[ $STATUS == "$status" ]] || good=
    for want; do
        if [[ $want == =* ]]; then
            [[ $BODY == "${want#=}" ]] || good=
        else
            [[ $BODY == *"$want"* ]] || good=
        fi
    done
    if [[ -n $good ]]; then ok "$desc"; else not_ok "$desc"; echo "HTTP $STATUS: $BODY" | diag; fi
}
SIGNED=(--aws-sigv4 "aws:amz:us-east-1:dynamodb" --user "$KEY:$SECRET")
ITEM_KEY='"Key":{"pk":{"S":"user#1"},"sk":{"S":"profile"}}'

answer ListTables '{}' "${SIGNED[@]}"
check_answer "signed ListTables: 200, no tables yet" 200 '={"TableNames":[]}'
answer CreateTable '{"TableName":"pkg_items","BillingMode":"PAY_PER_REQUEST",
    "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
    "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}]}' "${SIGNED[@]}"
check_answer "signed CreateTable: 200, the table's description" 200 '"TableName":"pkg_items"' '"KeySchema":'
answer PutItem '{"TableName":"pkg_items","Item":{"pk":{"S":"user#1"},"sk":{"S":"profile"},
    "msg":{"S":"hello-from-the-package"},"n":{"N":"42"}}}' "${SIGNED[@]}"
check_answer "signed PutItem: 200" 200 '={}'
answer GetItem "{\"TableName\":\"pkg_items\",$ITEM_KEY,\"ConsistentRead\":true}" "${SIGNED[@]}"
check_answer "signed GetItem: 200, the item put" 200 '"msg":{"S":"hello-from-the-package"}' '"n":{"N":"42"}'
answer ListTables '{}' "${SIGNED[@]}"
check_answer "signed ListTables: 200, the new table" 200 '={"TableNames":["pkg_items"]}'
check "the key's requests ran as its role: pkg_tenant owns the table" \
    test "$(psql_root -d singletable -At -c "SELECT tableowner FROM pg_tables WHERE tablename = 'pkg_items'")" = pkg_tenant

answer ListTables '{}'
check_answer "unsigned request: 400 MissingAuthenticationTokenException" 400 MissingAuthenticationTokenException
answer GetItem "{\"TableName\":\"pkg_items\",$ITEM_KEY}" --aws-sigv4 "aws:amz:us-east-1:dynamodb" --user "$KEY:wrong$SECRET"
check_answer "request signed with a wrong secret: 400 InvalidSignatureException" 400 InvalidSignatureException
answer ListTables '{}' --aws-sigv4 "aws:amz:us-east-1:dynamodb" --user "AKIAUNKNOWNKEY000000:$SECRET"
check_answer "request signed with an unknown key: 400 UnrecognizedClientException" 400 UnrecognizedClientException

# systemctl reload: the unit's ExecReload, with $MAINPID, after a key is added
KEY2=AKIAPKGTEST$(tr -dc 'A-Z0-9' </dev/urandom | head -c 8)
echo "$KEY2 $SECRET pkg_tenant" >>"$ROOT/etc/singletable/credentials"
UNIT_ENV[MAINPID]=$GATEWAY_PID
expand_command "$(unit_get ExecReload)" && run_in_root "${ARGS[@]}"
for _ in $(seq 20); do
    answer ListTables '{}' --aws-sigv4 "aws:amz:us-east-1:dynamodb" --user "$KEY2:$SECRET"
    [[ $STATUS == 200 ]] && break
    sleep 0.1
done
check_answer "after ExecReload (SIGHUP) a key added to the credentials file is accepted" 200

# systemctl stop: SIGTERM, then the gateway drains and exits 0
kill -TERM "$GATEWAY_PID"
wait "$GATEWAY_PID"
rc=$?
GATEWAY_PID=
check "the gateway stops on SIGTERM (systemctl stop) with status 0" test "$rc" = 0
((FAILURES == 0)) || show "$WORK/gateway.log" | diag

# --- 6b. the in-server endpoint of the extension's package -----------------------------------
# singletable_endpoint.so preloaded: its workers serve the same database on the port the
# gateway had, with the same key (a copy of the credentials file the postgres user can read)
step "the in-server endpoint (singletable_endpoint)"
EP_CREDS=/etc/postgresql/$PGVERSION/main/endpoint-credentials
printf '%s %s pkg_tenant\n' "$KEY" "$SECRET" >"$ROOT$EP_CREDS"
run_in_root chown postgres "$EP_CREDS"
chmod 600 "$ROOT$EP_CREDS"
printf '%s\n' "shared_preload_libraries = 'singletable_endpoint'" \
    "singletable_endpoint.listen = '127.0.0.1:$PORT'" \
    "singletable_endpoint.database = 'singletable'" \
    "singletable_endpoint.user = 'singletable'" \
    "singletable_endpoint.credentials = '$EP_CREDS'" \
    >"$ROOT/etc/postgresql/$PGVERSION/main/conf.d/singletable-endpoint.conf"
run_in_root pg_ctlcluster "$PGVERSION" main restart >>"$WORK/cluster.log" 2>&1
health=
for _ in $(seq 100); do
    health=$(curl -sS --noproxy "*" --max-time 2 "http://127.0.0.1:$PORT/" 2>/dev/null)
    [[ $health == healthy* ]] && break
    sleep 0.1
done
check "the extension's package ships singletable_endpoint.so; preloaded, its workers answer on port $PORT" \
    test "${health%% [0-9]*}" = "healthy: singletable-gateway"
answer GetItem "{\"TableName\":\"pkg_items\",$ITEM_KEY,\"ConsistentRead\":true}" "${SIGNED[@]}"
check_answer "the in-server endpoint: signed GetItem, the item the gateway put" 200 '"msg":{"S":"hello-from-the-package"}'
rm -f "$ROOT/etc/postgresql/$PGVERSION/main/conf.d/singletable-endpoint.conf"
run_in_root pg_ctlcluster "$PGVERSION" main restart >>"$WORK/cluster.log" 2>&1

# --- 7. from source, as README's "From source" says ------------------------------------------
# The packages go; then the extension is built from the checkout with nothing but
# postgresql-server-dev-15, gcc and make, and the gateway once its libraries are there.
step "from source, with postgresql-server-dev-$PGVERSION gcc make only"
psql_root -c 'DROP EXTENSION singletable' >/dev/null 2>&1
mkdir -p "$ROOT/tmp/src"
git -C "$TOP" -c safe.directory="$TOP" ls-files -z | tar -C "$TOP" --null --no-recursion --ignore-failed-read -T - -cf - |
    tar -C "$ROOT/tmp/src" -xf -
if run_in_root apt-get purge -y -q singletable-gateway "postgresql-$PGVERSION-singletable" >>"$WORK/apt-root.log" 2>&1 &&
    run_in_root apt-get install -y -q --no-install-recommends "postgresql-server-dev-$PGVERSION" gcc make \
        >>"$WORK/apt-root.log" 2>&1 &&
    run_in_root bash -c 'cd /tmp/src && make && make install' >"$WORK/source.log" 2>&1; then
    ok "make && make install with postgresql-server-dev-$PGVERSION, gcc and make only"
else
    not_ok "make && make install with postgresql-server-dev-$PGVERSION, gcc and make only"
    show "$WORK/apt-root.log" 20 | diag
    show "$WORK/source.log" | diag
fi
check "... make says in one line that the gateway is not built, and names its packages" \
    grep -q '^note: singletable-gateway not built, it needs: apt-get install pkg-config libmicrohttpd-dev libssl-dev zlib1g-dev' "$WORK/source.log"
check "... and installs no gateway" test ! -e "$ROOT/usr/lib/postgresql/$PGVERSION/bin/singletable-gateway"
check "CREATE EXTENSION singletable from the source install: version 0.2.0" \
    test "$(psql_root -At -c 'CREATE EXTENSION singletable' -c "SELECT extversion FROM pg_extension WHERE extname = 'singletable'" 2>&1)" = 0.2.0
if run_in_root apt-get install -y -q --no-install-recommends pkg-config libmicrohttpd-dev libpq-dev libssl-dev zlib1g-dev \
        >>"$WORK/apt-root.log" 2>&1 &&
    run_in_root bash -c 'cd /tmp/src && make && make install' >"$WORK/source2.log" 2>&1 &&
    run_in_root "/usr/lib/postgresql/$PGVERSION/bin/singletable-gateway" --version >/dev/null 2>&1; then
    ok "with the gateway's libraries, make && make install also build and install singletable-gateway"
else
    not_ok "with the gateway's libraries, make && make install also build and install singletable-gateway"
    show "$WORK/source2.log" | diag
fi

cp -n "$ROOT"/var/cache/apt/archives/*.deb "$CACHE/archives/" 2>/dev/null
# keep the cache to what the last run used
for f in "$CACHE"/archives/*.deb; do
    [[ -e $ROOT/var/cache/apt/archives/${f##*/} ]] || rm -f "$f"
done

echo "1..$N"
echo "# packaging: $N checks, $FAILURES failed, $((SECONDS - START)) s"
((FAILURES == 0))
