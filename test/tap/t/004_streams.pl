# DynamoDB Streams (issue 27): capture by logical decoding through the extension's output
# plugin, stored by the stream worker. A server with wal_level = logical and
# shared_preload_libraries = 'singletable'.
#
# Sections: enabling (ENABLING until the worker made the slot, then ENABLED); INSERT, MODIFY,
# REMOVE with both images; no record for a rolled-back write nor for an unchanged put; a
# plain SQL UPDATE; a transaction of several items in commit order; the other view types;
# a TTL deletion with userIdentity; 'already enabled'; disable then re-enable (new ARN, the
# old stream DISABLED and still readable); shard rotation and retention with the settings
# lowered; the worker terminated (restarted by the launcher); four writers with a reader of
# the records at once (none lost); kill -9 of the postmaster and
# separately of the worker while writes stream: afterwards every committed change is in the
# stream exactly once, in order; dropping the table drops its streams; with no stream left,
# and after DROP EXTENSION, the worker drops the slot; no free slot: enabling is refused.
#
# Run with test/tap/run.sh (as root it runs prove as the OS user postgres).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

$PostgreSQL::Test::Utils::timeout_default = 60;

my $node = PostgreSQL::Test::Cluster->new('streams');
$node->init(extra => [ '--encoding=UTF8', '--locale=C.UTF-8' ]);
$node->append_conf(
	'postgresql.conf', qq(
shared_preload_libraries = 'singletable'
wal_level = logical
max_replication_slots = 10
singletable.ttl_enabled = off
restart_after_crash = on
));
# Some PostgreSQL builds only let the output plugins listed in output_plugin_libraries decode.
my $bindir = $node->config_data('--bindir');
my $describe = `$bindir/postgres --describe-config 2>/dev/null`;
if ($describe =~ /^output_plugin_libraries\t/m)
{
	$node->append_conf('postgresql.conf',
		"output_plugin_libraries = 'pgoutput, test_decoding, singletable'\n");
}
$node->start;

sub sql
{
	my ($query) = @_;
	return $node->safe_psql('postgres', $query);
}

sub wait_for
{
	my ($query, $what) = @_;
	ok($node->poll_query_until('postgres', $query), $what);
}

# The records of a table's newest stream as "EVENT:sk[:new v][:old v]" lines
sub records
{
	my ($table, $after) = @_;
	$after = defined $after ? "'$after'" : 'NULL';
	return sql(
		"SELECT string_agg(event_name || ':' || (keys->'sk'->>'S')"
		  . " || coalesce(':new=' || (new_image->'v'->>'N'), '') || coalesce(':old=' || (old_image->'v'->>'N'), '')"
		  . " || CASE WHEN new_image IS NOT NULL AND old_image IS NULL THEN ':N' WHEN new_image IS NULL AND old_image IS NOT NULL THEN ':O'"
		  . " WHEN new_image IS NULL AND old_image IS NULL THEN ':K' ELSE '' END, ' ' ORDER BY sequence_number)"
		  . " FROM singletable.stream_records('$table', $after)");
}

sub nrecords
{
	my ($table) = @_;
	return sql("SELECT count(*) FROM singletable.stream_records('$table', max_records => 10000)");
}

sub put
{
	my ($table, $sk, $v) = @_;
	sql("SELECT singletable.put_item('$table', '{\"pk\": \"P\", \"sk\": \"$sk\", \"v\": $v}')");
}

sql("CREATE EXTENSION singletable");
sql("SELECT singletable.create_table('app', 'pk', 'sk')");

note 'enabling: ENABLING until the worker created the slot';
my $arn1 = sql("SELECT singletable.enable_stream('app')");
like($arn1, qr{^arn:aws:dynamodb:ddblocal:000000000000:table/app/stream/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$}, 'the ARN');
wait_for("SELECT status = 'ENABLED' FROM singletable.streams WHERE stream_arn = '$arn1'", 'ENABLED once the slot exists');
is(sql("SELECT plugin FROM pg_replication_slots WHERE slot_name = 'singletable_streams_' || (SELECT oid FROM pg_database WHERE datname = 'postgres')"),
	'singletable', 'the slot decodes through the extension');
is(sql("SELECT relreplident FROM pg_class WHERE relname = 'app'"), 'f', 'REPLICA IDENTITY FULL');
is(sql("SELECT count(*) FROM singletable.stream_shards h JOIN singletable.streams s USING (stream_id) WHERE s.stream_arn = '$arn1' AND ending_seq IS NULL"),
	'1', 'one open shard');

