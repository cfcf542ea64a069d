/**
 * The live view's JSON API for the person's buttons (V1, V3, E2): the state, park / resume /
 * close / own-browser per conversation, the inspector switch, and the Passwords page (W1,
 * `passwords.ts`). Called once the request passed the gate (`gate.ts`) and the sign-in; bodies are
 * read by the edge's reader (16 KiB at most; a passwords import 1 MiB) and every refusal is an
 * `@errands/edge` error, answered by its renderer.
 *
 * @example
 * const api = makeLiveApi({ sessions, options, run, readState, pushState, log })
 * await api(req, res, '/live/api/conversations/session%3Ak1/park')
 */
import {
  BadRequest,
  checkMethod,
  NotFound,
  parseJson,
  readNodeBody,
  sendError,
  sendJson,
  utf8,
  type EdgeError,
} from '@errands/edge'
import type { SessionsShape } from '@errands/sessions'
import { Effect, Either } from 'effect'
import type * as http from 'node:http'
import { paths, type LiveState } from './protocol.ts'
import { answerRoute } from './questions.ts'
import { wheelRoute } from './wheel.ts'
import { passwordsRoute } from './passwords.ts'
import type { RuntimeShape } from '@errands/runtime'
import type { LiveViewOptions } from './server.ts'

/** The largest body the live view reads (bytes). */
export const MAX_LIVE_BODY = 16 * 1024

/** A conversation id as the live view takes it: 1–200 printable ASCII characters. */
export const CONVERSATION_ID = /^[\x21-\x7e]{1,200}$/

/**
 * A request's JSON body (16 KiB at most; blank is `{}`), or the edge's refusal.
 *
 * @example
 * const body = await readJson(req) // Either<unknown, PayloadTooLarge | BadRequest>
 */
export const readJson = (req: http.IncomingMessage): Promise<Either.Either<unknown, EdgeError>> =>
  Effect.runPromise(Effect.either(Effect.flatMap(readNodeBody(req, MAX_LIVE_BODY), (bytes) => parseJson(utf8(bytes)))))

/** What the API works with. */
export interface LiveApiDeps {
  readonly sessions: SessionsShape
  readonly runtime: RuntimeShape
  readonly options: Pick<
    LiveViewOptions,
    'inspector' | 'release' | 'ownBrowser' | 'park' | 'resume' | 'questions' | 'wheel' | 'passwords'
  >
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  readonly readState: Effect.Effect<LiveState>
  readonly pushState: () => void
  readonly log: (line: string) => void
}

const onOff = () => new BadRequest({ reason: 'invalid-body', message: 'Send {"on": true} or {"on": false}.' })

/**
 * The API handler for paths under `/live/api/`.
 *
 * @example
 * await makeLiveApi(deps)(req, res, paths.state)
 */
export const makeLiveApi = (deps: LiveApiDeps) => {
  const { sessions, options, run } = deps

  const action = async (res: http.ServerResponse, effect: Effect.Effect<unknown, unknown>): Promise<void> => {
    const outcome = await run(Effect.either(effect))
    if (Either.isLeft(outcome)) {
      const f = sendError(res, outcome.left)
      if (f.status >= 500) deps.log(`live view: action failed with ${f.code}`)
      return
    }
    sendJson(res, 200, { state: await run(deps.readState) })
    deps.pushState()
  }

  return async (req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<void> => {
    const method = req.method ?? 'GET'
    if (path === paths.state) {
      const wrong = checkMethod(method, ['GET'], path)
      if (wrong) return void sendError(res, wrong)
      return sendJson(res, 200, await run(deps.readState))
    }
    // W1: the person's saved sign-ins; the import reads its own, larger limit (passwords.ts).
    const passwords = passwordsRoute(req, path, options.passwords)
    if (passwords !== undefined) {
      if (!Effect.isEffect(passwords)) return void sendError(res, passwords)
      const done = await run(Effect.either(passwords))
      if (Either.isRight(done)) return sendJson(res, 200, done.right)
      const f = sendError(res, done.left)
      if (f.status >= 500) deps.log(`live view: a passwords call failed with ${f.code}`)
      return
    }
    const wrong = checkMethod(method, ['POST', 'PUT'], path)
    if (wrong) return void sendError(res, wrong)
    const body = await readJson(req)
    if (Either.isLeft(body)) return void sendError(res, body.left)
    if (typeof body.right !== 'object' || body.right === null) {
      return void sendError(res, new BadRequest({ reason: 'invalid-body', message: 'The body is not a JSON object.' }))
    }
    const fields = body.right as Record<string, unknown>
    if (path === paths.inspector) {
      if (!options.inspector)
        return void sendError(res, new NotFound({ reason: 'no-route', message: 'This host has no inspector switch.' }))
      if (typeof fields.on !== 'boolean') return void sendError(res, onOff())
      return action(res, options.inspector.set(fields.on))
    }
    const question = answerRoute(path, fields, options.questions)
    if (question !== undefined)
      return Either.isLeft(question) ? void sendError(res, question.left) : action(res, question.right)
    // P1, P2 (issue #26): take the wheel, hand back, and the person's input while they drive.
    const wheel = wheelRoute(path, fields, { sessions, runtime: deps.runtime, wheel: options.wheel })
    if (wheel !== undefined) {
      if (Either.isLeft(wheel)) return void sendError(res, wheel.left)
      if (wheel.right.answersState) return action(res, wheel.right.effect)
      const applied = await run(Effect.either(wheel.right.effect))
      return Either.isLeft(applied) ? void sendError(res, applied.left) : sendJson(res, 200, applied.right)
    }
    const match = /^\/live\/api\/conversations\/([^/]+)\/(park|resume|close|own-browser)$/.exec(path)
    if (!match)
      return void sendError(
        res,
        new NotFound({ reason: 'no-route', message: `There is no live-view endpoint ${path.slice(0, 200)}.` }),
      )
    let id: string
    try {
      id = decodeURIComponent(match[1]!)
    } catch {
      return void sendError(
        res,
        new BadRequest({ reason: 'invalid-parameter', message: 'The conversation id is not valid percent-encoding.' }),
      )
    }
    if (!CONVERSATION_ID.test(id)) {
      return void sendError(
        res,
        new BadRequest({ reason: 'invalid-parameter', message: 'A conversation id is 1–200 printable characters.' }),
      )
    }
    switch (match[2]) {
      case 'park':
        return action(res, (options.park ?? sessions.park)(id))
      case 'resume':
        return action(res, (options.resume ?? sessions.resume)(id))
      case 'close':
        return action(res, options.release(id))
      default: {
        if (typeof fields.on !== 'boolean') return void sendError(res, onOff())
        return action(res, options.ownBrowser(id, fields.on))
      }
    }
  }
}
