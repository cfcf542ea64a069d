/**
 * The host's page verbs in cluster mode: a session's call goes to its errand entity, wherever
 * the cluster's sharding put it (this runner included — the cluster delivers that locally), and
 * the person's main context stays this host's own. The HTTP layer, the live view and every
 * other caller keep using `Browsing` and do not know the cluster exists.
 *
 * @example
 * const browsing = forwardingBrowsing(local, yield* Errand.client)
 * yield* browsing.url(sessionTarget(key)) // answered by the key's owner
 */
import type { BrowsingError, BrowsingShape, FillPasswordError, Target } from '@errands/host'
import { PageError, sessionTarget, type SessionKey } from '@errands/host'
import { InvalidRequest } from '@errands/sessions'
import { Effect } from 'effect'
import type { Errand } from './ErrandEntity.ts'

/** The secret upstream proxy a session target may name (a `Redacted` URL, #21). */
type UpstreamProxy = Extract<Target, { readonly _tag: 'session' }>['upstreamProxy']

/** The entity's client: a key's owner, and its RPCs by verb (what `Errand.client` gives). */
export type ErrandClient = Effect.Effect.Success<typeof Errand.client>

/** Cluster-side failures (mailbox full, runner moving, storage) in words a model can act on. */
export const unreachable = (e: { readonly _tag: string }): PageError =>
  new PageError({
    reason: 'unavailable',
    message:
      `The host that holds this session could not be reached (${e._tag}); it may be moving to another host — ` +
      `try again in a few seconds.`,
  })

/** A request the entity's Schemas refuse before it is sent: the caller's input, not the cluster. */
const refused = (message: string): InvalidRequest =>
  new InvalidRequest({
    reason: 'invalid-input',
    message: `The request does not fit the page verb's schema: ${message.slice(0, 500)}`,
  })

const BROWSING_ERRORS = new Set([
  'AllBusy',
  'ErrandUnavailable',
  'InvalidRequest',
  'UnknownConversation',
  'BlockedByPolicy',
  'PageError',
  'TabNotFound',
  'NoDialog',
  'FileNotFound',
  'FileTooLarge',
  'PersonDriving',
])

/**
 * What every failure of a forwarded call becomes: the owner's typed error as it is, or words.
 *
 * @example
 * Effect.mapError(client(key).url({}), asBrowsingError)
 */
export const asBrowsingError = (e: { readonly _tag: string; readonly message?: string }): BrowsingError =>
  BROWSING_ERRORS.has(e._tag)
    ? (e as BrowsingError)
    : e._tag === 'ParseError'
      ? refused(e.message ?? '')
      : unreachable(e)

/** The vault's and the sign-in's refusals a fill adds (W2, W3): the owner's, as they are. */
const FILL_ERRORS = new Set([
  'WrongSite',
  'NoSuchPassword',
  'SeveralPasswords',
  'VaultUnavailable',
  'InvalidPasswordEntry',
  'HostUnavailable',
])

/**
 * What every failure of a forwarded fill becomes: the owner's typed error as it is (a page verb's, or the
 * vault's and the site's), or words.
 *
 * @example
 * Effect.mapError(client(key).fillPassword({ body }), asFillError)
 */
export const asFillError = (e: {
  readonly _tag: string
  readonly message?: string
}): BrowsingError | FillPasswordError => (FILL_ERRORS.has(e._tag) ? (e as FillPasswordError) : asBrowsingError(e))

/** The session fields of a request: the upstream proxy, when the call names one. */
const session = (proxy: UpstreamProxy | undefined) => (proxy === undefined ? {} : { upstreamProxy: proxy })

/**
 * Browsing over the cluster: session targets through the entity, the main context locally.
 *
 * @example
 * Layer.succeed(Browsing, forwardingBrowsing(local, client))
 */
