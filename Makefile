# singletable — PGXS build (layout as in pgvector / HypoPG)
EXTENSION = singletable
# the version comes from the control file (as in HypoPG), so it is stated once
EXTVERSION = $(shell grep default_version $(EXTENSION).control | sed -e "s/default_version[[:space:]]*=[[:space:]]*'\([^']*\)'/\1/")

MODULE_big = singletable
OBJS = $(patsubst %.c,%.o,$(wildcard src/*.c src/expr/*.c))

DATA = $(wildcard sql/singletable--*.sql)

TESTS = $(wildcard test/sql/*.sql)
REGRESS = $(patsubst test/sql/%.sql,%,$(TESTS))
REGRESS_OPTS = --inputdir=test --load-extension=singletable

# isolation tests (test/specs/*.spec against expected/*.out, run with `make installcheck`
# after the regression tests; results go to output_iso/)
SPECS = $(wildcard test/specs/*.spec)
ISOLATION = $(patsubst test/specs/%.spec,%,$(SPECS))
ISOLATION_OPTS = --inputdir=test --load-extension=singletable

# TAP tests (test/t/*.pl, PostgreSQL::Test::Cluster): run them with test/run_tap.sh, not
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
$(OBJS): $(wildcard src/*.h src/expr/*.h)

.PHONY: demo
demo:
	test/demo.sh

# The benchmark suite (not part of the tests or CI): test/bench/run.sh, report in test/bench/REPORT.md.
# BENCH_QUICK=1 make bench for a short development run.
.PHONY: bench
bench:
	test/bench/run.sh

# singletable-gateway, the DynamoDB HTTP endpoint (gateway/): built by `make`, installed
# into $(pg_config --bindir) by `make install`, with its own makefile (a PGXS PROGRAM
# cannot share the extension's OBJS). COPT (CI's -Werror) applies to it too.
.PHONY: gateway install-gateway uninstall-gateway clean-gateway
all: gateway
gateway:
	$(MAKE) -C gateway PG_CONFIG='$(PG_CONFIG)' COPT='$(COPT)'
install: install-gateway
install-gateway: gateway
	$(MAKE) -C gateway PG_CONFIG='$(PG_CONFIG)' COPT='$(COPT)' install
uninstall: uninstall-gateway
uninstall-gateway:
	$(MAKE) -C gateway PG_CONFIG='$(PG_CONFIG)' uninstall
clean: clean-gateway
clean-gateway:
	$(MAKE) -C gateway PG_CONFIG='$(PG_CONFIG)' clean
