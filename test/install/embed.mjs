/**
 * An embedder's program, run by install.test.ts inside an empty project that installed the packed
 * tarballs (R4, issue #28): README's embedding example on real Chromium. Plain JavaScript with
 * plain `node`: what an orchestration backend that `npm install`s Errands would write. Prints one
 * JSON line: where the packages were loaded from and what the errand saw.
 *
 * @example
 * // node embed.mjs   (cwd: the temp project; CHROMIUM_PATH, EMBED_DATA_DIR set)
 */
import { createServer } from 'node:http'
import { Errands } from '@errands/supervisor'
import { Runtime } from '@errands/runtime'
import { ChromiumRuntime } from '@errands/runtime-chromium'
import { Effect } from 'effect'

const server = createServer((request, response) => {
  response.setHeader('content-type', 'text/html')
  response.end(`<title>packed ${request.url}</title><p>hello from outside the monorepo</p>`)
})
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const url = `http://127.0.0.1:${server.address().port}/errand`

const errands = await Errands.create({
  settings: { maxErrands: 2 },
  runtime: ChromiumRuntime.layer({ dataDir: process.env.EMBED_DATA_DIR }),
})
const states = []
errands.on('change', (view) => states.push(view.state))
try {
  await errands.open({ id: 'packed-1', kind: 'task' })
  const tab = await errands.use('packed-1', ({ contextId }) =>
    errands.runWith(Effect.flatMap(Runtime, (runtime) => runtime.openTab(contextId, url))),
  )
  await errands.taskChanged('packed-1', 'done')
  process.stdout.write(
    `${JSON.stringify({
      loaded: {
        supervisor: import.meta.resolve('@errands/supervisor'),
        runtimeChromium: import.meta.resolve('@errands/runtime-chromium'),
        playwright: import.meta.resolve('playwright-core'),
      },
      tab: { url: tab.url, title: tab.title },
      states,
    })}\n`,
  )
} finally {
  await errands.close()
  server.close()
}
