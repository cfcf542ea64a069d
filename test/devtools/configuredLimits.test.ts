// The DevTools endpoint's limits are the host's settings, decoded once with the rest (issue #24,
// S3): a host started with ERRANDS_DEVTOOLS_MAX_CONNECTIONS=2 in its settings refuses the third
// connection of an errand, though the variable is not in this process's environment. The endpoint
// used to read its limits from the environment itself, so a host given its settings any other way
// (an embedder, `errands host` after `errands config`, this harness) kept the default of 8.
import { describe, expect, it } from 'vitest'
import { useDevToolsHost } from './harness.ts'
import { RawCdp } from './raw.ts'

const env = useDevToolsHost(1, { ERRANDS_DEVTOOLS_MAX_CONNECTIONS: '2' })

describe("the DevTools endpoint's limits come from the host's settings", () => {
  it('refuses the third connection of an errand when the settings say two', async () => {
    expect(process.env.ERRANDS_DEVTOOLS_MAX_CONNECTIONS).toBeUndefined()
    const open: Array<RawCdp> = []
    try {
      for (let i = 0; i < 2; i++) open.push(await RawCdp.open(await env().endpoint('configured')))
      await expect(RawCdp.open(await env().endpoint('configured'))).rejects.toThrow(/HTTP 429/)
    } finally {
      for (const c of open) c.close()
    }
  })
})
