/**
 * The agents of the host bench, in a process of their own (as agents are): reads one command a
 * line on stdin and answers one JSON line on stdout with each call's latency in ms.
 * - `all <n>`: `POST /v1/navigate` for every session at once, to the n-th of the two URLs (alternating);
 * - `one <i> <n>`: the same for session i alone.
 * Started by `overhead.ts` with `node --import tsx packages/host/bench/navigateClients.ts <base> <keys> <urls>`.
 *
 * @example
 * // stdin: "all 3\n" → stdout: '{"ms":[9.1,9.4,…],"statuses":[200,…]}\n'
 */
import { createInterface } from 'node:readline'

const [base, keysJson, urlsJson] = process.argv.slice(2)
if (base === undefined || keysJson === undefined || urlsJson === undefined)
  throw new Error('usage: navigateClients.ts <base URL> <keys as JSON> <two URLs as JSON>')
const keys: ReadonlyArray<string> = JSON.parse(keysJson)
const urls: ReadonlyArray<string> = JSON.parse(urlsJson)

const navigate = async (key: string, n: number): Promise<{ ms: number; status: number }> => {
  const start = performance.now()
  const res = await fetch(`${base}/v1/navigate`, {
    method: 'POST',
    headers: { 'x-browser-session': key, 'content-type': 'application/json' },
    body: JSON.stringify({ url: urls[n % urls.length] }),
  })
  await res.arrayBuffer()
  return { ms: performance.now() - start, status: res.status }
}

for await (const line of createInterface({ input: process.stdin })) {
  const [command, a, b] = line.trim().split(' ')
  const calls =
    command === 'all'
      ? await Promise.all(keys.map((key) => navigate(key, Number(a))))
      : [await navigate(keys[Number(a)]!, Number(b))]
  process.stdout.write(`${JSON.stringify({ ms: calls.map((c) => c.ms), statuses: calls.map((c) => c.status) })}\n`)
}
