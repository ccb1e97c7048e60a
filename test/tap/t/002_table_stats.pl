# The operation statistics in shared memory (singletable.table_stats with
# shared_preload_libraries = 'singletable'): what the pg_regress test (test/regress/sql/table_stats.sql)
# cannot show from its one session and database.
#
# Sections: counts of one session seen by another while both are open, and after both
# have exited; concurrent sessions counting the same entry (no call lost); databases apart
# (reset_stats(table) of one leaves the other, reset_stats() empties all); a restart
# empties them; eviction with singletable.stats_max = 100: the table stays at most full,
# the least used entries go, a busy one stays with its counts, stats_info.dealloc counts.
#
# Run with test/tap/run.sh (as root it runs prove as the OS user postgres).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

$PostgreSQL::Test::Utils::timeout_default = 60;

my $MAX = 100;    # singletable.stats_max of the test server (its minimum)

my $node = PostgreSQL::Test::Cluster->new('stats');
# UTF8 whatever the environment's locale (without LANG initdb would make SQL_ASCII,
# which CREATE EXTENSION singletable refuses)
$node->init(extra => [ '--encoding=UTF8', '--locale=C.UTF-8' ]);
$node->append_conf(
	'postgresql.conf', qq(
shared_preload_libraries = 'singletable'
singletable.stats_max = $MAX
singletable.ttl_enabled = off
autovacuum = off
));
$node->start;

sub sql
{
	my ($db, $query) = @_;
	return $node->safe_psql($db, $query);
}

# "calls|items_written" of table $table's DeleteItem row in $db, or '' when there is none.
sub deletes
{
	my ($db, $table) = @_;
	return sql($db,
		"SELECT calls || '|' || items_written FROM singletable.table_stats "
		  . "WHERE table_name = '$table'::regclass AND operation = 'DeleteItem'");
}

sub setup_db
{
	my ($db) = @_;
	sql('postgres', "CREATE DATABASE $db") unless $db eq 'postgres';
	sql($db, 'SET client_min_messages = warning; CREATE EXTENSION singletable');
	sql($db,
		"SELECT singletable.create_table('t', sort_key => NULL); "
		  . "SELECT count(singletable.put_item('t', jsonb_build_object('pk', 'k' || i))) "
		  . "FROM generate_series(1, 10) i");
}

# ---------------------------------------------------------------------------
note 'the counters are shared';

setup_db('postgres');
is(sql('postgres', 'SHOW singletable.stats_max'), $MAX, 'stats_max is the configured one');

my $a = $node->background_psql('postgres');
my $b = $node->background_psql('postgres');
$a->query_safe("SELECT singletable.delete_item('t', 'k' || i) FROM generate_series(1, 3) i");
is($b->query_safe(
		"SELECT calls, items_written, scope FROM singletable.table_stats WHERE table_name = 't'::regclass AND operation = 'DeleteItem'"),
	'3|3|shared',
	'a session sees the calls of another one still open, scope shared');
$a->query_safe("SELECT singletable.delete_item('t', 'absent')");
is($b->query_safe("SELECT calls FROM singletable.table_stats WHERE table_name = 't'::regclass AND operation = 'DeleteItem'"),
	'4', 'and its next call at once');
$a->quit;
$b->quit;
is(deletes('postgres', 't'), '4|3', 'the counts stay after both sessions have exited');

# Concurrent sessions on the same entry: each call counted once (per-entry spinlock).
my $CLIENTS = 4;
my $CALLS   = 250;
$node->pgbench(
	"--no-vacuum --client=$CLIENTS --transactions=$CALLS",
	0,
	[qr/processed: @{[$CLIENTS * $CALLS]}\/@{[$CLIENTS * $CALLS]}/],
	[qr/^$/],
	'pgbench: concurrent delete_item calls',
	{ 'delete_absent' => "SELECT singletable.delete_item('t', 'absent');\n" },
	'postgres');
