import { Effect } from 'effect'
import { describe, expect, it } from 'vitest'
import { api } from './api.ts'
import { AnswerMismatch, answerMismatch, call, v1Client, type ClientOptions } from './client.ts'
import { endpointsOf } from '@errands/edge'
import { TEST_TOKEN, testApp } from './testing.ts'

// The typed client (issue #24) against the host in-process: every answer the host sends decodes
// strictly with the Schema its route declares — the wire and /v1/openapi.json tell one story.

const inProcess = (app: ReturnType<typeof testApp>['app'], options: ClientOptions = {}): ClientOptions => ({
  ...options,
  fetch: (url, init) => app.request(url.slice('http://127.0.0.1:7777'.length), init),
})
const BASE = 'http://127.0.0.1:7777'

/** Issue #26's three routes: the errand asks, the person lists the question and answers it. */
const askAndAnswer = async (session: ReturnType<typeof v1Client>, person: ReturnType<typeof v1Client>) => {
  const asking = session.signIn({ body: { site: 'shop.example', timeoutMs: 10_000 } })
  let listed = await person.person.questions()
  while (listed.ok && listed.body.questions.length === 0) {
    await new Promise((resolve) => setTimeout(resolve, 10))
    listed = await person.person.questions()
  }
  const id = listed.ok ? listed.body.questions[0]!.id : 'none'
  const answered = await person.person.answerQuestion({ params: { id }, body: { answer: 'deny' } })
  return [listed, answered, await asking]
}

/** The password routes (W1, W2): the person saves, changes, imports and removes; an agent lists and fills. */
const passwords = async (session: ReturnType<typeof v1Client>, person: ReturnType<typeof v1Client>) => {
  const added = await person.person.addPassword({
    body: { site: 'shop.example', username: 'ann', password: 'pw-9f2a', totp: 'JBSWY3DPEHPK3PXP' },
  })
  if (!added.ok) throw new Error('expected the sign-in saved')
  const id = added.body.id
  return [
    added,
    await person.person.passwords(),
    await person.person.changePassword({ params: { id }, body: { username: 'anna' } }),
    await person.person.importPasswords({ body: { csv: 'name,url,username,password\nB,https://b.example/,bo,pw\n' } }),
    await session.passwords(),
    await session.fillPassword({ body: { site: 'shop.example', username: '#u', password: '#p', totp: '#t' } }),
    await person.person.removePassword({ params: { id } }),
  ]
}

