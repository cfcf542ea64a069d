/**
 * A raw CDP client for the DevTools tests of #27: every answer as it came (result or error), the
 * events it received, and how its connection ended (code and reason).
 *
 * @example
 * const cdp = await RawCdp.open(url)
 * const { result } = await cdp.send('Target.createTarget', { url: 'about:blank' })
 */
import WebSocket from 'ws'

/** One answer: a result or a CDP error. */
export interface Answer {
  readonly result?: Record<string, unknown>
  readonly error?: { readonly code: number; readonly message: string }
}

/** A raw CDP connection that keeps what it received. */
export class RawCdp {
  private seq = 0
  private readonly waiting = new Map<number, (answer: Answer) => void>()
  readonly events: Array<{
    readonly method: string
    readonly params: Record<string, unknown>
    readonly sessionId?: string
  }> = []
  ended: { readonly code: number; readonly reason: string } | undefined
  private readonly endListeners: Array<() => void> = []

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as {
        id?: number
        method?: string
        params?: Record<string, unknown>
        sessionId?: string
      } & Answer
      if (m.id !== undefined) {
        const done = this.waiting.get(m.id)
        this.waiting.delete(m.id)
        done?.({ ...(m.result ? { result: m.result } : {}), ...(m.error ? { error: m.error } : {}) })
      } else if (m.method)
        this.events.push({
          method: m.method,
          params: m.params ?? {},
          ...(m.sessionId ? { sessionId: m.sessionId } : {}),
        })
    })
    ws.on('close', (code, reason) => {
      this.ended = { code, reason: reason.toString() }
      for (const done of this.waiting.values()) done({ error: { code: -1, message: `closed: ${this.ended.reason}` } })
      this.waiting.clear()
      for (const l of this.endListeners.splice(0)) l()
    })
    ws.on('error', () => undefined)
  }

  /** Connects. @example await RawCdp.open(url) */
  static open(url: string, options: WebSocket.ClientOptions = {}): Promise<RawCdp> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 512 * 1024 * 1024, ...options })
      ws.once('open', () => resolve(new RawCdp(ws)))
      ws.once('error', reject)
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
    })
  }

  /** Sends a command and waits for its answer (10 s at most). @example await cdp.send('Browser.getVersion') */
  send(method: string, params: object = {}, sessionId?: string): Promise<Answer> {
    if (this.ended) return Promise.resolve({ error: { code: -1, message: `closed: ${this.ended.reason}` } })
    const id = ++this.seq
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ error: { code: -2, message: 'no answer' } }), 10_000)
      this.waiting.set(id, (answer) => (clearTimeout(timer), resolve(answer)))
      this.ws.send(JSON.stringify(sessionId === undefined ? { id, method, params } : { id, method, params, sessionId }))
    })
  }

  /** A new tab of the errand, attached flatten: its session id. @example const s = await cdp.newPage('about:blank') */
  async newPage(url = 'about:blank'): Promise<{ readonly targetId: string; readonly sessionId: string }> {
    const created = await this.send('Target.createTarget', { url })
    if (!created.result) throw new Error(`createTarget: ${created.error?.message}`)
    const targetId = created.result.targetId as string
    const attached = await this.send('Target.attachToTarget', { targetId, flatten: true })
    if (!attached.result) throw new Error(`attachToTarget: ${attached.error?.message}`)
    return { targetId, sessionId: attached.result.sessionId as string }
  }

  /** Resolves when the connection has ended. @example await cdp.closed() */
  closed(): Promise<{ readonly code: number; readonly reason: string }> {
    return this.ended ? Promise.resolve(this.ended) : new Promise((r) => this.endListeners.push(() => r(this.ended!)))
  }

  /** Closes from this side. @example cdp.close() */
  close(): void {
    this.ws.close()
  }
}
