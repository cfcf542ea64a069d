/**
 * Issue #9 (T5): IndexedDB, Cache Storage, BroadcastChannel and SharedWorker between two errands
 * and between an errand and the person's main context, on real Chromium — judged on the wire
 * where there is a wire (whether a Cache Storage miss or a worker start reaches the server).
 * Mirrors the storage cases of state.test.ts: every case sets something up in one context on an
 * origin of its own, shows the positive there (the record is read back, the cached entry answers,
 * the message arrives, the worker is the same one), and checks that no other context sees it.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { everyone, others, useWire, hostFor, type Who } from './harness.ts'

const wire = useWire()

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** Long enough on a busy 2-core machine for a message to arrive if it were going to (for absences only). */
const ABSENCE_MS = 1_500
const POLL = { timeout: 15_000 } as const

describe('IndexedDB', () => {
  const DB = 'wire-db'
  const STORE = 'things'

  const write = (page: Page, key: string, value: string) =>
    page.evaluate(
      ([db, store, k, v]) =>
        new Promise<void>((resolve, reject) => {
          const open = indexedDB.open(db!, 1)
          open.onupgradeneeded = () => open.result.createObjectStore(store!, { keyPath: 'id' })
          open.onerror = () => reject(open.error)
          open.onsuccess = () => {
            const tx = open.result.transaction(store!, 'readwrite')
            tx.objectStore(store!).put({ id: k, value: v })
            tx.oncomplete = () => {
              open.result.close()
              resolve()
            }
            tx.onerror = () => reject(tx.error)
          }
        }),
      [DB, STORE, key, value],
    )

  /**
   * What a page finds: the databases its origin lists, whether `DB` existed, and the record's
   * value. Probing does not create the database: opening one that does not exist starts an
   * upgrade from version 0, which is aborted.
   */
  const inspect = (page: Page, key: string) =>
    page.evaluate(
      async ([db, store, k]) => {
        const databases = (await indexedDB.databases()).map((d) => d.name)
        const found = await new Promise<{ existed: boolean; value: string | null }>((resolve, reject) => {
          const open = indexedDB.open(db!)
          let existed = true
          open.onupgradeneeded = () => {
            existed = false
            open.transaction!.abort()
          }
          open.onerror = () => (existed ? reject(open.error) : resolve({ existed, value: null }))
          open.onsuccess = () => {
            try {
              const get = open.result.transaction(store!, 'readonly').objectStore(store!).get(k!)
              get.onsuccess = () => {
                open.result.close()
                resolve({ existed, value: (get.result as { value: string } | undefined)?.value ?? null })
              }
              get.onerror = () => reject(get.error)
            } catch (error) {
              reject(error)
            }
          }
        })
        return { databases, ...found }
      },
      [DB, STORE, key],
    )

  it.each(['a', 'main'] as const)(
    'a record written in %s is read there (after a reload, in a new tab) and no other context has the database',
    async (writer) => {
      const url = wire().server.url(hostFor('idb', writer), '/page?t=idb')
      const key = `k-${writer}`
      const none = { databases: [], existed: false, value: null }
      for (const who of everyone)
        expect(await inspect(await wire().visit(who, url), key), `${who} before`).toEqual(none)

      const page = await wire().visit(writer, url)
      await write(page, key, `v-${writer}`)
      const there = { databases: [DB], existed: true, value: `v-${writer}` }
      await page.reload()
      expect(await inspect(page, key)).toEqual(there)
      const tab = await wire().newTab(writer, url)
      expect(await inspect(tab, key)).toEqual(there)
      await tab.close()

      // The probes before did not leave an empty database behind: `databases` is still empty.
      for (const other of others(writer)) {
        expect(
          await inspect(await wire().visit(other, url), key),
          `${other} must not see ${writer}'s database`,
        ).toEqual(none)
      }
    },
  )
})

describe('Cache Storage', () => {
  /** From a page of `who`: `caches.match(path)`, and on a miss a `fetch` of it (no-store: it reaches the server). */
  const matchOrFetch = async (page: Page, path: string) =>
    page.evaluate(async (p) => {
      const hit = await caches.match(p)
      if (hit) return { from: 'cache', body: await hit.text() }
      return { from: 'network', body: await (await fetch(p)).text() }
    }, path)
  const cacheNames = (page: Page) => page.evaluate(() => caches.keys())

  it.each(['a', 'main'] as const)(
    'an entry cached in %s answers there without the network; every other context misses and goes to the server',
    async (writer) => {
      const host = hostFor('cachestorage', writer)
      const url = wire().server.url(host, '/page?t=caches', 'https') // Cache Storage needs a secure context
      const probe = `cs-${writer}`
      const path = `/echo?probe=${probe}`
      const reached = () => wire().server.hits.filter((h) => h.probe === probe).length

      const page = await wire().visit(writer, url)
      await page.evaluate(async (p) => (await caches.open('wire')).add(p), path)
      expect(reached()).toBe(1) // cache.add fetched it once
      // The positive: the entry answers, in this tab and in a new one, and nothing reaches the server.
      expect(await matchOrFetch(page, path)).toEqual({ from: 'cache', body: '{"cookie":null}' })
      const tab = await wire().newTab(writer, url)
      expect(await cacheNames(tab)).toEqual(['wire'])
      expect(await matchOrFetch(tab, path)).toEqual({ from: 'cache', body: '{"cookie":null}' })
      await tab.close()
      expect(reached()).toBe(1)

      let expected = 1
      for (const other of others(writer)) {
        const there = await wire().visit(other, url)
        expect(await cacheNames(there), `${other} must not list ${writer}'s cache`).toEqual([])
        expect(await matchOrFetch(there, path), `${other} must miss ${writer}'s entry`).toEqual({
          from: 'network',
          body: '{"cookie":null}',
        })
        expect(reached(), `${other}'s miss reaches the server`).toBe(++expected)
      }
    },
  )
})

