/**
 * The two page scripts of an errand's own IndexedDB (E7): the reader, which a snapshot runs in an
 * isolated world of a document of the origin (the page's own scripts cannot reach or rewrite what
 * it uses), and the restore script, which puts an origin's databases back in a page of the
 * runtime's own showing that origin, before any tab of the context opens (so before any of the
 * page's scripts run). Both are strings of plain JavaScript (#22), built on the clone codec
 * (`cloneCodec.ts`).
 *
 * A database's stores, indexes and records travel as one JSON text (`IndexedDbDatabase.data`):
 * `{ stores: [{ name, keyPath, autoIncrement, indexes: [{ name, keyPath, unique, multiEntry }],
 * records: [[key | null, value]] }], blobs: [base64] }`, keys and values in the clone encoding
 * (`key` is null in a store with a key path: the key is in the value).
 *
 * @example
 * const expression = readerScript(32 * 1024 * 1024)
 */
import { CLONE_CODEC } from './cloneCodec.ts'

/**
 * What the reader answers, as JSON: the origin's databases that fit `maxBytes` each, and the ones
 * left out with why (`over-cap`: bigger than the cap alone; `unsupported`: a value no script can
 * read back; `unreadable`: it could not be opened or read).
 *
 * @example
 * const answer: ReaderAnswer = JSON.parse(await evaluateInIsolatedWorld(page, readerScript(cap)))
 */
export interface ReaderAnswer {
  readonly databases: ReadonlyArray<{ readonly name: string; readonly version: number; readonly data: string }>
  readonly leftOut: ReadonlyArray<{ readonly name: string; readonly reason: 'over-cap' | 'unsupported' | 'unreadable' }>
}

/**
 * An expression that reads every IndexedDB database of the document's origin and resolves to a
 * {@link ReaderAnswer} as JSON text. A database whose encoded size passes `maxBytes` stops being
 * read at that point (a page that fills its storage cannot make the reader hold more than the cap).
 *
 * @example
 * await session.send('Runtime.evaluate', { expression: readerScript(cap), contextId, awaitPromise: true,
 * returnByValue: true })
 */
export const readerScript = (maxBytes: number): string => `
(async function () {
  ${CLONE_CODEC}
  var MAX = ${Math.max(0, Math.floor(maxBytes))};
  var keyPathOf = function (p) {
    return p === null || p === undefined ? null : typeof p === 'string' ? p : Array.prototype.slice.call(p);
  };
  var readOne = function (info) {
    return new Promise(function (done) {
      var opening = indexedDB.open(info.name);
      // Deleted since it was listed: opening it without a version would create it.
      opening.onupgradeneeded = function () { opening.transaction.abort(); };
      opening.onerror = function (e) {
        if (e && e.preventDefault) e.preventDefault();
        done({ name: info.name, reason: 'unreadable' });
      };
      opening.onsuccess = function () {
        var db = opening.result;
        var names = Array.prototype.slice.call(db.objectStoreNames);
        var blobs = [];
        var size = 0;
        var failed = null;
        var stores = [];
        var finish = async function () {
          db.close();
          if (failed !== null) return done({ name: info.name, reason: failed });
          try {
            var blobData = [];
            for (var i = 0; i < blobs.length; i++) {
              size += Math.ceil(blobs[i].size / 3) * 4;
              if (size > MAX) return done({ name: info.name, reason: 'over-cap' });
            }
            for (var j = 0; j < blobs.length; j++) {
              var bytes = new Uint8Array(await blobs[j].arrayBuffer());
              var text = '';
              for (var k = 0; k < bytes.length; k += 0x8000)
                text += String.fromCharCode.apply(null, bytes.subarray(k, k + 0x8000));
              blobData.push(JSON.stringify(btoa(text)));
            }
            var data = '{"stores":[' + stores.join(',') + '],"blobs":[' + blobData.join(',') + ']}';
            done({ name: info.name, version: db.version, data: data });
          } catch (e) { done({ name: info.name, reason: 'unreadable' }); }
        };
        if (names.length === 0) return finish();
        var tx;
        try { tx = db.transaction(names, 'readonly'); } catch (e) { failed = 'unreadable'; return finish(); }
        tx.oncomplete = finish;
        tx.onabort = finish;
        names.forEach(function (storeName) {
          var store = tx.objectStore(storeName);
          var inline = store.keyPath !== null;
          var records = [];
          var indexes = Array.prototype.slice.call(store.indexNames).map(function (n) {
            var index = store.index(n);
            return { name: n, keyPath: keyPathOf(index.keyPath), unique: index.unique, multiEntry: index.multiEntry };
          });
          var head = JSON.stringify({
            name: storeName, keyPath: keyPathOf(store.keyPath), autoIncrement: store.autoIncrement, indexes: indexes,
          });
          var cursor = store.openCursor();
          cursor.onsuccess = function () {
            var c = cursor.result;
            if (failed !== null) return;
            if (c === null) {
              stores.push(head.slice(0, -1) + ',"records":[' + records.join(',') + ']}');
              return;
            }
            var line;
            try {
              line = JSON.stringify([inline ? null : encodeClone(c.primaryKey, blobs), encodeClone(c.value, blobs)]);
            }
            catch (e) { failed = 'unsupported'; tx.abort(); return; }
            size += line.length + 1;
            if (size > MAX) { failed = 'over-cap'; tx.abort(); return; }
            records.push(line);
            c.continue();
          };
        });
      };
    });
  };
  var listed = await indexedDB.databases();
  var databases = [];
  var leftOut = [];
  for (var i = 0; i < listed.length; i++) {
    if (typeof listed[i].name !== 'string') continue;
    var one = await readOne(listed[i]);
    if (one.reason !== undefined) leftOut.push(one); else databases.push(one);
  }
  return JSON.stringify({ databases: databases, leftOut: leftOut });
})()
`

