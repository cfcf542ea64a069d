import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { dailyExtensionId, extensionIdOf } from './extensionId.ts'

const manifest = JSON.parse(readFileSync(new URL('../../../extension/manifest.json', import.meta.url), 'utf8'))

describe('the extension (D3)', () => {
  it('its manifest key gives the id the door pins', () => {
    expect(extensionIdOf(manifest.key)).toBe(dailyExtensionId)
  })

  it('asks for activeTab, scripting, storage and alarms only, and loopback hosts only', () => {
    expect(manifest.manifest_version).toBe(3)
    expect([...manifest.permissions].sort()).toEqual(['activeTab', 'alarms', 'scripting', 'storage'])
    expect([...manifest.host_permissions].sort()).toEqual(['http://127.0.0.1/*', 'http://localhost/*'])
    expect(manifest.optional_permissions).toBeUndefined()
    expect(manifest.optional_host_permissions).toBeUndefined()
    expect(manifest.content_scripts).toBeUndefined()
    expect(manifest.externally_connectable).toBeUndefined()
    expect(manifest.web_accessible_resources).toBeUndefined()
    expect(JSON.stringify(manifest)).not.toMatch(/<all_urls>|cookies|history|debugger|"tabs"|webRequest|\*:\/\//)
  })

  it('ships no private key (the public key in the manifest is all an unpacked extension needs)', () => {
    const files = readdirSync(new URL('../../../extension/', import.meta.url), { recursive: true }).map(String)
    expect(files.filter((f) => /\.(pem|key|crx)$/i.test(f))).toEqual([])
    expect(JSON.stringify(manifest)).not.toContain('PRIVATE')
  })
})
