/**
 * `GET /v1/localhosts` (B3, stateless): which loopback ports serve HTTP right now — a bounded
 * scan of a configured list of common dev-server ports on 127.0.0.1 (never the host's own
 * ports, G2), a few at a time, each with a short deadline.
 *
 * @example
 * const found = await scanLocalhosts({ ports: [3000, 5173], exclude: [7777], timeoutMs: 400 })
 */
import * as http from 'node:http'

/** One loopback port that answered HTTP. */
export interface LocalService {
  readonly port: number
  readonly url: string
  readonly status: number
  /** The `Server` header, when sent. */
  readonly server: string | null
  /** The HTML `<title>`, when the page has one in its first 64 KB. */
  readonly title: string | null
}

/** How to scan. */
export interface ScanOptions {
  readonly ports: ReadonlyArray<number>
  /** The engine's own ports: never probed. */
  readonly exclude: ReadonlyArray<number>
  readonly timeoutMs?: number | undefined
  readonly concurrency?: number | undefined
}

const probe = (port: number, timeoutMs: number): Promise<LocalService | undefined> =>
  new Promise((resolve) => {
    let done = false
    const finish = (value: LocalService | undefined) => {
      if (done) return
      done = true
      clearTimeout(timer)
      request.destroy()
      resolve(value)
    }
    const timer = setTimeout(() => finish(undefined), timeoutMs)
    const request = http.get(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        agent: false,
        headers: { accept: 'text/html,*/*', 'user-agent': 'errands-host' },
      },
      (response) => {
        const chunks: Array<Buffer> = []
        let size = 0
        const report = () => {
          const html = Buffer.concat(chunks).toString('utf-8')
          const title = /<title[^>]*>([^<]{0,200})<\/title>/i.exec(html)?.[1]?.trim() ?? null
          const server = response.headers.server
          finish({
            port,
            url: `http://127.0.0.1:${port}/`,
            status: response.statusCode ?? 0,
            server: typeof server === 'string' ? server : null,
            title: title || null,
          })
        }
        response.on('data', (c: Buffer) => {
          if (size < 65_536) chunks.push(c)
          size += c.length
          if (size >= 65_536) report()
        })
        response.on('end', report)
        response.on('error', report)
      },
    )
    request.on('error', () => finish(undefined))
  })

/**
 * Probes the ports and returns those that answered HTTP, in port order.
 *
 * @example
 * await scanLocalhosts({ ports: DEFAULT_LOCALHOST_PORTS, exclude: [7777] })
 */
export const scanLocalhosts = async (options: ScanOptions): Promise<ReadonlyArray<LocalService>> => {
  const exclude = new Set(options.exclude)
  const ports = [...new Set(options.ports)].filter((p) => !exclude.has(p)).sort((a, b) => a - b)
  const timeoutMs = options.timeoutMs ?? 400
  const found: Array<LocalService> = []
  let next = 0
  const worker = async () => {
    while (next < ports.length) {
      const port = ports[next++]!
      const service = await probe(port, timeoutMs)
      if (service) found.push(service)
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 6, ports.length) }, worker))
  return found.sort((a, b) => a.port - b.port)
}
