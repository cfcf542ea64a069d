import { describe, expect, it } from 'vitest'
import { acts, PAGE_READS } from './acting.ts'

// The one decision of what acts (P1, P2), on the HTTP face: its reads answer while a person
// drives; the agent's lifecycle calls act — but a task that only says it runs.
describe('what acts on the HTTP face while a person drives (P1, P2)', () => {
  it('the reads answer; every page verb and lifecycle call not named a read acts', () => {
    for (const call of PAGE_READS.v1) expect([call, acts('v1', call)]).toEqual([call, false])
    for (const call of ['navigate', 'click', 'release', 'proxy', 'park', 'someVerbOfNextYear'])
      expect([call, acts('v1', call)]).toEqual([call, true])
  })

  it("a task's status acts when it ends or parks the errand, not when it says the task runs", () => {
    for (const status of ['done', 'unverified', 'stopped', 'interrupted', 'failed'])
      expect([status, acts('v1', 'task', { status })]).toEqual([status, true])
    expect(acts('v1', 'task', { status: 'running' })).toBe(false)
    expect(acts('v1', 'task')).toBe(true)
  })
})