note 'INSERT, MODIFY, REMOVE; a rollback and an unchanged put write nothing';
put('app', 'a', 1);
put('app', 'a', 2);
put('app', 'a', 2);    # unchanged: no record
sql("BEGIN; SELECT singletable.put_item('app', '{\"pk\": \"P\", \"sk\": \"rolled\", \"v\": 9}'); ROLLBACK;");
sql("SELECT singletable.delete_item('app', 'P', 'a')");
sql("SELECT singletable.delete_item('app', 'P', 'never-there')");    # nothing deleted
wait_for("SELECT count(*) = 3 FROM singletable.stream_records('app')", 'three records');
is(records('app'), 'INSERT:a:new=1:N MODIFY:a:new=2:old=1 REMOVE:a:old=2:O', 'the records, images of NEW_AND_OLD_IMAGES');
my $row = sql("SELECT sequence_number, size_bytes, user_identity IS NULL, stream_arn = '$arn1', approximate_creation_date_time <= now() FROM singletable.stream_records('app') LIMIT 1");
like($row, qr/^\d{21}\|\d+\|t\|t\|t$/, 'a 21-digit sequence number, a size, no userIdentity, the ARN, the commit time');

note 'a plain SQL UPDATE, a transaction of several items in commit order';
put('app', 'b', 1);
sql("UPDATE app SET item = jsonb_set(item, '{v}', '5') WHERE sk = 'b'");
sql("BEGIN; SELECT singletable.put_item('app', '{\"pk\": \"P\", \"sk\": \"t2\", \"v\": 1}');"
	  . " SELECT singletable.put_item('app', '{\"pk\": \"P\", \"sk\": \"t1\", \"v\": 1}');"
	  . " SELECT singletable.delete_item('app', 'P', 'b'); COMMIT;");
wait_for("SELECT count(*) = 8 FROM singletable.stream_records('app')", 'eight records');
my $last3 = sql("SELECT max(sequence_number) FROM (SELECT sequence_number FROM singletable.stream_records('app') ORDER BY 1 LIMIT 5) s");
is(records('app', $last3), 'INSERT:t2:new=1:N INSERT:t1:new=1:N REMOVE:b:old=5:O', 'a transaction: its changes in order, together');
like(records('app'), qr/INSERT:b:new=1:N MODIFY:b:new=5:old=1 /, 'a plain SQL UPDATE is a MODIFY');

note 'the other view types';
for my $view (qw(KEYS_ONLY NEW_IMAGE OLD_IMAGE))
{
	my $t = lc "v_$view";
	sql("SELECT singletable.create_table('$t', 'pk', 'sk')");
	sql("SELECT singletable.enable_stream('$t', '$view')");
	put($t, 'x', 1);
	put($t, 'x', 2);
	sql("SELECT singletable.delete_item('$t', 'P', 'x')");
}
wait_for("SELECT count(*) = 3 FROM singletable.stream_records('v_old_image')", 'view type tables streamed');
is(records('v_keys_only'), 'INSERT:x:K MODIFY:x:K REMOVE:x:K', 'KEYS_ONLY: keys only');
is(records('v_new_image'), 'INSERT:x:new=1:N MODIFY:x:new=2:N REMOVE:x:K', 'NEW_IMAGE: new images');
is(records('v_old_image'), 'INSERT:x:K MODIFY:x:old=1:O REMOVE:x:old=2:O', 'OLD_IMAGE: old images');

note 'a TTL deletion carries userIdentity';
sql("SELECT singletable.enable_ttl('app', 'exp')");
sql("SELECT singletable.put_item('app', jsonb_build_object('pk', 'P', 'sk', 'ttl', 'v', 1, 'exp', extract(epoch FROM now())::bigint - 10))");
sql("SELECT singletable.ttl_sweep('app')");
sql("SELECT singletable.delete_item('app', 'P', 't1')");
wait_for("SELECT count(*) = 11 FROM singletable.stream_records('app')", 'TTL records');
is(sql("SELECT string_agg(event_name || ':' || coalesce(user_identity::text, '-'), ' ' ORDER BY sequence_number) FROM (SELECT * FROM singletable.stream_records('app') ORDER BY sequence_number DESC LIMIT 2) s"),
	'REMOVE:{"type": "Service", "principalId": "dynamodb.amazonaws.com"} REMOVE:-',
	'the sweep\'s deletion has userIdentity Service, a user\'s has none');

