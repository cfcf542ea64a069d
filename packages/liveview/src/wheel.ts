/**
 * Taking the wheel from the live view (P1, P2, issue #26): the person's "Take the wheel" and
 * "Hand back" buttons, and what they do on the screencast while they drive — pointer, wheel and
 * keyboard events sent to `POST /live/api/conversations/:id/input` and applied to the errand's
 * active tab through the runtime's page input verbs, as trusted input.
 *
 * What the person types is never logged or journaled (P5, L7): events are checked (`LiveInputBody`, by the
 * edge's one decoder), applied and forgotten; a refusal names the event that was wrong, never its value.
 *
 * @example
 * yield* applyWheelInput({ sessions, runtime }, 'session:k1', [{ type: 'text', text: 'hi' }])
 */
import type { PageInput, RuntimeShape } from '@errands/runtime'
import type { SessionsShape } from '@errands/sessions'
import { Effect, Schema } from 'effect'
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

// Every refusal of the person's input says which event and what kind, never what was typed (P5): each part's
// message is its own, so Schema's default (which quotes the value) never reaches the answer.
const NOT_AN_EVENT = 'not a mouse, wheel, key or text event this page can send'
const Coord = Schema.Number.pipe(Schema.finite(), Schema.between(-100_000, 100_000))
const LiveMouse = Schema.Struct({
  type: Schema.Literal('mouse'),
  action: Schema.Literal('move', 'down', 'up', 'click', 'dblclick'),
  x: Coord,
  y: Coord,
  button: Schema.optional(Schema.Literal('left', 'right', 'middle')),
})
const LiveWheelTurn = Schema.Struct({
  type: Schema.Literal('wheel'),
  dx: Coord,
  dy: Coord,
  x: Schema.optional(Coord),
  y: Schema.optional(Coord),
})
const LiveKey = Schema.Struct({
  type: Schema.Literal('key'),
  action: Schema.Literal('down', 'up', 'press'),
  // A named key or an ASCII character with modifiers (keys.ts): what the runtime's keyboard knows.
  key: Schema.String.pipe(Schema.maxLength(40), Schema.filter(isKeyChord)),
}).pipe(
  // Only a press takes a chord: the runtime's keyboard holds one key down at a time.
  Schema.filter((e) => e.action === 'press' || !/.\+./.test(e.key)),
)
const LiveText = Schema.Struct({
  type: Schema.Literal('text'),
  text: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(MAX_TEXT_EVENT)),
})

/** One event of the person's input: the shapes of the runtime's `PageInput` the page sends. */
export const LiveInputEvent = Schema.Union(LiveMouse, LiveWheelTurn, LiveKey, LiveText).annotations({
  identifier: 'LiveInputEvent',
  message: () => ({ message: NOT_AN_EVENT, override: true }),
})

const EVENTS = `send 1–${MAX_INPUT_EVENTS} mouse, wheel, key or text events`

/** `POST /live/api/conversations/:id/input`. @example { events: [{ type: 'text', text: 'hi' }] } */
export const LiveInputBody = Schema.Struct({
  events: Schema.Array(LiveInputEvent)
    .annotations({ message: () => EVENTS })
    .pipe(Schema.minItems(1, { message: () => EVENTS }), Schema.maxItems(MAX_INPUT_EVENTS, { message: () => EVENTS })),
})

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
