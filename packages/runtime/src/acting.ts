/**
 * What acts on an errand while a person drives it (P1, P2): the one decision for every face. While a
 * person has the wheel, a call that acts is refused (the host's `/v1` verbs and the MCP tools:
 * `PersonDriving`, 409) or held until the hand-back (a DevTools client's commands); a call this
 * module names a read answers, and a call that asks the person (for help, for a sign-in) goes on.
 *
 * **Deny by default.** Only the calls named here read; every other call acts — on every face. A
 * verb, a tool or a DevTools method added later (Chromium adds methods with each release) is held
 * until someone names it a read here, never let through by being missing from a list of acting
 * ones (ADR "a person's wheel is deny by default").
 *
 * Who asks: the wheel check, written once (`wheelRefusal` of `@errands/sessions`), which the host's
 * verbs and routes, the MCP server's pre-check (through `ErrandBrowser.wheelRefusal`, host mcp.ts) and
 * the owner of a cluster errand (host mcp.ts `toolRunner`) refuse by; MCP's `readOnlyHint`
 * (`@errands/mcp` server.ts); and the DevTools endpoint's wheel, which holds instead (`@errands/devtools`
 * wheel.ts).
 * The module is pure and imports nothing, so it can move to the session boundary unchanged.
 *
 * @example
 * acts('v1', 'screenshot')                                  // false: GET /v1/screenshot answers
 * acts('mcp', 'browser_click')                              // true: refused while a person drives
 * acts('devtools', 'Fetch.fulfillRequest')                  // true: held until the hand-back
 * acts('devtools', 'Runtime.evaluate', { expression: 'document.title', throwOnSideEffect: true }) // false
 */

/** A face of the host an agent reaches an errand through. */
export type Face = 'v1' | 'mcp' | 'devtools'

/** The read-only calls of the HTTP and MCP faces: a call not named here acts. */
export const PAGE_READS = {
  /** The host's verbs, by the name its `verb` runs them under. */
  v1: ['url', 'text', 'html', 'screenshot', 'frame', 'console', 'network', 'tabs', 'state'],
  /** The MCP tools (Playwright MCP's names; their `readOnlyHint`). */
  mcp: [
    'browser_snapshot',
    'browser_find',
    'browser_take_screenshot',
    'browser_console_messages',
    'browser_network_requests',
    'browser_network_request',
    'browser_wait_for',
    'browser_downloads',
    'browser_pdf_save',
  ],
} as const

/**
 * The DevTools methods that only read, one domain a line (the spelling of `@errands/devtools`
 * protocol.ts). What is **not** here, and why, is the point of the list:
 * - writes of every kind: the DOM's, CSS (`CSS.setStyleTexts`, `addRule` … injected CSS moved a
 *   link under the person's pointer), storage and cookies, emulation, overlays drawn on the page;
 * - running script: `Runtime.evaluate` / `callFunctionOn` (but see {@link acts}: with
 *   `throwOnSideEffect: true` V8 stops them at their first side effect), `runScript`,
 *   `addBinding`, `Page.addScriptToEvaluateOnNewDocument` (it ran in the person's next
 *   navigation), `Debugger.setBreakpoint*` (a condition is script, and a pause stops the person);
 * - intercepting or answering requests: `Fetch.*` but `getResponseBody` (`Fetch.fulfillRequest`
 *   answered the person's own click with a page of the agent's), `Network.setExtraHTTPHeaders`,
 *   `setBlockedURLs`, `loadNetworkResource` (a request with the errand's cookies);
 * - steering input or the tab: `Input.*`, navigations, tabs, windows, file choosers, downloads.
 *
 * A few pass because holding them would stall the person, not the agent: `Runtime.runIfWaitingForDebugger`
 * (a frame or worker of the person's page waits for it) and attaching, detaching and discovery.
 */