export const forwardingBrowsing = (local: BrowsingShape, client: ErrandClient): Omit<BrowsingShape, 'onPage'> => {
  /** A verb on a target: the main context here, a session at its owner, with its typed request. */
  const on = <A, E>(
    target: Target,
    here: (t: Target) => Effect.Effect<A, E>,
    there: (
      owner: ReturnType<ErrandClient>,
      s: ReturnType<typeof session>,
    ) => Effect.Effect<A, { readonly _tag: string }>,
  ) =>
    target._tag === 'main'
      ? here(target)
      : Effect.mapError(there(client(target.key), session(target.upstreamProxy)), asBrowsingError)

  return {
    navigate: (t, url) =>
      on(
        t,
        (x) => local.navigate(x, url),
        (o, s) => o.navigate({ ...s, url }),
      ),
    url: (t) => on(t, local.url, (o, s) => o.url(s)),
    text: (t) => on(t, local.text, (o, s) => o.text(s)),
    html: (t) => on(t, local.html, (o, s) => o.html(s)),
    screenshot: (t, options) =>
      on(
        t,
        (x) => local.screenshot(x, options),
        (o, s) => o.screenshot({ ...s, fullPage: options.fullPage }),
      ),
    click: (t, body) =>
      on(
        t,
        (x) => local.click(x, body),
        (o, s) => o.click({ ...s, body }),
      ),
    fill: (t, body) =>
      on(
        t,
        (x) => local.fill(x, body),
        (o, s) => o.fill({ ...s, body }),
      ),
    scroll: (t, body) =>
      on(
        t,
        (x) => local.scroll(x, body),
        (o, s) => o.scroll({ ...s, body }),
      ),
    back: (t) => on(t, local.back, (o, s) => o.back(s)),
    forward: (t) => on(t, local.forward, (o, s) => o.forward(s)),
    reload: (t) => on(t, local.reload, (o, s) => o.reload(s)),
    frame: (t) => on(t, local.frame, (o, s) => o.frame(s)),
    state: (t) => on(t, local.state, (o, s) => o.state(s)),
    input: (t, events) =>
      on(
        t,
        (x) => local.input(x, events),
        (o, s) => o.input({ ...s, events }),
      ),
    viewport: (t, body) =>
      on(
        t,
        (x) => local.viewport(x, body),
        (o, s) => o.viewport({ ...s, body }),
      ),
    tabs: (t) => on(t, local.tabs, (o, s) => o.tabs(s)),
    openTab: (t, url) =>
      on(
        t,
        (x) => local.openTab(x, url),
        (o, s) => o.openTab({ ...s, url }),
      ),
    activateTab: (t, tabId) =>
      on(
        t,
        (x) => local.activateTab(x, tabId),
        (o, s) => o.activateTab({ ...s, tabId }),
      ),
    closeTab: (t, tabId) =>
      on(
        t,
        (x) => local.closeTab(x, tabId),
        (o, s) => o.closeTab({ ...s, tabId }),
      ),
    dialog: (t, body) =>
      on(
        t,
        (x) => local.dialog(x, body),
        (o, s) => o.dialog({ ...s, body }),
      ),
    evaluate: (t, body) =>
      on(
        t,
        (x) => local.evaluate(x, body),
        (o, s) => o.evaluate({ ...s, body }),
      ),
    console: (t) => on(t, local.console, (o, s) => o.console(s)),
    network: (t) => on(t, local.network, (o, s) => o.network(s)),
    fillForm: (t, body) =>
      on(
        t,
        (x) => local.fillForm(x, body),
        (o, s) => o.fillForm({ ...s, body }),
      ),
    drag: (t, body) =>
      on(
        t,
        (x) => local.drag(x, body),
        (o, s) => o.drag({ ...s, body }),
      ),
    upload: (t, body) =>
      on(
        t,
        (x) => local.upload(x, body),
        (o, s) => o.upload({ ...s, body }),
      ),
    downloads: (t) => on(t, local.downloads, (o, s) => o.downloads(s)),
    download: (t, name) =>
      on(
        t,
        (x) => local.download(x, name),
        (o, s) => o.download({ ...s, name }),
      ),
    stageFile: (t, name, bytes) =>
      on(
        t,
        (x) => local.stageFile(x, name, bytes),
        (o, s) => o.stageFile({ ...s, name, bytes }),
      ),
    // W2, W3: the fill's body is data; the owner reads the shared vault and fills its own page.
    fillPassword: (t, body) =>
      t._tag === 'main'
        ? local.fillPassword(t, body)
        : Effect.mapError(client(t.key).fillPassword({ ...session(t.upstreamProxy), body }), asFillError),
    task: (key, status) =>
      Effect.catchAll(client(key).task({ status }), (e) =>
        e._tag === 'UnknownConversation' ? Effect.fail(e) : Effect.die(e),
      ),
    release: (key) => Effect.orDie(client(key).release({})),
    park: (key) => Effect.mapError(client(key).park({}), asBrowsingError),
    resume: (key) => Effect.mapError(client(key).resume({}), asBrowsingError),
  }
}

