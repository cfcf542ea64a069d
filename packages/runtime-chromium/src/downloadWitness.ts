/**
 * Chromium's own word on every download of the errands' browser, for the downloads Playwright
 * never reports. Playwright's server makes a `Download` only for a page it has finished taking in
 * (`CRBrowser._onDownloadWillBegin`: no initialized page, no opener → dropped), and it takes a page
 * in only after its first navigation commits. A page that downloads before that — a DevTools
 * client's tab opened at a URL that answers with an attachment (it never commits), or clicked
 * within milliseconds of `Target.createTarget` — had its file written by Chromium into
 * Playwright's artifacts folder (`<artifactsDir>/<guid>`, the context's `allowAndName`) and then
 * nobody saved it: not listed, and a client waiting for it got `canceled` a minute later.
 *
 * The witness is a browser session of the engine's own with download events on. Chromium sends a
 * session its `Browser.downloadWillBegin` / `downloadProgress` for every context once it has set a
 * behaviour with `eventsEnabled`; it sets `deny` on the browser's default context, which holds no
 * errand (measured for the DevTools views, docs/adr/0051-client-download-behaviour-is-its-view.md),
 * so no errand's own behaviour changes. Each finished download is handed on with the browser
 * context it belongs to and its artifact's path; `Downloads` saves the ones Playwright did not.
 *
 * @example
 * await witnessDownloads(browser, artifactsDir, (d) => downloads.witnessed(d))
 */
import { join } from 'node:path'
import type { Browser } from 'playwright-core'

/** A download Chromium says has finished, with where its bytes are. */
export interface WitnessedDownload {
  readonly guid: string
  readonly url: string
  readonly suggestedFilename: string
  /** The CDP browser context of the page that started it; undefined when not known (a subframe's). */
  readonly browserContextId: string | undefined
  /** Its bytes: `<artifactsDir>/<guid>`. */
  readonly path: string
  readonly state: 'completed' | 'canceled'
}

/**
 * Starts witnessing the downloads of `browser` (for as long as it runs).
 *
 * @example
 * await witnessDownloads(browser, join(tmpDir, 'artifacts'), onFinished)
 */
export const witnessDownloads = async (
  browser: Browser,
  artifactsDir: string,
  onFinished: (download: WitnessedDownload) => void,
): Promise<void> => {
  const session = await browser.newBrowserCDPSession()
  // Each target's context, from discovery: a tab whose first navigation became a download is closed
  // by Chromium soon after, and asked then it is "No target with given id found".
  const contexts = new Map<string, string | undefined>()
  const known = (info: { targetId: string; browserContextId?: string | undefined }) =>
    void contexts.set(info.targetId, info.browserContextId)
  session.on('Target.targetCreated', (p) => known(p.targetInfo))
  session.on('Target.targetInfoChanged', (p) => known(p.targetInfo))
  session.on('Target.targetDestroyed', (p) => void contexts.delete(p.targetId))
  const begun = new Map<string, Omit<WitnessedDownload, 'state'>>()
  session.on('Browser.downloadWillBegin', (p) => {
    begun.set(p.guid, {
      guid: p.guid,
      url: p.url,
      suggestedFilename: p.suggestedFilename,
      // A main frame's id is its target's (a subframe's is not a target: unknown here).
      browserContextId: contexts.get(p.frameId),
      path: join(artifactsDir, p.guid),
    })
  })
  session.on('Browser.downloadProgress', (p) => {
    const state = p.state
    if (state === 'inProgress') return
    const start = begun.get(p.guid)
    begun.delete(p.guid)
    if (start !== undefined) onFinished({ ...start, state })
  })
  await session.send('Target.setDiscoverTargets', { discover: true })
  await session.send('Browser.setDownloadBehavior', { behavior: 'deny', eventsEnabled: true })
}
