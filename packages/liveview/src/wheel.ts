/**
 * Taking the wheel from the live view (P1, P2, issue #26): the person's "Take the wheel" and
 * "Hand back" buttons, and what they do on the screencast while they drive — pointer, wheel and
 * keyboard events sent to `POST /live/api/conversations/:id/input` and applied to the errand's
 * active tab through the runtime's page input verbs, as trusted input.
 *
 * What the person types is never logged or journaled (P5, L7): events are checked, applied and
 * forgotten; a refusal names the field that was wrong, never its value.
 *
 * @example
 * const route = wheelRoute('/live/api/conversations/session%3Ak1/input', { events }, deps)
 */
import { BadRequest, NotFound, type EdgeError } from '@errands/edge'
import type { PageInput, RuntimeShape } from '@errands/runtime'
import type { SessionsShape } from '@errands/sessions'
import { Effect, Either, Schema } from 'effect'
import { isKeyChord, MAX_TEXT_EVENT } from './keys.ts'
import type { PersonFields } from './conversations.ts'

/** At most this many events per call (a burst of typing or a drag). */
export const MAX_INPUT_EVENTS = 200

/**
 * Input sent for an errand nobody at this live view has the wheel of (P1): take it first.
 *
 * @example
 * new NotAtTheWheel({ reason: 'not-driving', message: 'Take the wheel first …' }).status // 409
 */
export class NotAtTheWheel extends Schema.TaggedError<NotAtTheWheel>()('NotAtTheWheel', {
  reason: Schema.Literal('not-driving', 'no-page'),
  message: Schema.String,
}) {
  readonly status = 409
}

const WHEEL_PATH = /^\/live\/api\/conversations\/([^/]+)\/(take-wheel|hand-back|input)$/

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= 100_000
const BUTTONS = new Set(['left', 'right', 'middle'])

/** One checked event, or `undefined`. Only the shapes of the runtime's `PageInput`. */
const inputOf = (raw: unknown): PageInput | undefined => {
  if (typeof raw !== 'object' || raw === null) return undefined
  const e = raw as Record<string, unknown>
  switch (e.type) {
    case 'mouse': {
      const action = e.action
      if (action !== 'move' && action !== 'down' && action !== 'up' && action !== 'click' && action !== 'dblclick')
        return undefined
      if (!finite(e.x) || !finite(e.y)) return undefined
      const button = e.button
      if (button !== undefined && !BUTTONS.has(button as string)) return undefined
      return {
        type: 'mouse',
        action,
        x: e.x,
        y: e.y,
        ...(button === undefined ? {} : { button: button as 'left' | 'right' | 'middle' }),
      }
    }
    case 'wheel':
      if (!finite(e.dx) || !finite(e.dy)) return undefined
      if ((e.x !== undefined && !finite(e.x)) || (e.y !== undefined && !finite(e.y))) return undefined
      return {
        type: 'wheel',
        dx: e.dx,
        dy: e.dy,
        ...(finite(e.x) ? { x: e.x } : {}),
        ...(finite(e.y) ? { y: e.y } : {}),
      }
    case 'key': {
      const action = e.action
      const key = e.key
      if (action !== 'down' && action !== 'up' && action !== 'press') return undefined
      // A named key or an ASCII character with modifiers (keys.ts): what the runtime's keyboard knows.
      if (typeof key !== 'string' || key.length > 40 || !isKeyChord(key)) return undefined
      // Only a press takes a chord: the runtime's keyboard holds one key down at a time.
      if (action !== 'press' && /.\+./.test(key)) return undefined
      return { type: 'key', action, key }
    }
    case 'text': {
      const text = e.text
      if (typeof text !== 'string' || text.length === 0 || text.length > MAX_TEXT_EVENT) return undefined
      return { type: 'text', text }
    }
    default:
      return undefined
  }
}

/**
 * The events of an input body, or the refusal (which never quotes what was typed).
 *
 * @example
 * parseInput({ events: [{ type: 'text', text: 'hi' }] }) // Right([{ type: 'text', text: 'hi' }])
 */
export const parseInput = (
  fields: Readonly<Record<string, unknown>>,
): Either.Either<ReadonlyArray<PageInput>, BadRequest> => {
  const events = fields.events
  if (!Array.isArray(events) || events.length === 0 || events.length > MAX_INPUT_EVENTS) {
    return Either.left(
      new BadRequest({
        reason: 'invalid-body',
        message: `Send {"events": [...]} with 1–${MAX_INPUT_EVENTS} mouse, wheel, key or text events.`,
      }),
    )
  }
  const out: PageInput[] = []
  for (let i = 0; i < events.length; i++) {
    const e = inputOf(events[i])
    if (e === undefined)
      return Either.left(
        new BadRequest({
          reason: 'invalid-body',
          message: `events[${i}] is not a mouse, wheel, key or text event this page can send.`,
        }),
      )
    out.push(e)
  }
  return Either.right(out)
}

