import { describe, expect, it } from 'vitest'
import { wheelRefusal } from './wheel.ts'

describe('wheelRefusal: the one wheel check of the faces that refuse (P1, P2)', () => {
  const driving = (id: string) => id === 'session:held'

  it('refuses what acts while a person drives, in PersonDriving (409)', () => {
    expect(wheelRefusal(driving, 'session:held', 'v1', 'navigate')).toMatchObject({
      _tag: 'PersonDriving',
      status: 409,
      conversationId: 'session:held',
    })
    expect(wheelRefusal(driving, 'session:held', 'mcp', 'browser_click')?._tag).toBe('PersonDriving')
    expect(wheelRefusal(driving, 'session:held', 'v1', 'task', { status: 'done' })?._tag).toBe('PersonDriving')
  })

  it('lets reads, the asks of the person and a running task through; and everything on an errand nobody drives', () => {
    expect(wheelRefusal(driving, 'session:held', 'v1', 'screenshot')).toBeUndefined()
    expect(wheelRefusal(driving, 'session:held', 'mcp', 'browser_snapshot')).toBeUndefined()
    expect(wheelRefusal(driving, 'session:held', 'mcp', 'browser_request_help')).toBeUndefined()
    expect(wheelRefusal(driving, 'session:held', 'v1', 'task', { status: 'running' })).toBeUndefined()
    expect(wheelRefusal(driving, 'session:free', 'v1', 'navigate')).toBeUndefined()
  })
})
