/**
 * Compatibility matrix (#22): chrome-devtools-mcp (`--wsEndpoint <url>`), spawned over stdio with
 * the MCP SDK as an agent's host spawns it, runs the agent task through an errand's DevTools URL
 * and against plain Chromium; the errand must behave the same. Elements are found as an agent
 * finds them: by role and name in `take_snapshot`'s text, then acted on by their `uid`.
 * Offline: usage statistics, CrUX lookups and the update check are off.
 *
 * It has no raw CDP tool (evaluate_script runs page JavaScript, not protocol commands), so the
 * task's `cdp` step is not offered.
 */
import {
  httpEndpoint,
  installed,
  type MatrixClient,
  must,
  type Outcome,
  runTask,
  type Side,
  startMcpServer,
  type TaskSite,
} from './matrix.ts'

const cli = installed('chrome-devtools-mcp', 'chrome-devtools-mcp').bin

/** The uid of the snapshot line `uid=… role "name"` (`name` '': a line with the role and no name). */
const uidOf = (snapshot: string, role: string, name: string): string => {
  const line = snapshot
    .split('\n')
    .find((l) => (name === '' ? new RegExp(`uid=\\S+ ${role}$`).test(l.trim()) : l.includes(` ${role} "${name}"`)))
  const uid = line === undefined ? undefined : /uid=(\S+)/.exec(line)?.[1]
  if (uid === undefined) throw new Error(`no ${role} "${name}" in the snapshot`)
  return uid
}

/** Page ids of `list_pages`'s text, with their lines. */
const pagesOf = (text: string) =>
  text.split('\n').flatMap((l) => {
    const m = /^(\d+): (.*)$/.exec(l)
    return m === null ? [] : [{ id: Number(m[1]), line: m[2]! }]
  })

const task = async (connect: ReadonlyArray<string>, site: TaskSite): Promise<Outcome> => {
  const mcp = await startMcpServer(cli, [...connect, '--usageStatistics=false', '--performanceCrux=false'], {
    CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1',
    CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: '1',
  })
  let pageId = 0
  let otherId = 0
  let snapshot = ''
  const evaluate = async (id: number, fn: string) =>
    (await mcp.call('evaluate_script', { pageId: id, function: fn })).text
  const pages = async () => pagesOf((await mcp.call('list_pages')).text)
  try {
    return await runTask({
      navigate: async () => {
        pageId = (await pages()).find((p) => p.line.includes('[selected]'))?.id ?? 0
        must(pageId > 0, 'no selected page')
        await mcp.call('navigate_page', { pageId, type: 'url', url: site.url('/task') })
      },
      read: async () => {
        snapshot = (await mcp.call('take_snapshot', { pageId })).text
        must(snapshot.includes('heading "Hello task"'), 'heading not in the snapshot')
      },
      click: async () => {
        await mcp.call('click', { pageId, uid: uidOf(snapshot, 'button', 'Click') })
        must(
          (await evaluate(pageId, "() => document.getElementById('h').textContent")).includes('"Clicked"'),
          'click had no effect',
        )
      },
      type: async () => {
        await mcp.call('fill', { pageId, uid: uidOf(snapshot, 'textbox', ''), value: 'typed by chrome-devtools-mcp' })
        must(
          (await evaluate(pageId, "() => document.getElementById('i').value")).includes(
            '"typed by chrome-devtools-mcp"',
          ),
          'field not filled',
        )
      },
      dialog: async () => {
        const clicked = await mcp.call('click', { pageId, uid: uidOf(snapshot, 'button', 'Confirm') })
        must(clicked.text.includes('opened a dialog'), `the click reported no dialog: ${clicked.text.slice(0, 200)}`)
        await mcp.call('handle_dialog', { pageId, action: 'accept' })
        const title = await evaluate(pageId, '() => document.title')
        must(title.includes('"confirm:true"'), `the page got ${title.slice(0, 200)}`)
      },
      newTab: async () => {
        await mcp.call('click', { pageId, uid: uidOf(snapshot, 'link', 'Open other') })
        // The tab opens after the click returns: list the pages, as an agent would, until it is there.
        for (let i = 0; i < 100 && otherId === 0; i++) {
          otherId = (await pages()).find((p) => p.line.includes('/other'))?.id ?? 0
          if (otherId === 0) await new Promise((r) => setTimeout(r, 100))
        }
        must(otherId > 0, 'no page at /other')
      },
      switch: async () => {
        await mcp.call('select_page', { pageId: otherId, bringToFront: true })
        must((await evaluate(otherId, '() => document.title')).includes('"Other"'), 'not the other tab')
      },
      close: async () => {
        await mcp.call('close_page', { pageId: otherId })
        must(!(await pages()).some((p) => p.id === otherId), 'tab still listed')
      },
      screenshot: async () => {
        const { images } = await mcp.call('take_screenshot', { pageId, format: 'png' })
        must(
          images.some(
            (i) => i.mimeType === 'image/png' && Buffer.from(i.data, 'base64').subarray(1, 4).toString() === 'PNG',
          ),
          'no PNG',
        )
      },
      cdp: 'no raw CDP tool (evaluate_script runs page JavaScript)',
    })
  } finally {
    await mcp.close().catch(() => undefined)
  }
}

/** The client, for matrix.test.ts. */
export const client: MatrixClient = {
  name: 'chrome-devtools-mcp (--wsEndpoint)',
  key: 'matrix-chrome-devtools-mcp',
  task: (wsUrl: string, _side: Side, site: TaskSite) => task(['--wsEndpoint', wsUrl], site),
}

/** The same server given `--browserUrl http://…`: Puppeteer reads `webSocketDebuggerUrl` from `/json/version`. */
export const browserUrlClient: MatrixClient = {
  name: 'chrome-devtools-mcp (--browserUrl)',
  key: 'matrix-chrome-devtools-mcp-http',
  task: (wsUrl: string, _side: Side, site: TaskSite) => task(['--browserUrl', httpEndpoint(wsUrl)], site),
}
