// test/diff/lib/singletable.js: the translation of a case (a DynamoDB request) to singletable's
// SQL API, and of its results and errors back to DynamoDB's shapes. This is the one module to
// adapt when the SQL API changes.
'use strict';
const { Pool } = require('pg');
const { parseExact, norm, stable } = require('./values');

// SQLSTATE -> the DynamoDB error a client would see.
function errorName(code) {
  if (code === '23S01') return 'ConditionalCheckFailedException';
  // 42883 (no such function signature) and 42P01 (no such table) are mistakes of the harness.
  if ((/^(22|42)/.test(code) && code !== '42883' && code !== '42P01') || code === '54000') return 'ValidationException';
  return 'SQLSTATE ' + code;
}

const TAGS = ['$B', '$SS', '$NS', '$BS', '$M'];

// A DynamoDB value (wire JSON) as singletable's JSON text; numbers are written as given.
function stJson(av) {
  const [t, v] = Object.entries(av)[0];
  switch (t) {
    case 'S': return JSON.stringify(v);
    case 'N': return v;
    case 'BOOL': return v ? 'true' : 'false';
    case 'NULL': return 'null';
    case 'B': return `{"$B":${JSON.stringify(v)}}`;
    case 'SS': case 'BS': return `{"$${t}":${JSON.stringify(v)}}`;
    case 'NS': return `{"$NS":[${v.join(',')}]}`;
    case 'L': return '[' + v.map(stJson).join(',') + ']';
    case 'M': {
      const body = stObj(v);
      const ks = Object.keys(v);
      return ks.length === 1 && TAGS.includes(ks[0]) ? `{"$M":${body}}` : body;
    }
    default: throw new Error('unknown type ' + t);
  }
}
const stObj = (m) => '{' + Object.entries(m).map(([k, v]) => JSON.stringify(k) + ':' + stJson(v)).join(',') + '}';

// An item (or key) as singletable JSON text: B key attributes are plain base64 strings.
function stItem(item, t) {
  return '{' + Object.entries(item).map(([k, v]) => {
    const isKey = k === t.pk || k === t.sk;
    return JSON.stringify(k) + ':' + (isKey && v.B !== undefined ? JSON.stringify(v.B) : stJson(v));
  }).join(',') + '}';
}

// singletable JSON (parsed by parseExact) -> DynamoDB value.
function fromSt(j) {
  if (j === null) return { NULL: true };
  if (typeof j === 'string') return { S: j };
  if (typeof j === 'boolean') return { BOOL: j };
  if (Array.isArray(j)) return { L: j.map(fromSt) };
  if (j.$num !== undefined && Object.keys(j).length === 1) return { N: j.$num };
  const ks = Object.keys(j);
  if (ks.length === 1) {
    const v = j[ks[0]];
    switch (ks[0]) {
      case '$B': return { B: v };
      case '$SS': case '$BS': return { [ks[0].slice(1)]: v };
      case '$NS': return { NS: v.map((x) => x.$num) };
      case '$M': return { M: fromStObj(v) };
      default:
    }
  }
  return { M: fromStObj(j) };
}
function fromStObj(o) {
  const r = {};
  for (const [k, v] of Object.entries(o)) r[k] = fromSt(v);
  return r;
}
// An item as singletable returns it -> DynamoDB item (key attributes typed by the table).
function fromStItem(text, t) {
  if (text == null) return null;
  const o = parseExact(text);
  if (o === null) return null;
  const r = fromStObj(o);
  for (const [k, ty] of [[t.pk, t.pkType], [t.sk, t.skType]]) {
    if (k && r[k] && ty === 'B' && r[k].S !== undefined) r[k] = { B: r[k].S };
  }
  return r;
}

// A key value as the text argument singletable takes (N decimal text, B base64).
const keyText = (av) => (av.S ?? av.N ?? av.B);
// A key column value as returned by query (text) -> DynamoDB value of the key's type.
const keyAv = (text, type) => ({ [type]: text });

