// test/diff/lib/singletable.js: singletable as a side of the differential test. The request
// document goes unchanged to SELECT singletable.dynamodb(operation, request) over the test
// server's socket (libpq's PGHOST/PGPORT), the response document comes back as it is; an
// ERROR becomes the exception named by the __type of its DETAIL (DynamoDB's error body, the
// error contract of README "SQLSTATEs and the error contract"), the SQLSTATE only when the
// DETAIL is not such a body.
'use strict';
const { Pool } = require('pg');
const { errorOutcome } = require('./wire');

// The fallback: SQLSTATE -> exception, a test-side approximation of the error table
// (src/utils/errors.tab; test/server/errors_table.sh checks the extension against it).
function byState(code) {
  const m = {
    '23S01': 'ConditionalCheckFailedException', '23S02': 'TransactionCanceledException',
    '22S01': 'IdempotentParameterMismatchException', '55S01': 'TransactionInProgressException',
    '22S02': 'SerializationException', '42S01': 'UnknownOperationException',
    '42P01': 'ResourceNotFoundException', '42809': 'ResourceNotFoundException',
    '42P07': 'ResourceInUseException', '42501': 'AccessDeniedException',
  };
  if (m[code]) return m[code];
  if (/^(22|42|54|0A)/.test(code)) return 'ValidationException';
  return 'SQLSTATE ' + code;
}

class SingletableSide {
  constructor() {
    this.name = 'singletable';
    this.pool = new Pool({ max: 8 });
  }

  // A fresh extension; tables of earlier runs (all named dt_*) dropped.
  async init() {
    const c = await this.pool.connect();
    try {
      await c.query('SET client_min_messages = warning');
      await c.query('DROP EXTENSION IF EXISTS singletable CASCADE');
      const r = await c.query(`SELECT format('%I.%I', schemaname, tablename) AS t FROM pg_tables
                               WHERE schemaname = 'public' AND tablename LIKE 'dt\\_%'`);
      for (const { t } of r.rows) await c.query('DROP TABLE ' + t + ' CASCADE');
      await c.query('CREATE EXTENSION singletable');
    } finally { c.release(); }
  }

  // {ok: true, body} or {error, message, body, sqlstate}.
  async call(op, request) {
    try {
      const r = await this.pool.query('SELECT singletable.dynamodb($1, $2::jsonb)::text AS r', [op, JSON.stringify(request)]);
      return { ok: true, body: JSON.parse(r.rows[0].r) };
    } catch (e) {
      if (!e.code) throw e; // not an answer of the server: a bug of the harness
      let d = null;
      try { d = e.detail ? JSON.parse(e.detail) : null; } catch (_) { d = null; }
      if (d && typeof d === 'object' && typeof d.__type === 'string') return { ...errorOutcome(d.__type, d.message, d), sqlstate: e.code };
      return { error: byState(e.code), message: e.message, body: null, sqlstate: e.code, noBody: true };
    }
  }

  async end() { await this.pool.end(); }
}

module.exports = { SingletableSide };
