/**
 * The clone codec: IndexedDB keys and values — anything a structured clone allows that a script
 * can read back — as JSON, and back (E7). It runs in pages (the IndexedDB reader and the restore
 * script, `indexedDbScripts.ts`), so it is plain JavaScript in a string: no bundler helper can
 * reach what runs there (#22).
 *
 * Every value encodes to a JSON string, boolean or finite number (not -0), or a one-tag object:
 *
 * | tag   | what                                                | fields                        |
 * | ----- | --------------------------------------------------- | ----------------------------- |
 * | `u`   | undefined                                           |                               |
 * | `n`   | NaN, ±Infinity, -0                                  | `v`: `'NaN'`, `'Infinity'` …  |
 * | `bi`  | BigInt                                              | `v`: decimal                  |
 * | `d`   | Date (time value; `NaN` for an invalid one)         | `v`                           |
 * | `re`  | RegExp                                              | `s`, `f`                      |
 * | `w`   | Boolean, Number, String, BigInt wrapper objects     | `k`, `v` (encoded)            |
 * | `ab`  | ArrayBuffer                                         | `b`: base64                   |
 * | `ta`  | typed array or DataView (its bytes only)            | `k`: constructor name, `b`    |
 * | `bl`  | Blob, File                                          | `i`: blob index, `t`, `n`, `m`|
 * | `er`  | Error (name, message, stack)                        | `k`, `m`, `s`                 |
 * | `a`   | Array (holes as `h`, extra properties kept)         | `i`: id, `v`, `p`             |
 * | `o`   | plain object                                        | `i`, `p`: [key, value] pairs  |
 * | `m`   | Map                                                 | `i`, `v`: [key, value] pairs  |
 * | `s`   | Set                                                 | `i`, `v`                      |
 * | `r`   | the object with id `i` again (shared or circular)   | `i`                           |
 *
 * Blobs are read after the IndexedDB transaction (reading one is asynchronous): their bytes travel
 * beside the values as base64, by index. What a script cannot read back — a non-extractable
 * `CryptoKey`, an `ImageBitmap`, a `FileSystemHandle` — throws `unsupported`, and the database
 * that holds it is left out whole (said in health, never half-restored). A typed array comes back
 * over a buffer of its own bytes (two views sharing one buffer come back apart).
 *
 * @example
 * const encode = new Function(`${CLONE_CODEC}; return encodeClone`)()
 */
