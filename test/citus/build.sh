#!/usr/bin/env bash
# test/citus/build.sh: builds Citus 13.2.2 from the vendored source archive and installs it
# into the system PostgreSQL 15 (Debian's /usr/lib/postgresql/15). Run as root on Debian 12.
#
#   - installs the missing build packages (test/lib.sh st_install_deps, plus Citus's own);
#   - builds in a cache directory outside the repository,
#     $CITUS_CACHE/citus-13.2.2-<first 16 hex digits of the archive's sha256>, once: a later
#     run finds the marker file .singletable-built there (written last, holding the archive's
#     full sha256, and the version, path and pkglibdir of the pg_config built against) and
#     skips configure and make;
#   - runs `make install` whenever it built, or when the installed citus.so is missing or is
#     not the cached build's (e.g. PostgreSQL was reinstalled, or another Citus installed).
# Idempotent; an interrupted build leaves no marker, so the next run starts it over. Run by
# another user than root, it only checks that Citus is installed.
# Prints the time of each step, and exits non-zero on any failure.
#
# Environment:
#   CITUS_TARBALL  the archive (default: ../shared/vendor/citus-13.2.2.tar.gz beside the
#                  repository, as CI lays it; else /work/shared/vendor/citus-13.2.2.tar.gz)
#   CITUS_CACHE    the cache root (default /var/cache/singletable)
#   PG_CONFIG      as in test/lib.sh (default Debian's PostgreSQL 15)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../lib.sh"

CITUS_VERSION=13.2.2
CITUS_SHA256=c8fc76dc8294636a52b1a0dd75a20d8b4a36937df6443e30ca84d8d0464a6bb9
if [[ -z ${CITUS_TARBALL:-} ]]; then
    CITUS_TARBALL=$TOP/../shared/vendor/citus-$CITUS_VERSION.tar.gz
    [[ -f $CITUS_TARBALL ]] || CITUS_TARBALL=/work/shared/vendor/citus-$CITUS_VERSION.tar.gz
fi
CITUS_CACHE=${CITUS_CACHE:-/var/cache/singletable}

# Citus's build needs, beyond postgresql-server-dev-15 and a compiler: lz4 and zstd (column
# store compression) and krb5 (PG 15's server headers include gssapi/gssapi.h). libcurl is
# only for Citus's anonymous usage statistics, which a test cluster must not send: the build
# is configured --without-libcurl instead.
ST_PACKAGES+=(liblz4-dev libzstd-dev libkrb5-dev)
# run.sh: gdb forces a worker's kill between PREPARE and COMMIT PREPARED (a breakpoint on the
# coordinator), procps' pgrep finds the worker's processes
ST_PACKAGES+=(gdb procps)

T0=$(date +%s)
# step NAME: prints how long the previous step took, and starts timing NAME.
STEP="" STEP_T=$T0
step() {
    local now
    now=$(date +%s)
    [[ -n $STEP ]] && st_log "citus build: $STEP took $((now - STEP_T)) s"
    STEP=$1 STEP_T=$now
}

if ((EUID != 0)); then
    # Not root: nothing can be installed; a Citus installed before will do.
    if [[ -f $("$PG_CONFIG" --pkglibdir 2>/dev/null)/citus.so ]]; then
        st_log "citus build: not root: using the Citus installed in $("$PG_CONFIG" --pkglibdir)"
        exit 0
    fi
    echo "build.sh: must run as root (it installs packages and Citus into $PGBIN/..)" >&2
    exit 1
fi
if [[ ! -r $CITUS_TARBALL ]]; then
    echo "build.sh: no Citus source archive at $CITUS_TARBALL (set CITUS_TARBALL)" >&2
    exit 1
fi

step "installing build packages"
(st_install_deps) || { echo "build.sh: installing packages failed" >&2; exit 1; }
PGBIN=$("$PG_CONFIG" --bindir)
PKGLIBDIR=$("$PG_CONFIG" --pkglibdir)

step "checking the archive"
sha=$(sha256sum "$CITUS_TARBALL" | cut -d' ' -f1)
if [[ $sha != "$CITUS_SHA256" ]]; then
    # Not fatal: a newer archive may be vendored; the cache key is its own sha anyway.
    st_log "citus build: warning: $CITUS_TARBALL has sha256 $sha, not the known $CITUS_SHA256"