describe('BroadcastChannel', () => {
  const CHANNEL = 'wire-channel'
  /** Subscribes the page to the channel; what arrives collects in `window.wireGot`. */
  const listen = (page: Page) =>
    page.evaluate((c) => {
      const channel = new BroadcastChannel(c)
      const got: unknown[] = []
      channel.onmessage = (event) => got.push(event.data)
      Object.assign(window, { wireChannel: channel, wireGot: got }) // kept alive by the window
    }, CHANNEL)
  const inbox = (page: Page) => page.evaluate(() => (window as unknown as { wireGot: unknown[] }).wireGot)
  const post = (page: Page, message: string) =>
    page.evaluate(
      ([c, m]) => {
        const channel = new BroadcastChannel(c!)
        channel.postMessage(m)
        channel.close()
      },
      [CHANNEL, message],
    )

  it.each(['a', 'main'] as const)(
    'a message posted in %s reaches another page of that context and no page of another context',
    async (sender) => {
      const url = wire().server.url(hostFor('bc', sender), '/page?t=bc')
      const sibling = await wire().newTab(sender, url)
      await listen(sibling)
      const listeners = new Map<Who, Page>()
      for (const other of others(sender)) {
        const page = await wire().visit(other, url)
        await listen(page)
        listeners.set(other, page)
      }

      const message = `from-${sender}`
      await post(await wire().visit(sender, url), message)
      // The positive: the other page of the sender's context receives it.
      await expect.poll(() => inbox(sibling), POLL).toEqual([message])

      // Each other context's listener works: a page of its own context reaches it.
      for (const [other, page] of listeners) {
        const poster = await wire().newTab(other, url)
        await post(poster, `own-${other}`)
        await expect.poll(() => inbox(page), POLL).toContain(`own-${other}`)
        await poster.close()
      }

      // A fixed wait for absence only: nothing crosses, in either direction, even after a while.
      await sleep(ABSENCE_MS)
      for (const [other, page] of listeners)
        expect(await inbox(page), `${other} must not hear ${sender}`).toEqual([`own-${other}`])
      expect(await inbox(sibling), `${sender} must not hear the others`).toEqual([message])
      await sibling.close()
    },
  )
})

describe('SharedWorker', () => {
  interface WorkerState {
    readonly id: string
    readonly connections: number
    readonly value: string | null
  }
  /**
   * Connects the page to the `/shared-worker.js` worker named `wire` (sending `set` if given); returns what the worker
   * reports.
   */
  const connect = (page: Page, set: string | null) =>
    page.evaluate(
      (s) =>
        new Promise<WorkerState>((resolve, reject) => {
          const worker = new SharedWorker('/shared-worker.js', { name: 'wire' })
          Object.assign(window, { wireWorker: worker }) // keep the connection while the page lives
          worker.onerror = () => reject(new Error('shared worker failed'))
          worker.port.onmessage = (event) => resolve(event.data as WorkerState)
          worker.port.postMessage(s === null ? {} : { set: s })
        }),
      set,
    )

  it.each(['a', 'main'] as const)(
    'a worker started in %s is shared by the pages of that context; every other context starts its own',
    async (starter) => {
      const host = hostFor('shw', starter)
      const url = wire().server.url(host, '/page?t=shared-worker')
      const fetched = () => wire().server.count('/shared-worker.js', { host })

      // The starter's own tab stays on this page (and connected) for the whole case: the worker lives.
      const first = await connect(await wire().visit(starter, url), `v-${starter}`)
      expect(first).toMatchObject({ connections: 1, value: `v-${starter}` })
      expect(fetched()).toBe(1)
      // The positive: another page of the context connects to the same running worker.
      const tab = await wire().newTab(starter, url)
      expect(await connect(tab, null)).toEqual({ id: first.id, connections: 2, value: `v-${starter}` })
      await tab.close()
      expect(fetched()).toBe(1)

      const ids = new Set([first.id])
      let expected = 1
      for (const other of others(starter)) {
        const theirs = await connect(await wire().visit(other, url), null)
        expect(theirs, `${other} must get a fresh worker, not ${starter}'s`).toMatchObject({
          connections: 1,
          value: null,
        })
        expect(ids.has(theirs.id), `${other} must not reach ${starter}'s worker`).toBe(false)
        ids.add(theirs.id)
        expect(fetched(), `${other} starts its own worker (fetches the script)`).toBe(++expected)
      }
    },
  )
})
