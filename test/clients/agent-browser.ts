/**
 * Compatibility matrix (#22): agent-browser (`--cdp <url>`, the native binary its npm package
 * ships; no browser download) runs the agent task through an errand's DevTools URL and against
 * plain Chromium; the errand must behave the same. Each step is one CLI command, as an agent
 * issues them; elements are acted on by the `@eN` refs of its `snapshot`, as an agent does.
 * Offline: a throwaway HOME and namespace per side, and no Chrome version check (it fetches
 * chromereleases.googleblog.com).
 *
 * It has no raw CDP command (`get cdp-url` hands the URL to some other client), so the task's
 * `cdp` step is not offered.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { arch, platform, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { installed, type MatrixClient, must, type Outcome, runTask, type Side, type TaskSite } from './matrix.ts'

const pkg = installed('agent-browser', 'agent-browser')
// What bin/agent-browser.js execs on this platform (glibc Linux here).
const binary = join(dirname(pkg.bin), `agent-browser-${platform()}-${arch()}`)
const run = promisify(execFile)

/** The ref (`@eN`) of the snapshot line `- role "name" [… ref=eN]` (`name` '': the role with no name). */
const refOf = (snapshot: string, role: string, name: string): string => {
  const line = snapshot
    .split('\n')
    .find((l) => (name === '' ? new RegExp(`- ${role} \\[`).test(l) : l.includes(`- ${role} "${name}"`)))
  const ref = line === undefined ? undefined : /ref=(e\d+)/.exec(line)?.[1]
  if (ref === undefined) throw new Error(`no ${role} "${name}" in the snapshot`)
  return `@${ref}`
}

const task = async (wsUrl: string, side: Side, site: TaskSite): Promise<Outcome> => {
  const home = mkdtempSync(join(tmpdir(), 'errands-agent-browser-'))
  const ab = async (...args: string[]): Promise<string> => {
    try {
      const { stdout } = await run(binary, ['--cdp', wsUrl, ...args], {
        env: {
          ...process.env,
          HOME: home,
          AGENT_BROWSER_NAMESPACE: `matrix-${side}`,
          AGENT_BROWSER_SESSION: `matrix-${side}`,
          AGENT_BROWSER_NO_VERSION_CHECK: '1',
          AGENT_BROWSER_IDLE_TIMEOUT_MS: '120000',
        },
        timeout: 30_000,
      })
      return stdout
    } catch (e) {
      const { stdout, stderr } = e as { stdout?: string; stderr?: string }
      throw new Error(`${args[0]}: ${`${stderr ?? ''}${stdout ?? ''}`.trim().split('\n')[0] ?? String(e)}`)
    }
  }
  let snapshot = ''
  let otherTab = ''
  try {
    return await runTask({
      navigate: async () => void (await ab('open', site.url('/task'))),
      read: async () => {
        snapshot = await ab('snapshot')
        must(snapshot.includes('heading "Hello task"'), 'heading not in the snapshot')
      },
      click: async () => {
        await ab('click', refOf(snapshot, 'button', 'Click'))
        must((await ab('get', 'text', '#h')).trim() === 'Clicked', 'click had no effect')
      },
      type: async () => {
        await ab('fill', refOf(snapshot, 'textbox', ''), 'typed by agent-browser')
        must((await ab('get', 'value', '#i')).trim() === 'typed by agent-browser', 'field not filled')
      },
      dialog: async () => {
        const clicked = await ab('click', refOf(snapshot, 'button', 'Confirm'))
        // The click may return before the page opens its confirm(): ask, as an agent would, until it shows.
        let status = clicked.includes('confirm dialog is blocking') ? 'confirm dialog is open' : ''
        for (let i = 0; i < 100 && !status.includes('confirm dialog is open'); i++) {
          status = await ab('dialog', 'status')
          if (!status.includes('confirm dialog is open')) await new Promise((r) => setTimeout(r, 100))
        }
        must(status.includes('confirm dialog is open'), `no dialog: ${status.slice(0, 200)}`)
        await ab('dialog', 'accept')
        const title = (await ab('get', 'title')).trim()
        must(title === 'confirm:true', `the page got ${title}`)
      },
      newTab: async () => {
        await ab('click', refOf(snapshot, 'link', 'Open other'))
        // The tab may open after the click returns: list the tabs, as an agent would, until it is there.
        for (let i = 0; i < 100 && otherTab === ''; i++) {
          otherTab = /\[(t\d+)\][^\n]*\/other/.exec(await ab('tab'))?.[1] ?? ''
          if (otherTab === '') await new Promise((r) => setTimeout(r, 100))
        }
        must(otherTab !== '', 'no tab at /other')
      },
      switch: async () => {
        await ab('tab', otherTab)
        // The tab is listed at its URL before its document has loaded: ask, as an agent would, until it has.
        let title = (await ab('get', 'title')).trim()
        for (let i = 0; i < 50 && title === ''; i++) {
          await new Promise((r) => setTimeout(r, 100))
          title = (await ab('get', 'title')).trim()
        }
        must(title === 'Other', `not the other tab: ${title}`)
      },
      close: async () => {
        await ab('tab', 'close', otherTab)
        must(!(await ab('tab')).includes('/other'), 'tab still listed')
      },
      screenshot: async () => {
        const file = join(home, 'shot.png')
        await ab('screenshot', file)
        must(readFileSync(file).subarray(1, 4).toString() === 'PNG', 'not a PNG')
      },
      cdp: 'no raw CDP command (`get cdp-url` hands the URL to another client)',
    })
  } finally {
    // Ends the session's daemon; with --cdp it leaves the browser it did not launch alone.
    await ab('close').catch(() => undefined)
    rmSync(home, { recursive: true, force: true })
  }
}

/** The client, for matrix.test.ts. */
export const client: MatrixClient = { name: `agent-browser ${pkg.version} (--cdp)`, key: 'matrix-agent-browser', task }
