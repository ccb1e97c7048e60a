#!/usr/bin/env bash
# test/checks/layers.sh: checks that each layer of src/ calls only the layers below it
# (src/README.md has the map), from the symbols of the built objects: for every
# function or variable an object uses and another object of the extension defines,
# the caller's folder must rank above the callee's, or be the same folder. The
# deliberate exceptions are listed in ALLOWED below, each with its reason in the
# folder's README. Also checks that no header of src/ shadows a PostgreSQL header
# of the same path (src/ comes first on the include path), and that each folder's README
# names every file of the folder. Run after `make`.
# One TAP line per check; exits non-zero on a failure.
set -uo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
cd "$TOP"

python3 - "$("$PG_CONFIG" --includedir-server)" <<'PY'
import collections, glob, os, subprocess, sys

# rank of each folder: a folder may call the folders of lower rank (and itself)
RANK = {"utils": 0, "expr": 0, "format": 1, "catalog": 2, "planner": 3, "ops": 3,
        "commands": 4, "api": 5, "bgw": 5, "functions": 6, ".": 9}
# deliberate upward calls: (caller folder, callee folder, symbol)
ALLOWED = {
    # the expression engine is server-independent; the server side supplies its
    # error reporting (src/expr/README.md)
    ("expr", "ops", "st_expr_error"),
}

objs = sorted(glob.glob("src/*.o") + glob.glob("src/*/*.o"))
n = 0
failed = 0

def tap(ok, what):
    global n, failed
    n += 1
    if not ok:
        failed += 1
    print(("ok" if ok else "not ok") + f" {n} - layers: {what}")

if not objs:
    tap(False, "no objects under src/: run make first")
    sys.exit(1)

def folder(o):
    d = os.path.dirname(os.path.relpath(o, "src"))
    return d or "."

defs, uses = {}, collections.defaultdict(set)
for o in objs:
    out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBRC":
            defs[p[2]] = o
        elif len(p) == 2 and p[0] == "U":
            uses[o].add(p[1])

unknown = sorted({folder(o) for o in objs} - RANK.keys())
tap(not unknown, "every folder has a rank" + (f" (missing: {', '.join(unknown)})" if unknown else ""))

bad = []
for o in objs:
    f = folder(o)
    for sym in sorted(uses[o]):
        d = defs.get(sym)
        if d is None or d == o:
            continue
        g = folder(d)
        if f == g or RANK.get(f, -1) > RANK.get(g, 99) or (f, g, sym) in ALLOWED:
            continue
        bad.append(f"{os.path.relpath(o, 'src')[:-2]}.c calls {sym} of {os.path.relpath(d, 'src')[:-2]}.c")
for b in bad:
    print("# " + b)
tap(not bad, "no call from a lower layer to a higher one" + (f" ({len(bad)} found)" if bad else ""))

# every file of a folder is named in the folder's README (as `name`)
missing = []
# (the tree as it is, built or not: no git needed; build products left out)
tracked = [f for f in glob.glob("src/*/*") if os.path.isfile(f)
           and not f.endswith((".o", ".bc", ".so", ".tmp"))]
for d in sorted({os.path.dirname(f) for f in tracked if f.count("/") == 2}):
    readme = os.path.join(d, "README.md")
    text = open(readme).read() if os.path.exists(readme) else ""
    for f in tracked:
        if os.path.dirname(f) == d and not f.endswith("README.md") and f"`{os.path.basename(f)}`" not in text:
            missing.append(f)
for m in missing:
    print(f"# {m} is not named in its folder's README.md")
tap(not missing, "every file of a folder of src/ is named in its README" + (f" ({len(missing)} not)" if missing else ""))

server = sys.argv[1]
shadow = [h for h in glob.glob("src/*/*.h") if os.path.exists(os.path.join(server, os.path.relpath(h, "src")))]
tap(not shadow, "no header shadows a PostgreSQL header" + (f" ({', '.join(shadow)})" if shadow else ""))
sys.exit(1 if failed else 0)
PY
