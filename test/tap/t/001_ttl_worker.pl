# The TTL background workers (issue 11): a server with shared_preload_libraries =
# 'singletable' whose launcher starts one short-lived worker per database every
# singletable.ttl_interval seconds. Every wait is a poll of the server (never a blind
# sleep); the checks that something does NOT happen poll for it over a bounded window.
#
# Sections: two databases swept, the other items kept; a database created later; an
# application's row lock on an expired item; a worker terminated; the launcher
# terminated; a worker killed by SIGKILL (crash restart); ttl_interval raised and lowered
# on reload; ttl_enabled = off; DROP DATABASE, also during a long sweep; the server log.
#
# Run with test/tap/run.sh (as root it runs prove as the OS user postgres).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

# A failed wait should not take the default 180 s each; every wait here expects seconds.
$PostgreSQL::Test::Utils::timeout_default = 60;

my $INTERVAL = 2;    # singletable.ttl_interval of the test server, seconds
my $SLACK    = 6;    # "a few seconds": launcher wake-up (1 s), worker start, a slow CI

my $node = PostgreSQL::Test::Cluster->new('ttl');
# UTF8 whatever the environment's locale (without LANG initdb would make SQL_ASCII,
# which CREATE EXTENSION singletable refuses)
$node->init(extra => [ '--encoding=UTF8', '--locale=C.UTF-8' ]);
$node->append_conf(
	'postgresql.conf', qq(
shared_preload_libraries = 'singletable'
singletable.ttl_interval = $INTERVAL
singletable.ttl_log_sweeps = on
# Cluster.pm turns it off; the SIGKILL check below wants to see the crash restart
restart_after_crash = on
# nothing but the TTL workers connects to a database by itself (see db3 below)
autovacuum = off
));
$node->start;

# ---------------------------------------------------------------------------
# helpers

sub sql
{
	my ($db, $query) = @_;
	return $node->safe_psql($db, $query);
}

# Polls $query in $db every 0.1 s until it returns 't' or $secs have passed; returns
# whether it did. For the windows in which something must NOT happen: the window is the
# point, and a failure shows at once instead of at the window's end.
sub poll_for
{
	my ($db, $query, $secs) = @_;
	my $deadline = time + $secs;
	while (1)
	{
		my ($rc, $out) = $node->psql($db, $query);
		return 1 if $rc == 0 && $out eq 't';
		return 0 if time >= $deadline;
		usleep(100_000);
	}
}

# Waits (poll_query_until) for $query to return 't'; returns the seconds since $t0
# (default: now), or undef when it timed out.
sub seconds_until
{
	my ($db, $query, $t0) = @_;
	$t0 //= time;
	return undef unless $node->poll_query_until($db, $query);
	return time - $t0;
}

# An item of table $table with key (pk, $sk) whose attribute expiresAt is the SQL
# expression $expiry (epoch seconds, relative to `now`), or absent when $expiry is undef.
sub put
{
	my ($db, $table, $pk, $sk, $expiry) = @_;
	my $attr = defined $expiry ? ", 'expiresAt', $expiry" : '';
	sql($db,
		"SELECT singletable.put_item('$table', jsonb_build_object('pk', '$pk', 'sk', '$sk'$attr)) "
		  . "FROM (SELECT extract(epoch FROM now())::bigint AS now) c");
}

# How many rows (expired or not) the table holds with pk $pk and sk LIKE $sk_like.
sub rows
{
	my ($db, $table, $pk, $sk_like) = @_;
	return sql($db,
		"SELECT count(*) FROM $table WHERE pk = '$pk' AND sk LIKE '$sk_like'");
}

sub gone_query
{
	my ($table, $pk, $sk_like) = @_;
	return
	  "SELECT NOT EXISTS (SELECT FROM $table WHERE pk = '$pk' AND sk LIKE '$sk_like')";
}

sub launcher_pid
{
	return sql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE backend_type = 'singletable ttl launcher'"
	);
}

# The server's time as a literal to compare ttl_status timestamps with.
sub server_now
{
	my ($db) = @_;
	return sql($db || 'postgres', 'SELECT clock_timestamp()');
}

# The items of a database's TTL table "events": what expires and what never does.
my %NEVER = (
	'live'   => 'now + 3600',                # expires in an hour
	'string' => "'2020-01-01'",              # not a Number
	'ancient' => 'now - 6 * 366 * 86400',    # more than five years ago: ignored
	'millis' => 'now * 1000',                # milliseconds by mistake: far ahead
	'absent' => undef,                       # no expiry attribute
);

