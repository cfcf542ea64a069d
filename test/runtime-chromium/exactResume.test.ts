import type { ContextId, Snapshot } from '@errands/runtime'
import { ParkedRecordSchema } from '@errands/store'
import { Schema } from 'effect'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DUMP_SCRIPT, fillScript } from '../fixtures/indexedDbPages.ts'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { type Harness, spec, startRuntime } from './harness.ts'

// E7 on real Chromium, through the runtime's snapshot and open: the errand's own IndexedDB and
// each tab's sessionStorage come back byte for byte, within the errand's cap.
const CAP = 12 * 1024 * 1024

let h: Harness
let sites: Array<Site>

beforeAll(async () => {
  sites = await serveSites(3)
  // A runtime of its own: the cap is a runtime option (ERRANDS_INDEXEDDB_MAX_ERRAND_BYTES).
  h = await startRuntime({ extra: { indexedDbMaxBytes: CAP } })
})
afterAll(async () => {
  await h?.stop()
  await closeSites(sites ?? [])
})

interface Dump {
  readonly digest: string
  readonly bytes: number
  readonly kinds: ReadonlyArray<string>
  readonly names: ReadonlyArray<string>
}

const dump = async (page: Page): Promise<Dump> => JSON.parse(await page.evaluate(DUMP_SCRIPT)) as Dump

const loaded = async (id: ContextId, tabId: string): Promise<Page> => {
  const page = h.runtime.pageOf(id, tabId)!
  await page.waitForLoadState('load')
  return page
}

/** The snapshot as the sealed store keeps it: through the record's schema and JSON, and back. */
const sealedAndBack = (snapshot: Snapshot): Snapshot => {
  const record = {
    errandId: 'e',
    conversationId: 'e',
    kind: 'task' as const,
    reason: 'task' as const,
    lentSites: [],
    snapshot,
    parkedAt: 1,
  }
  const json = JSON.stringify(Schema.encodeSync(ParkedRecordSchema)(record))
  return Schema.decodeUnknownSync(ParkedRecordSchema)(JSON.parse(json)).snapshot
}

