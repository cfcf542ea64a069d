// Issue #25 (the HTTP part): Playwright MCP's tools as /v1 verbs for agents that do not speak
// MCP — evaluate, console, network, fill-form, drag, upload — against a real host with real
// Chromium, through the typed client, each going through the runtime's page capability. Beside
// each working call, the way to break it: a page that throws, a name that leaves the errand's
// files folder, a link inside the folder that leads out.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestHost, type TestHost } from './harness.ts'

/** What the fixture's /submit received, in order. */
const submitted: Array<Record<string, string>> = []

const TOOLS = `<!doctype html><html><head><meta charset="utf-8"><title>tools</title></head><body>
<form id="form" method="post" action="/submit">
  <input id="name" name="name">
  <select id="size" name="size"><option value="s">Small</option><option value="l">Large</option></select>
  <input id="agree" name="agree" type="checkbox" value="yes"><button id="send">Send</button>
</form>
<div id="card" draggable="true" style="width:80px;height:40px;background:#fc0">card</div>
<div id="todo" style="width:200px;height:80px;background:#eee">todo</div>
<div id="done" style="width:200px;height:80px;background:#cfc">done:</div>
<input id="file" type="file">
<script>
  console.log('hello from the page')
  fetch('/api/ping?x=1').then((r) => r.text()).then((t) => console.info('ping said ' + t))
  const done = document.getElementById('done')
  done.addEventListener('dragover', (e) => e.preventDefault())
  done.addEventListener('drop', (e) => { e.preventDefault(); done.appendChild(document.getElementById('card')) })
</script></body></html>`

let site: Server
let origin: string
let host: TestHost

beforeAll(async () => {
  site = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === '/api/ping') return res.writeHead(200, { 'content-type': 'text/plain' }).end('pong')
    if (url.pathname === '/submit') {
      let body = ''
      req.on('data', (c: Buffer) => (body += c.toString()))
      req.on('end', () => {
        submitted.push(Object.fromEntries(new URLSearchParams(body)))
        res.writeHead(200, { 'content-type': 'text/html' }).end('<title>thanks</title>thanks')
      })
      return
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(TOOLS)
  })
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
  host = await startTestHost({ ERRANDS_MAX_SESSIONS: '2' })
})
afterAll(async () => {
  await host?.stop()
  await new Promise((resolve) => site?.close(resolve))
})

/** A session on the fixture's tools page. */
const onTools = async (key: string) => {
  const agent = host.v1(key)
  const opened = await agent.navigate({ body: { url: `${origin}/tools` } })
  expect(opened.ok).toBe(true)
  return agent
}

const valueOf = async (agent: ReturnType<TestHost['v1']>, expression: string) => {
  const reply = await agent.evaluate({ body: { expression } })
  if (!reply.ok) throw new Error(`evaluate ${expression}: ${reply.status} ${JSON.stringify(reply.body)}`)
  return reply.body.value
}

/** The error message of a reply that failed. */
const errorOf = (
  reply:
    | { readonly ok: true }
    | { readonly ok: false; readonly body: { readonly error: { readonly message: string } } | undefined },
) => (reply.ok ? undefined : reply.body?.error.message)