/**
 * The owner's handlers: each verb runs on this host's own Browsing, on the session the entity
 * is, opened (if this call opens it) with the upstream proxy the caller named.
 *
 * @example
 * Errand.toLayer(Effect.succeed(ownerHandlers(local, key)))
 */
export const ownerHandlers = (local: Omit<BrowsingShape, 'onPage'>, key: SessionKey) => {
  const t = (p: { readonly upstreamProxy?: UpstreamProxy | undefined }) => sessionTarget(key, p.upstreamProxy)
  type Req<P> = { readonly payload: P & { readonly upstreamProxy?: UpstreamProxy | undefined } }
  return {
    navigate: ({ payload: p }: Req<{ readonly url: string }>) => local.navigate(t(p), p.url),
    url: ({ payload: p }: Req<object>) => local.url(t(p)),
    text: ({ payload: p }: Req<object>) => local.text(t(p)),
    html: ({ payload: p }: Req<object>) => local.html(t(p)),
    screenshot: ({ payload: p }: Req<{ readonly fullPage: boolean }>) =>
      local.screenshot(t(p), { fullPage: p.fullPage }),
    click: ({ payload: p }: Req<{ readonly body: Parameters<BrowsingShape['click']>[1] }>) => local.click(t(p), p.body),
    fill: ({ payload: p }: Req<{ readonly body: Parameters<BrowsingShape['fill']>[1] }>) => local.fill(t(p), p.body),
    scroll: ({ payload: p }: Req<{ readonly body: Parameters<BrowsingShape['scroll']>[1] }>) =>
      local.scroll(t(p), p.body),
    back: ({ payload: p }: Req<object>) => local.back(t(p)),
    forward: ({ payload: p }: Req<object>) => local.forward(t(p)),
    reload: ({ payload: p }: Req<object>) => local.reload(t(p)),
    frame: ({ payload: p }: Req<object>) => local.frame(t(p)),
    state: ({ payload: p }: Req<object>) => local.state(t(p)),
    input: ({ payload: p }: Req<{ readonly events: Parameters<BrowsingShape['input']>[1] }>) =>
      local.input(t(p), p.events),
    viewport: ({ payload: p }: Req<{ readonly body: Parameters<BrowsingShape['viewport']>[1] }>) =>
      local.viewport(t(p), p.body),
    tabs: ({ payload: p }: Req<object>) => local.tabs(t(p)),
    openTab: ({ payload: p }: Req<{ readonly url: string }>) => local.openTab(t(p), p.url),
    activateTab: ({ payload: p }: Req<{ readonly tabId: string }>) => local.activateTab(t(p), p.tabId),
    closeTab: ({ payload: p }: Req<{ readonly tabId: string }>) => local.closeTab(t(p), p.tabId),
    dialog: ({ payload: p }: Req<{ readonly body: Parameters<BrowsingShape['dialog']>[1] }>) =>
      local.dialog(t(p), p.body),
    evaluate: ({ payload: p }: Req<{ readonly body: Parameters<BrowsingShape['evaluate']>[1] }>) =>
      local.evaluate(t(p), p.body),
    console: ({ payload: p }: Req<object>) => local.console(t(p)),
    network: ({ payload: p }: Req<object>) => local.network(t(p)),
    fillForm: ({ payload: p }: Req<{ readonly body: Parameters<BrowsingShape['fillForm']>[1] }>) =>
      local.fillForm(t(p), p.body),
    drag: ({ payload: p }: Req<{ readonly body: Parameters<BrowsingShape['drag']>[1] }>) => local.drag(t(p), p.body),
    upload: ({ payload: p }: Req<{ readonly body: Parameters<BrowsingShape['upload']>[1] }>) =>
      local.upload(t(p), p.body),
    downloads: ({ payload: p }: Req<object>) => local.downloads(t(p)),
    download: ({ payload: p }: Req<{ readonly name: string }>) => local.download(t(p), p.name),
    stageFile: ({ payload: p }: Req<{ readonly name: string; readonly bytes: Uint8Array }>) =>
      local.stageFile(t(p), p.name, p.bytes),
    fillPassword: ({ payload: p }: Req<{ readonly body: Parameters<BrowsingShape['fillPassword']>[1] }>) =>
      local.fillPassword(t(p), p.body),
    task: ({ payload: p }: { readonly payload: { readonly status: Parameters<BrowsingShape['task']>[1] } }) =>
      local.task(key, p.status),
    release: () => local.release(key),
    park: () => local.park(key),
    resume: () => local.resume(key),
  }
}