sub setup_db
{
	my ($db, $create) = @_;
	sql('postgres', "CREATE DATABASE $db") if $create;
	sql($db, 'SET client_min_messages = warning; CREATE EXTENSION singletable');
	sql($db, "SELECT singletable.create_table('events')");
	# TTL first, so that the expired items below are left to the regular rounds (the
	# wake-up of enable_ttl is over by then)
	sql($db, "SELECT singletable.enable_ttl('events', 'expiresAt')");
	put($db, 'events', 'keep', $_, $NEVER{$_}) for sort keys %NEVER;
}

# Puts $n items expired a minute ago into events of $db (sk "<prefix>1".."<prefix>n");
# returns the time they were committed.
sub put_expired
{
	my ($db, $prefix, $n) = @_;
	sql($db,
		"SELECT count(singletable.put_item('events', jsonb_build_object('pk', 'exp', 'sk', '$prefix' || i, "
		  . "'expiresAt', extract(epoch FROM now())::bigint - 60))) FROM generate_series(1, $n) i"
	);
	return time;
}

# ---------------------------------------------------------------------------
note 'the launcher runs';

ok($node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'singletable ttl launcher'"
	),
	'one "singletable ttl launcher" in pg_stat_activity');
is(sql('postgres', 'SHOW singletable.ttl_interval'), "${INTERVAL}s", 'ttl_interval is the configured one');

# ---------------------------------------------------------------------------
note 'two databases: expired items disappear, the others stay';