/**
 * The wheel where the errand is (K4): a cluster's host takes, hands back and applies input on the
 * host that holds a session's errand, so a live view on any host drives the one page there is.
 */
export interface LiveWheel {
  readonly takeWheel: (conversationId: string) => Effect.Effect<unknown, unknown>
  readonly handBack: (conversationId: string, note?: string | undefined) => Effect.Effect<unknown, unknown>
  /** Whether a person drives an errand another host holds (asked of its owner); unset, this host's list says. */
  readonly driving?: ((conversationId: string) => Effect.Effect<boolean, unknown>) | undefined
  /**
   * An errand another host holds, as its owner has it: driving, waiting, its request for help (K4); unset, `driving`
   * says.
   */
  readonly view?: ((conversationId: string) => Effect.Effect<PersonFields, unknown>) | undefined
  /** Unset: applied here ({@link applyWheelInput} on this host's sessions and runtime). */
  readonly input?:
    | ((
        conversationId: string,
        events: ReadonlyArray<PageInput>,
      ) => Effect.Effect<{ readonly applied: number }, unknown>)
    | undefined
}

/** What the wheel's routes work with. */
export interface WheelDeps {
  readonly sessions: SessionsShape
  readonly runtime: RuntimeShape
  /** Unset: this host's sessions. */
  readonly wheel?: LiveWheel | undefined
}

/**
 * Applies input to the errand's active tab, only while a person has its wheel — on the host that
 * holds the errand (a cluster's owner runs this for the others).
 *
 * @example
 * yield* applyWheelInput({ sessions, runtime }, 'session:k1', [{ type: 'text', text: 'hi' }]) // { applied: 1 }
 */
export const applyWheelInput = (
  deps: Pick<WheelDeps, 'sessions' | 'runtime'>,
  conversationId: string,
  events: ReadonlyArray<PageInput>,
): Effect.Effect<{ readonly applied: number }, unknown> =>
  Effect.gen(function* () {
    if (!deps.sessions.personDriving(conversationId)) {
      return yield* new NotAtTheWheel({
        reason: 'not-driving',
        message: 'Take the wheel first: while the agent drives, this view only watches.',
      })
    }
    const contextId = deps.sessions.contextOf(conversationId)
    if (contextId === undefined) {
      return yield* new NotAtTheWheel({ reason: 'no-page', message: 'This errand has no page to drive right now.' })
    }
    const tabs = yield* deps.runtime.tabs(contextId)
    const active = tabs.find((t) => t.active) ?? tabs[0]
    if (active === undefined)
      return yield* new NotAtTheWheel({ reason: 'no-page', message: 'This errand has no page to drive right now.' })
    // Under the context's input lock, which the runtime keeps (docs/adr/0049-runtime-owns-the-page.md).
    return { applied: (yield* deps.runtime.pages.inputActive(contextId, events)).applied }
  })

/**
 * What a request under `/live/api/conversations/:id/` for the wheel asks for: the action and
 * whether it answers with the state (`take-wheel`, `hand-back`) or by itself (`input`); the
 * refusal; or `undefined` when the path is not the wheel's.
 *
 * @example
 * wheelRoute('/live/api/conversations/c1/hand-back', { note: 'done' }, deps) // Right({ effect, answersState: true })
 */
export const wheelRoute = (
  path: string,
  fields: Readonly<Record<string, unknown>>,
  deps: WheelDeps,
):
  | Either.Either<{ readonly effect: Effect.Effect<unknown, unknown>; readonly answersState: boolean }, EdgeError>
  | undefined => {
  const match = WHEEL_PATH.exec(path)
  if (match === null) return undefined
  let id: string
  try {
    id = decodeURIComponent(match[1]!)
  } catch {
    return Either.left(
      new BadRequest({ reason: 'invalid-parameter', message: 'The conversation id is not valid percent-encoding.' }),
    )
  }
  if (!/^[\x21-\x7e]{1,200}$/.test(id))
    return Either.left(
      new NotFound({ reason: 'no-route', message: 'A conversation id is 1–200 printable characters.' }),
    )
  switch (match[2]) {
    case 'take-wheel':
      return Either.right({ effect: (deps.wheel ?? deps.sessions).takeWheel(id), answersState: true })
    case 'hand-back': {
      const note = fields.note
      if (note !== undefined && note !== null && (typeof note !== 'string' || note.length > 2_000)) {
        return Either.left(
          new BadRequest({ reason: 'invalid-body', message: 'A note is text of at most 2,000 characters.' }),
        )
      }
      const text = typeof note === 'string' && note.trim() !== '' ? note.trim() : undefined
      return Either.right({ effect: (deps.wheel ?? deps.sessions).handBack(id, text), answersState: true })
    }
    default: {
      const input = deps.wheel?.input
      return Either.map(parseInput(fields), (events) => ({
        effect: input ? input(id, events) : applyWheelInput(deps, id, events),
        answersState: false,
      }))
    }
  }
}