note 'already enabled; disable then re-enable';
my ($rc, $out, $err) = $node->psql('postgres', "SELECT singletable.enable_stream('app')");
like($err, qr/table "app" already has an enabled stream/, 'enabling twice is an error');
like($err, qr/Table already has an enabled stream: TableName: app/, '... with DynamoDB\'s message');
sql("SELECT singletable.disable_stream('app')");
is(sql("SELECT relreplident FROM pg_class WHERE relname = 'app'"), 'd', 'REPLICA IDENTITY DEFAULT again');
put('app', 'off', 1);    # not streamed
($rc, $out, $err) = $node->psql('postgres', "SELECT singletable.disable_stream('app')");
like($err, qr/table "app" has no enabled stream/, 'disabling twice is an error');
my $arn2 = sql("SELECT singletable.enable_stream('app', 'KEYS_ONLY')");
isnt($arn2, $arn1, 'a re-enable has a new ARN');
put('app', 'on', 1);
wait_for("SELECT count(*) = 1 FROM singletable.stream_records('app')", 'the new stream has its record');
is(records('app'), 'INSERT:on:K', 'the new stream: only what came after, in its view type');
is(sql("SELECT status || ' ' || (SELECT count(*) FROM singletable.stream_records r WHERE r.stream_id = s.stream_id) FROM singletable.streams s WHERE stream_arn = '$arn1'"),
	'DISABLED 11', 'the old stream is DISABLED, its records kept');
wait_for("SELECT ending_seq IS NOT NULL FROM singletable.stream_shards h JOIN singletable.streams s USING (stream_id) WHERE stream_arn = '$arn1'",
	'the old stream\'s shard is closed');

note 'shard rotation and retention, settings lowered';
sql("ALTER SYSTEM SET singletable.stream_shard_lifetime = '2s'");
sql("SELECT pg_reload_conf()");
wait_for("SELECT count(*) >= 2 FROM singletable.stream_shards h JOIN singletable.streams s USING (stream_id) WHERE stream_arn = '$arn2'",
	'a shard past its lifetime is succeeded by a child');
is(sql("SELECT count(*) FROM singletable.stream_shards c JOIN singletable.stream_shards p ON p.shard_id = c.parent_shard_id AND p.stream_id = c.stream_id"
	  . " WHERE c.starting_seq = p.ending_seq + 1"), sql("SELECT count(*) - count(*) FILTER (WHERE parent_shard_id IS NULL) FROM singletable.stream_shards"),
	'each child starts after its parent ends');
like(sql("SELECT shard_id FROM singletable.stream_shards LIMIT 1"), qr/^shardId-\d{20}-[0-9a-f]{8}$/, 'shard id format');
sql("ALTER SYSTEM SET singletable.stream_shard_lifetime = '4h'");
sql("ALTER SYSTEM SET singletable.stream_retention = '3s'");
sql("SELECT pg_reload_conf()");
wait_for("SELECT count(*) = 0 FROM singletable.stream_records", 'records older than the retention are deleted');
wait_for("SELECT NOT EXISTS (SELECT FROM singletable.streams WHERE stream_arn = '$arn1')", 'a disabled stream past retention is removed');
ok(sql("SELECT trimmed_seq FROM singletable.streams WHERE stream_arn = '$arn2'") > 0, 'the trim point moved');
sql("ALTER SYSTEM RESET singletable.stream_retention");
sql("SELECT pg_reload_conf()");

note 'the worker terminated: the launcher starts another';
my $wpid = sql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'singletable stream worker'");
ok($wpid > 0, 'a stream worker runs');
sql("SELECT pg_terminate_backend($wpid)");
wait_for("SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'singletable stream worker' AND pid <> $wpid", 'a new worker');
put('app', 'after-term', 1);
wait_for("SELECT count(*) = 1 FROM singletable.stream_records('app') WHERE keys->'sk'->>'S' = 'after-term'", 'streaming again');

