/**
 * Desktop notifications (issue #26): when an agent asks for help (P3) or an errand asks for a
 * sign-in (P4) while the person is elsewhere, the live view raises a desktop `Notification` with
 * the reason — only after the person switched them on here (the button asks the browser's
 * permission, `Notification.requestPermission`), and only while this page is hidden or not
 * focused: a person looking at the page sees the card already. A click focuses the live view and
 * picks that errand.
 *
 * Nothing leaves the page: the notification is the browser's own, built from the state the host
 * pushes (names, sites, the agent's reason), never from anything the person typed.
 *
 * @example
 * const notify = useDesktopNotifications(state, select)
 * <NotifyButton notify={notify} />
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { LiveState } from '../src/protocol.ts'

/** One thing that may deserve a notification: its key (new ones only), where it is, and the words. */
interface Arrival {
  readonly key: string
  readonly conversationId: string
  readonly title: string
  readonly body: string
}

/** What the state asks of the person now: requests for help and sign-in questions. */
const arrivalsOf = (state: LiveState): ReadonlyArray<Arrival> => [
  ...state.conversations.flatMap((c) =>
    c.help === undefined
      ? []
      : [
          {
            key: `help:${c.conversationId}:${c.help.askedAt}`,
            conversationId: c.conversationId,
            title: `${c.conversationId} asks for your help`,
            body: c.help.reason,
          },
        ],
  ),
  ...(state.questions ?? []).map((q) => ({
    key: `question:${q.id}`,
    conversationId: q.conversationId,
    title: `Sign in to ${q.site}?`,
    body: `${q.conversationId} asks to use your sign-in for ${q.site}.`,
  })),
]

/** Whether the person is looking elsewhere (another tab, window or app). */
const away = (): boolean => document.visibilityState !== 'visible' || !document.hasFocus()

/** The switch's state: unsupported, off (not asked or not granted), on, or refused by the browser. */
export type NotifyStatus = 'unsupported' | 'off' | 'on' | 'denied'

/** The notifications' switch and its state. */
export interface Notify {
  readonly status: NotifyStatus
  readonly enable: () => void
}

/**
 * Raises a notification for each request or question that arrives while the person is away,
 * once they switched notifications on; a click focuses the page and picks the errand.
 *
 * @example
 * const notify = useDesktopNotifications(state, (id) => select(id))
 */
export const useDesktopNotifications = (state: LiveState | null, pick: (conversationId: string) => void): Notify => {
  const supported = typeof Notification !== 'undefined'
  const [on, setOn] = useState(false)
  const [denied, setDenied] = useState(supported && Notification.permission === 'denied')
  const seen = useRef<Set<string> | null>(null)
  const pickRef = useRef(pick)
  pickRef.current = pick

  useEffect(() => {
    if (state === null) return
    const arrivals = arrivalsOf(state)
    const known = seen.current
    seen.current = new Set(arrivals.map((a) => a.key))
    // The first state is what was waiting before this page looked: shown as cards, not announced.
    if (known === null || !on || !supported || Notification.permission !== 'granted' || !away()) return
    for (const a of arrivals) {
      if (known.has(a.key)) continue
      const n = new Notification(a.title, { body: a.body, tag: a.key })
      n.onclick = () => {
        window.focus()
        pickRef.current(a.conversationId)
        n.close()
      }
    }
  }, [state, on])

  const enable = () => {
    if (!supported) return
    void Notification.requestPermission().then((permission) => {
      setOn(permission === 'granted')
      setDenied(permission === 'denied')
    })
  }
  return { status: !supported ? 'unsupported' : on ? 'on' : denied ? 'denied' : 'off', enable }
}

/** The header's switch: "Notify me" until on; says so when the browser refuses. */
export const NotifyButton = ({ notify }: { notify: Notify }) => {
  switch (notify.status) {
    case 'unsupported':
      return null
    case 'on':
      return (
        <span
          class="notify muted"
          data-testid="notify"
          data-notify="on"
          title="A desktop notification when an errand asks for help or a sign-in while this page is in the background."
        >
          Notifications on
        </span>
      )
    case 'denied':
      return (
        <span class="notify muted" data-testid="notify" data-notify="denied">
          Notifications are blocked in this browser's site settings.
        </span>
      )
    default:
      return (
        <button
          type="button"
          class="link notify"
          name="notify"
          data-testid="notify"
          data-notify="off"
          title={
            'Ask this browser to show a desktop notification when an errand asks for help or a sign-in while ' +
            'this page is in the background.'
          }
          onClick={notify.enable}
        >
          Notify me
        </button>
      )
  }
}
