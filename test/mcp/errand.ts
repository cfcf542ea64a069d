/**
 * What the park-and-resume tests of both transports leave in an errand and look for again: a
 * plum in the basket cookie and a second tab — judged by the tab list and by the Cookie header
 * the shop receives.
 *
 * @example
 * await fillErrand(first, shop); await first.end()
 * await expectSameErrand(await reconnect(), shop)
 */
import { expect } from 'vitest'
import { refOf, type McpClient } from './clients.ts'
import type { Shop } from './shop.ts'

/**
 * Adds a plum to the basket and opens a second tab at `/other`.
 *
 * @example
 * await fillErrand(mcp, shop)
 */
export const fillErrand = async (mcp: McpClient, shop: Shop): Promise<void> => {
  const page = (await mcp.call('browser_navigate', { url: shop.url('/') })).text
  await mcp.call('browser_click', { element: 'Add plum', ref: refOf(page, /button "Add plum"/) })
  await mcp.call('browser_tabs', { action: 'new' })
  await mcp.call('browser_navigate', { url: shop.url('/other') })
}

/**
 * Asserts the errand came back as {@link fillErrand} left it: both tabs, and the shop receives
 * exactly the basket cookie (`basket`: its items, when the errand held more than the plum).
 *
 * @example
 * await expectSameErrand(again, shop)
 */
export const expectSameErrand = async (mcp: McpClient, shop: Shop, basket = 'plum'): Promise<void> => {
  const tabs = await mcp.call('browser_tabs', { action: 'list' })
  expect(tabs.text).toContain(`[Shop](${shop.url('/')})`)
  expect(tabs.text).toContain(`[Other](${shop.url('/other')})`)
  const before = shop.cookiesAt('/basket').length
  const page = await mcp.call('browser_navigate', { url: shop.url('/basket') })
  expect(page.text).toContain(`Basket: ${basket}`)
  expect(shop.cookiesAt('/basket').slice(before)).toEqual([`basket=${basket}`])
}
