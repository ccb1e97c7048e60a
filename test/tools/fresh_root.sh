#!/usr/bin/env bash
# test/tools/fresh_root.sh: runs .ci/run the way CI does on a new machine, inside a Debian 12 root
# (chroot): a fresh clone, ../shared beside it without write bits, nothing installed but what
# .ci/run installs itself, and an environment without LANG or any UTF-8 locale.
# A developer tool, not run by CI. As root on the host:
#
#   test/tools/fresh_root.sh ROOT [REV]
#
# ROOT  a Debian 12 root directory, created with debootstrap --variant=minbase when missing.
#       .ci/run installs into it: give each run a fresh copy (e.g. cp -a base ROOT).
# REV   the commit or branch of this repository to clone (default HEAD).
# FRESH_ROOT_COMMAND (environment) runs another command there instead of .ci/run, e.g. the
# README's demo: FRESH_ROOT_COMMAND=test/demo.sh test/tools/fresh_root.sh ROOT
#
# The clone goes to ROOT/src/main, a copy of ../shared to ROOT/src/shared; the output of
# .ci/run is shown and kept in ROOT/src/ci.log. Ends with .ci/run's last line and its status.
# .ci/run's environment: HOME, PATH, TERM=dumb and CI=true (as CI sets it), nothing else.
# Only committed work is cloned. The root shares the host's network: the gateway and Citus
# suites listen on local ports.
set -euo pipefail

ROOT=${1:?usage: test/tools/fresh_root.sh ROOT [REV]}
REV=${2:-HEAD}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SHARED=$TOP/../shared
((EUID == 0)) || { echo "fresh_root.sh: run it as root" >&2; exit 1; }
[[ -d $SHARED ]] || { echo "fresh_root.sh: $SHARED is missing" >&2; exit 1; }
commit=$(git -C "$TOP" rev-parse --verify "$REV^{commit}")
ROOT=$(mkdir -p "$ROOT" && cd "$ROOT" && pwd)
[[ $ROOT != / ]] || { echo "fresh_root.sh: ROOT must not be /" >&2; exit 1; }

if [[ ! -x $ROOT/usr/bin/apt-get ]]; then
    debootstrap --variant=minbase bookworm "$ROOT" http://deb.debian.org/debian
    cat >>"$ROOT/etc/apt/sources.list" <<EOF
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
fi

# Cloned on the host, so the root needs neither git nor ca-certificates.
rm -rf "$ROOT/src"
mkdir -p "$ROOT/src"
git clone -q --no-hardlinks "$TOP" "$ROOT/src/main"
git -C "$ROOT/src/main" checkout -q --detach "$commit"
cp -r "$SHARED" "$ROOT/src/shared"
chmod -R a-w "$ROOT/src/shared"
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
# The host's own CA certificates (such as a proxy's that the package registries are reached
# through): the machines CI runs on have them; ca-certificates, installed by .ci/run as a
# dependency, adds them to the root's store.
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
    mkdir -p "$ROOT/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
    if [[ -x $ROOT/usr/sbin/update-ca-certificates ]]; then  # a root used before
        chroot "$ROOT" update-ca-certificates >/dev/null
    fi
fi

mounted=()
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
    local proc m i
    # What .ci/run left running in the root (it should leave nothing) would keep it busy.
    for proc in /proc/[0-9]*; do
        if [[ $(readlink "$proc/root" 2>/dev/null) == "$ROOT" ]]; then
            echo "fresh_root.sh: left running: $(tr '\0' ' ' <"$proc/cmdline" 2>/dev/null)" >&2
            kill "${proc#/proc/}" 2>/dev/null || true
        fi
    done
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        m=${mounted[i]}
        umount "$m" 2>/dev/null || umount -l "$m" || echo "fresh_root.sh: cannot unmount $m" >&2
    done
}
trap cleanup EXIT
mnt() { mount "$@" && mounted+=("${*: -1}"); }
# the root a mount point of its own, as / is on a real machine: test/packaging/run.sh makes
# its mounts private with unshare, which needs that
mnt --bind "$ROOT" "$ROOT"
mount --make-private "$ROOT"
mnt -t proc proc "$ROOT/proc"
# rslave: what is mounted or unmounted below them does not propagate back to the host
mnt --bind /sys "$ROOT/sys"
mount --make-rslave "$ROOT/sys"
mnt --bind /dev "$ROOT/dev"
mount --make-rslave "$ROOT/dev"
mnt --bind /dev/pts "$ROOT/dev/pts"
mnt -t tmpfs tmpfs "$ROOT/dev/shm"

LOG=$ROOT/src/ci.log
# FRESH_ROOT_COMMAND: another command of the README instead of .ci/run (e.g. test/demo.sh)
RUN=${FRESH_ROOT_COMMAND:-bash .ci/run}
echo "fresh_root.sh: $RUN of $commit in $ROOT, log $LOG" >&2
start=$SECONDS
rc=0
chroot "$ROOT" env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    TERM=dumb CI=true bash -c "cd /src/main && $RUN" </dev/null 2>&1 | tee "$LOG" ||
    rc=${PIPESTATUS[0]}
echo "fresh_root.sh: $RUN exited $rc after $((SECONDS - start)) s; its last line:" >&2
tail -n 1 "$LOG"
exit "$rc"
