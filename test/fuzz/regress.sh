#!/usr/bin/env bash
# test/fuzz/regress.sh: replays the committed corpus and regressions/ (inputs that
# found bugs) once through the fuzz harness, without fuzzing, then deeply nested
# inputs generated here, which must each be rejected by the parser (not crash it).
# Installs the packages it needs when missing (as root) and builds the harness.
# Takes a few seconds. Exits non-zero on a crash, a sanitizer report, a failed
# harness check, or a deep input that was not rejected.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

# clang-14 with its sanitizer and libFuzzer runtimes, PostgreSQL's frontend libraries
packages=(clang-14 libclang-rt-14-dev postgresql-server-dev-15 libpq-dev make)
missing=()
if command -v dpkg-query > /dev/null 2>&1; then
    for pkg in "${packages[@]}"; do
        if [[ $(dpkg-query -W -f='${Status}' "$pkg" 2> /dev/null) != "install ok installed" ]]; then
            missing+=("$pkg")
        fi
    done
fi
if ((${#missing[@]} > 0)); then
    if ((EUID != 0)); then
        echo "fuzz regress: missing packages; install them with: sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
    apt-get update > /dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" > /dev/null
fi

make -s fuzz_expr

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/deep" "$tmp/artifacts"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# a smaller stack than a server backend has; nesting must not need more
ulimit -s 1024

# fuzz_expr DIR...: runs each input once; prints the log on failure
replay() {
    if ! ./fuzz_expr -detect_leaks=0 -runs=0 -artifact_prefix="$tmp/artifacts/" "$@" > "$tmp/log" 2>&1; then
        cat "$tmp/log" >&2
        echo "fuzz regress: FAILED" >&2
        exit 1
    fi
}

replay corpus regressions
ncorpus=$(find corpus regressions -type f | wc -l)

# deep nesting: each input is mode $1 and the output of the rest of the arguments
rep() { local out="" i; for ((i = 0; i < $2; i++)); do out+=$1; done; printf '%s' "$out"; }
k=0
deep() {
    local mode=$1
    shift
    k=$((k + 1))
    { printf '%s' "$mode"; eval "$@"; } > "$tmp/deep/$k-$mode"
}
for n in 5000 999; do    # over the 4096-byte limit, and under it
    for mode in c f; do
        deep $mode 'rep "NOT " $n; printf "a = :s"'
        deep $mode 'rep "(" $n; printf "a = :s"; rep ")" $n'
        deep $mode 'rep "(NOT " $((n / 2)); printf "a = :s"; rep ")" $((n / 2))'
        deep $mode 'printf a; rep ".a" $n; printf " = :s"'
        deep $mode 'printf a; rep "[0]" $n; printf " = :s"'
        deep $mode 'printf "size(a"; rep "[0]" $n; printf ") = :n"'
        deep $mode 'printf "attribute_exists(a"; rep ".a" $n; printf ")"'
    done
    deep u 'printf "SET a"; rep ".a" $n; printf " = :s"'
    deep u 'printf "SET a = a"; rep "[0]" $n'
    deep u 'printf "REMOVE a"; rep "[0]" $n'
    deep u 'printf "ADD a"; rep ".a" $n; printf " :n"'
    deep u 'printf "SET a = "; rep "list_append(" $((n / 5)); printf ":l"; rep ", :l)" $((n / 5))'
    deep u 'printf "SET a = "; rep "if_not_exists(a, " $((n / 5)); printf ":s"; rep ")" $((n / 5))'
    deep p 'printf a; rep ".a" $n'
    deep p 'printf a; rep "[0]" $n'
done
ndeep=$(find "$tmp/deep" -type f | wc -l)
# a filter (mode f) is parsed twice: as a Scan's and as a Query's
nparses=$((ndeep + $(find "$tmp/deep" -type f -name '*-f' | wc -l)))
FUZZ_EXPR_VERBOSE=1 replay "$tmp/deep"
# every deep input is rejected each time it is parsed, but one: 199 nested
# if_not_exists in 4 KB nest within the parser's limit (twice DynamoDB's 300
# operators) and parse, here with a 1 MB stack
nrejected=$(grep -a -c '^  parse [a-z]*: error' "$tmp/log" || true)
if ((nrejected != nparses - 1)); then
    grep -a -A1 '^mode' "$tmp/log" | cut -c1-160 >&2
    echo "fuzz regress: $nrejected of $nparses parses of deeply nested inputs rejected, not $((nparses - 1))" >&2
    exit 1
fi
# a TAP line for test/run.sh, which counts "ok N - " lines
echo "ok 1 - fuzz regress: $ncorpus corpus and regression inputs and $ndeep deeply nested inputs replayed, no failure"