/**
 * An expression that restores an origin's databases (`[name, version, data]` each) in a document
 * of that origin, and resolves to the names it could not restore, as JSON text. Each database is
 * opened at its version; only when that creates it (`oldVersion` 0) does the upgrade put back its
 * stores, indexes and records, inside the one versionchange transaction — so a database that is
 * there already is left as it is, and nothing is half-written.
 *
 * @example
 * await session.send('Runtime.evaluate', { expression: restoreDatabasesScript([['db', 1, data]]), contextId,
 * awaitPromise: true, returnByValue: true })
 */
export const restoreDatabasesScript = (databases: ReadonlyArray<readonly [string, number, string]>): string => `
(async function () {
  ${CLONE_CODEC}
  var DATABASES = ${JSON.stringify(databases)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')};
  var failed = [];
  await Promise.all(DATABASES.map(function (one) {
    return new Promise(function (done) {
      var opening = indexedDB.open(one[0], one[1]);
      opening.onupgradeneeded = function (event) {
        var tx = opening.transaction;
        if (event.oldVersion !== 0) { tx.abort(); return; }
        try {
          var db = opening.result;
          var saved = JSON.parse(one[2]);
          saved.stores.forEach(function (s) {
            var options = { autoIncrement: s.autoIncrement };
            if (s.keyPath !== null) options.keyPath = s.keyPath;
            var store = db.createObjectStore(s.name, options);
            s.indexes.forEach(function (i) {
              store.createIndex(i.name, i.keyPath, { unique: i.unique, multiEntry: i.multiEntry });
            });
            s.records.forEach(function (r) {
              var value = decodeClone(r[1], saved.blobs);
              if (r[0] === null) store.put(value); else store.put(value, decodeClone(r[0], saved.blobs));
            });
          });
        } catch (e) { tx.abort(); }
      };
      opening.onsuccess = function () { opening.result.close(); done(); };
      opening.onerror = function (e) { if (e && e.preventDefault) e.preventDefault(); failed.push(one[0]); done(); };
      opening.onblocked = function () { failed.push(one[0]); done(); };
    });
  }));
  return JSON.stringify(failed);
})()
`