const DEVTOOLS_READS: Readonly<Record<string, string>> = {
  Accessibility:
    'disable enable getAXNodeAndAncestors getChildAXNodes getFullAXTree getPartialAXTree getRootAXNode queryAXTree',
  Animation: 'disable enable getCurrentTime getPlaybackRate resolveAnimation',
  Audits: 'checkFormsIssues disable enable getEncodedResponse',
  BackgroundService: 'startObserving stopObserving',
  Browser: 'close getHistogram getHistograms getVersion getWindowBounds getWindowForTarget',
  CSS:
    'collectClassNames disable enable getAnimatedStylesForNode getBackgroundColors getComputedStyleForNode ' +
    'getEnvironmentVariables getInlineStylesForNode getLayersForNode getLocationForSelector getLonghandProperties ' +
    'getMatchedStylesForNode getMediaQueries getPlatformFontsForNode getStyleSheetText resolveValues ' +
    'startRuleUsageTracking stopRuleUsageTracking takeComputedStyleUpdates takeCoverageDelta ' +
    'trackComputedStyleUpdates trackComputedStyleUpdatesForNode',
  CacheStorage: 'requestCacheNames requestCachedResponse requestEntries',
  Console: 'disable enable',
  DOM:
    'collectClassNamesFromSubtree describeNode disable discardSearchResults enable getAnchorElement getAttributes ' +
    'getBoxModel getContainerForNode getContentQuads getDetachedDomNodes getDocument getElementByRelation ' +
    'getFileInfo getFlattenedDocument getFrameOwner getImplicitAnchorCandidates getNodeForLocation ' +
    'getNodeStackTraces getNodesForSubtreeByStyle getOuterHTML getQueryingDescendantsForContainer ' +
    'getRelayoutBoundary getSearchResults getTopLayerElements performSearch pushNodeByPathToFrontend ' +
    'pushNodesByBackendIdsToFrontend querySelector querySelectorAll requestChildNodes requestNode resolveNode',
  DOMDebugger: 'getEventListeners',
  DOMSnapshot: 'captureSnapshot disable enable getSnapshot',
  DOMStorage: 'disable enable getDOMStorageItems',
  Debugger:
    'disable disassembleWasmModule enable getPossibleBreakpoints getScriptSource getStackTrace getWasmBytecode ' +
    'nextWasmDisassemblyChunk searchInContent',
  Emulation: 'canEmulate getOverriddenSensorInformation getScreenInfos',
  Fetch: 'getResponseBody',
  HeapProfiler:
    'addInspectedHeapObject collectGarbage disable enable getHeapObjectId getObjectByHeapObjectId getSamplingProfile ' +
    'startSampling startTrackingHeapObjects stopSampling stopTrackingHeapObjects takeHeapSnapshot',
  IO: 'close read resolveBlob',
  IndexedDB: 'disable enable getMetadata requestData requestDatabase requestDatabaseNames',
  Inspector: 'disable enable',
  LayerTree:
    'compositingReasons disable enable loadSnapshot makeSnapshot profileSnapshot releaseSnapshot replaySnapshot ' +
    'snapshotCommandLog',
  Log: 'disable enable',
  Media: 'disable enable',
  Memory:
    'getAllTimeSamplingProfile getBrowserSamplingProfile getDOMCounters getDOMCountersForLeakDetection ' +
    'getSamplingProfile startSampling stopSampling',
  Network:
    'canClearBrowserCache canClearBrowserCookies canEmulateNetworkConditions disable enable enableReportingApi ' +
    'getCertificate getCookies getRequestPostData getResponseBody getSecurityIsolationStatus searchInResponseBody ' +
    'streamResourceContent',
  Overlay: 'disable enable',
  Page:
    'captureScreenshot captureSnapshot createIsolatedWorld disable enable getAdScriptAncestry ' +
    'getAnnotatedPageContent ' +
    'getAppId getAppManifest getFrameTree getInstallabilityErrors getLayoutMetrics getManifestIcons ' +
    'getNavigationHistory getOriginTrials getPermissionsPolicyState getResourceContent getResourceTree printToPDF ' +
    'screencastFrameAck searchInResource setLifecycleEventsEnabled startScreencast stopScreencast',
  Performance: 'disable enable getMetrics setTimeDomain',
  PerformanceTimeline: 'enable',
  Preload: 'disable enable',
  Profiler:
    'disable enable getBestEffortCoverage setSamplingInterval start startPreciseCoverage stop stopPreciseCoverage ' +
    'takePreciseCoverage',
  Runtime:
    'awaitPromise disable discardConsoleEntries enable getExceptionDetails getHeapUsage getIsolateId getProperties ' +
    'globalLexicalScopeNames queryObjects releaseObject releaseObjectGroup runIfWaitingForDebugger ' +
    'setAsyncCallStackDepth setCustomObjectFormatterEnabled setMaxCallStackSizeToCapture',
  Schema: 'getDomains',
  Security: 'disable enable',
  ServiceWorker: 'disable enable',
  Storage:
    'getCookies getStorageKey getStorageKeyForFrame getUsageAndQuota trackCacheStorageForOrigin ' +
    'trackCacheStorageForStorageKey trackIndexedDBForOrigin trackIndexedDBForStorageKey ' +
    'untrackCacheStorageForOrigin untrackCacheStorageForStorageKey untrackIndexedDBForOrigin ' +
    'untrackIndexedDBForStorageKey',
  SystemInfo: 'getFeatureState getInfo getProcessInfo',
  Target:
    'attachToBrowserTarget attachToTarget autoAttachRelated detachFromTarget getBrowserContexts getTargetInfo ' +
    'getTargets setAutoAttach setDiscoverTargets',
  WebAudio: 'disable enable getRealtimeData',
  // The endpoint's own domain (docs/devtools-endpoint.md): the files folder's path is a read.
  Errands: 'getFilesFolder',
}