describe('Playwright MCP tools over /v1 (issue #25)', () => {
  it('evaluate answers the JSON value (promises awaited); a page that throws is a 422 with its message', async () => {
    const agent = await onTools('cap-eval')
    expect(await valueOf(agent, 'document.title')).toBe('tools')
    expect(
      await valueOf(
        agent,
        '({ options: [...document.querySelectorAll("option")].map((o) => o.value), at: location.pathname })',
      ),
    ).toEqual({ options: ['s', 'l'], at: '/tools' })
    expect(await valueOf(agent, 'new Promise((r) => setTimeout(() => r("later"), 50))')).toBe('later')
    expect(await valueOf(agent, 'undefined')).toBeNull()

    const thrown = await agent.evaluate({ body: { expression: '(() => { throw new Error("boom from the page") })()' } })
    expect(thrown.ok).toBe(false)
    expect(thrown.status).toBe(422)
    expect(errorOf(thrown)).toContain('boom from the page')
    const empty = await agent.evaluate({ body: { expression: '' } })
    expect(empty.status).toBe(400)
  })

  it(
    'console shows what the page logged since the tab opened; network lists its requests with status and ' + 'type',
    async () => {
      const agent = await onTools('cap-logs')
      let messages: ReadonlyArray<{ type: string; text: string }> = []
      for (let i = 0; i < 50 && !messages.some((m) => m.text === 'ping said pong'); i++) {
        const reply = await agent.console()
        messages = reply.ok ? reply.body.messages : []
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(messages).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: 'log', text: 'hello from the page' }),
          expect.objectContaining({ type: 'info', text: 'ping said pong' }),
        ]),
      )

      const network = await agent.network()
      expect(network.ok).toBe(true)
      const requests = network.ok ? network.body.requests : []
      expect(requests).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ method: 'GET', url: `${origin}/tools`, status: 200, resourceType: 'document' }),
          expect.objectContaining({ method: 'GET', url: `${origin}/api/ping?x=1`, status: 200, resourceType: 'fetch' }),
        ]),
      )
    },
  )

  it(
    'fill-form fills a text field, a select and a checkbox; the submitted form reaches the site with the ' + 'values',
    async () => {
      const agent = await onTools('cap-form')
      const filled = await agent.fillForm({
        body: {
          fields: [
            { selector: '#name', value: 'Ada' },
            { selector: '#size', value: 'Large' },
            { selector: '#agree', value: 'true' },
          ],
        },
      })
      expect(filled.ok).toBe(true)
      expect(
        await valueOf(
          agent,
          '[document.getElementById("name").value, document.getElementById("size").value, ' +
            'document.getElementById("agree").checked]',
        ),
      ).toEqual(['Ada', 'l', true])
      const sent = await agent.click({ body: { selector: '#send' } })
      expect(sent.ok).toBe(true)
      for (let i = 0; i < 50 && submitted.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100))
      expect(submitted.at(-1)).toEqual({ name: 'Ada', size: 'l', agree: 'yes' })

      const missing = await agent.fillForm({ body: { fields: [{ selector: '#nowhere', value: 'x' }], timeoutMs: 500 } })
      expect(missing.ok).toBe(false)
      expect(missing.status).toBe(504)
    },
  )

  it('drag moves an element onto another', async () => {
    const agent = await onTools('cap-drag')
    expect(await valueOf(agent, 'document.getElementById("done").contains(document.getElementById("card"))')).toBe(
      false,
    )
    const dragged = await agent.drag({ body: { from: '#card', to: '#done' } })
    expect(dragged.ok).toBe(true)
    expect(await valueOf(agent, 'document.getElementById("done").contains(document.getElementById("card"))')).toBe(true)
    expect(await valueOf(agent, 'document.getElementById("done").innerText')).toContain('card')
  })

  it(
    "upload takes plain names of the errand's files folder; a path is a 400, a missing file or a link out a " + '422',
    async () => {
      const agent = await onTools('cap-upload')
      const folder = await host.run(host.chromium.filesDir(host.supervisor.contextOf('session:cap-upload')!))
      writeFileSync(join(folder, 'note.txt'), 'a note for the form')
      const uploaded = await agent.upload({ body: { selector: '#file', names: ['note.txt'] } })
      expect(uploaded.ok).toBe(true)
      expect(
        await valueOf(agent, '((f) => f.text().then((t) => [f.name, t]))(document.getElementById("file").files[0])'),
      ).toEqual(['note.txt', 'a note for the form'])

      for (const name of ['../note.txt', '/etc/passwd', 'a/b.txt', '..', 'a\\b.txt']) {
        const refused = await agent.upload({ body: { selector: '#file', names: [name] } })
        expect([name, refused.status]).toEqual([name, 400])
      }
      const absent = await agent.upload({ body: { selector: '#file', names: ['absent.txt'] } })
      expect(absent.status).toBe(422)
      symlinkSync('/etc/passwd', join(folder, 'passwd'))
      const linked = await agent.upload({ body: { selector: '#file', names: ['passwd'] } })
      expect(linked.status).toBe(422)
      expect(errorOf(linked)).toContain('leads out')
      // What the page holds is still the one file it was given.
      expect(await valueOf(agent, '[...document.getElementById("file").files].map((f) => f.name)')).toEqual([
        'note.txt',
      ])
    },
  )

  it("the person's main context has no files folder: an upload there is refused", async () => {
    const person = host.v1(undefined)
    await person.person.main.navigate({ body: { url: `${origin}/tools` } })
    const refused = await person.person.main.upload({ body: { selector: '#file', names: ['note.txt'] } })
    expect(refused.status).toBe(422)
  })
})
