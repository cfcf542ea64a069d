/**
 * The live view's page (V1–V2): sign in once with the host's token, then the conversations with
 * their errands, the watched one's tabs and live screencast, the person's buttons, health, and the
 * person's saved passwords (W1, `Passwords.tsx`).
 * Everything comes from the host that serves this script (no CDN); the state arrives over one
 * WebSocket, the buttons are JSON calls.
 *
 * @example
 * // served as /ui/app.js by the host; see docs/live-view.md
 */
import { render } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { nested } from '../src/nesting.ts'
import { NotifyButton, useDesktopNotifications } from './Notify.tsx'
import { PasswordsPanel } from './Passwords.tsx'
import { Questions } from './QuestionCard.tsx'
import { WaitingCount, Who } from './Waiting.tsx'
import { HelpRequests, useWheelInput, WheelControls } from './Wheel.tsx'
import {
  LIVE_HEADER,
  LIVE_PROTOCOL,
  paths,
  type ClientMessage,
  type LiveConversation,
  type LiveState,
  type LiveTab,
  type ServerMessage,
} from '../src/protocol.ts'

type Watching = Extract<ServerMessage, { type: 'watching' }>

/**
 * The sign-in id (X4): in this page's memory only — no cookie, no storage — so no other loopback
 * port the person's browser visits ever receives it. A reload asks for the token again.
 */
let liveId: string | undefined

const call = async (
  path: string,
  method: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: each caller reads the answer's fields it expects
): Promise<{ ok: boolean; status: number; json: any }> => {
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' }
  if (liveId !== undefined) headers[LIVE_HEADER] = liveId
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
  })
  const json = await response.json().catch(() => ({}))
  return { ok: response.ok, status: response.status, json }
}

const STATE_WORDS: Record<string, string> = {
  seeding: 'starting',
  active: 'open',
  parking: 'setting aside',
  parked: 'set aside',
  resuming: 'reopening',
  healing: 'healing',
  closing: 'closing',
  closed: 'closed',
  main: 'your browser',
}

const REASON_WORDS: Record<string, string> = {
  task: 'Own browser · background task',
  helper: 'Own browser · helper',
  'own-browser': 'Own browser · switched on for this chat',
  main: 'Your browser · signed in as you',
}

const ago = (at: number, now: number): string => {
  if (at <= 0) return 'never'
  const s = Math.max(0, Math.round((now - at) / 1000))
  if (s < 60) return `${s} s ago`
  if (s < 3600) return `${Math.round(s / 60)} min ago`
  return `${Math.round(s / 3600)} h ago`
}

const lentTooltip = (c: LiveConversation): string =>
  c.reason === 'main'
    ? 'This chat uses your own browser: it sees everything you are signed in to.'
    : c.lentSites.length === 0
      ? 'Isolated: none of your sign-ins were lent to it.'
      : `Isolated; your sign-ins lent to it: ${c.lentSites.join(', ')}`

const ReasonBadge = ({ c }: { c: LiveConversation }) => (
  <span class={`badge reason-${c.reason}`} data-testid="reason" title={lentTooltip(c)}>
    {REASON_WORDS[c.reason] ?? c.reason}
    {c.lentSites.length > 0 ? ` · ${c.lentSites.length} sign-in${c.lentSites.length === 1 ? '' : 's'} lent` : ''}
  </span>
)

const Tabs = ({ tabs, label }: { tabs: ReadonlyArray<LiveTab>; label: string }) =>
  tabs.length === 0 ? (
    <p class="muted">No tabs.</p>
  ) : (
    <ul class="tabs" aria-label={label}>
      {tabs.map((t) => (
        <li key={t.id} class={t.active ? 'tab active' : 'tab'} title={t.url}>
          <span class="tab-title">{t.title || '(untitled)'}</span>
          <span class="tab-url">{t.url}</span>
        </li>
      ))}
    </ul>
  )

