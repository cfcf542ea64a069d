/**
 * Taking the wheel (P1–P3, issue #26) in the live view: the agents' requests for help at the top,
 * "Take the wheel" / "Hand back" with a note beside a watched errand, the banner while a person
 * drives, and the screencast's pointer, wheel and keyboard sent to the errand's active tab.
 *
 * Events are mapped from the canvas to the page's CSS pixels (the frame says the page's size) and
 * sent in order, one call at a time; the keyboard is a hidden field over the picture
 * (`keyboard.ts`). What the person types goes to the host and nowhere else — no log, no storage (P5).
 *
 * @example
 * <HelpRequests conversations={state.conversations} pick={select} now={now} />
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { PageInput } from '@errands/runtime'
import type { LiveConversation } from '../src/protocol.ts'
import { attachKeyboard, listen } from './keyboard.ts'

/** The agents waiting for a person, oldest first; a click picks the conversation. */
export const HelpRequests = ({
  conversations,
  pick,
  now,
}: {
  conversations: ReadonlyArray<LiveConversation>
  pick: (id: string) => void
  now: number
}) => {
  const asking = conversations.filter((c) => c.help !== undefined).sort((a, b) => a.help!.askedAt - b.help!.askedAt)
  return asking.length === 0 ? null : (
    <section class="questions" aria-label="Requests for help">
      {asking.map((c) => (
        <section key={c.conversationId} class="question help" role="alert" data-help={c.conversationId}>
          <h2>
            <strong>{c.conversationId}</strong> asks for your help
          </h2>
          <p class="reason">“{c.help!.reason}”</p>
          <div class="actions">
            <button type="button" name="help-watch" onClick={() => pick(c.conversationId)}>
              Watch it
            </button>
            <span class="muted">
              Take the wheel, do what it needs, then hand back · waits{' '}
              {Math.max(0, Math.round((c.help!.expiresAt - now) / 1000))} s more
            </span>
          </div>
        </section>
      ))}
    </section>
  )
}

/** "Take the wheel", or — while the person drives — the banner, a note and "Hand back". */
export const WheelControls = ({
  c,
  act,
  busy,
}: {
  c: LiveConversation
  act: (path: string, body?: unknown) => void
  busy: boolean
}) => {
  const [note, setNote] = useState('')
  const base = `/live/api/conversations/${encodeURIComponent(c.conversationId)}`
  if (c.reason === 'main' || (c.state !== 'active' && c.state !== 'parked')) return null
  if (c.personDriving !== true) {
    return (
      <button type="button" class="wheel" name="take-wheel" disabled={busy} onClick={() => act(`${base}/take-wheel`)}>
        Take the wheel
      </button>
    )
  }
  return (
    <div class="driving" role="status" data-testid="driving-banner">
      <strong>You are driving this browser.</strong> The agent waits until you hand it back. Click and type on the
      picture below.
      <div class="actions">
        <input
          name="hand-back-note"
          placeholder="A note for the agent (optional)"
          maxLength={2000}
          value={note}
          onInput={(e) => setNote((e.target as HTMLInputElement).value)}
        />
        <button
          type="button"
          class="wheel"
          name="hand-back"
          disabled={busy}
          onClick={() => {
            act(`${base}/hand-back`, note.trim() === '' ? {} : { note })
            setNote('')
          }}
        >
          Hand back
        </button>
      </div>
    </div>
  )
}

/**
 * Makes the canvas drive the page while `driving`: the pointer on the canvas, the keyboard through
 * the capture field laid over it (`keyboard.ts`: typed text, IME, paste, keys); the events go to
 * `send` in order, one call at a time. A press on the picture focuses the field and moves it
 * there, so an input method's candidate window opens where the person types.
 *
 * @example
 * useWheelInput(canvas, field, driving, (events) => call(`${base}/input`, 'POST', { events }), setNotice)
 */
export const useWheelInput = (
  canvas: { current: HTMLCanvasElement | null },
  field: { current: HTMLTextAreaElement | null },
  driving: boolean,
  send: (events: ReadonlyArray<PageInput>) => Promise<unknown>,
  notice: (message: string | null) => void,
) => {
  const queue = useRef<Promise<unknown>>(Promise.resolve())
  useEffect(() => {
    const c = canvas.current
    const f = field.current
    if (!c || !f || !driving) return
    const post = (events: ReadonlyArray<PageInput>) =>
      void (queue.current = queue.current.then(() => send(events)).catch(() => undefined))
    // The frame's CSS size over the drawn size: where on the page the pointer is.
    const at = (e: MouseEvent) => {
      const r = c.getBoundingClientRect()
      const w = Number(c.dataset.pageWidth ?? c.width)
      const h = Number(c.dataset.pageHeight ?? c.height)
      return {
        x: Math.round(((e.clientX - r.left) / r.width) * w),
        y: Math.round(((e.clientY - r.top) / r.height) * h),
      }
    }
    const button = (e: MouseEvent) =>
      (e.button === 2 ? 'right' : e.button === 1 ? 'middle' : 'left') as 'left' | 'right' | 'middle'
    let down = false
    const onDown = (e: MouseEvent) => {
      e.preventDefault()
      f.style.left = `${e.clientX - c.getBoundingClientRect().left}px`
      f.style.top = `${e.clientY - c.getBoundingClientRect().top}px`
      f.focus({ preventScroll: true })
      down = true
      const p = at(e)
      post([
        { type: 'mouse', action: 'move', ...p },
        { type: 'mouse', action: 'down', ...p, button: button(e) },
      ])
    }
    const onUp = (e: MouseEvent) => {
      if (!down) return
      down = false
      post([{ type: 'mouse', action: 'up', ...at(e), button: button(e) }])
    }
    const onMove = (e: MouseEvent) => {
      if (down) post([{ type: 'mouse', action: 'move', ...at(e) }])
    }
    const onWheel = (e: WheelEvent) => {
      e.preventDefault()
      post([{ type: 'wheel', ...at(e), dx: Math.round(e.deltaX), dy: Math.round(e.deltaY) }])
    }
    const noMenu = (e: Event) => e.preventDefault()
    const offCanvas = listen(c, [
      ['mousedown', onDown],
      ['mousemove', onMove],
      ['wheel', onWheel, { passive: false }],
      ['contextmenu', noMenu],
    ])
    const offWindow = listen(window, [['mouseup', onUp]])
    const offKeyboard = attachKeyboard(f, post, notice)
    // Taking the wheel puts the keyboard on the errand's page at once.
    f.focus({ preventScroll: true })
    return () => {
      offCanvas()
      offWindow()
      offKeyboard()
      notice(null)
    }
  }, [driving, canvas.current, field.current])
}