# Writes committed one by one in a loop in the background; returns the psql handle.
sub start_writer
{
	my ($table) = @_;
	my ($in, $o, $e) = ('', '', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c',
			"DO \$\$ BEGIN FOR i IN 1..1000000 LOOP"
			  . " PERFORM singletable.put_item('$table', jsonb_build_object('pk', 'P', 'sk', lpad(i::text, 8, '0'), 'v', i));"
			  . " IF i % 3 = 0 THEN PERFORM singletable.put_item('$table', jsonb_build_object('pk', 'P', 'sk', lpad(i::text, 8, '0'), 'v', -i)); END IF;"
			  . " COMMIT; END LOOP; END \$\$" ],
		\$in, \$o, \$e);
	return $h;
}

# Every committed change exactly once, in order: per item one INSERT (and a MODIFY for
# every third), sequence numbers in the order of the loop.
sub check_exactly_once
{
	my ($table, $what) = @_;
	my $n = sql("SELECT count(*) FROM $table");
	ok($n > 0, "$what: $n items committed");
	my $expect = $n + sql("SELECT count(*) FROM $table WHERE (item->>'v')::int < 0");
	wait_for("SELECT count(*) = $expect FROM (SELECT r.*, r.seq AS sequence_number FROM singletable.stream_records r JOIN singletable.streams st USING (stream_id) WHERE st.table_name = '$table') rec",
		"$what: the stream caught up");
	is(sql("SELECT count(*) FROM (SELECT r.*, r.seq AS sequence_number FROM singletable.stream_records r JOIN singletable.streams st USING (stream_id) WHERE st.table_name = '$table') rec"), $expect,
		"$what: every committed change once (no more)");
	is(sql("SELECT bool_and(ok) FROM (SELECT (keys->'sk'->>'S') || event_name >= lag((keys->'sk'->>'S') || event_name) OVER (ORDER BY sequence_number) IS NOT FALSE AS ok"
		  . " FROM (SELECT r.*, r.seq AS sequence_number FROM singletable.stream_records r JOIN singletable.streams st USING (stream_id) WHERE st.table_name = '$table') rec) s"), 't', "$what: in commit order");
	is(sql("SELECT count(*) FROM (SELECT keys, event_name FROM (SELECT r.*, r.seq AS sequence_number FROM singletable.stream_records r JOIN singletable.streams st USING (stream_id) WHERE st.table_name = '$table') rec GROUP BY 1, 2 HAVING count(*) > 1) s"),
		'0', "$what: no duplicates");
}

note 'four writers and a reader of stream_records at once: every change stored';
# A reader's snapshot must count the worker's running transaction as running. It did not
# while the worker was marked a logical decoding process (snapshots skip those, xid and
# all): a reader then took the transaction for aborted, hinted the rows it had inserted
# so far invalid, and about 1% of the records vanished after the commit.
sql("SELECT singletable.create_table('busy', 'pk', 'sk')");
sql("SELECT singletable.enable_stream('busy')");
wait_for("SELECT status = 'ENABLED' FROM singletable.streams WHERE table_name = 'busy'", 'busy: ENABLED');
my $dir = PostgreSQL::Test::Utils::tempdir();
# a new item, or (same key drawn again) a changed one: every call is one record
PostgreSQL::Test::Utils::append_to_file("$dir/put.sql",
	"\\set n random(1, 1000000000)\n"
	  . "SELECT singletable.put_item('busy', jsonb_build_object('pk', 'P' || :client_id, 'sk', 'S' || :n, 'v', random()));\n");
PostgreSQL::Test::Utils::append_to_file("$dir/read.sql",
	"SELECT count(*) FROM singletable.stream_records WHERE seq > (SELECT max(seq) - 50 FROM singletable.stream_records);\n");
my @conn = ('-h', $node->host, '-p', $node->port, 'postgres');
my ($rout, $rerr, $wout, $werr) = ('', '', '', '');
my $reader = IPC::Run::start([ 'pgbench', '-n', '-c', '1', '-T', '7', '-f', "$dir/read.sql", @conn ],
	'>', \$rout, '2>', \$rerr);
IPC::Run::run([ 'pgbench', '-n', '-c', '4', '-j', '4', '-T', '6', '-f', "$dir/put.sql", @conn ],
	'>', \$wout, '2>', \$werr);