// ERROR -> {error, message, item?}. The DETAIL carries DynamoDB's message, either as plain text
// or as JSON {"__type": ..., "message": ...}; with return_values_on_condition_check_failure
// => 'ALL_OLD' the DETAIL of 23S01 is the current item as JSON.
function stError(e, c, t) {
  if (!e.code) throw e;
  const out = { error: errorName(e.code), message: e.detail || e.message, sqlstate: e.code, pgMessage: e.message };
  let d = null;
  try { d = e.detail ? parseExact(e.detail) : null; } catch (_) { d = null; }
  if (d && typeof d === 'object' && d.__type !== undefined) {
    out.message = d.message;
    if (d.Item !== undefined) out.item = fromStItem(JSON.stringify(d.Item), t);
  } else if (e.code === '23S01' && c.params.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' && e.detail) {
    out.item = fromStItem(e.detail, t) || undefined;
    delete out.message;
  }
  return out;
}

class SingletableSide {
  constructor(pgConfig, tables) {
    this.name = 'singletable';
    this.pool = new Pool({ ...pgConfig, max: 8 });
    this.tables = tables;
    this.hasStartKey = false;
  }

  async init() {
    const c = await this.pool.connect();
    try {
      await c.query('SET client_min_messages = warning');
      await c.query('DROP EXTENSION IF EXISTS singletable CASCADE');
      await c.query('CREATE EXTENSION singletable');
      for (const [name, t] of Object.entries(this.tables)) {
        await c.query('DROP TABLE IF EXISTS ' + name);
        await c.query('SELECT singletable.create_table($1, partition_key => $2, sort_key => $3, partition_key_type => $4, sort_key_type => $5)',
          [name, t.pk, t.sk, t.pkType, t.skType || 'S']);
      }
      // A later API takes the whole ExclusiveStartKey (exclusive_start_key jsonb).
      const r = await c.query(`SELECT bool_or('exclusive_start_key' = ANY(proargnames)) AS has FROM pg_proc
                               WHERE proname = 'query' AND pronamespace = 'singletable'::regnamespace`);
      this.hasStartKey = !!r.rows[0].has;
    } finally { c.release(); }
  }

  // Calls fn(args) as SELECT with named arguments: args is [[name, value, cast], ...].
  async call(fn, args, tail = '') {
    const parts = [], vals = [];
    for (const [n, v, cast] of args) {
      if (v === undefined) continue;
      vals.push(v);
      parts.push(`${n} => $${vals.length}${cast ? '::' + cast : ''}`);
    }
    const sql = tail ? `SELECT ${tail} FROM singletable.${fn}(${parts.join(', ')})` : `SELECT singletable.${fn}(${parts.join(', ')})::text AS r`;
    return (await this.pool.query(sql, vals)).rows;
  }

  async put(table, item) {
    await this.call('put_item', [['table_name', table], ['item', stItem(item, this.tables[table]), 'jsonb']]);
  }

  async get(table, key) {
    const t = this.tables[table];
    const rows = await this.call('get_item', [['table_name', table], ['pk', keyText(key[t.pk])], ['sk', t.sk ? keyText(key[t.sk]) : undefined]]);
    return fromStItem(rows[0].r, t);
  }

