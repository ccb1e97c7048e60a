# ClientRequestTokens of transact_write (issue 13): stored in the database
# (singletable.client_request_tokens), so a token works across sessions and after a
# server restart; expired tokens are deleted by the next call with a token and by the
# TTL worker's round of each database (shared_preload_libraries = 'singletable').
#
# Sections: a replay from another session; a call still running in another session
# (TransactionInProgress, no wait); a replay after a restart; expiry on use (worker off);
# expiry by the worker, also of many tokens at once, and the token usable again; a
# database without the extension; the server log.
#
# Run with test/tap/run.sh (as root it runs prove as the OS user postgres).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

$PostgreSQL::Test::Utils::timeout_default = 60;

my $node = PostgreSQL::Test::Cluster->new('tokens');
# UTF8 whatever the environment's locale (without LANG initdb would make SQL_ASCII,
# which CREATE EXTENSION singletable refuses)
$node->init(extra => [ '--encoding=UTF8', '--locale=C.UTF-8' ]);
$node->append_conf(
	'postgresql.conf', q(
shared_preload_libraries = 'singletable'
singletable.ttl_interval = 1
autovacuum = off
));
$node->start;

sub sql
{
	my ($query) = @_;
	return $node->safe_psql('postgres', $query);
}

# The transaction: ADD 1 to the counter
my $ADD = q{'[{"Update": {"TableName": "tok", "Key": {"pk": "counter"}, "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": 1}}}]'};

sub add_with
{
	my ($token) = @_;
	return "SELECT singletable.transact_write($ADD, '$token')";
}

sub counter
{
	return sql(q{SELECT item->>'n' FROM tok WHERE pk = 'counter'});
}

sub tokens
{
	return sql(q{SELECT coalesce(string_agg(token, ',' ORDER BY token), '') FROM singletable.client_request_tokens});
}

sub age
{
	my ($token) = @_;
	sql(  "UPDATE singletable.client_request_tokens SET created_at = created_at - interval '11 minutes'"
		. " WHERE token = '$token'");
}

sql(q{SET client_min_messages = warning; CREATE EXTENSION singletable});
sql(q{SELECT singletable.create_table('tok', sort_key => NULL)});
sql(q{SELECT singletable.put_item('tok', '{"pk": "counter", "n": 0}')});
# the worker is switched off while the on-use checks run
$node->append_conf('postgresql.conf', 'singletable.ttl_enabled = off');
$node->reload;

# ---------------------------------------------------------------------------
note 'across sessions';

my $first = sql(add_with('t1'));
like($first, qr/"ConsumedCapacity"/, 'the first call writes and returns its capacity');
is(counter(), '1', 'the counter moved once');
# every safe_psql is a session of its own
is(sql(add_with('t1')), $first, 'another session gets the first response back');
is(counter(), '1', '... and writes nothing');

my $s = $node->background_psql('postgres');
$s->query_safe('BEGIN');
$s->query_safe(add_with('t2'));
my ($rc, $out, $err) = $node->psql('postgres', add_with('t2'));
like($err, qr/still running in another session/,
	'a call with a token whose call is open in another session is TransactionInProgress');
$s->query_safe('COMMIT');
$s->quit;
is(counter(), '2', 'only the open call wrote');
like(sql(add_with('t2')), qr/"ConsumedCapacity"/, 'once it committed, the retry is a replay');
is(counter(), '2', '... that writes nothing');

# ---------------------------------------------------------------------------
note 'a restart';

$node->restart;
is(sql(add_with('t1')), $first, 'after a restart the token still replays the first response');
is(counter(), '2', '... and writes nothing');
is(tokens(), 't1,t2', 'the tokens are in the table');

# ---------------------------------------------------------------------------
note 'expiry on use';

age('t1');
sql(add_with('t3'));
is(tokens(), 't2,t3', 'a call with another token deleted the expired t1');
is(counter(), '3', 't3 ran');
age('t2');
sql(add_with('t2'));
is(counter(), '4', 'an expired token runs its request again');
is(tokens(), 't2,t3', '... and is stored anew');

# ---------------------------------------------------------------------------
note 'expiry by the worker';

sql(  q{INSERT INTO singletable.client_request_tokens}
	. q{ SELECT 'postgres', 'old' || i, '\x00', '{}', now() - interval '1 hour' FROM generate_series(1, 500) i});
age('t3');
$node->append_conf('postgresql.conf', 'singletable.ttl_enabled = on');
$node->reload;
ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) = 0 FROM singletable.client_request_tokens WHERE created_at < now() - interval '10 minutes'}),
	'the worker deleted the expired tokens, 500 of them at once');
is(tokens(), 't2', 'the live token stays');
sql(add_with('t3'));
is(counter(), '5', 'the expired token t3 runs its request again');
is(sql(add_with('t3')), sql(q{SELECT response FROM singletable.client_request_tokens WHERE token = 't3'}),
	'... and replays from then on');
is(counter(), '5', '... writing nothing');

# ---------------------------------------------------------------------------
note 'a database without the extension';

sql('CREATE DATABASE plain');
my $log_offset = -s $node->logfile;
# two rounds of the worker in every database (ttl_interval = 1)
sql(  q{INSERT INTO singletable.client_request_tokens}
	. q{ VALUES ('postgres', 'marker', '\x00', '{}', now() - interval '1 hour')});
ok( $node->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM singletable.client_request_tokens WHERE token = 'marker'}),
	'the worker still deletes expired tokens while a database without the extension exists');
my $log = slurp_file($node->logfile, $log_offset);
unlike($log, qr/client request tokens.*failed/, 'no failed deletion in the server log');

# ---------------------------------------------------------------------------
$node->stop;
$log = slurp_file($node->logfile);
unlike($log, qr/TRAP:|terminated by signal|PANIC/, 'no crash in the server log');

done_testing();
