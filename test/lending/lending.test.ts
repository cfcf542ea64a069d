/**
 * Sign-ins are lent, never shared (L1–L5), on real Chromium and judged on the wire: the fixture
 * server reports the `Cookie` header each request carried, on real host names.
 */
import { Lending, Settings } from '@errands/lending'
import { MAIN_CONTEXT, Runtime } from '@errands/runtime'
import { SealedStore } from '@errands/store'
import { Supervisor } from '@errands/supervisor'
import { Effect, Option } from 'effect'
import { afterEach, describe, expect, it } from 'vitest'
import { startStack, type Stack } from './stack.ts'

const task = (id: string) => ({ id, kind: 'task' as const })

let stack: Stack | undefined
afterEach(async () => {
  await stack?.stop()
  stack = undefined
})

/** The person is signed in, in the main context, to every fixture site. */
const signInEverywhere = async (s: Stack) => {
  await s.signInMain('shop.example', 'sid', '.shop.example')
  await s.signInMain('a.shop.example', 'pref')
  await s.signInMain('other.example', 'sid')
  await s.signInMain('alice.github.io', 'sid')
  await s.signInMain('bob.github.io', 'sid')
  await s.signInMain('github.io', 'gh')
  await s.storeMain('a.shop.example', 'cart')
  await s.storeMain('other.example', 'cart')
}

const open = (id: string) => Effect.flatMap(Supervisor, (s) => s.open(task(id)))
const mainState = Effect.flatMap(Runtime, (r) => r.storageState(r.mainContext))

describe('seeding (L1)', () => {
  it('copies exactly the always-allowed sites into a new errand', async () => {
    const s = (stack = await startStack({ alwaysAllowed: ['shop.example', 'alice.github.io'] }))
    await signInEverywhere(s)
    expect(await s.probe(MAIN_CONTEXT, 'bob.github.io')).toEqual(['sid'])

    const { contextId } = await s.run(open('t1'))
    expect(await s.probe('t1', 'shop.example')).toEqual(['sid'])
    expect(await s.probe('t1', 'a.shop.example')).toEqual(['pref', 'sid'])
    expect(await s.probe('t1', 'alice.github.io')).toEqual(['sid'])
    expect(await s.probe('t1', 'other.example')).toEqual([])
    expect(await s.probe('t1', 'bob.github.io')).toEqual([])
    expect(await s.probe('t1', 'github.io')).toEqual([])
    const state = await s.run(Effect.flatMap(Runtime, (r) => r.storageState(contextId)))
    expect(state.origins.map((o) => o.origin)).toEqual([s.server.url('a.shop.example', '').replace(/\/$/, '')])
    const view = await s.run(Effect.flatMap(Supervisor, (sup) => sup.view('t1')))
    expect(view.lentSites).toEqual(['alice.github.io', 'shop.example'])
  })

  it('alice.github.io is not bob.github.io, and github.io is a site of its own', async () => {
    const s = (stack = await startStack({ alwaysAllowed: ['github.io'] }))
    await signInEverywhere(s)
    await s.run(open('g'))
    expect(await s.probe('g', 'github.io')).toEqual(['gh'])
    expect(await s.probe('g', 'alice.github.io')).toEqual([])
    expect(await s.probe('g', 'bob.github.io')).toEqual([])
    await s.run(
      Effect.flatMap(Settings, (st) => Effect.zipRight(st.removeAlways('github.io'), st.allowAlways('bob.github.io'))),
    )
    await s.run(open('b'))
    expect(await s.probe('b', 'bob.github.io')).toEqual(['sid'])
    expect(await s.probe('b', 'alice.github.io')).toEqual([])
    expect(await s.probe('b', 'github.io')).toEqual([])
  })
})

describe('Allow (L2, L3)', () => {
  it('lends a site to the errand where the person pressed Allow, and to no other', async () => {
    const s = (stack = await startStack())
    await signInEverywhere(s)
    await s.run(open('t1'))
    await s.run(open('t2'))
    const card = await s.run(Effect.flatMap(Lending, (l) => l.ask('t1', 'a.shop.example')))
    expect(card).toEqual({ site: 'shop.example', lendsSignIn: true, decision: 'ask' })
    const report = await s.run(Effect.flatMap(Lending, (l) => l.allow('t1', 'shop.example')))
    expect(report.cookies).toEqual(['pref@shop.example', 'sid@shop.example'])
    expect(await s.probe('t1', 'a.shop.example')).toEqual(['pref', 'sid'])
    expect(await s.probe('t2', 'a.shop.example')).toEqual([])
    expect(await s.probe('t1', 'other.example')).toEqual([])
  })

  it('in auto trust nothing is asked or lent: the errand acts signed out', async () => {
    const s = (stack = await startStack({ trust: 'auto' }))
    await s.signInMain('shop.example', 'sid', '.shop.example')
    await s.run(open('t1'))
    const card = await s.run(Effect.flatMap(Lending, (l) => l.ask('t1', 'shop.example')))
    expect(card).toEqual({ site: 'shop.example', lendsSignIn: false, decision: 'not-lent' })
    expect(await s.probe('t1', 'shop.example')).toEqual([])
  })
})