describe('v1Client against the host on fakes', () => {
  it('every endpoint answers what it declares (decoded strictly, a field more would throw)', async () => {
    const { app } = testApp()
    const session = v1Client(BASE, inProcess(app, { key: 'k1' }))
    const person = v1Client(BASE, inProcess(app, { token: TEST_TOKEN }))
    const url = 'https://example.com/'
    const replies = [
      await session.health(),
      await session.openapi(),
      await session.fetch({ body: { url } }),
      await session.localhosts(),
      await session.navigate({ body: { url } }),
      await session.url(),
      await session.text(),
      await session.html(),
      await session.screenshot({ query: { fullPage: 'true' } }),
      await session.click({ body: { selector: '#go' } }),
      await session.fill({ body: { selector: '#q', value: 'shoes' } }),
      await session.scroll({ body: { dx: 0, dy: 400 } }),
      await session.back(),
      await session.forward(),
      await session.reload(),
      await session.frame(),
      await session.state(),
      await session.dialog({ body: { accept: true } }),
      await session.input({ body: { events: [{ type: 'key', action: 'press', key: 'Enter' }] } }),
      await session.viewport({ body: { width: 800, height: 600 } }),
      await session.tabs(),
      await session.openTab({ body: { url } }),
      await session.activateTab({ params: { id: 'fake-t1' } }),
      await session.closeTab({ params: { id: 'fake-t1' } }),
      await session.evaluate({ body: { expression: 'document.title' } }),
      await session.console(),
      await session.network(),
      await session.fillForm({ body: { fields: [{ selector: '#q', value: 'shoes' }] } }),
      await session.drag({ body: { from: '#a', to: '#b' } }),
      await session.upload({ body: { selector: '#file', names: ['receipt.pdf'] } }),
      await session.downloads(),
      await session.download({ params: { name: 'receipt.pdf' } }),
      await session.stageFile({ query: { name: 'receipt.pdf' }, raw: new TextEncoder().encode('%PDF-1.4') }),
      await session.devtools(),
      await session.proxy({ body: { url: null } }),
      await session.help({ body: { reason: 'stuck', timeoutMs: 1_000 } }),
      await session.task({ body: { status: 'interrupted' } }),
      await session.release(),
      await person.person.health(),
      await person.person.settings(),
      await person.person.allowAlways({ body: { site: 'shop.example' } }),
      await person.person.revoke({ params: { site: 'shop.example' } }),
      await person.person.setTrust({ body: { mode: 'auto' } }),
      await person.person.signOutEverywhere(),
      await person.person.permission({ body: { session: 'k1', site: 'shop.example' } }),
      await person.person.lend({ body: { conversationId: 'c1', site: 'shop.example' } }),
      await person.person.ownBrowser({ params: { chat: 'c1' }, body: { on: true } }),
      await person.person.deleteChat({ params: { chat: 'c1' } }),
      await person.person.sessions(),
      await person.person.releaseSession({ params: { key: 'k1' } }),
      await person.person.inspector(),
      await person.person.setInspector({ body: { on: false } }),
      await person.person.takeWheel({ body: { session: 'k1' } }),
      await person.person.handBack({ body: { conversationId: 'session:k1', note: 'done' } }),
      ...(await passwords(session, person)),
      await person.person.main.navigate({ body: { url } }),
      await person.person.main.tabs(),
      ...(await askAndAnswer(session, person)),
    ]
    expect(replies.filter((r) => !r.ok).map((r) => [r.status, r.body])).toEqual([])
    // Every endpoint once, except the main context's page verbs: two of those stand for the mount.
    expect(replies).toHaveLength(endpointsOf(api).length - endpointsOf(api.person.main).length + 2)
  })

  it('types the answer from the declaration', async () => {
    const { app } = testApp()
    const reply = await v1Client(BASE, inProcess(app, { key: 'k1' })).tabs()
    if (!reply.ok) throw new Error('expected tabs')
    expect(reply.body.tabs[0]?.id).toBe('fake-t1')
  })

  it('the host sends an answer through its Schema: a field a service adds does not reach the wire', async () => {
    const { app } = testApp({
      browsing: { url: () => Effect.succeed({ url: 'about:blank', secret: 'x' } as { url: string }) },
    })
    const res = await app.request('/v1/url', { headers: { 'x-browser-session': 'k1' } })
    expect(await res.json()).toEqual({ url: 'about:blank' })
  })

  it('throws AnswerMismatch when a 200 does not fit the declared answer', async () => {
    const fake: ClientOptions['fetch'] = async () =>
      new Response(JSON.stringify({ url: 'about:blank', extra: 1 }), {
        headers: { 'content-type': 'application/json' },
      })
    await expect(call(BASE, api.url, {}, { key: 'k1', fetch: fake })).rejects.toBeInstanceOf(AnswerMismatch)
  })

  it(
    'answerMismatch says what a 200 body lacks or adds against its declaration, for clients with their own ' +
      'transport',
    () => {
      expect(answerMismatch('GET', '/v1/url', { url: 'about:blank' })).toBeUndefined()
      expect(answerMismatch('GET', '/v1/url', { url: 'about:blank', extra: 1 })).toMatch(
        /^GET \/v1\/url: the answer does not fit/,
      )
      expect(answerMismatch('DELETE', '/v1/tabs/t1', { tabs: [{ id: 't1' }] })).toMatch(/url/)
      expect(answerMismatch('GET', '/v1/screenshot', 'bytes')).toBeUndefined()
      expect(answerMismatch('GET', '/v1/nothing', {})).toBeUndefined()
    },
  )

  it('sends what it is given: the host judges a bad request (400), the client does not', async () => {
    const { app, calls } = testApp()
    const reply = await call(BASE, api.navigate, { body: { url: 'not a url' } }, inProcess(app, { key: 'k1' }))
    expect(reply.ok).toBe(false)
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({ error: { code: 'BadRequest', reason: 'invalid-body' } })
    expect(calls).toEqual([])
  })

  it('presents the person token only to person endpoints, the key only to session ones', async () => {
    const seen: Array<Headers> = []
    const fake: ClientOptions['fetch'] = async (_url, init) => (
      seen.push(new Headers(init.headers)), new Response('{"error":{"code":"X","message":""}}', { status: 500 })
    )
    const client = v1Client(BASE, { key: 'k1', token: 't', fetch: fake })
    await client.url()
    await client.person.sessions()
    await client.localhosts()
    expect(seen.map((h) => [h.get('x-browser-session'), h.get('authorization')])).toEqual([
      ['k1', null],
      [null, 'Bearer t'],
      [null, null],
    ])
  })
})