fi
BUILD=$CITUS_CACHE/citus-$CITUS_VERSION-${sha:0:16}
SRC=$BUILD/citus-$CITUS_VERSION
MARKER=$BUILD/.singletable-built
# The build is configured with one pg_config's path (Citus's Makefile.global keeps it, and
# make install installs where it says), so the path is part of the key, not only the version:
# a build configured against another installation (a private staged copy) is not reused.
want_marker="sha256=$sha
pg_config=$("$PG_CONFIG" --version)
pg_config_path=$(readlink -f "$(command -v "$PG_CONFIG")")
pkglibdir=$("$PG_CONFIG" --pkglibdir)"

mkdir -p "$CITUS_CACHE"
# One build at a time on this machine (two test runs started together share the cache).
exec 9>"$CITUS_CACHE/.lock"
flock 9

step "looking up the cache"
built=0
if [[ -f $MARKER && $(cat "$MARKER") == "$want_marker" && -f $SRC/src/backend/distributed/citus.so ]]; then
    st_log "citus build: cached build in $BUILD"
else
    step "extracting"
    st_log "citus build: building Citus $CITUS_VERSION in $BUILD"
    rm -rf "$BUILD"
    mkdir -p "$BUILD"
    tar -xzf "$CITUS_TARBALL" -C "$BUILD"
    [[ -x $SRC/configure ]] || { echo "build.sh: $CITUS_TARBALL has no citus-$CITUS_VERSION/configure" >&2; exit 1; }

    # PostgreSQL 15.20's headers declare have_createdb_privilege() (commands/dbcommands.h),
    # which Citus defines itself as a static inline for PostgreSQL < 16: "static declaration
    # follows non-static declaration". Rename Citus's helper (and its one caller) to
    # have_createdb_privilege_compat, mapped to the server's function for PG 16+. Only this
    # extracted copy is changed.
    compat=$SRC/src/include/pg_version_compat.h
    caller=$SRC/src/backend/distributed/commands/serialize_distributed_ddls.c
    sed -i -e 's/^have_createdb_privilege(void)$/have_createdb_privilege_compat(void)/' \
           -e 's/^#define have_createdb_privilege() have_createdb_privilege()$/#define have_createdb_privilege_compat() have_createdb_privilege()/' \
        "$compat"
    sed -i -e 's/!have_createdb_privilege()/!have_createdb_privilege_compat()/' "$caller"
    # Every occurrence must now be the renamed one, or the archive is not the one expected.
    if grep -rn --include='*.[ch]' -E '\bhave_createdb_privilege\(\)|^have_createdb_privilege\(void\)' "$SRC/src" |
            grep -v 'define have_createdb_privilege_compat() have_createdb_privilege()'; then
        echo "build.sh: patching have_createdb_privilege failed (see the lines above)" >&2
        exit 1
    fi
    [[ $(grep -c have_createdb_privilege_compat "$compat" "$caller" | awk -F: '{s += $2} END {print s}') == 3 ]] ||
        { echo "build.sh: have_createdb_privilege_compat: expected 3 occurrences after patching" >&2; exit 1; }

    step "configure"
    (cd "$SRC" && ./configure PG_CONFIG="$PG_CONFIG" --without-libcurl >"$BUILD/configure.log" 2>&1) ||
        { tail -n 40 "$BUILD/configure.log" >&2; echo "build.sh: configure failed ($BUILD/configure.log)" >&2; exit 1; }

    step "make"
    (cd "$SRC" && make -j"$(nproc 2>/dev/null || echo 2)" >"$BUILD/make.log" 2>&1) ||
        { grep -E 'error|Error' "$BUILD/make.log" | head -n 40 >&2; echo "build.sh: make failed ($BUILD/make.log)" >&2; exit 1; }
    built=1
fi

step "install"
installed=$PKGLIBDIR/citus.so
if ((built)) || ! cmp -s "$SRC/src/backend/distributed/citus.so" "$installed" ||
        [[ ! -f $("$PG_CONFIG" --sharedir)/extension/citus.control ]]; then
    st_log "citus build: make install into $("$PG_CONFIG" --bindir)/.."
    (cd "$SRC" && make install PG_CONFIG="$PG_CONFIG" >"$BUILD/install.log" 2>&1) ||
        { tail -n 40 "$BUILD/install.log" >&2; echo "build.sh: make install failed ($BUILD/install.log)" >&2; exit 1; }
    cmp -s "$SRC/src/backend/distributed/citus.so" "$installed" ||
        { echo "build.sh: $installed is not the build's citus.so after make install" >&2; exit 1; }
else
    st_log "citus build: $installed is the cached build's: nothing to install"
fi
# The marker last: only a build that compiled and installed completely is reused.
if ((built)); then
    printf '%s\n' "$want_marker" >"$MARKER"
fi
step ""
st_log "citus build: Citus $CITUS_VERSION ready in $(($(date +%s) - T0)) s"