describe('revoking (L5)', () => {
  it('takes a site back from an open errand and a parked one; the parked one resumes with the rest', async () => {
    const s = (stack = await startStack({ alwaysAllowed: ['shop.example', 'other.example'] }))
    await signInEverywhere(s)
    await s.run(open('open'))
    await s.run(open('parked'))
    await s.signInErrand('parked', 'mail.example', 'own')
    await s.run(Effect.flatMap(Supervisor, (sup) => sup.taskChanged('parked', 'interrupted')))
    expect((await s.run(Effect.flatMap(Supervisor, (sup) => sup.view('parked')))).state).toBe('parked')

    const report = await s.run(Effect.flatMap(Lending, (l) => l.revoke('shop.example')))
    expect(
      report.errands.map((m) => `${m.conversationId}/${m.where}:${m.cookies.join('+')}:${m.origins.join('+')}`),
    ).toEqual([
      'open/open:pref@shop.example+sid@shop.example:shop.example',
      'parked/parked:pref@shop.example+sid@shop.example:shop.example',
    ])
    const openState = await s.run(
      Effect.flatMap(Supervisor, (sup) => Effect.flatMap(Runtime, (r) => r.storageState(sup.contextOf('open')!))),
    )
    expect(openState.origins.map((o) => new URL(o.origin).hostname)).toEqual(['other.example'])
    const record = await s.run(Effect.flatMap(SealedStore, (st) => st.get('parked')))
    expect(
      Option.getOrThrow(record)
        .snapshot.storage.cookies.map((c) => c.name)
        .sort(),
    ).toEqual(['own', 'sid'])

    expect(await s.probe('open', 'a.shop.example')).toEqual([])
    expect(await s.probe('open', 'other.example')).toEqual(['sid'])
    // Resumes (the probe drives it) with everything but the revoked site.
    expect(await s.probe('parked', 'a.shop.example')).toEqual([])
    expect(await s.probe('parked', 'other.example')).toEqual(['sid'])
    expect(await s.probe('parked', 'mail.example')).toEqual(['own'])
    expect((await s.run(Effect.flatMap(Supervisor, (sup) => sup.view('parked')))).lentSites).toEqual(['other.example'])
    // The person's own browser is untouched.
    expect(await s.probe(MAIN_CONTEXT, 'a.shop.example')).toEqual(['pref', 'sid'])
  })

  it('"sign out of every site" wipes every errand, open and parked', async () => {
    const s = (stack = await startStack({ alwaysAllowed: ['shop.example'] }))
    await signInEverywhere(s)
    await s.run(open('a'))
    await s.run(open('b'))
    await s.signInErrand('b', 'mail.example', 'own')
    await s.run(Effect.flatMap(Supervisor, (sup) => sup.taskChanged('b', 'interrupted')))
    await s.run(Effect.flatMap(Lending, (l) => l.signOutEverywhere))
    expect(await s.probe('a', 'shop.example')).toEqual([])
    expect(await s.probe('b', 'shop.example')).toEqual([])
    expect(await s.probe('b', 'mail.example')).toEqual([])
    expect(await s.probe(MAIN_CONTEXT, 'shop.example')).toEqual(['sid'])
  })
})

describe('never back (L4)', () => {
  it('a sign-in made inside an errand never reaches the main context', async () => {
    const s = (stack = await startStack({ alwaysAllowed: ['shop.example'] }))
    await signInEverywhere(s)
    const mainBefore = await s.run(mainState)
    await s.run(open('t1'))
    await s.signInErrand('t1', 'mail.example', 'session')
    await s.signInErrand('t1', 'shop.example', 'errandsid')
    expect(await s.probe('t1', 'mail.example')).toEqual(['session'])
    await s.run(Effect.flatMap(Lending, (l) => l.allow('t1', 'other.example')))
    await s.run(Effect.flatMap(Supervisor, (sup) => sup.taskChanged('t1', 'interrupted')))
    await s.run(Effect.flatMap(Lending, (l) => l.revoke('other.example')))
    expect(await s.probe('t1', 'mail.example')).toEqual(['session']) // resumed
    expect(await s.probe(MAIN_CONTEXT, 'mail.example')).toEqual([])
    expect(await s.probe(MAIN_CONTEXT, 'shop.example')).toEqual(['sid'])
    const mainAfter = await s.run(mainState)
    expect(mainAfter.cookies.map((c) => `${c.name}=${c.value}@${c.domain}`).sort()).toEqual(
      mainBefore.cookies.map((c) => `${c.name}=${c.value}@${c.domain}`).sort(),
    )
  })
})

