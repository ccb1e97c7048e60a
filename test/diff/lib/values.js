// test/diff/lib/values.js: DynamoDB attribute values in their wire JSON form ({"S": "x"},
// {"B": "<base64>"}, ...), and what every side needs around them: a JSON parser that keeps
// numbers exact, conversion from/to the AWS SDK's shapes, and a normal form for comparing
// results (numbers canonical, sets sorted, map keys sorted).
'use strict';

// Parses JSON text keeping each number as its source text ({$num: "1.50"}), since
// JSON.parse would round numbers of more than 17 digits.
function parseExact(text) {
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const val = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++; const o = {}; ws();
      if (text[i] === '}') { i++; return o; }
      for (;;) {
        ws(); const k = str(); ws();
        if (text[i++] !== ':') throw new Error('bad JSON at ' + i);
        o[k] = val(); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i++] !== '}') throw new Error('bad JSON at ' + i);
        return o;
      }
    }
    if (c === '[') {
      i++; const a = []; ws();
      if (text[i] === ']') { i++; return a; }
      for (;;) {
        a.push(val()); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i++] !== ']') throw new Error('bad JSON at ' + i);
        return a;
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) { i += 4; return true; }
    if (text.startsWith('false', i)) { i += 5; return false; }
    if (text.startsWith('null', i)) { i += 4; return null; }
    const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) throw new Error('bad JSON at ' + i);
    i += m[0].length;
    return { $num: m[0] };
  };
  const str = () => {
    // JSON string syntax is a subset of JavaScript's: let JSON.parse decode it.
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const v = val(); ws();
  if (i !== text.length) throw new Error('trailing JSON at ' + i);
  return v;
}

// Canonical text of a DynamoDB number ("-1.50e2" -> "-0.15e3"), for comparison only.
function canonNum(s) {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(String(s).trim());
  if (!m) return 'NaN(' + s + ')';
  let digits = (m[2] || '') + (m[3] || '');
  let exp = (m[4] ? parseInt(m[4], 10) : 0) + (m[2] || '').length;
  const lead = digits.match(/^0*/)[0].length;
  digits = digits.slice(lead); exp -= lead;
  digits = digits.replace(/0+$/, '');
  if (digits === '') return '0';
  return (m[1] === '-' ? '-' : '') + '0.' + digits + 'e' + exp;
}

// Base64 of a Buffer/Uint8Array, and a canonical re-encoding of base64 text.
const b64 = (bytes) => Buffer.from(bytes).toString('base64');
const canonB64 = (s) => Buffer.from(s, 'base64').toString('base64');

// Wire JSON value -> the SDK's AttributeValue (B as bytes).
function toSdk(av) {
  const [t, v] = Object.entries(av)[0];
  switch (t) {
    case 'B': return { B: Buffer.from(v, 'base64') };
    case 'BS': return { BS: v.map((x) => Buffer.from(x, 'base64')) };
    case 'L': return { L: v.map(toSdk) };
    case 'M': return { M: mapObj(v, toSdk) };
    default: return { [t]: v };
  }
}

// The SDK's AttributeValue -> wire JSON value.
function fromSdk(av) {
  if (av.S !== undefined) return { S: av.S };
  if (av.N !== undefined) return { N: av.N };
  if (av.B !== undefined) return { B: b64(av.B) };
  if (av.BOOL !== undefined) return { BOOL: av.BOOL };
  if (av.NULL !== undefined) return { NULL: true };
  if (av.SS !== undefined) return { SS: av.SS };
  if (av.NS !== undefined) return { NS: av.NS };
  if (av.BS !== undefined) return { BS: av.BS.map(b64) };
  if (av.L !== undefined) return { L: av.L.map(fromSdk) };
  if (av.M !== undefined) return { M: mapObj(av.M, fromSdk) };
  return { UNKNOWN: JSON.stringify(av) };
}

function mapObj(o, f) {
  const r = {};
  for (const [k, v] of Object.entries(o)) r[k] = f(v);
  return r;
}

// Normal form of a wire JSON value for comparison: numbers canonical, sets sorted.
function norm(av) {
  const [t, v] = Object.entries(av)[0];
  switch (t) {
    case 'N': return { N: canonNum(v) };
    case 'B': return { B: canonB64(v) };
    case 'SS': return { SS: [...v].sort() };
    case 'NS': return { NS: v.map(canonNum).sort() };
    case 'BS': return { BS: v.map(canonB64).sort() };
    case 'L': return { L: v.map(norm) };
    case 'M': return { M: normItem(v) };
    default: return { [t]: v };
  }
}
const normItem = (item) => (item == null ? null : mapObj(item, norm));

// JSON text with object keys sorted, so equal values give equal strings.
function stable(v) {
  if (Array.isArray(v)) return '[' + v.map(stable).join(',') + ']';
  if (v && typeof v === 'object') {
    return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + stable(v[k])).join(',') + '}';
  }
  return JSON.stringify(v === undefined ? null : v);
}

module.exports = { parseExact, canonNum, toSdk, fromSdk, norm, normItem, stable, mapObj, b64 };