/**
 * Calls that ask the person — for help (a hand on the wheel) or a sign-in — by face: they go on
 * while a person drives; waiting for the person is what they are for.
 */
export const ASKS_THE_PERSON = {
  v1: ['help', 'permission'],
  mcp: ['browser_request_help', 'browser_request_sign_in'],
  devtools: ['Errands.requestHelp'],
} as const

const methodsOf = (table: Readonly<Record<string, string>>): ReadonlyArray<string> =>
  Object.entries(table).flatMap(([domain, names]) => names.split(' ').map((name) => `${domain}.${name}`))

/**
 * The DevTools methods that only read, as `Domain.method` (see {@link acts} for the two read only
 * by their params).
 *
 * @example
 * DEVTOOLS_READ_METHODS.includes('DOM.getDocument') // true
 */
export const DEVTOOLS_READ_METHODS: ReadonlyArray<string> = methodsOf(DEVTOOLS_READS)

const READS: Readonly<Record<Face, ReadonlySet<string>>> = {
  v1: new Set([...PAGE_READS.v1, ...ASKS_THE_PERSON.v1]),
  mcp: new Set([...PAGE_READS.mcp, ...ASKS_THE_PERSON.mcp]),
  devtools: new Set([...DEVTOOLS_READ_METHODS, ...ASKS_THE_PERSON.devtools]),
}

/** Evaluations: a read only when V8 is told to stop them at their first side effect. */
const EVALUATIONS: ReadonlySet<string> = new Set(['Runtime.evaluate', 'Runtime.callFunctionOn'])

/**
 * Whether a call acts on the errand (refused or held while a person drives) — every call but the
 * reads and the asks of the person named here. Two DevTools methods are decided by their params:
 * an evaluation is a read only with `throwOnSideEffect: true` (the engine enforces it, so no expression is
 * guessed at), and a screenshot acts when it captures beyond the viewport (Chromium resizes the
 * person's page for it).
 *
 * @example
 * acts('v1', 'navigate')                                              // true
 * acts('v1', 'release')                                               // true: DELETE /v1/session
 * acts('v1', 'task', { status: 'running' })                           // false; 'done', 'interrupted': true
 * acts('mcp', 'browser_request_help')                                 // false: it asks the person
 * acts('devtools', 'Debugger.setBreakpointByUrl', { lineNumber: 1 })  // true
 * acts('devtools', 'Page.captureScreenshot', { captureBeyondViewport: true }) // true
 */
export const acts = (face: Face, call: string, params: Readonly<Record<string, unknown>> = {}): boolean => {
  // The task's status is the agent's to tell, but an ending or a parking one closes or parks the
  // errand under the person: only `running` goes on while a person drives (P2).
  if (face === 'v1' && call === 'task') return params.status !== 'running'
  if (face === 'devtools') {
    if (EVALUATIONS.has(call)) return params.throwOnSideEffect !== true
    if (call === 'Page.captureScreenshot') return params.captureBeyondViewport === true
  }
  return !READS[face].has(call)
}

/**
 * Whether a call only reads the page (answers while a person drives): the HTTP and MCP faces'
 * `readOnlyHint`. The asks of the person are neither reads nor acts.
 *
 * @example
 * onlyReads('screenshot')        // true  (GET /v1/screenshot)
 * onlyReads('browser_snapshot')  // true
 * onlyReads('browser_click')     // false: refused while a person drives
 */
export const onlyReads = (call: string): boolean =>
  (PAGE_READS.v1 as ReadonlyArray<string>).includes(call) || (PAGE_READS.mcp as ReadonlyArray<string>).includes(call)
