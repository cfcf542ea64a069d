import { describe, expect, it } from 'vitest'
import { Errands } from './promise.ts'
import type { ErrandView } from '@errands/sessions'

describe('the Promise API', () => {
  it('opens, drives, parks, resumes and closes without Effect; errors reject with the typed error', async () => {
    const errands = await Errands.create({ settings: { maxErrands: 1 } })
    const seen: Array<[string, string]> = []
    errands.on('change', (view: ErrandView) => seen.push([view.conversationId, view.state]))
    const binding = await errands.open({ id: 'task-1', kind: 'task' })
    expect(binding.isolated).toBe(true)
    const inside = await errands.use('task-1', async (b) => b.contextId)
    expect(inside).toBe(binding.contextId)
    await errands.taskChanged('task-1', 'interrupted')
    expect(await errands.capacity()).toEqual({
      open: 0,
      parked: 1,
      frozen: 0,
      limit: 1,
      personDriving: 0,
      waitingForPerson: 0,
    })
    await errands.resume('task-1')
    let release!: () => void
    const driving = errands.use('task-1', () => new Promise<void>((r) => (release = r)))
    await new Promise((r) => setTimeout(r, 10))
    await expect(errands.open({ id: 'task-2', kind: 'task' })).rejects.toMatchObject({ _tag: 'AllBusy', status: 503 })
    release()
    await driving
    expect(seen).toEqual(
      expect.arrayContaining([
        ['task-1', 'seeding'],
        ['task-1', 'parked'],
        ['task-1', 'active'],
      ]),
    )
    await errands.close()
  })
})