setup_db($_, 1) for qw(db1 db2);
my %put = map { $_ => put_expired($_, 'e', 3) } qw(db1 db2);
for my $db (qw(db1 db2))
{
	my $secs = seconds_until($db, gone_query('events', 'exp', 'e%'), $put{$db});
	ok(defined $secs && $secs <= $INTERVAL + $SLACK,
		sprintf('%s: 3 expired items swept within interval + %d s (%.1f s)', $db, $SLACK, $secs // -1));
}
# The items that never expire stay, through a whole later sweep of the table.
for my $db (qw(db1 db2))
{
	my $t = server_now($db);
	ok($node->poll_query_until($db,
			"SELECT last_sweep_start > '$t' AND last_sweep_end IS NOT NULL FROM singletable.ttl_status"),
		"$db: another sweep has run since");
	is(rows($db, 'events', 'keep', '%'), scalar(keys %NEVER),
		"$db: unexpired, non-numeric, over-5-years-old, millisecond and absent expiries all stay");
	is(sql($db, 'SELECT deleted_total, backlog, last_error IS NULL FROM singletable.ttl_status'),
		'3|0|t', "$db: ttl_status: 3 deleted in total, no backlog, no error");
}

# ---------------------------------------------------------------------------
note 'a database created afterwards, and the extension created in it later';

sql('postgres', 'CREATE DATABASE db3');
# Nothing connects to db3 but the workers: their transactions show in pg_stat_database.
ok($node->poll_query_until('postgres',
		"SELECT xact_commit > 0 FROM pg_stat_database WHERE datname = 'db3'"),
	'db3 (no extension yet) is visited by a worker without a restart');
setup_db('db3', 0);
my $put3 = put_expired('db3', 'e', 3);
my $secs3 = seconds_until('db3', gone_query('events', 'exp', 'e%'), $put3);
ok(defined $secs3 && $secs3 <= $INTERVAL + $SLACK,
	sprintf('db3: expired items swept within interval + %d s (%.1f s)', $SLACK, $secs3 // -1));
is(rows('db3', 'events', 'keep', '%'), scalar(keys %NEVER), 'db3: the other items stay');

# ---------------------------------------------------------------------------
note 'an application transaction holding a row lock on an expired item';

# Table "locks" in db1, its items put before TTL is enabled: L and o1..o3 are all
# expired. The application locks L, then TTL is enabled (CREATE INDEX takes a SHARE
# lock, which a row lock does not conflict with) and the launcher is woken.
sql('db1', "SELECT singletable.create_table('locks')");
for my $sk (qw(L o1 o2 o3))
{
	sql('db1',
		"SELECT singletable.put_item('locks', jsonb_build_object('pk', 'lock', 'sk', '$sk', "
		  . "'expiresAt', extract(epoch FROM now())::bigint - 60))");
}
my $app = $node->background_psql('db1', on_error_stop => 0);
$app->query_safe('SET client_min_messages = warning');
$app->query_safe("SET lock_timeout = '2s'");
$app->query_safe('BEGIN');
is($app->query_safe("SELECT sk FROM locks WHERE pk = 'lock' AND sk = 'L' FOR UPDATE"),
	'L', 'the application locks the expired item L');
my $t_lock = server_now('db1');
sql('db1', "SELECT singletable.enable_ttl('locks', 'expiresAt')");
my $secs_o = seconds_until('db1', gone_query('locks', 'lock', 'o%'));
ok(defined $secs_o && $secs_o <= $INTERVAL + $SLACK,
	sprintf('the other expired items are swept while L is locked (%.1f s)', $secs_o // -1));
is(rows('db1', 'locks', 'lock', 'L'), 1, 'the locked item L is skipped, not deleted');
# More sweeps of the table complete while the lock is held: none waits on it.
my $t_swept = server_now('db1');
ok($node->poll_query_until('db1',
		"SELECT last_sweep_start > '$t_swept' AND last_sweep_end IS NOT NULL AND last_error IS NULL "
		  . "FROM singletable.ttl_status WHERE table_name = 'locks'::regclass"),
	'a later sweep of the table completes while the lock is held');
is(sql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'singletable ttl worker' "
		  . "AND wait_event_type = 'Lock'"),
	'0', 'no worker waits on a lock');
# The application's own update of L, in the same transaction: not blocked by the sweep.
my $t0 = time;
my ($note, $err) = $app->query(
	"SELECT singletable.update_item('locks', 'lock', 'L', 'SET note = :n', vals => '{\":n\": \"mine\"}') ->> 'note'"
);
my $update_secs = time - $t0;
is($note, 'mine', 'the application updates its locked item');
ok(!$err && $update_secs < 1,
	sprintf('... promptly, without a lock wait (%.3f s)', $update_secs));
is(rows('db1', 'locks', 'lock', 'L'), 1, 'L is still there while its transaction is open');
$app->query_safe('COMMIT');
my $secs_l = seconds_until('db1', gone_query('locks', 'lock', 'L'));
ok(defined $secs_l && $secs_l <= $INTERVAL + $SLACK,
	sprintf('after the commit the still-expired L is swept by the next sweep (%.1f s)', $secs_l // -1));
$app->quit;

# ---------------------------------------------------------------------------
note 'a worker terminated with pg_terminate_backend';

# A worker is caught by an application holding an ACCESS EXCLUSIVE lock on db2's table:
# the worker waits to open it (a row lock would be skipped; a table lock is waited for).
my $locker = $node->background_psql('db2', on_error_stop => 0);
$locker->query_safe('BEGIN');
$locker->query_safe('LOCK TABLE events IN ACCESS EXCLUSIVE MODE');
my $worker_query =
  "SELECT pid FROM pg_stat_activity WHERE backend_type = 'singletable ttl worker' "
  . "AND datname = 'db2' AND wait_event_type = 'Lock'";
ok($node->poll_query_until('postgres', "SELECT EXISTS ($worker_query)"),
	'a db2 worker waits for the table lock');
my $worker_pid = sql('postgres', $worker_query);
is(sql('postgres', "SELECT pg_terminate_backend($worker_pid)"), 't', "worker $worker_pid terminated");
ok($node->poll_query_until('postgres',
		"SELECT NOT EXISTS (SELECT FROM pg_stat_activity WHERE pid = $worker_pid)"),
	'... and gone');
$locker->query_safe('ROLLBACK');
$locker->quit;
my $put_w = put_expired('db2', 'w', 2);
my $secs_w = seconds_until('db2', gone_query('events', 'exp', 'w%'), $put_w);
ok(defined $secs_w && $secs_w <= $INTERVAL + $SLACK,
	sprintf('db2 is swept again after its worker was terminated (%.1f s)', $secs_w // -1));

# ---------------------------------------------------------------------------
note 'the launcher terminated with pg_terminate_backend';

my $launcher = launcher_pid();
is(sql('postgres', "SELECT pg_terminate_backend($launcher)"), 't', "launcher $launcher terminated");
ok($node->poll_query_until('postgres',
		"SELECT NOT EXISTS (SELECT FROM pg_stat_activity WHERE pid = $launcher)"),
	'... and gone');
# enable_ttl wakes the launcher: with none running it must still work
sql('db1', "SELECT singletable.create_table('late')");
sql('db1',
	"SELECT singletable.put_item('late', jsonb_build_object('pk', 'exp', 'sk', 'x', "
	  . "'expiresAt', extract(epoch FROM now())::bigint - 60))");
my ($late_rc, $late_out, $late_err) =
  $node->psql('db1', "SELECT singletable.enable_ttl('late', 'expiresAt')");
is($late_rc, 0, 'enable_ttl works while there is no launcher') or diag $late_err;
# bgw_restart_time = 10: the postmaster starts a new one 10 s later
ok($node->poll_query_until('postgres',
		"SELECT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'singletable ttl launcher' "
		  . "AND pid <> $launcher)"),
	'the postmaster starts a new launcher');
%put = map { $_ => put_expired($_, 'l', 2) } qw(db1 db2);
for my $db (qw(db1 db2))
{
	my $secs = seconds_until($db, gone_query('events', 'exp', 'l%'), $put{$db});
	ok(defined $secs && $secs <= $INTERVAL + $SLACK,
		sprintf('%s: swept again under the new launcher (%.1f s)', $db, $secs // -1));
}
ok($node->poll_query_until('db1', gone_query('late', 'exp', 'x')),
	'the table whose TTL was enabled without a launcher is swept too');

# ---------------------------------------------------------------------------
note 'a worker killed with SIGKILL: a crash restart of the server';

$locker = $node->background_psql('db2', on_error_stop => 0);
$locker->query_safe('BEGIN');
$locker->query_safe('LOCK TABLE events IN ACCESS EXCLUSIVE MODE');
ok($node->poll_query_until('postgres', "SELECT EXISTS ($worker_query)"),
	'a db2 worker waits for the table lock');
$worker_pid = sql('postgres', $worker_query);
my $log_offset = -s $node->logfile;
$launcher = launcher_pid();
ok(kill('KILL', $worker_pid), "SIGKILL to worker $worker_pid");
ok($node->wait_for_log(qr/all server processes terminated; reinitializing/, $log_offset),
	'the postmaster reinitializes (restart_after_crash)');
# the application's session went down with the crash
eval { $locker->quit };
ok($node->poll_query_until('postgres',
		"SELECT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'singletable ttl launcher' "
		  . "AND pid <> $launcher)"),
	'a new launcher after the crash restart');
%put = map { $_ => put_expired($_, 'k', 2) } qw(db1 db2);
for my $db (qw(db1 db2))
{
	my $secs = seconds_until($db, gone_query('events', 'exp', 'k%'), $put{$db});
	ok(defined $secs && $secs <= $INTERVAL + $SLACK,
		sprintf('%s: swept again after the crash restart (%.1f s)', $db, $secs // -1));
	is(rows($db, 'events', 'keep', '%'), scalar(keys %NEVER), "$db: the other items still stay");
}

# ---------------------------------------------------------------------------
note 'singletable.ttl_interval changed with ALTER SYSTEM and a reload';

sql('postgres', 'ALTER SYSTEM SET singletable.ttl_interval = 30');
sql('postgres', 'SELECT pg_reload_conf()');
ok($node->poll_query_until('postgres', "SELECT current_setting('singletable.ttl_interval') = '30s'"),
	'the reload is done (new sessions see 30s)');
# The launcher may still start one worker on the old schedule; after that, none for 30 s.
# Wait for that last one (if it has not run yet) before the item below is put.
my $t_reload = server_now('db1');
poll_for('db1',
	"SELECT last_sweep_start > '$t_reload' AND last_sweep_end IS NOT NULL "
	  . "FROM singletable.ttl_status WHERE table_name = 'events'::regclass",
	$INTERVAL + 3);
my $last_start = sql('db1',
	"SELECT last_sweep_start FROM singletable.ttl_status WHERE table_name = 'events'::regclass");
put_expired('db1', 'i', 1);
ok(!poll_for('db1', gone_query('events', 'exp', 'i%'), 4 * $INTERVAL),
	sprintf('with ttl_interval = 30 a newly expired item is not swept for %d s (4 old intervals)',
		4 * $INTERVAL));
is(sql('db1',
	"SELECT last_sweep_start = '$last_start' FROM singletable.ttl_status WHERE table_name = 'events'::regclass"),
	't', '... no sweep started in that time');
sql('postgres', 'ALTER SYSTEM RESET singletable.ttl_interval');
sql('postgres', 'SELECT pg_reload_conf()');
my $t_lower = time;
ok($node->poll_query_until('postgres', "SELECT current_setting('singletable.ttl_interval') = '${INTERVAL}s'"),
	"ttl_interval back to ${INTERVAL}s");
my $secs_i = seconds_until('db1', gone_query('events', 'exp', 'i%'), $t_lower);
ok(defined $secs_i && $secs_i <= $INTERVAL + $SLACK,
	sprintf('lowered back to %d s, the item is swept within interval + %d s of the reload (%.1f s)',
		$INTERVAL, $SLACK, $secs_i // -1));

# ---------------------------------------------------------------------------
note 'singletable.ttl_enabled = off';

sql('postgres', 'ALTER SYSTEM SET singletable.ttl_enabled = off');
sql('postgres', 'SELECT pg_reload_conf()');
ok($node->poll_query_until('postgres', "SELECT current_setting('singletable.ttl_enabled') = 'off'"),
	'the reload is done (new sessions see off)');
ok($node->poll_query_until('postgres',
		"SELECT NOT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'singletable ttl worker')"),
	'no worker runs');
my %starts = map {
	$_ => sql($_, "SELECT last_sweep_start FROM singletable.ttl_status WHERE table_name = 'events'::regclass")
} qw(db1 db2);
put_expired($_, 'd', 2) for qw(db1 db2);
ok(!poll_for('db1', gone_query('events', 'exp', 'd%'), 3 * $INTERVAL),
	sprintf('db1: expired items are not swept for %d s (3 intervals)', 3 * $INTERVAL));
for my $db (qw(db1 db2))
{
	is(rows($db, 'events', 'exp', 'd%'), 2, "$db: the expired items are still there");
	is(sql($db,
		"SELECT last_sweep_start = '$starts{$db}' FROM singletable.ttl_status WHERE table_name = 'events'::regclass"),
		't', "$db: no sweep started");
}
sql('postgres', 'ALTER SYSTEM RESET singletable.ttl_enabled');
sql('postgres', 'SELECT pg_reload_conf()');
my $t_on = time;
for my $db (qw(db1 db2))
{
	my $secs = seconds_until($db, gone_query('events', 'exp', 'd%'), $t_on);
	ok(defined $secs && $secs <= $INTERVAL + $SLACK,
		sprintf('%s: swept again once ttl_enabled is back on (%.1f s)', $db, $secs // -1));
}

# ---------------------------------------------------------------------------
note 'DROP DATABASE of databases with TTL tables while the launcher runs';

for my $i (1 .. 2)
{
	my $db = "drop$i";
	setup_db($db, 1);
	put_expired($db, 'e', 50);
	ok($node->poll_query_until($db, gone_query('events', 'exp', 'e%')), "$db: swept");
	my ($rc, $out, $stderr) = $node->psql('postgres', "DROP DATABASE $db");
	is($rc, 0, "$db: DROP DATABASE succeeds") or diag $stderr;
}
# A worker busy with a long sweep: batches of one item (a database setting, which the
# worker's connection applies) over 40000 expired items keep it at work until its
# deadline of ttl_interval seconds. DROP DATABASE waits (up to 5 s) for it to exit.
setup_db('busy', 1);
sql('postgres', 'ALTER DATABASE busy SET singletable.ttl_batch_size = 1');
put_expired('busy', 'b', 40000);
ok($node->poll_query_until('postgres',
		"SELECT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'singletable ttl worker' "
		  . "AND datname = 'busy' AND query = 'singletable ttl sweep')"),
	'busy: a worker is sweeping');
my $t_drop = time;
my ($drop_rc, $drop_out, $drop_err) = $node->psql('postgres', 'DROP DATABASE busy');
is($drop_rc, 0,
	sprintf('busy: DROP DATABASE during the sweep succeeds (%.1f s; the worker stops at its deadline)',
		time - $t_drop)) or diag $drop_err;
ok(launcher_pid() =~ /^\d+$/, 'the launcher still runs');
put_expired('db1', 'z', 1);
ok($node->poll_query_until('db1', gone_query('events', 'exp', 'z%')), 'db1 is still swept');

# ---------------------------------------------------------------------------
note 'the server log';

my $log = slurp_file($node->logfile);
like($log, qr/singletable: swept \d+ expired items of table "db\d\.public\.events"/,
	'ttl_log_sweeps logs the sweeps');
unlike($log, qr/singletable: the sweep of table .* failed/, 'no sweep failed');

$node->stop;
done_testing();
