/**
 * The replay path of the model-based suite: a journal written on failure decodes back into the
 * very steps (and so the very commands) that ran; a broken journal names its bad line. No browser.
 */
import { readFileSync, rmSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StepCommand, type Recorder } from './commands.ts'
import { writeJournal } from './runner.ts'
import { decodeJournal, encodeJournal, JournalLineInvalid, stepArbitrary, stepText } from './steps.ts'

describe('model journal (replay path)', () => {
  it('round-trips any step list: same steps, same commands', () => {
    fc.assert(
      fc.property(fc.array(stepArbitrary, { maxLength: 60 }), (steps) => {
        const back = decodeJournal(encodeJournal(steps))
        expect(back).toEqual(steps)
        const recorder: Recorder = { ran: [] }
        expect(back.map((s) => new StepCommand(s, recorder).toString())).toEqual(steps.map(stepText))
      }),
      { numRuns: 200 },
    )
  })

  it('a written journal file replays to the same steps, skipping its comment lines', () => {
    const steps = fc.sample(fc.array(stepArbitrary, { minLength: 5, maxLength: 20 }), { numRuns: 1, seed: 42 })[0]!
    const path = writeJournal(steps, 'a test journal')
    try {
      const text = readFileSync(path, 'utf8')
      expect(text.startsWith('# a test journal\n# replay: MODEL_REPLAY=')).toBe(true)
      expect(decodeJournal(text)).toEqual(steps)
    } finally {
      rmSync(path, { force: true })
    }
  })

  it('a bad line is a typed error naming the line', () => {
    const journal = '{"op":"open","id":"t0"}\n\n{"op":"visit","id":"t9","tab":0,"site":"shop.example"}\n'
    expect(() => decodeJournal(journal)).toThrow(JournalLineInvalid)
    try {
      decodeJournal(journal)
    } catch (e) {
      expect(e).toBeInstanceOf(JournalLineInvalid)
      expect((e as JournalLineInvalid).line).toBe(3)
    }
    expect(() => decodeJournal('{"op":')).toThrow(/not JSON/)
  })
})
