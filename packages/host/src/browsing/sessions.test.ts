import { Either } from 'effect'
import { describe, expect, it } from 'vitest'
import { parseSessionKey } from '../sessionKey.ts'
import { parseTabId, publicTabId, SessionBook } from './sessions.ts'

const key = (k: string) => Either.getOrThrow(parseSessionKey(k))

describe('per-session state (B2, B6)', () => {
  it('gives each key its own record, created without any browser, and forgets it on drop', async () => {
    const book = new SessionBook()
    const a = book.get(key('a'))
    expect(book.get(key('a'))).toBe(a)
    expect(book.get(key('b'))).not.toBe(a)
    expect(book.size).toBe(2)
    a.viewport = { width: 400, height: 300 }
    expect(book.get(key('b')).viewport).toBeUndefined()
    await book.drop(key('a'))
    expect(book.peek(key('a'))).toBeUndefined()
    expect(book.get(key('a')).viewport).toBeUndefined()
  })

  it("never accepts another session's tab id (B3), nor one handed out before a release", async () => {
    const book = new SessionBook()
    const a = book.get(key('a'))
    const b = book.get(key('b'))
    const id = publicTabId(a, 't1')
    expect(parseTabId(a, id)).toBe('t1')
    expect(parseTabId(b, id)).toBeUndefined()
    expect(parseTabId(a, 't1')).toBeUndefined()
    expect(parseTabId(a, `${a.nonce}-x1`)).toBeUndefined()
    await book.drop(key('a'))
    expect(parseTabId(book.get(key('a')), id)).toBeUndefined()
    expect(parseTabId(book.main, publicTabId(b, 't1'))).toBeUndefined()
  })
})
