import type { Cookie } from '@errands/runtime'
import { describe, expect, it } from 'vitest'
import { putBackScript, storageDrift } from './restoreDrift.ts'

const c = (name: string, value: string, extra: Partial<Cookie> = {}): Cookie => ({
  name,
  value,
  domain: 'shop.example',
  path: '/',
  expires: -1,
  httpOnly: false,
  secure: false,
  sameSite: 'Lax',
  ...extra,
})
const NOW = 1_000_000

describe('storageDrift: what reopened tabs changed against the record', () => {
  it('is clean when nothing changed (expiry alone is no change)', () => {
    const sealed = {
      cookies: [c('sid', 'a', { expires: NOW + 10 })],
      origins: [
        {
          origin: 'http://shop.example',
          localStorage: [
            { name: 'k', value: 'v' },
            { name: 'j', value: 'w' },
          ],
        },
      ],
    }
    const live = {
      cookies: [c('sid', 'a', { expires: NOW + 99 })],
      origins: [
        {
          origin: 'http://shop.example',
          localStorage: [
            { name: 'j', value: 'w' },
            { name: 'k', value: 'v' },
          ],
        },
      ],
    }
    expect(storageDrift(sealed, live, NOW).clean).toBe(true)
  })

  it('puts back a changed value or flag, removes a cookie the record lacked, keeps an expired one gone', () => {
    const sealed = {
      cookies: [c('sid', 'newer'), c('basket', 'x'), c('old', 'gone', { expires: NOW - 1 })],
      origins: [],
    }
    const live = { cookies: [c('sid', 'older'), c('basket', 'x', { httpOnly: true }), c('tracker', '1')], origins: [] }
    const drift = storageDrift(sealed, live, NOW)
    expect(drift.cookiesToAdd.map((k) => `${k.name}=${k.value}`)).toEqual(['sid=newer', 'basket=x'])
    expect(drift.cookiesToRemove.map((k) => k.name)).toEqual(['tracker'])
    expect(drift.clean).toBe(false)
  })

  it('resets an origin whose items differ to the record (an origin the record lacked is cleared)', () => {
    const sealed = {
      cookies: [],
      origins: [
        {
          origin: 'http://a.example',
          localStorage: [
            { name: 'k0', value: 'second' },
            { name: 'k1', value: 'x' },
          ],
        },
      ],
    }
    const live = {
      cookies: [],
      origins: [
        {
          origin: 'http://a.example',
          localStorage: [
            { name: 'k0', value: 'first' },
            { name: 'k1', value: 'x' },
          ],
        },
        { origin: 'http://b.example', localStorage: [{ name: 'n', value: '1' }] },
      ],
    }
    expect(storageDrift(sealed, live, NOW).originsToReset).toEqual([
      {
        origin: 'http://a.example',
        localStorage: [
          { name: 'k0', value: 'second' },
          { name: 'k1', value: 'x' },
        ],
      },
      { origin: 'http://b.example', localStorage: [] },
    ])
  })
})

describe('putBackScript: an origin to the record, key by key', () => {
  /** A localStorage that records every state it passes through. */
  const storage = (initial: Record<string, string>) => {
    const items = new Map(Object.entries(initial))
    const states: Array<number> = []
    const api = {
      getItem: (k: string) => items.get(k) ?? null,
      setItem: (k: string, v: string) => {
        items.set(k, v)
        states.push(items.size)
      },
      removeItem: (k: string) => {
        items.delete(k)
        states.push(items.size)
      },
      clear: () => {
        items.clear()
        states.push(0)
      },
    }
    const proxy = new Proxy(api, {
      ownKeys: () => [...items.keys()],
      getOwnPropertyDescriptor: (_, k) =>
        items.has(String(k)) ? { enumerable: true, configurable: true, value: items.get(String(k)) } : undefined,
    })
    return { proxy, items, states }
  }

  it('removes what the record lacks, sets what differs, never passes through empty', () => {
    const s = storage({ basket: 'older', tracker: '1', k1: 'later' })
    new Function(
      'localStorage',
      putBackScript([
        { name: 'basket', value: 'newer' },
        { name: 'k1', value: 'later' },
        { name: 'quote', value: '</script>"' },
      ]),
    )(s.proxy)
    expect(Object.fromEntries(s.items)).toEqual({ basket: 'newer', k1: 'later', quote: '</script>"' })
    expect(s.states).not.toContain(0)
  })

  it('clears an origin the record lacked', () => {
    const s = storage({ a: '1', b: '2' })
    new Function('localStorage', putBackScript([]))(s.proxy)
    expect(s.items.size).toBe(0)
  })
})
