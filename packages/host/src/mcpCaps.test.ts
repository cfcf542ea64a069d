import { Effect, Either } from 'effect'
import { describe, expect, it } from 'vitest'
import { explainHostConfigError, hostSettingsFrom } from './config.ts'

// ERRANDS_MCP_CAPS (issue #25): the host's /mcp offers Playwright MCP's optional capabilities
// when the setting names them; checked at start-up with every other variable (`errands config`).
describe('ERRANDS_MCP_CAPS', () => {
  it('is none by default, and the named capabilities once, in order', () => {
    expect(Effect.runSync(hostSettingsFrom({})).mcpCaps).toEqual([])
    expect(Effect.runSync(hostSettingsFrom({ ERRANDS_MCP_CAPS: 'vision, pdf,vision' })).mcpCaps).toEqual([
      'vision',
      'pdf',
    ])
    expect(Effect.runSync(hostSettingsFrom({ ERRANDS_MCP_CAPS: '' })).mcpCaps).toEqual([])
  })

  it('refuses an unknown capability, naming the variable and the known ones', () => {
    const r = Effect.runSync(Effect.either(hostSettingsFrom({ ERRANDS_MCP_CAPS: 'vision,devtools' })))
    if (Either.isRight(r)) throw new Error('expected devtools to be refused')
    expect(explainHostConfigError(r.left)).toContain(
      'ERRANDS_MCP_CAPS: invalid value — must be a comma-separated list of MCP capabilities (known: vision, pdf)',
    )
  })
})
