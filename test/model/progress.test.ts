/**
 * The suite's own watchdog: a step that never finishes fails with a message naming it, instead
 * of the suite hanging silently (docs/model-suite.md, "Verbose mode and the step deadline").
 */
import { describe, expect, it } from 'vitest'
import { Progress, StepDeadline, stepDeadlineMs } from './progress.ts'
import { SystemFailure } from './system.ts'

describe('the step deadline', () => {
  it('a step that never finishes fails, naming the run, the step and the phase', async () => {
    const progress = new Progress({ verbose: false, deadlineMs: 50 })
    progress.run()
    const where = progress.where(progress.step())
    const hung = progress.within(`${where}: crash()`, 'step', new Promise<never>(() => {}))
    await expect(hung).rejects.toBeInstanceOf(StepDeadline)
    await expect(hung).rejects.toBeInstanceOf(SystemFailure) // so the property fails and shrinks on it
    await expect(hung).rejects.toThrow('run 1, step 1: crash() (the step) did not finish within 50 ms')
  })

  it('a step that finishes in time passes its value through', async () => {
    const progress = new Progress({ verbose: false, deadlineMs: 1_000 })
    await expect(progress.within('run 1, step 1: audit()', 'checks', Promise.resolve(7))).resolves.toBe(7)
  })

  it('MODEL_STEP_DEADLINE_MS is decoded at the edge: default, a value, a refusal naming the variable', () => {
    expect(stepDeadlineMs({})).toBe(60_000)
    expect(stepDeadlineMs({ MODEL_STEP_DEADLINE_MS: '5000' })).toBe(5_000)
    expect(() => stepDeadlineMs({ MODEL_STEP_DEADLINE_MS: 'soon' })).toThrow('MODEL_STEP_DEADLINE_MS')
  })
})
