import { describe, expect, it } from 'vitest'
import { listTabs } from './tabs.ts'

describe('browser_tabs', () => {
  it('lists tabs the way Playwright MCP does, without queries', () => {
    expect(
      listTabs([
        { id: 'n-t1', url: 'https://a.example/?q=1', title: 'A', active: false },
        { id: 'n-t2', url: 'about:blank', title: '', active: true },
      ]),
    ).toBe('### Open tabs\n- 0: [A](https://a.example/?…)\n- 1: (current) [](about:blank)')
  })
})