is(deletes('postgres', 't'), (4 + $CLIENTS * $CALLS) . '|3',
	"$CLIENTS concurrent sessions' $CALLS calls each are all counted");

# ---------------------------------------------------------------------------
note 'databases apart';

setup_db('db2');
sql('db2', "SELECT singletable.delete_item('t', 'k1'); SELECT singletable.delete_item('t', 'k2')");
is(sql('db2',
		"SELECT count(*) || '|' || sum(calls) FROM singletable.table_stats WHERE operation = 'DeleteItem'"),
	'1|2', 'db2 sees only its own row');
is(deletes('postgres', 't'), (4 + $CLIENTS * $CALLS) . '|3', 'postgres keeps its own counts');
sql('db2', "SELECT singletable.reset_stats('t')");
is(sql('db2', 'SELECT count(*) FROM singletable.table_stats'), '0', 'reset_stats(table) in db2 empties db2');
is(deletes('postgres', 't'), (4 + $CLIENTS * $CALLS) . '|3', '... and leaves the other database');
sql('db2', "SELECT singletable.delete_item('t', 'k3')");
my $t0 = sql('postgres', 'SELECT clock_timestamp()');
sql('postgres', 'SELECT singletable.reset_stats()');
is(sql('postgres', 'SELECT count(*) FROM singletable.table_stats'), '0', 'reset_stats() empties this database');
is(sql('db2', 'SELECT count(*) FROM singletable.table_stats'), '0', '... and every other one');
is(sql('postgres', "SELECT dealloc = 0 AND stats_reset > '$t0' FROM singletable.stats_info"),
	't', 'stats_info: no evictions, reset just now');

# ---------------------------------------------------------------------------
note 'a restart';

sql('postgres', "SELECT singletable.delete_item('t', 'k4')");
is(deletes('postgres', 't'), '1|1', 'counted before the restart');
$t0 = sql('postgres', 'SELECT clock_timestamp()');
$node->restart;
is(sql('postgres', 'SELECT count(*) FROM singletable.table_stats'), '0', 'a restart empties them');
is(sql('postgres', "SELECT stats_reset > '$t0' FROM singletable.stats_info"),
	't', 'stats_reset is the start of the server');

# ---------------------------------------------------------------------------
note "eviction: stats_max = $MAX";

# One busy entry, then 2 * $MAX entries of one call each (a table each, in db2).
sql('postgres', "SELECT singletable.delete_item('t', 'absent') FROM generate_series(1, 50)");
my $NCOLD = 2 * $MAX;
sql('db2',
	join('',
		map {
			"SELECT singletable.create_table('c$_', sort_key => NULL);\n"
			  . "SELECT singletable.delete_item('c$_', 'x');\n"
		} 1 .. $NCOLD));
my $entries = sql('postgres', 'SELECT count(*) FROM singletable.table_stats')
  + sql('db2', 'SELECT count(*) FROM singletable.table_stats');
ok($entries <= $MAX && $entries >= $MAX * 0.9,
	"the entries of every database stay within stats_max ($entries of $MAX)");
is(deletes('postgres', 't'), '50|0', 'the busy entry was not evicted and kept its counts');
is(deletes('db2', "c$NCOLD"), '1|0', 'the newest entry is there');
is(sql('db2', "SELECT count(*) FROM singletable.table_stats WHERE table_name = 'c1'::regclass"),
	'0', 'the oldest one-call entry was evicted');
my $dealloc = sql('postgres', 'SELECT dealloc FROM singletable.stats_info');
# each eviction removes 10 entries (5%, at least 10) of a full table
ok($dealloc >= ($NCOLD + 1 - $MAX) / 10 && $dealloc <= ($NCOLD + 1 - $MAX) / 10 + 1,
	"stats_info.dealloc counts the evictions ($dealloc)");
sql('db2', "SELECT singletable.delete_item('c1', 'x')");
is(deletes('db2', 'c1'), '1|0', 'an evicted entry counts anew');

$node->stop;
done_testing();