const SignIn = ({ onSignedIn }: { onSignedIn: () => void }) => {
  const [token, setToken] = useState('')
  const [error, setError] = useState<string | null>(null)
  const submit = async (e: Event) => {
    e.preventDefault()
    const r = await call(paths.signIn, 'POST', { token })
    if (r.ok && typeof r.json?.id === 'string') {
      liveId = r.json.id
      onSignedIn()
    } else setError(r.json?.error?.message ?? 'Sign-in failed.')
  }
  return (
    <main class="signin">
      <h1>Errands — live view</h1>
      <p>
        Paste the host's token (the <code>host-token</code> file in its data directory). It is exchanged once for a
        sign-in this page keeps in memory (no cookie: reloading the page asks again); it never goes into a URL.
      </p>
      <form onSubmit={submit}>
        <label>
          Host token{' '}
          <input
            type="password"
            name="token"
            autocomplete="off"
            value={token}
            onInput={(e) => setToken((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">Sign in</button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </main>
  )
}

/** The screencast of the watched conversation, drawn on a canvas; each frame is acknowledged once drawn. */
const Screen = ({
  socket,
  watching,
  frameRef,
  driving,
}: {
  socket: WebSocket | null
  watching: Watching | null
  frameRef: { current: ((m: Extract<ServerMessage, { type: 'frame' }>) => void) | null }
  /** The conversation the person has the wheel of, when it is the watched one (P1). */
  driving: string | null
}) => {
  const canvas = useRef<HTMLCanvasElement>(null)
  const field = useRef<HTMLTextAreaElement>(null)
  const [seq, setSeq] = useState(0)
  const [keyNotice, setKeyNotice] = useState<string | null>(null)
  useWheelInput(
    canvas,
    field,
    driving !== null,
    (events) => call(`${paths.conversation(driving ?? '')}/input`, 'POST', { events }),
    setKeyNotice,
  )
  useEffect(() => {
    frameRef.current = (m) => {
      const blob = new Blob([Uint8Array.from(atob(m.data), (ch) => ch.charCodeAt(0))], { type: 'image/jpeg' })
      void createImageBitmap(blob).then((bitmap) => {
        const c = canvas.current
        if (c) {
          c.width = bitmap.width
          c.height = bitmap.height
          c.getContext('2d')?.drawImage(bitmap, 0, 0)
          c.dataset.conversation = m.conversationId
          c.dataset.pageWidth = String(m.width)
          c.dataset.pageHeight = String(m.height)
          c.dataset.seq = String(m.seq)
          setSeq(m.seq)
        }
        bitmap.close()
        const ack: ClientMessage = { type: 'ack', seq: m.seq }
        if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(ack))
      })
    }
    return () => void (frameRef.current = null)
  }, [socket])
  return (
    <figure class={driving !== null ? 'screen at-wheel' : 'screen'}>
      <div class="screen-box">
        <canvas
          ref={canvas}
          id="screen"
          width={640}
          height={400}
          data-seq={String(seq)}
          data-driving={driving !== null ? 'true' : 'false'}
        />
        {driving !== null && (
          <textarea
            ref={field}
            class="wheel-keyboard"
            name="wheel-keyboard"
            aria-label="Type into the errand's page"
            autocomplete="off"
            autocapitalize="off"
            autocorrect="off"
            spellcheck={false}
            rows={1}
          />
        )}
      </div>
      {keyNotice && (
        <p class="error" role="alert" data-testid="keyboard-notice">
          {keyNotice}
        </p>
      )}
      <figcaption>
        {watching?.tab ? (
          <>
            Live: <strong>{watching.tab.title || '(untitled)'}</strong> <span class="tab-url">{watching.tab.url}</span>
          </>
        ) : (
          (watching?.note ?? 'Pick a conversation to watch it.')
        )}
      </figcaption>
    </figure>
  )
}

const Detail = ({
  c,
  act,
  busy,
}: {
  c: LiveConversation
  act: (path: string, body?: unknown) => void
  busy: boolean
}) => {
  const base = paths.conversation(c.conversationId)
  const isolated = c.reason !== 'main'
  return (
    <section class="detail" aria-label="Conversation">
      <h2>
        {c.conversationId} <ReasonBadge c={c} />
      </h2>
      <p class="muted">
        {c.kind} · {STATE_WORDS[c.state] ?? c.state} <code>{c.detail}</code>
        {c.heldBy ? <span> · on the host at {c.heldBy}</span> : null}
        {c.lastError ? <span class="error"> · {c.lastError}</span> : null}
      </p>
      <div class="actions">
        {c.kind === 'chat' && (
          <label class="toggle">
            <input
              type="checkbox"
              name="own-browser"
              checked={isolated}
              disabled={busy}
              onChange={(e) => act(`${base}/own-browser`, { on: (e.target as HTMLInputElement).checked })}
            />
            A browser of its own for this chat
          </label>
        )}
        {isolated && c.state === 'active' && c.personDriving !== true && (
          <button type="button" disabled={busy} onClick={() => act(`${base}/park`)}>
            Set aside (park)
          </button>
        )}
        {isolated && c.state === 'parked' && (
          <button type="button" disabled={busy} onClick={() => act(`${base}/resume`)}>
            Resume
          </button>
        )}
        {c.state !== 'closed' && (c.kind === 'task' || isolated) && (
          <button type="button" class="danger" disabled={busy} onClick={() => act(`${base}/close`)}>
            Close
          </button>
        )}
      </div>
      <WheelControls c={c} act={act} busy={busy} />
      {isolated && <Tabs tabs={c.tabs} label="Tabs" />}
    </section>
  )
}

const App = () => {
  const [signedIn, setSignedIn] = useState<boolean | null>(null)
  const [state, setState] = useState<LiveState | null>(null)
  const [selected, setSelected] = useState<string | null>(null)
  const [watching, setWatching] = useState<Watching | null>(null)
  const [socket, setSocket] = useState<WebSocket | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [passwordsOpen, setPasswordsOpen] = useState(false)
  const frameRef = useRef<((m: Extract<ServerMessage, { type: 'frame' }>) => void) | null>(null)

  const load = async () => {
    if (liveId === undefined) return setSignedIn(false)
    const r = await call(paths.state, 'GET')
    if (r.status === 401) return setSignedIn(false)
    if (r.ok) {
      setState(r.json as LiveState)
      setSignedIn(true)
    }
  }
  useEffect(() => void load(), [])

  useEffect(() => {
    if (!signedIn) return
    // The socket authenticates the same way: our subprotocol, then the id (X4).
    const ws = new WebSocket(`ws://${location.host}${paths.socket}`, [LIVE_PROTOCOL, liveId ?? ''])
    ws.onmessage = (event) => {
      const m = JSON.parse(String(event.data)) as ServerMessage
      if (m.type === 'state') setState(m.state)
      else if (m.type === 'watching') setWatching(m)
      else if (m.type === 'frame') frameRef.current?.(m)
      else setNotice(m.message)
    }
    ws.onclose = () => setNotice('The connection to the host closed; reload the page to reconnect.')
    setSocket(ws)
    return () => ws.close()
  }, [signedIn])

  const select = (id: string | null) => {
    setSelected(id)
    if (!socket || socket.readyState !== WebSocket.OPEN) return
    const m: ClientMessage = id === null ? { type: 'unwatch' } : { type: 'watch', conversationId: id }
    socket.send(JSON.stringify(m))
  }
  // A socket that opens after a pick still gets the pick.
  useEffect(() => {
    if (!socket) return
    const onOpen = () =>
      selected !== null &&
      socket.send(JSON.stringify({ type: 'watch', conversationId: selected } satisfies ClientMessage))
    socket.addEventListener('open', onOpen)
    return () => socket.removeEventListener('open', onOpen)
  }, [socket, selected])

  const act = async (path: string, body: unknown = {}) => {
    setBusy(true)
    const r = await call(path, path === paths.inspector ? 'PUT' : 'POST', body)
    setBusy(false)
    if (r.ok) {
      if (r.json?.state) setState(r.json.state as LiveState)
      setNotice(null)
    } else setNotice(r.json?.error?.message ?? `The host answered ${r.status}.`)
  }

  // Issue #26: a desktop notification for a request or question that comes while the person is away.
  const notify = useDesktopNotifications(state, (id) => id !== selected && select(id))

  if (signedIn === null) return <p class="boot">Loading the live view…</p>
  if (!signedIn) return <SignIn onSignedIn={() => void load()} />
  if (!state) return <p class="boot">Loading…</p>

  const now = state.at
  const current = state.conversations.find((c) => c.conversationId === selected) ?? null
  return (
    <div class="layout">
      <header>
        <h1>Errands</h1>
        <WaitingCount conversations={state.conversations} pick={(id) => id !== selected && select(id)} />
        <p class="capacity" data-testid="capacity">
          <strong>{state.capacity.open}</strong> open · <strong>{state.capacity.parked}</strong> set aside · limit{' '}
          <strong>{state.capacity.limit}</strong>
        </p>
        {state.inspector && (
          <label class="toggle" title={state.inspector.howToOpen}>
            <input
              type="checkbox"
              name="inspector"
              checked={state.inspector.on}
              disabled={busy}
              onChange={(e) => void act(paths.inspector, { on: (e.target as HTMLInputElement).checked })}
            />
            XState inspector
            {state.inspector.on && state.inspector.url ? (
              <a href={state.inspector.url} target="_blank" rel="noreferrer noopener">
                {' '}
                open
              </a>
            ) : null}
          </label>
        )}
        <button
          type="button"
          class="passwords-toggle"
          aria-expanded={passwordsOpen}
          onClick={() => setPasswordsOpen(!passwordsOpen)}
        >
          Passwords
        </button>
        <button
          type="button"
          class="link"
          onClick={() =>
            void call(paths.signOut, 'POST').then(() => {
              liveId = undefined
              location.reload()
            })
          }
        >
          Sign out
        </button>
        <NotifyButton notify={notify} />
      </header>
      {notice && (
        <p class="error" role="alert">
          {notice}
        </p>
      )}
      <HelpRequests conversations={state.conversations} pick={(id) => id !== selected && select(id)} now={now} />
      <Questions
        questions={state.questions ?? []}
        conversations={state.conversations}
        answer={(id, a) => void act(paths.question(id), { answer: a })}
        busy={busy}
        now={now}
      />
      <nav aria-label="Conversations">
        <table class="conversations">
          <thead>
            <tr>
              <th>Conversation</th>
              <th>Browser</th>
              <th>State</th>
              <th>Who</th>
              <th>Last use</th>
            </tr>
          </thead>
          <tbody>
            {state.conversations.length === 0 && (
              <tr>
                <td colSpan={5} class="muted">
                  No conversations yet.
                </td>
              </tr>
            )}
            {nested(state.conversations).map(({ item: c, depth }) => (
              <tr
                key={c.conversationId}
                data-conversation={c.conversationId}
                data-state={c.state}
                data-depth={depth}
                data-waiting={c.waiting?.join(' ')}
                class={[
                  c.conversationId === selected ? 'selected' : '',
                  depth > 0 ? 'child' : '',
                  c.waiting ? 'waiting' : '',
                ]
                  .filter(Boolean)
                  .join(' ')}
                onClick={() => select(c.conversationId === selected ? null : c.conversationId)}
              >
                <td style={depth > 0 ? { paddingLeft: `${4 + depth * 16}px` } : undefined}>
                  {depth > 0 && (
                    <span
                      class="child-mark"
                      role="img"
                      title={`A helper of ${c.parent}`}
                      aria-label={`helper of ${c.parent}`}
                    >
                      ↳{' '}
                    </span>
                  )}
                  <button type="button" class="link">
                    {c.conversationId}
                  </button>
                </td>
                <td>
                  <ReasonBadge c={c} />
                </td>
                <td>
                  <span class={`state state-${c.state}`} title={c.detail}>
                    {STATE_WORDS[c.state] ?? c.state}
                  </span>
                </td>
                <td>
                  <Who c={c} />
                </td>
                <td>{ago(c.lastUsedAt, now)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <section class="main-browser" aria-label="Your browser">
          <h2>
            Your browser <span class="badge reason-main">signed in as you</span>
          </h2>
          <Tabs tabs={state.main.tabs} label="Your browser's tabs" />
        </section>
      </nav>
      <main>
        {current ? (
          <Detail c={current} act={(p, b) => void act(p, b)} busy={busy} />
        ) : (
          <p class="muted">Pick a conversation to see its tabs and watch it live. Watching keeps it open.</p>
        )}
        <Screen
          socket={socket}
          watching={selected === null ? null : watching}
          frameRef={frameRef}
          driving={current?.personDriving === true ? current.conversationId : null}
        />
      </main>
      {passwordsOpen && <PasswordsPanel call={call} />}
      <aside aria-label="Health">
        <h2>Health</h2>
        {state.health.length === 0 ? (
          <p class="muted">All well.</p>
        ) : (
          <ul class="health">
            {state.health.map((m, i) => (
              <li key={`${m.at}-${i}`} class={`health-${m.level}`}>
                <time>{new Date(m.at).toLocaleTimeString()}</time> {m.text}
                {m.conversationId ? <span class="muted"> · {m.conversationId}</span> : null}
              </li>
            ))}
          </ul>
        )}
      </aside>
    </div>
  )
}

render(<App />, document.getElementById('app')!)
