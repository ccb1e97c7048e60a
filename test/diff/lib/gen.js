// test/diff/lib/gen.js: deterministic pseudo-random cases. A case is plain JSON: the table, the
// items written before (setup), and one DynamoDB request (op + params in the wire JSON of
// DynamoDB's API, B as base64). Case i of seed s is the same on every run and machine.
'use strict';

// The tables every run creates, by key shape. Each case works in a partition of its own.
const TABLES = {
  dt_ss: { pk: 'pk', pkType: 'S', sk: 'sk', skType: 'S' },
  dt_sn: { pk: 'pk', pkType: 'S', sk: 'sk', skType: 'N' },
  dt_nn: { pk: 'acct', pkType: 'N', sk: 'seq', skType: 'N' },
  dt_sb: { pk: 'pk', pkType: 'S', sk: 'sk', skType: 'B' },
  dt_bs: { pk: 'pk', pkType: 'B', sk: 'sk', skType: 'S' },
  dt_p: { pk: 'pk', pkType: 'S', sk: null, skType: null },
};
const TABLE_WEIGHTS = [['dt_ss', 55], ['dt_sn', 12], ['dt_nn', 6], ['dt_sb', 12], ['dt_bs', 5], ['dt_p', 10]];

// mulberry32: small, fast, good enough for test data.
function mulberry32(a) {
  return function () {
    a |= 0; a = (a + 0x6D2B79F5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function hash32(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  return h >>> 0;
}

class Rng {
  constructor(seed) { this.f = mulberry32(seed); }
  next() { return this.f(); }
  int(n) { return Math.floor(this.f() * n); }
  range(lo, hi) { return lo + this.int(hi - lo + 1); }
  chance(p) { return this.f() < p; }
  pick(a) { return a[this.int(a.length)]; }
  weighted(pairs) {
    let tot = 0; for (const [, w] of pairs) tot += w;
    let x = this.f() * tot;
    for (const [v, w] of pairs) { if ((x -= w) < 0) return v; }
    return pairs[pairs.length - 1][0];
  }
}

// Attribute names: plain identifiers, reserved words and names that need a placeholder.
const PLAIN = ['a', 'b', 'c', 'n', 's', 'l', 'm', 'ss', 'ns', 'bs', 'bin', 'flag', 'nul', 'deep', 'tags', 'x_y', 'num', 'str', 'price', 'qty', 'title'];
const RESERVED = ['status', 'name', 'data', 'size', 'count', 'value', 'date', 'comment', 'items', 'views'];
const ODD = ['é', 'a.b', 'a-b', 'two words', '😀'];
const isPlain = (n) => /^[A-Za-z][A-Za-z0-9_]*$/.test(n) && !RESERVED.includes(n.toLowerCase());

const STRINGS = ['', 'a', 'abc', 'abd', 'ab', 'Abc', 'hello world', 'POST#0017', 'POST#0018', 'USER#42',
  'é', 'e\u0301', 'naïve', 'Ω', 'ÿ', '日本', '😀', 'a😀', '𝄞x', '\uFFFD', '\uE000', 'z', '~', 'x'.repeat(40)];
const NUMBERS = ['0', '1', '-1', '2', '10', '3.14', '-0.5', '1.50', '100', '1e3', '1E-3', '0.000001',
  '-273.15', '42', '7', '99999999999999999999999999999999999999', '-99999999999999999999999999999999999999',
  '9.9999999999999999999999999999999999999E+125', '-9.9999999999999999999999999999999999999E+125',
  '1E-130', '-1E-130', '12345678901234567890.123456789012345678', '0.1', '0.2', '1E+125', '5E+125'];
const BAD_NUMBERS = ['123456789012345678901234567890123456789', '1E+126', '1E-131'];
const SK_STRINGS = ['A', 'A#', 'A#1', 'A#10', 'A#2', 'B#1', 'B#2', 'Ab', 'a', 'é', 'Ω', '😀', '\uFFFD',
  '\uE000', 'POST#0017', 'POST#0018', 'POST$', 'z', '~', ' '];
const SK_NUMBERS = ['-10', '-1.5', '-1', '0', '0.001', '1', '1.5', '2', '10', '100', '1e3', '99999999999999999999999999999999999999', '-1E-130'];

function genBytes(r, min, max) {
  const n = r.range(min, max);
  const a = [];
  for (let i = 0; i < n; i++) a.push(r.chance(0.3) ? r.pick([0, 1, 0x7f, 0x80, 0xff]) : r.int(256));
  return Buffer.from(a).toString('base64');
}
// A string cut at a code unit inside a surrogate pair keeps a lone surrogate, which is no
// Unicode text (DynamoDB's strings are UTF-8; PostgreSQL's jsonb refuses the escape): the half
// pair is dropped, with the same random draws as before.
const whole = (s) => s.replace(/^[\uDC00-\uDFFF]/, '').replace(/[\uD800-\uDBFF]$/, '');
const genS = (r) => ({ S: r.chance(0.8) ? r.pick(STRINGS.slice(1)) : r.pick(STRINGS) });
const genN = (r) => ({ N: r.pick(NUMBERS) });
const genB = (r) => ({ B: genBytes(r, r.chance(0.9) ? 1 : 0, 5) });

function genSet(r, t) {
  const n = r.range(1, 4), out = [], seen = new Set();
  const { canonNum } = require('./values');
  for (let i = 0; i < n * 2 && out.length < n; i++) {
    const v = t === 'SS' ? genS(r).S : t === 'NS' ? genN(r).N : genBytes(r, 1, 3);
    const key = t === 'NS' ? canonNum(v) : v;
    if ((t === 'SS' && v === '') || seen.has(key)) continue;
    seen.add(key); out.push(v);
  }
  if (out.length === 0) out.push(t === 'SS' ? 'x' : t === 'NS' ? '1' : 'AQ==');
  return { [t]: out };
}

// A random value of any type; depth bounds the nesting of L and M.
function genValue(r, depth = 2) {
  const t = r.weighted([['S', 20], ['N', 20], ['B', 6], ['BOOL', 5], ['NULL', 3], ['L', depth > 0 ? 10 : 0],
    ['M', depth > 0 ? 10 : 0], ['SS', 6], ['NS', 6], ['BS', 4]]);
  switch (t) {
    case 'S': return genS(r);
    case 'N': return genN(r);
    case 'B': return genB(r);
    case 'BOOL': return { BOOL: r.chance(0.5) };
    case 'NULL': return { NULL: true };
    case 'L': { const a = []; for (let i = r.int(4); i > 0; i--) a.push(genValue(r, depth - 1)); return { L: a }; }
    case 'M': return { M: genAttrs(r, depth - 1, r.int(4)) };
    default: return genSet(r, t);
  }
}

function genName(r) {
  return r.pick(r.weighted([[PLAIN, 80], [RESERVED, 14], [ODD, 6]]));
}
function genAttrs(r, depth, n) {
  const o = {};
  for (let i = 0; i < n; i++) o[genName(r)] = genValue(r, depth);
  return o;
}

// Key values: the case's own partition, sort keys from small pools so that conditions hit.
function pkValue(t, caseNo, other = false) {
  const id = caseNo + (other ? 1000000 : 0);
  if (t.pkType === 'S') return { S: 'P#' + id };
  if (t.pkType === 'N') return { N: String(id) + (id % 3 === 0 ? '.5' : '') };
  return { B: Buffer.from('P' + id).toString('base64') };
}
function skValue(r, t) {
  if (t.skType === 'S') return { S: r.pick(SK_STRINGS) };
  if (t.skType === 'N') return { N: r.pick(SK_NUMBERS) };
  return { B: genBytes(r, 1, 3) };
}
function keyOf(t, pk, sk) {
  const k = { [t.pk]: pk };
  if (t.sk) k[t.sk] = sk;
  return k;
}

// A whole item with the given key: a few attributes of every kind, nested ones included.
function genItem(r, t, key) {
  const item = genAttrs(r, 3, r.range(1, 7));
  if (r.chance(0.5)) item.m = { M: { b: { L: [genValue(r, 0), { M: { c: genValue(r, 0) } }, genValue(r, 0)] }, s: genS(r) } };
  if (r.chance(0.3)) item.n = genN(r);
  delete item[t.pk]; if (t.sk) delete item[t.sk];
  return { ...item, ...key };
}

// Expression context: collects the placeholders an expression uses.
class Ctx {
  constructor(r, item, t) { this.r = r; this.item = item || {}; this.t = t; this.names = {}; this.vals = {}; }
  name(n) {
    for (const [k, v] of Object.entries(this.names)) if (v === n) return k;
    const k = '#n' + Object.keys(this.names).length;
    this.names[k] = n; return k;
  }
  val(av) { const k = ':v' + Object.keys(this.vals).length; this.vals[k] = av; return k; }
  seg(n) {
    if (isPlain(n) && this.r.chance(0.8)) return n;
    if (RESERVED.includes(n) && this.r.chance(0.02)) return n; // a reserved word used as is: an error
    return this.name(n);
  }

  // A path: usually one that exists in the item (walking into maps and lists), else made up.
  path(opts = {}) {
    const r = this.r;
    if (r.chance(opts.keyBias || 0.06)) return { text: this.seg(r.chance(0.5) || !this.t.sk ? this.t.pk : this.t.sk), at: this.item[r.chance(0.5) ? this.t.pk : this.t.sk] };
    let segs = [], at = null;
    const names = Object.keys(this.item);
    let name = names.length && r.chance(0.75) ? r.pick(names) : genName(r);
    segs.push(this.seg(name)); at = this.item[name];
    while (at && r.chance(0.45)) {
      if (at.M) {
        const ks = Object.keys(at.M);
        const k = ks.length && r.chance(0.8) ? r.pick(ks) : genName(r);
        segs.push('.' + this.seg(k)); at = at.M[k];
      } else if (at.L) {
        const i = r.chance(0.85) ? r.int(at.L.length + 1) : r.pick([5, 99]);
        segs.push('[' + i + ']'); at = at.L[i];
      } else break;
    }
    if (r.chance(0.03)) { segs.push(r.chance(0.5) ? '[0]' : '.x'); at = undefined; }
    return { text: segs.join(''), at };
  }

  // An operand value: often the value at the path (or a near one), sometimes any value.
  valueLike(at) {
    const r = this.r;
    if (at && r.chance(0.5)) return at;
    if (at && at.N && r.chance(0.5)) return { N: r.pick(NUMBERS) };
    if (at && at.S && r.chance(0.5)) return { S: whole(at.S.slice(0, r.int(at.S.length + 1))) || 'a' };
    return genValue(r, 1);
  }

  cond(depth) {
    const r = this.r;
    const kind = r.weighted([['cmp', 30], ['between', 6], ['in', 6], ['exists', 10], ['not_exists', 10],
      ['type', 5], ['begins', 7], ['contains', 7], ['size', 8], ['not', depth > 0 ? 6 : 0],
      ['and', depth > 0 ? 10 : 0], ['or', depth > 0 ? 8 : 0], ['paren', depth > 0 ? 2 : 0]]);
    const p = () => this.path();
    switch (kind) {
      case 'cmp': {
        const op = r.pick(['=', '<>', '<', '<=', '>', '>=']);
        const a = p();
        if (r.chance(0.15)) return `${a.text} ${op} ${p().text}`;
        if (r.chance(0.1)) return `${this.val(this.valueLike(a.at))} ${op} ${a.text}`;
        return `${a.text} ${op} ${this.val(this.valueLike(a.at))}`;
      }
      case 'between': {
        const a = p();
        return `${a.text} BETWEEN ${this.val(this.valueLike(a.at))} AND ${this.val(this.valueLike(a.at))}`;
      }
      case 'in': {
        const a = p(), vs = [];
        for (let i = r.range(1, 4); i > 0; i--) vs.push(this.val(this.valueLike(a.at)));
        return `${a.text} IN (${vs.join(', ')})`;
      }
      case 'exists': return `attribute_exists(${p().text})`;
      case 'not_exists': return `attribute_not_exists(${p().text})`;
      case 'type': {
        const a = p();
        const ty = a.at && r.chance(0.5) ? Object.keys(a.at)[0] : r.pick(['S', 'N', 'B', 'BOOL', 'NULL', 'L', 'M', 'SS', 'NS', 'BS', 'X']);
        return `attribute_type(${a.text}, ${this.val(r.chance(0.95) ? { S: ty } : { N: '1' })})`;
      }
      case 'begins': {
        const a = p();
        const v = this.val(a.at && a.at.S && r.chance(0.6) ? { S: whole(a.at.S.slice(0, r.int(a.at.S.length + 1))) }
          : a.at && a.at.B && r.chance(0.5) ? a.at : r.chance(0.8) ? genS(r) : genValue(r, 0));
        return r.chance(0.06) ? `begins_with(${v}, ${a.text})` : `begins_with(${a.text}, ${v})`;
      }
      case 'contains': {
        const a = p();
        let v;
        if (a.at && a.at.SS && r.chance(0.5)) v = { S: r.pick(a.at.SS) };
        else if (a.at && a.at.NS && r.chance(0.5)) v = { N: r.pick(a.at.NS) };
        else if (a.at && a.at.L && a.at.L.length && r.chance(0.5)) v = r.pick(a.at.L);
        else if (a.at && a.at.S && r.chance(0.5)) v = { S: whole(a.at.S.slice(r.int(a.at.S.length))) || 'a' };
        else v = r.chance(0.2) ? genSet(r, 'SS') : genValue(r, 0);
        return `contains(${a.text}, ${this.val(v)})`;
      }
      case 'size': {
        // Strings of non-ASCII and non-BMP characters are where UTF-8 bytes and UTF-16 units differ.
        if (r.chance(0.1)) return `size(${this.val({ S: r.pick(['é', 'naïve', '😀', 'a😀', '𝄞x', '日本', 'e\u0301']) })}) ${r.pick(['=', '>', '<'])} ${this.val({ N: String(r.range(1, 4)) })}`;
        const a = p();
        const op = r.pick(['=', '<>', '<', '<=', '>', '>=']);
        const guess = { N: String(r.int(8)) };
        const rhs = r.chance(0.1) ? `size(${p().text})` : this.val(guess);
        return `size(${a.text}) ${op} ${rhs}`;
      }
      case 'not': return `NOT ${this.cond(depth - 1)}`;
      case 'and': return `${this.cond(depth - 1)} AND ${this.cond(depth - 1)}`;
      case 'or': return `${this.cond(depth - 1)} OR ${this.cond(depth - 1)}`;
      default: return `(${this.cond(depth - 1)})`;
    }
  }

  // One SET action's right-hand side.
  setValue(a) {
    const r = this.r;
    const num = () => this.val(r.chance(0.9) ? { N: r.pick(NUMBERS) } : genValue(r, 0));
    const lst = () => this.val(r.chance(0.9) ? { L: [genValue(r, 0)] } : genValue(r, 0));
    switch (r.weighted([['val', 30], ['path', 6], ['plus', 14], ['minus', 8], ['ine', 10], ['append', 10], ['ine_plus', 5]])) {
      case 'val': return this.val(r.chance(0.03) ? { N: r.pick(BAD_NUMBERS) } : this.valueLike(a.at));
      case 'path': return this.path().text;
      case 'plus': return r.chance(0.8) ? `${this.path().text} + ${num()}` : `${num()} + ${num()}`;
      case 'minus': return r.chance(0.7) ? `${this.path().text} - ${num()}` : `${num()} - ${this.path().text}`;
      case 'ine': return `if_not_exists(${this.path().text}, ${this.val(this.valueLike(a.at))})`;
      case 'append': return r.chance(0.5) ? `list_append(${this.path().text}, ${lst()})` : `list_append(${lst()}, ${this.path().text})`;
      default: return `if_not_exists(${this.path().text}, ${num()}) + ${num()}`;
    }
  }

  update() {
    const r = this.r, parts = [];
    const sections = r.weighted([[['SET'], 40], [['REMOVE'], 10], [['ADD'], 12], [['DELETE'], 8],
      [['SET', 'REMOVE'], 12], [['SET', 'ADD'], 6], [['ADD', 'DELETE'], 3], [['REMOVE', 'SET'], 3], [['SET', 'SET'], 1]]);
    for (const s of sections) {
      const acts = [];
      for (let i = r.weighted([[1, 60], [2, 30], [3, 10]]); i > 0; i--) {
        const a = this.path({ keyBias: 0.03 });
        if (s === 'SET') acts.push(`${a.text} = ${this.setValue(a)}`);
        else if (s === 'REMOVE') acts.push(a.text);
        else if (s === 'ADD') {
          const v = a.at && (a.at.SS || a.at.NS || a.at.BS) && r.chance(0.6) ? genSet(r, Object.keys(a.at)[0])
            : r.chance(0.6) ? { N: r.pick(NUMBERS) } : r.chance(0.5) ? genSet(r, r.pick(['SS', 'NS', 'BS'])) : genValue(r, 0);
          acts.push(`${a.text} ${this.val(v)}`);
        } else {
          const v = a.at && (a.at.SS || a.at.NS || a.at.BS) && r.chance(0.7)
            ? { [Object.keys(a.at)[0]]: [r.pick(Object.values(a.at)[0])] }
            : r.chance(0.7) ? genSet(r, r.pick(['SS', 'NS', 'BS'])) : genValue(r, 0);
          acts.push(`${a.text} ${this.val(v)}`);
        }
      }
      parts.push(`${s} ${acts.join(', ')}`);
    }
    return parts.join(' ');
  }

  projection() {
    const ps = [];
    for (let i = this.r.range(1, 4); i > 0; i--) ps.push(this.path({ keyBias: 0.15 }).text);
    return ps.join(', ');
  }

  // Placeholders into the request; now and then an unused one (an error in DynamoDB).
  into(params) {
    if (this.r.chance(0.02)) this.vals[':unused'] = { S: 'x' };
    if (Object.keys(this.names).length) params.ExpressionAttributeNames = this.names;
    if (Object.keys(this.vals).length) params.ExpressionAttributeValues = this.vals;
    return params;
  }
}

// Case number caseNo of a run with the given seed.
// forceOp: the operation (else drawn); a Query is never on the table without a sort key.
function genCase(seed, caseNo, forceOp) {
  const r = new Rng(hash32(seed + ':' + caseNo));
  let tableName = r.weighted(TABLE_WEIGHTS);
  if (forceOp === 'Query' && !TABLES[tableName].sk) tableName = 'dt_ss';
  const t = TABLES[tableName];
  const op = forceOp || r.weighted([['PutItem', 15], ['UpdateItem', 33], ['DeleteItem', 10], ['GetItem', 10], ['Query', t.sk ? 32 : 0]]);
  const pk = pkValue(t, caseNo);
  const c = { id: caseNo, seed, table: tableName, op, setup: [], params: { TableName: tableName } };

  if (op === 'Query') {
    const sks = new Map();
    for (let i = r.range(0, 7); i > 0; i--) { const s = skValue(r, t); sks.set(JSON.stringify(s), s); }
    for (const s of sks.values()) c.setup.push(genItem(r, t, keyOf(t, pk, s)));
    const skList = [...sks.values()];
    const someSk = () => (skList.length && r.chance(0.7) ? r.pick(skList) : skValue(r, t));
    const kc = { op: null };
    const ctx = new Ctx(r, c.setup.length ? r.pick(c.setup) : genItem(r, t, keyOf(t, pk, skValue(r, t))), t);
    const kop = r.weighted([[null, 20], ['=', 10], ['<', 8], ['<=', 8], ['>', 8], ['>=', 8], ['between', 12], ['begins_with', t.skType === 'N' ? 3 : 14]]);
    kc.op = kop;
    const pkName = r.chance(0.3) ? '#kp' : t.pk, skName = r.chance(0.3) ? '#ks' : t.sk;
    const names = {}, vals = { ':kp': pk };
    if (pkName[0] === '#') names['#kp'] = t.pk;
    let kce = `${pkName} = :kp`;
    if (kop) {
      if (skName[0] === '#') names['#ks'] = t.sk;
      let v1 = someSk();
      if (kop === 'begins_with' && v1.S) v1 = { S: whole(v1.S.slice(0, r.range(0, v1.S.length))) || 'A' };
      vals[':k1'] = v1; kc.v1 = v1;
      if (kop === 'between') {
        const v2 = someSk(); vals[':k2'] = v2; kc.v2 = v2;
        kce += ` AND ${skName} BETWEEN :k1 AND :k2`;
      } else if (kop === 'begins_with') kce += ` AND begins_with(${skName}, :k1)`;
      else kce += ` AND ${skName} ${kop} :k1`;
    }
    c.params.KeyConditionExpression = kce;
    c.keyCondition = { pk, ...kc };
    if (r.chance(0.5)) c.params.FilterExpression = ctx.cond(2);
    if (r.chance(0.3)) c.params.ProjectionExpression = ctx.projection();
    if (r.chance(0.4)) c.params.Limit = r.range(1, 4);
    if (r.chance(0.5)) c.params.ScanIndexForward = r.chance(0.5);
    if (r.chance(0.1)) c.params.Select = 'COUNT';
    if (r.chance(0.2)) c.params.ConsistentRead = r.chance(0.5);
    if (r.chance(0.1)) c.params.ReturnConsumedCapacity = r.pick(['TOTAL', 'INDEXES', 'NONE']);
    if (r.chance(0.3)) {
      const kind = r.weighted([['valid', 50], ['missing', 10], ['extra', 10], ['other_partition', 10], ['outside', 15], ['wrong_type', 5]]);
      const sk = kind === 'outside' ? skValue(r, t) : someSk();
      let esk = keyOf(t, pk, sk);
      if (kind === 'missing') esk = { [t.pk]: pk };
      if (kind === 'extra') esk = { ...esk, a: { S: 'x' } };
      if (kind === 'other_partition') esk = keyOf(t, pkValue(t, caseNo, true), sk);
      if (kind === 'wrong_type') esk = keyOf(t, pk, t.skType === 'S' ? { N: '1' } : { S: 'x' });
      c.params.ExclusiveStartKey = esk;
      c.eskKind = kind;
    }
    c.params.ExpressionAttributeNames = { ...names, ...ctx.names };
    c.params.ExpressionAttributeValues = { ...vals, ...ctx.vals };
    if (!Object.keys(c.params.ExpressionAttributeNames).length) delete c.params.ExpressionAttributeNames;
    return c;
  }

  const key = keyOf(t, pk, t.sk ? skValue(r, t) : null);
  const exists = r.chance(0.75);
  const current = exists ? genItem(r, t, key) : null;
  if (current) c.setup.push(current);
  if (r.chance(0.2)) c.setup.push(genItem(r, t, keyOf(t, pk, t.sk ? skValue(r, t) : null))); // a neighbour
  if (c.setup.length === 2 && JSON.stringify(keyOf(t, c.setup[1][t.pk], c.setup[1][t.sk])) === JSON.stringify(key)) c.setup.pop();
  c.key = key;
  // Expressions look at the current item, or at some item of the same shape when there is none.
  const ctx = new Ctx(r, current || genItem(r, t, key), t);
  const p = c.params;
  if (op === 'GetItem') {
    p.Key = key;
    if (r.chance(0.3)) p.ConsistentRead = r.chance(0.5);
    if (r.chance(0.85)) p.ProjectionExpression = ctx.projection();
    if (Object.keys(ctx.names).length) p.ExpressionAttributeNames = ctx.names;
    return c;
  }
  if (op === 'PutItem') {
    p.Item = genItem(r, t, key);
    if (r.chance(0.05)) { p.Item = { ...p.Item }; delete p.Item[t.sk || t.pk]; }
    if (r.chance(0.03)) p.Item = { ...p.Item, x_y: { N: r.pick(BAD_NUMBERS) } };
  } else {
    p.Key = key;
  }
  if (op === 'UpdateItem') p.UpdateExpression = ctx.update();
  if (r.chance(op === 'UpdateItem' ? 0.5 : 0.75)) p.ConditionExpression = ctx.cond(2);
  const rv = op === 'UpdateItem'
    ? r.weighted([[null, 20], ['NONE', 10], ['ALL_OLD', 15], ['UPDATED_OLD', 15], ['ALL_NEW', 20], ['UPDATED_NEW', 20]])
    : r.weighted([[null, 30], ['NONE', 20], ['ALL_OLD', 48], ['ALL_NEW', 2]]);
  if (rv) p.ReturnValues = rv;
  if (p.ConditionExpression && r.chance(0.15)) p.ReturnValuesOnConditionCheckFailure = 'ALL_OLD';
  if (r.chance(0.08)) p.ReturnConsumedCapacity = r.pick(['TOTAL', 'INDEXES', 'NONE']);
  ctx.into(p);
  return c;
}

module.exports = {
  whole,
  genCase, TABLES, Rng, hash32, genItem, genValue, genAttrs, genS, genN, genSet, Ctx, keyOf, pkValue, skValue, NUMBERS, STRINGS,
};
