// The list of methods Chromium knows (protocol.ts) is the installed devtools-protocol's; when an
// upgrade changes it, this prints the lines to paste.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { knownMethod, METHODS_BY_DOMAIN, PROTOCOL_VERSION } from './protocol.ts'

// puppeteer-core ships the newest protocol of the repo's clients (the top-level devtools-protocol is older).
const require = createRequire(createRequire(import.meta.url).resolve('puppeteer/package.json'))
const dir = require.resolve('devtools-protocol/package.json').replace(/package\.json$/, '')

describe('the methods Chromium knows', () => {
  it("are devtools-protocol's, domain by domain", () => {
    const version = (JSON.parse(readFileSync(`${dir}package.json`, 'utf8')) as { version: string }).version
    const domains: Record<string, Array<string>> = {}
    for (const file of ['browser_protocol.json', 'js_protocol.json']) {
      const json = JSON.parse(readFileSync(`${dir}json/${file}`, 'utf8')) as {
        domains: Array<{ domain: string; commands?: Array<{ name: string }> }>
      }
      for (const d of json.domains) (domains[d.domain] ??= []).push(...(d.commands ?? []).map((c) => c.name))
    }
    const expected = Object.fromEntries(
      Object.keys(domains)
        .sort()
        .map((d) => [d, domains[d]!.sort().join(' ')]),
    )
    expect({ version: PROTOCOL_VERSION, domains: METHODS_BY_DOMAIN }).toEqual({ version, domains: expected })
  })

  it('answers per method, not per domain', () => {
    expect(knownMethod('Browser.setContentsSize')).toBe(true)
    expect(knownMethod('Target.attachToBrowserTarget')).toBe(true)
    expect(knownMethod('Foo.bar')).toBe(false)
    expect(knownMethod('Browser.bar')).toBe(false)
    expect(knownMethod('Browser')).toBe(false)
  })
})