$reader->finish;
my ($puts) = $wout =~ /number of transactions actually processed: (\d+)/;
ok(defined $puts && $puts > 1000, 'busy: the writers committed ' . ($puts // 'nothing') . " puts $werr");
my $busy = "SELECT count(*) FROM singletable.stream_records r JOIN singletable.streams st USING (stream_id) WHERE st.table_name = 'busy'";
wait_for("SELECT ($busy) >= " . ($puts // 0), 'busy: the stream caught up');
is(sql($busy), $puts // -1, 'busy: one record per committed put, none lost');
is(sql("SELECT count(*) FROM busy"), sql("$busy AND event_name = 'INSERT'"), 'busy: an INSERT record per item');

note 'kill -9 of the postmaster (and of its children) while writes stream';
sql("SELECT singletable.create_table('crash1', 'pk', 'sk')");
sql("SELECT singletable.enable_stream('crash1')");
my $w = start_writer('crash1');
wait_for("SELECT count(*) > 300 FROM singletable.stream_records('crash1', max_records => 10000)", 'records stream');
my $pm = $node->{_pid};
# the children too, just after: an orphaned backend would keep the shared memory
my @children = grep { /\d/ } split /\s+/, `ps -o pid= --ppid $pm`;
ok(kill('KILL', $pm), "SIGKILL to the postmaster $pm");
kill 'KILL', @children;
$node->kill9;    # (Cluster.pm's bookkeeping; the postmaster is gone already)
$w->finish;
# Gone, or a zombie where nothing reaps orphans (a container's init): then its lock file
# would stop the new postmaster, though it holds nothing any more.
for my $i (1 .. 100)
{
	my $stat = `ps -o stat= -p $pm`;
	last if $stat eq '' || $stat =~ /^Z/;
	usleep(100_000);
}
if (`ps -o stat= -p $pm` =~ /^Z/)
{
	unlink($node->data_dir . '/postmaster.pid');
	unlink($node->host . '/.s.PGSQL.' . $node->port . '.lock');
}
$node->start;
check_exactly_once('crash1', 'postmaster killed');

note 'kill -9 of the stream worker while writes stream (a crash restart)';
sql("SELECT singletable.create_table('crash2', 'pk', 'sk')");
sql("SELECT singletable.enable_stream('crash2')");
$w = start_writer('crash2');
wait_for("SELECT count(*) > 300 FROM singletable.stream_records('crash2', max_records => 10000)", 'records stream');
$wpid = sql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'singletable stream worker'");
ok(kill('KILL', $wpid), "SIGKILL to the worker $wpid");
$w->finish;
$node->poll_query_until('postgres', 'SELECT 1', '1');
check_exactly_once('crash2', 'worker killed');

note 'dropping the table drops its streams';
sql("DROP TABLE crash2");
is(sql("SELECT count(*) FROM singletable.streams WHERE table_name = 'crash2'"), '0', 'streams of a dropped table are gone');

note 'no stream left: the worker drops the slot; enabling again makes a new one';
my $no_slot = "SELECT count(*) = 0 FROM pg_replication_slots WHERE slot_name LIKE 'singletable_streams_%'";
sql("DO \$\$ DECLARE r record; BEGIN FOR r IN SELECT DISTINCT table_name FROM singletable.streams LOOP"
	  . " EXECUTE pg_catalog.format('DROP TABLE %I', r.table_name); END LOOP; END \$\$");
wait_for($no_slot, 'the slot is dropped once no stream is left');
# every free slot taken: enabling needs one for the worker, so it is refused
my $free = sql("SELECT current_setting('max_replication_slots')::int - count(*) FROM pg_replication_slots");
sql("SELECT pg_create_physical_replication_slot('filler_' || i) FROM generate_series(1, $free) i");
sql("SELECT singletable.create_table('again', 'pk', 'sk')");
my ($rc, $out, $err) = $node->psql('postgres', "SELECT singletable.enable_stream('again')");
like($err, qr/all \d+ replication slots are in use/, 'enabling without a free slot: a clear error');
is(sql("SELECT count(*) FROM singletable.streams"), '0', '... and no stream row is left behind');
sql("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name LIKE 'filler_%'");
sql("SELECT singletable.enable_stream('again')");
wait_for("SELECT status = 'ENABLED' FROM singletable.streams WHERE table_name = 'again'", 'enabled again with a new slot');
put('again', 'after-slot', 1);
wait_for("SELECT count(*) = 1 FROM singletable.stream_records('again')", 'and streaming');

note 'DROP EXTENSION: the worker drops the slot';
sql("DROP EXTENSION singletable CASCADE");
wait_for($no_slot, 'the slot is dropped with the extension');

$node->stop;
done_testing();
