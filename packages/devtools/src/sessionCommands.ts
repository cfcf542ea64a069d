/**
 * What a client's command on one of a view's sessions (a tab, page, frame or worker of the errand)
 * may do: in the domains that act on the whole browser only the methods of `SESSION_METHODS`;
 * navigations, URL rewrites and paths of this machine are decided first. The browser-level
 * counterpart is browserMethods.ts; both run on a browser view (view.ts), the root one or a
 * client's browser session, alike.
 *
 * @example
 * onSessionCommand(view, { id: 7, method: 'Page.navigate', params: { url }, sessionId: 'S1' })
 */
import type { Command } from './connection.ts'
import { uploadParams } from './files.ts'
import { knownMethod } from './protocol.ts'
import { CONTEXT_METHODS, refusedOnSession, URL_METHODS } from './targets.ts'
import type { BrowserView } from './view.ts'

/**
 * A command on one of the view's sessions: refused with the reason, or sent on to the browser
 * (rewritten where the errand's context or files folder must be named).
 *
 * @example
 * if (view.sessions.has(command.sessionId)) onSessionCommand(view, command)
 */
export const onSessionCommand = (view: BrowserView, command: Command): void => {
  // A download behaviour on a page session (agent-browser's `download`; the deprecated Page one):
  // the client's view of the session's context, never the errand's (clientDownloads.ts).
  if (command.method === 'Browser.setDownloadBehavior' || command.method === 'Page.setDownloadBehavior') {
    const { browserContextId: named, ...rest } = command.params
    if (named !== undefined && view.connection.realContext(named) === undefined)
      return view.refuse(command, "that browserContextId is not this errand's")
    const params = { ...rest, browserContextId: contextOfSession(view, command.sessionId) }
    if (view.connection.downloads.emulated) return view.setDownloads(command, params)
    if (command.method === 'Page.setDownloadBehavior') return view.forward(command, view.downloadTo(rest))
    return view.forwardToBrowser(command, view.downloadTo(params))
  }
  const refusal = refusedOnSession(command.method)
  if (refusal !== undefined) return knownMethod(command.method) ? view.refuse(command, refusal) : view.unknown(command)
  const p = command.params
  if (p.browserContextId !== undefined && view.connection.realContext(p.browserContextId) === undefined) {
    return view.refuse(command, "that browserContextId is not this errand's")
  }
  // #27: on a page session Chromium takes no browserContextId here and acts on its default
  // context, which no errand owns: sent at the browser level, with the errand's own id.
  if (CONTEXT_METHODS.has(command.method)) {
    return view.forwardToBrowser(command, { ...p, browserContextId: contextOfSession(view, command.sessionId) })
  }
  if (URL_METHODS.has(command.method) && !view.allowedUrl(command, p.url)) return
  // Paths of this machine: uploads (`DOM.setFileInputFiles`, `Page.handleFileChooser`), dropped
  // files (`Input.dispatchDragEvent`) — a bare name is the errand's staged file.
  const params = uploadParams(p, view.options.filesDir)
  if (typeof params === 'string') return view.refuse(command, params)
  if (
    command.method === 'Target.detachFromTarget' &&
    p.sessionId !== undefined &&
    !view.sessions.has(String(p.sessionId))
  ) {
    return view.refuse(command, 'no session with this id belongs to this errand')
  }
  if (
    (command.method === 'Target.getTargetInfo' || command.method === 'Target.activateTarget') &&
    p.targetId !== undefined &&
    !view.ours(p.targetId)
  ) {
    return view.refuse(command, 'no target with this id belongs to this errand')
  }
  if (command.method.startsWith('Browser.')) return onSessionWindow(view, command)
  view.drive.sent(command)
  view.forward(command, params, (r) => view.hideResult(r))
}

/** `Browser.*` window methods on a page session (Puppeteer's `page.windowId()` / `resize()`). */
const onSessionWindow = (view: BrowserView, command: Command): void => {
  const p = command.params
  if (command.method === 'Browser.getWindowForTarget') {
    // Without a targetId Chromium answers the session's own target's window.
    if (p.targetId !== undefined && !view.ours(p.targetId))
      return view.refuse(command, 'name a targetId of this errand')
    return view.forward(command, p, (r) => view.rememberWindow(r))
  }
  if (p.windowId !== undefined && !view.connection.windows.has(p.windowId as number)) {
    return view.refuse(command, "that window is not one of this errand's (ask Browser.getWindowForTarget)")
  }
  view.forward(command, p)
}

/** The context of a session's target: the errand's, or a helper's this client opened. */
const contextOfSession = (view: BrowserView, sessionId: string | undefined): string => {
  const targetId = sessionId === undefined ? undefined : view.sessions.get(sessionId)
  const context = targetId === undefined ? undefined : view.targets.get(targetId)?.browserContextId
  return context !== undefined && view.connection.owns(context) ? context : view.options.browserContextId
}