describe('IndexedDB is never lent (L4, E7)', () => {
  it(
    "the person's main context holds IndexedDB for a lent site; the errand it is lent to never sees it, open or " +
      'parked and resumed',
    async () => {
      const s = (stack = await startStack({ alwaysAllowed: ['shop.example'] }))
      await signInEverywhere(s)
      const { chromium } = s
      const writeIn = async (contextId: string, host: string) => {
        const tab = await Effect.runPromise(chromium.openTab(contextId, s.server.url(host, '/')))
        const page = chromium.pageOf(contextId, tab.id)!
        await page.evaluate(`new Promise((ok, no) => { const r = indexedDB.open('person-mail', 1);
          r.onupgradeneeded = () => r.result.createObjectStore('m').put(new Blob(['private']), 'k');
          r.onsuccess = () => { r.result.close(); ok(); }; r.onerror = () => no(r.error); })`)
        await page.evaluate(`sessionStorage.setItem('person', 'private')`)
      }
      await writeIn(MAIN_CONTEXT, 'shop.example')
      await writeIn(MAIN_CONTEXT, 'other.example')
      const names = (contextId: string, host: string) =>
        Effect.runPromise(chromium.openTab(contextId, s.server.url(host, '/'))).then((tab) =>
          chromium
            .pageOf(contextId, tab.id)!
            .evaluate(
              `indexedDB.databases().then((d) => d.map((x) => x.name).join(',') + '|' + sessionStorage.length)`,
            ),
        )
      expect(await names(MAIN_CONTEXT, 'shop.example')).toBe('person-mail|0')

      const { contextId } = await s.run(open('t1')) // shop.example is lent from the start
      await s.run(Effect.flatMap(Lending, (l) => l.allow('t1', 'other.example'))) // and other.example later
      expect(await s.probe('t1', 'shop.example')).toEqual(['sid'])
      expect(await names(contextId, 'shop.example')).toBe('|0')
      expect(await names(contextId, 'other.example')).toBe('|0')
      const taken = await Effect.runPromise(chromium.snapshot(contextId))
      expect(taken.indexedDB ?? []).toEqual([])

      await s.run(Effect.flatMap(Supervisor, (sup) => sup.taskChanged('t1', 'interrupted')))
      const resumed = await s.run(
        Effect.flatMap(Supervisor, (sup) => sup.use('t1', (b) => Effect.succeed(b.contextId))),
      )
      expect(await names(resumed, 'shop.example')).toBe('|0')
      expect(await names(resumed, 'other.example')).toBe('|0')
    },
  )
})

describe('secrets (L7)', () => {
  it('no log line, error, health message or inspector event of a full scenario holds a fixture secret', async () => {
    const s = (stack = await startStack({ alwaysAllowed: ['shop.example'] }))
    await signInEverywhere(s)
    await s.run(open('t1'))
    await s.run(open('t2'))
    await s.signInErrand('t1', 'mail.example', 'session')
    await s.run(Effect.flatMap(Lending, (l) => l.ask('t1', 'other.example')))
    await s.run(Effect.flatMap(Lending, (l) => l.allow('t1', 'other.example')))
    await s.run(Effect.flatMap(Supervisor, (sup) => sup.taskChanged('t2', 'interrupted')))
    await s.run(Effect.flatMap(Lending, (l) => l.allow('t2', 'alice.github.io')))
    await s.failure(Effect.flatMap(Lending, (l) => l.allow('nobody', 'shop.example')))
    await s.failure(Effect.flatMap(Lending, (l) => l.revoke('https://shop.example/')))
    await s.run(Effect.flatMap(Lending, (l) => l.revoke('shop.example')))
    await s.probe('t2', 'alice.github.io') // resumes t2
    await s.run(Effect.flatMap(Lending, (l) => l.signOutEverywhere))
    const health = await s.run(Effect.flatMap(Supervisor, (sup) => sup.health))
    const views = await s.run(Effect.flatMap(Supervisor, (sup) => sup.list))
    await new Promise((r) => setTimeout(r, 200)) // the inspector hands events over on an idle callback

    expect(s.server.issued.length).toBeGreaterThanOrEqual(9)
    expect(s.logs.some((l) => l.includes('lent sign-in for other.example to errand t1'))).toBe(true)
    expect(s.logs.some((l) => l.includes('seeded errand t1'))).toBe(true)
    // Polled: the inspector hands events over on an idle callback, which a loaded machine delays.
    await expect.poll(() => s.inspection.length, { timeout: 15_000 }).toBeGreaterThan(0)
    const haystack = [
      ...s.logs,
      ...s.runtimeLogs,
      JSON.stringify(s.inspection),
      JSON.stringify(health),
      JSON.stringify(views),
      ...s.errors.map((e) => `${String(e)} ${JSON.stringify(e)}`),
    ].join('\n')
    for (const secret of s.server.issued) expect(haystack).not.toContain(secret)
  })
})