describe("an errand's own IndexedDB and sessionStorage (E7)", () => {
  it(
    'a page writes 5 MB of IndexedDB in two databases (a Blob and a Date among the values) and sessionStorage in ' +
      'two tabs; sealed and reopened in a fresh context, the pages read all of it back byte for byte',
    async () => {
      const [a] = sites as [Site]
      const id = await h.run(
        h.runtime.openContext(spec('exact', { tabs: [{ url: a.url('/title?t=one'), active: true }] })),
      )
      const one = await loaded(id, 't1')
      expect(await one.evaluate(fillScript({ mb: 5, seed: 7 }))).toBe('ok')
      const second = await h.run(h.runtime.openTab(id, a.url('/title?t=two')))
      const two = await loaded(id, second.id)
      await one.evaluate(`sessionStorage.setItem('draft', 'tab one ✓'); sessionStorage.setItem('step', '3')`)
      await two.evaluate(`sessionStorage.setItem('draft', 'tab two'); sessionStorage.setItem('<script>', '\\u2028')`)
      const before = await dump(one)
      expect(before.names).toEqual(['drafts', 'mail'])
      expect(before.bytes).toBeGreaterThan(5 * 1024 * 1024)
      expect(before.kinds).toEqual(expect.arrayContaining(['Blob', 'Date', 'File', 'Map', 'Set', 'Uint8Array']))

      const taken = await h.run(h.runtime.snapshot(id))
      expect(taken.leftOut ?? []).toEqual([])
      // Lending moves `storage` only: the IndexedDB is beside it, never in it (L4).
      expect(JSON.stringify(taken.storage)).not.toContain('drafts')
      const sealed = sealedAndBack({ ...taken, takenAt: 1 })
      await h.run(h.runtime.closeContext(id))

      const again = await h.run(
        h.runtime.openContext(
          spec('exact', { tabs: sealed.tabs, indexedDB: sealed.indexedDB, storage: sealed.storage }),
        ),
      )
      const [back1, back2] = [await loaded(again, 't1'), await loaded(again, second.id)]
      expect(await dump(back1)).toEqual(before)
      expect(await back1.evaluate(`JSON.stringify(Object.entries(sessionStorage).sort())`)).toBe(
        JSON.stringify([
          ['draft', 'tab one ✓'],
          ['step', '3'],
        ]),
      )
      expect(await back2.evaluate(`JSON.stringify(Object.entries(sessionStorage).sort())`)).toBe(
        JSON.stringify([
          ['<script>', '\u2028'],
          ['draft', 'tab two'],
        ]),
      )
      // Restored once: a page that clears its sessionStorage and reloads is not refilled.
      await back2.evaluate('sessionStorage.clear()')
      await back2.reload()
      expect(await back2.evaluate('sessionStorage.length')).toBe(0)
      await h.run(h.runtime.closeContext(again))
    },
  )

  it(
    'attack: a hostile page fills IndexedDB past the cap — the snapshot leaves that database out by origin, keeps ' +
      "the rest, and the errand reopens; another errand's page never sees the restored data",
    async () => {
      const [a, , c] = sites as [Site, Site, Site]
      const id = await h.run(
        h.runtime.openContext(
          spec('flooded', {
            tabs: [
              { url: a.url('/title?t=good'), active: true },
              { url: c.url('/title?t=hostile'), active: false },
            ],
          }),
        ),
      )
      const good = await loaded(id, 't1')
      expect(await good.evaluate(fillScript({ mb: 1, seed: 3 }))).toBe('ok')
      const hostile = await loaded(id, 't2')
      // 16 MiB in one database, past the 12 MiB cap; and a small one beside it, which is kept.
      await hostile.evaluate(`(async () => {
        const db = await new Promise((ok) => { const r = indexedDB.open('flood', 1);
          r.onupgradeneeded = () => r.result.createObjectStore('junk'); r.onsuccess = () => ok(r.result); });
        const chunk = 'x'.repeat(1024 * 1024);
        for (let i = 0; i < 16; i++) await new Promise((ok) => {
          const tx = db.transaction('junk', 'readwrite');
          tx.objectStore('junk').put(chunk + i, i);
          tx.oncomplete = ok;
        });
        db.close();
        const keep = await new Promise((ok) => { const r = indexedDB.open('keep', 1);
          r.onupgradeneeded = () => r.result.createObjectStore('s'); r.onsuccess = () => ok(r.result); });
        await new Promise((ok) => { const tx = keep.transaction('s', 'readwrite');
          tx.objectStore('s').put(new Date(5), 'k'); tx.oncomplete = ok; });
        keep.close();
      })()`)
      const goodBefore = await dump(good)

      const taken = await h.run(h.runtime.snapshot(id))
      expect(taken.leftOut).toEqual([{ origin: c.origin, reason: 'over-cap' }])
      const kept = Object.fromEntries((taken.indexedDB ?? []).map((o) => [o.origin, o.databases.map((d) => d.name)]))
      expect(kept).toEqual({ [a.origin]: ['drafts', 'mail'], [c.origin]: ['keep'] })
      const size = (taken.indexedDB ?? []).flatMap((o) => o.databases).reduce((n, d) => n + d.data.length, 0)
      expect(size).toBeLessThanOrEqual(CAP)
      await h.run(h.runtime.closeContext(id))

      const again = await h.run(
        h.runtime.openContext(spec('flooded', { tabs: taken.tabs, indexedDB: taken.indexedDB })),
      )
      expect(await dump(await loaded(again, 't1'))).toEqual(goodBefore)
      expect((await dump(await loaded(again, 't2'))).names).toEqual(['keep'])

      // Another errand on the same origins: its own, empty IndexedDB.
      const other = await h.run(
        h.runtime.openContext(
          spec('other', {
            tabs: [
              { url: a.url('/title?t=peek'), active: true },
              { url: c.url('/title?t=peek'), active: false },
            ],
          }),
        ),
      )
      expect((await dump(await loaded(other, 't1'))).names).toEqual([])
      expect((await dump(await loaded(other, 't2'))).names).toEqual([])
      expect(await (await loaded(other, 't1')).evaluate('sessionStorage.length')).toBe(0)
      await h.run(h.runtime.closeContext(other))
      await h.run(h.runtime.closeContext(again))
    },
  )
})