export const CLONE_CODEC = `
var encodeClone = function (value, blobs) {
  var ids = new Map();
  var next = 0;
  var b64 = function (bytes) {
    var out = '';
    for (var i = 0; i < bytes.length; i += 0x8000)
      out += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(out);
  };
  var tagOf = function (v) { return Object.prototype.toString.call(v).slice(8, -1); };
  var enc = function (v) {
    if (v === undefined) return { $: 'u' };
    if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
    if (typeof v === 'number') {
      if (v !== v) return { $: 'n', v: 'NaN' };
      if (v === Infinity) return { $: 'n', v: 'Infinity' };
      if (v === -Infinity) return { $: 'n', v: '-Infinity' };
      if (v === 0 && 1 / v < 0) return { $: 'n', v: '-0' };
      return v;
    }
    if (typeof v === 'bigint') return { $: 'bi', v: v.toString() };
    if (typeof v !== 'object') throw new Error('unsupported ' + typeof v);
    if (ids.has(v)) return { $: 'r', i: ids.get(v) };
    var tag = tagOf(v);
    if (tag === 'Date') { var t = v.getTime(); return { $: 'd', v: t !== t ? 'NaN' : t }; }
    if (tag === 'RegExp') return { $: 're', s: v.source, f: v.flags };
    if (tag === 'Boolean' || tag === 'Number' || tag === 'String' || tag === 'BigInt')
      return { $: 'w', k: tag, v: enc(v.valueOf()) };
    if (tag === 'ArrayBuffer') return { $: 'ab', b: b64(new Uint8Array(v)) };
    if (ArrayBuffer.isView(v)) return { $: 'ta', k: tag, b: b64(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)) };
    if (tag === 'Blob' || tag === 'File') {
      blobs.push(v);
      var blob = { $: 'bl', i: blobs.length - 1, t: v.type };
      if (tag === 'File') { blob.n = v.name; blob.m = v.lastModified; }
      return blob;
    }
    if (tag === 'Error') return { $: 'er', k: v.name, m: v.message, s: v.stack === undefined ? null : String(v.stack) };
    var id = next++;
    ids.set(v, id);
    var keys, i;
    if (Array.isArray(v)) {
      var items = [];
      for (i = 0; i < v.length; i++) items.push(Object.prototype.hasOwnProperty.call(v, i) ? enc(v[i]) : { $: 'h' });
      var extra = [];
      keys = Object.keys(v);
      for (i = 0; i < keys.length; i++)
        if (!/^(0|[1-9][0-9]*)$/.test(keys[i]) || Number(keys[i]) >= v.length)
          extra.push([keys[i], enc(v[keys[i]])]);
      return { $: 'a', i: id, v: items, p: extra };
    }
    if (tag === 'Map') {
      var pairs = [];
      v.forEach(function (val, key) { pairs.push([enc(key), enc(val)]); });
      return { $: 'm', i: id, v: pairs };
    }
    if (tag === 'Set') {
      var members = [];
      v.forEach(function (val) { members.push(enc(val)); });
      return { $: 's', i: id, v: members };
    }
    if (tag !== 'Object') throw new Error('unsupported ' + tag);
    var props = [];
    keys = Object.keys(v);
    for (i = 0; i < keys.length; i++) props.push([keys[i], enc(v[keys[i]])]);
    return { $: 'o', i: id, p: props };
  };
  return enc(value);
};
var decodeClone = function (json, blobData) {
  var ids = new Map();
  var bytes = function (b) {
    var s = atob(b);
    var out = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  };
  var dec = function (e) {
    if (e === null || typeof e !== 'object') return e;
    var i, out;
    switch (e.$) {
      case 'u': return undefined;
      case 'h': return undefined;
      case 'n': return e.v === 'NaN' ? NaN : e.v === 'Infinity' ? Infinity : e.v === '-Infinity' ? -Infinity : -0;
      case 'bi': return BigInt(e.v);
      case 'd': return new Date(e.v === 'NaN' ? NaN : e.v);
      case 're': return new RegExp(e.s, e.f);
      case 'w': return Object(dec(e.v));
      case 'ab': return bytes(e.b).buffer;
      case 'ta': {
        var raw = bytes(e.b).buffer;
        if (e.k === 'DataView') return new DataView(raw);
        var Ctor = globalThis[e.k];
        return new Ctor(raw, 0, raw.byteLength / Ctor.BYTES_PER_ELEMENT);
      }
      case 'bl': {
        var part = bytes(blobData[e.i]);
        return e.n === undefined
          ? new Blob([part], { type: e.t })
          : new File([part], e.n, { type: e.t, lastModified: e.m });
      }
      case 'er': {
        var Err = {
          EvalError: EvalError, RangeError: RangeError, ReferenceError: ReferenceError,
          SyntaxError: SyntaxError, TypeError: TypeError, URIError: URIError,
        }[e.k] || Error;
        var err = new Err(e.m);
        if (e.s !== null) err.stack = e.s;
        return err;
      }
      case 'r': return ids.get(e.i);
      case 'a':
        out = new Array(e.v.length);
        ids.set(e.i, out);
        for (i = 0; i < e.v.length; i++)
          if (!(e.v[i] !== null && typeof e.v[i] === 'object' && e.v[i].$ === 'h')) out[i] = dec(e.v[i]);
        for (i = 0; i < e.p.length; i++) out[e.p[i][0]] = dec(e.p[i][1]);
        return out;
      case 'm':
        out = new Map();
        ids.set(e.i, out);
        for (i = 0; i < e.v.length; i++) out.set(dec(e.v[i][0]), dec(e.v[i][1]));
        return out;
      case 's':
        out = new Set();
        ids.set(e.i, out);
        for (i = 0; i < e.v.length; i++) out.add(dec(e.v[i]));
        return out;
      case 'o':
        out = {};
        ids.set(e.i, out);
        for (i = 0; i < e.p.length; i++)
          Object.defineProperty(out, e.p[i][0], {
            value: dec(e.p[i][1]), enumerable: true, writable: true, configurable: true,
          });
        return out;
    }
    throw new Error('unknown clone tag');
  };
  return dec(json);
};
`
