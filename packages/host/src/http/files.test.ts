// The files routes of issue #25 in-process, on the recording fakes: a staged file's raw body
// takes any content type and is capped before any service sees it; names that are paths are
// refused at the edge; the answers are what api.ts declares.
import { Effect } from 'effect'
import { describe, expect, it } from 'vitest'
import { FileNotFound } from '../errors.ts'
import { testApp } from './testing.ts'

const S = { 'x-browser-session': 'k1' }

describe('files routes (#25)', () => {
  it('POST /v1/session/files takes raw bytes of any type and answers the name it was saved under', async () => {
    const { app, calls } = testApp({ maxRawBodyBytes: 100 })
    const res = await app.request('/v1/session/files?name=receipt.pdf', {
      method: 'POST',
      headers: { ...S, 'content-type': 'application/pdf' },
      body: new Uint8Array(10),
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ name: 'receipt.pdf', size: 10 })
    expect(calls.map((c) => c.method)).toEqual(['stageFile'])
  })

  it('a body over the file cap is 413 and never reaches the service; a path for a name is 400', async () => {
    const { app, calls } = testApp({ maxRawBodyBytes: 100 })
    const big = await app.request('/v1/session/files?name=big.bin', {
      method: 'POST',
      headers: S,
      body: new Uint8Array(101),
    })
    expect(big.status).toBe(413)
    for (const name of ['../x', 'a/b', '.', '']) {
      const bad = await app.request(`/v1/session/files?name=${encodeURIComponent(name)}`, {
        method: 'POST',
        headers: S,
        body: new Uint8Array(1),
      })
      expect(bad.status, name).toBe(400)
    }
    for (const name of ['../x', 'a/b', 'a\\b'])
      expect(
        (await app.request(`/v1/session/downloads/${encodeURIComponent(name)}`, { headers: S })).status,
        name,
      ).toBe(400)
    expect(
      (await app.request('/v1/session/files', { method: 'POST', headers: S, body: new Uint8Array(1) })).status,
    ).toBe(400)
    expect(calls).toEqual([])
  })

  it('GET /v1/session/downloads/:name answers the bytes with their type; an absent file is a typed 404', async () => {
    const { app } = testApp({
      browsing: {
        download: (_t, name) =>
          name === 'a.pdf'
            ? Effect.succeed({ bytes: new Uint8Array([1, 2]), type: 'application/pdf' })
            : Effect.fail(new FileNotFound({ reason: 'no-file', message: 'no' })),
      },
    })
    const ok = await app.request('/v1/session/downloads/a.pdf', { headers: S })
    expect(ok.headers.get('content-type')).toBe('application/pdf')
    expect(ok.headers.get('content-disposition')).toContain("filename*=UTF-8''a.pdf")
    expect(new Uint8Array(await ok.arrayBuffer())).toEqual(new Uint8Array([1, 2]))
    const absent = await app.request('/v1/session/downloads/b.pdf', { headers: S })
    expect(absent.status).toBe(404)
    expect(await absent.json()).toMatchObject({ error: { code: 'FileNotFound', reason: 'no-file' } })
  })
})
