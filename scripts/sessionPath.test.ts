import { resolve } from 'node:path'
import { SESSION_VERBS } from '@errands/supervisor'
import { describe, expect, it } from 'vitest'
import { checkFaces, checkSessionPath, FACES } from './sessionPath.ts'
import { sourcesUnder } from './source.ts'

/*
 * The session path (issue #24, ADR 0027): the faces act on a session through the one Sessions
 * service. First that the checker catches each way of calling a session verb on the Supervisor
 * in a small source made up here, then that the faces keep the rule.
 */

const root = resolve(import.meta.dirname, '..')
const check = (text: string) => checkSessionPath('packages/liveview/src/x.ts', text, SESSION_VERBS)

describe('session path: the checker fails on a face that reaches the Supervisor for a session', () => {
  it('a session verb on `yield* Supervisor`, whatever the binding is called', () => {
    const found = check(
      [
        "import { Supervisor } from '@errands/supervisor'",
        'export const f = Effect.gen(function* () {',
        '  const boss = yield* Supervisor',
        '  yield* boss.park(id)',
        '})',
      ].join('\n'),
    )
    expect(found).toHaveLength(1)
    expect(found[0]).toMatchObject({ line: 4, name: 'boss', verb: 'park' })
    expect(found[0]!.message).toBe(
      "packages/liveview/src/x.ts:4 calls 'park' on the Supervisor (boss); a face acts on a session through the " +
        'Sessions service (ADR 0027, scripts/sessionPath.ts)',
    )
  })

  it(
    'through a name that says supervisor, a SupervisorShape parameter, a callback of the tag, a destructuring, a ' +
      'passed-on verb',
    () => {
      const found = check(
        [
          'const a = (supervisor) => supervisor.view(id)',
          'const b = (s: SupervisorShape) => s.resume(id)',
          'const c = Effect.flatMap(Supervisor, (t) => t.release(id))',
          'const { drive, capacity } = core.supervisor',
          "const d = (options.park ?? this.supervisor['watch'])",
        ].join('\n'),
      )
      expect(found.map((v) => [v.line, v.verb])).toEqual([
        [1, 'view'],
        [2, 'resume'],
        [3, 'release'],
        [4, 'drive'],
        [5, 'watch'],
      ])
    },
  )

  it("what spans errands stays the supervisor's; the session verbs on Sessions pass", () => {
    expect(
      check(
        [
          'const supervisor = yield* Supervisor',
          'const sessions = yield* Sessions',
          'yield* supervisor.capacity',
          'supervisor.onHealth(() => undefined)',
          'yield* supervisor.settle',
          'yield* sessions.park(id)',
          'sessions.onChange(() => undefined)',
        ].join('\n'),
      ),
    ).toEqual([])
  })

  it('refuses a file it cannot parse rather than pass it', () => {
    expect(() => check('const = (')).toThrow(/does not parse/)
  })
})

describe('session path: the faces keep it', () => {
  it('reads every face package', () => {
    for (const dir of FACES) expect(sourcesUnder(root, dir).length, dir).toBeGreaterThan(0)
  })

  it('no face calls a session verb on the Supervisor', () => {
    expect(checkFaces(root, SESSION_VERBS).map((v) => v.message)).toEqual([])
  })
})