  // The operation of the case: {ok: true, returned | items + lastKey} or {error, message, item?};
  // {untranslatable: why} when the request cannot be said in singletable's API.
  async run(c) {
    const t = this.tables[c.table], p = c.params;
    const names = p.ExpressionAttributeNames ? { ...p.ExpressionAttributeNames } : undefined;
    const vals = p.ExpressionAttributeValues ? { ...p.ExpressionAttributeValues } : undefined;
    const key = p.Key || (p.Item && { [t.pk]: p.Item[t.pk], [t.sk]: p.Item[t.sk] });
    const common = () => [
      ['condition', p.ConditionExpression],
      ['names', names && JSON.stringify(names), 'jsonb'],
      ['vals', vals && stObj(vals), 'jsonb'],
      ['return_values', p.ReturnValues],
      ['return_values_on_condition_check_failure', p.ReturnValuesOnConditionCheckFailure],
    ];
    const keyArgs = () => [['table_name', c.table], ['pk', keyText(key[t.pk])], ['sk', t.sk ? keyText(key[t.sk]) : null]];
    try {
      switch (c.op) {
        case 'PutItem': {
          const rows = await this.call('put_item', [['table_name', c.table], ['item', stItem(p.Item, t), 'jsonb'], ...common()]);
          return { ok: true, returned: fromStItem(rows[0].r, t) };
        }
        case 'DeleteItem': {
          const rows = await this.call('delete_item', [...keyArgs(), ...common()]);
          return { ok: true, returned: fromStItem(rows[0].r, t) };
        }
        case 'UpdateItem': {
          // singletable's default is ALL_NEW; DynamoDB's is NONE.
          const args = common();
          args.find((a) => a[0] === 'return_values')[1] = p.ReturnValues || 'NONE';
          const rows = await this.call('update_item', [...keyArgs(), ['update', p.UpdateExpression], ...args]);
          return { ok: true, returned: fromStItem(rows[0].r, t) };
        }
        case 'GetItem': {
          const rows = await this.call('get_item', [...keyArgs(), ['projection', p.ProjectionExpression], ['names', names && JSON.stringify(names), 'jsonb']]);
          return { ok: true, returned: fromStItem(rows[0].r, t) };
        }
        case 'Query': return await this.query(c, t, names, vals);
        default: throw new Error('unknown op ' + c.op);
      }
    } catch (e) {
      return stError(e, c, t);
    }
  }

  async query(c, t, names, vals) {
    const p = c.params, kc = c.keyCondition;
    // The key condition is separate arguments: its placeholders are not passed on.
    if (names) { delete names['#kp']; delete names['#ks']; if (!Object.keys(names).length) names = undefined; }
    delete vals[':kp']; delete vals[':k1']; delete vals[':k2'];
    if (!Object.keys(vals).length) vals = undefined;
    const args = [['table_name', c.table], ['pk', keyText(kc.pk)]];
    if (kc.op) {
      args.push(['sk_op', kc.op], ['sk_value', keyText(kc.v1)]);
      if (kc.op === 'between') args.push(['sk_value2', keyText(kc.v2)]);
    }
    if (p.ScanIndexForward !== undefined) args.push(['forward', p.ScanIndexForward]);
    if (p.Limit !== undefined) args.push(['max_items', p.Limit]);
    const esk = p.ExclusiveStartKey;
    if (esk && this.hasStartKey) {
      args.push(['exclusive_start_key', stItem(esk, t), 'jsonb']);
    } else if (esk) {
      // Only the sort key can be given: anything else about the start key is unsayable.
      const ks = Object.keys(esk).sort().join(',');
      if (ks !== [t.pk, t.sk].sort().join(',') || stable(norm(esk[t.pk])) !== stable(norm(kc.pk))
          || esk[t.sk][t.skType] === undefined) {
        return { untranslatable: 'ExclusiveStartKey ' + c.eskKind + ' (only exclusive_start_sk exists)' };
      }
      args.push(['exclusive_start_sk', keyText(esk[t.sk])]);
    }
    args.push(['filter', p.FilterExpression], ['projection', p.ProjectionExpression],
      ['names', names && JSON.stringify(names), 'jsonb'], ['vals', vals && stObj(vals), 'jsonb']);
    const rows = await this.call('query', args, 'sk, item::text AS item');
    const items = [];
    let lastKey = null;
    const keyFor = (sk) => ({ [t.pk]: kc.pk, [t.sk]: keyAv(sk, t.skType) });
    for (const row of rows) {
      if (row.item === null) lastKey = keyFor(row.sk); // the marker of a filtered page
      else items.push(fromStItem(row.item, t));
    }
    if (!p.FilterExpression && p.Limit !== undefined && rows.length === p.Limit) lastKey = keyFor(rows[rows.length - 1].sk);
    return { ok: true, items, lastKey };
  }

  async end() { await this.pool.end(); }
}

module.exports = { SingletableSide };
