# singletable — PGXS build (layout as in pgvector / HypoPG)
EXTENSION = singletable
# the version comes from the control file (as in HypoPG), so it is stated once
EXTVERSION = $(shell grep default_version $(EXTENSION).control | sed -e "s/default_version[[:space:]]*=[[:space:]]*'\([^']*\)'/\1/")

MODULE_big = singletable
# src/ holds one folder per layer (src/README.md); headers are included by their
# folder path from src/ ("catalog/registry.h"), which no PostgreSQL header shadows
# (test/checks/layers.sh checks).
OBJS = $(patsubst %.c,%.o,$(wildcard src/*.c src/*/*.c))
PG_CPPFLAGS += -I$(srcdir)/src

DATA = $(wildcard sql/singletable--*.sql)

# The error table src/utils/errors.tab (DynamoDB's exceptions, their SQLSTATEs and HTTP
# statuses) becomes the extension's src/utils/errors_table.h at build time, by
# src/utils/gen_errors.awk (awk: a package build has no python); gateway/Makefile makes the
# gateway's header from the same table. The generated headers are not committed.
ERRORS_TABLE_H = src/utils/errors_table.h
EXTRA_CLEAN = $(ERRORS_TABLE_H) $(ERRORS_TABLE_H).tmp

TESTS = $(wildcard test/regress/sql/*.sql)
REGRESS = $(patsubst test/regress/sql/%.sql,%,$(TESTS))
REGRESS_OPTS = --inputdir=test/regress --load-extension=singletable

# test/regress/expected and test/isolation/expected link to the top-level expected/.
# isolation tests (test/isolation/specs/*.spec against expected/*.out, run with `make installcheck`
# after the regression tests; results go to output_iso/)
SPECS = $(wildcard test/isolation/specs/*.spec)
ISOLATION = $(patsubst test/isolation/specs/%.spec,%,$(SPECS))
ISOLATION_OPTS = --inputdir=test/isolation --load-extension=singletable

# TAP tests (test/tap/t/*.pl, PostgreSQL::Test::Cluster): run them with test/tap/run.sh, not
# with TAP_TESTS = 1 here, which would make `make installcheck` (run as root by
# test/run.sh) also run prove, and Cluster.pm refuses to run initdb as root.

# No -Werror here: a newer compiler's new warning must not break a user's build.
# CI builds with COPT=-Werror (test/lib.sh), which PGXS appends to CFLAGS.
PG_CFLAGS += -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wno-sign-compare

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks no header dependencies (Debian's server is built without --enable-depend):
# every object depends on every header of the extension, so that a changed struct can
# never leave an object compiled against the old layout.
$(OBJS): $(wildcard src/*.h src/*/*.h)

# utils/errors.h includes the generated header: every object (and its LLVM bitcode, which
# PGXS builds alongside) waits for it, also in a parallel build.
$(OBJS) $(patsubst %.o,%.bc,$(OBJS)): $(ERRORS_TABLE_H)
$(ERRORS_TABLE_H): src/utils/errors.tab src/utils/gen_errors.awk
	awk -v side=extension -f src/utils/gen_errors.awk src/utils/errors.tab > $@.tmp
	mv $@.tmp $@

.PHONY: demo
demo:
	test/demo.sh

# The benchmark suite (not part of the tests or CI): test/bench/run.sh, report in test/bench/REPORT.md.
# BENCH_QUICK=1 make bench for a short development run.
.PHONY: bench
bench:
	test/bench/run.sh

# singletable-gateway, the DynamoDB HTTP endpoint (gateway/), a program with its own
# makefile (a PGXS PROGRAM cannot share the extension's OBJS). It needs libraries the
# extension does not (Debian: libmicrohttpd-dev libpq-dev libssl-dev zlib1g-dev pkg-config),
# so `make` / `make install` build and install it only when pkg-config finds all of them,
# and otherwise say so in one line and go on: the extension never depends on them.
#   make gateway / make install-gateway   build / install it, failing when a library is missing
#   GATEWAY=no                            never build it with `make` / `make install`
# It installs into $(pg_config --bindir); COPT (CI's -Werror) applies to it too.
GATEWAY ?= auto
GATEWAY_MAKE = $(MAKE) -C gateway PG_CONFIG='$(PG_CONFIG)' COPT='$(COPT)'
.PHONY: gateway install-gateway uninstall-gateway clean-gateway gateway-if-found install-gateway-if-found
ifneq ($(GATEWAY),no)
all: gateway-if-found
install: install-gateway-if-found
endif
GATEWAY_MISSING = $$($(GATEWAY_MAKE) -s --no-print-directory print-missing)
gateway-if-found:
	+@m="$(GATEWAY_MISSING)"; if [ -z "$$m" ]; then $(GATEWAY_MAKE); else \
		echo "note: singletable-gateway not built, it needs: apt-get install $$m (the extension is complete without it)"; fi
install-gateway-if-found: gateway-if-found
	+@m="$(GATEWAY_MISSING)"; if [ -z "$$m" ]; then $(GATEWAY_MAKE) install; fi
gateway:
	$(GATEWAY_MAKE)
install-gateway: gateway
	$(GATEWAY_MAKE) install
uninstall: uninstall-gateway
uninstall-gateway:
	$(GATEWAY_MAKE) uninstall
clean: clean-gateway
clean-gateway:
	$(GATEWAY_MAKE) clean
