/**
 * The methods Chromium knows (A1, #22): the DevTools protocol of devtools-protocol 0.0.1704951 (the one
 * puppeteer-core 25 ships; Chromium 156 speaks it), one domain a line. The proxy answers a method
 * missing here as Chromium does, -32601 "'X' wasn't found" — clients such as Stagehand fall back
 * on that code — and a known method it will not pass with -32000 and the reason.
 *
 * Generated; `protocol.test.ts` compares it with the installed devtools-protocol and prints the
 * lines to paste when they differ.
 *
 * @example
 * knownMethod('Page.navigate') // true
 * knownMethod('Foo.bar')       // false
 */

/** Version of devtools-protocol the list was taken from. @example PROTOCOL_VERSION // '0.0.1704951' */
export const PROTOCOL_VERSION = '0.0.1704951'

/** Each domain's commands, space-separated. @example METHODS_BY_DOMAIN['Browser']?.includes('getVersion') */
export const METHODS_BY_DOMAIN: Readonly<Record<string, string>> = {
  Accessibility:
    'disable enable getAXNodeAndAncestors getChildAXNodes getFullAXTree getPartialAXTree getRootAXNode queryAXTree',
  Ads: 'getAdMetrics getAdScripts',
  Animation:
    'disable enable getCurrentTime getPlaybackRate releaseAnimations resolveAnimation seekAnimations setPaused ' +
    'setPlaybackRate setTiming',
  Audits: 'checkFormsIssues disable enable getEncodedResponse',
  Autofill: 'disable enable setAddresses trigger',
  BackgroundService: 'clearEvents setRecording startObserving stopObserving',
  BluetoothEmulation:
    'addCharacteristic addDescriptor addService disable enable removeCharacteristic removeDescriptor removeService ' +
    'setSimulatedCentralState simulateAdvertisement simulateCharacteristicOperationResponse ' +
    'simulateDescriptorOperationResponse simulateGATTDisconnection simulateGATTOperationResponse ' +
    'simulatePreconnectedPeripheral',
  Browser:
    'addMockCamera addPrivacySandboxEnrollmentOverride cancelDownload close crash crashGpuProcess ' +
    'executeBrowserCommand getBrowserCommandLine getGlobalPrivacyControl getHistogram getHistograms getVersion ' +
    'getWindowBounds getWindowForTarget grantPermissions resetPermissions setContentsSize setDockTile ' +
    'setDownloadBehavior setGlobalPrivacyControl setPermission setWindowBounds',
  CSS:
    'addRule collectClassNames createStyleSheet disable enable forcePseudoState forceStartingStyle ' +
    'getAnimatedStylesForNode getBackgroundColors getComputedStyleForNode getEnvironmentVariables ' +
    'getInlineStylesForNode getLayersForNode getLocationForSelector getLonghandProperties getMatchedStylesForNode ' +
    'getMediaQueries getPlatformFontsForNode getStyleSheetText resolveValues setContainerQueryConditionText ' +
    'setContainerQueryText setEffectivePropertyValueForNode setKeyframeKey setLocalFontsEnabled setMediaText ' +
    'setNavigationText setPropertyRulePropertyName setRuleSelector setScopeText setStyleSheetText setStyleTexts ' +
    'setSupportsText startRuleUsageTracking stopRuleUsageTracking takeComputedStyleUpdates takeCoverageDelta ' +
    'trackComputedStyleUpdates trackComputedStyleUpdatesForNode',
  CacheStorage: 'deleteCache deleteEntry requestCacheNames requestCachedResponse requestEntries',
  Cast: 'disable enable setSinkToUse startDesktopMirroring startTabMirroring stopCasting',
  Console: 'clearMessages disable enable',
  CrashReportContext: 'getEntries',
  DOM:
    'clearTextMarkers collectClassNamesFromSubtree copyTo describeNode disable discardSearchResults enable focus ' +
    'forceShowInterest forceShowPopover getAnchorElement getAttributes getBoxModel getContainerForNode ' +
    'getContentQuads getDetachedDomNodes getDocument getElementByRelation getFileInfo getFlattenedDocument ' +
    'getFrameOwner getImplicitAnchorCandidates getNodeForLocation getNodeStackTraces getNodesForSubtreeByStyle ' +
    'getOuterHTML getQueryingDescendantsForContainer getRelayoutBoundary getSearchResults getTopLayerElements ' +
    'hideHighlight highlightNode highlightRect markUndoableState moveTo performSearch pushNodeByPathToFrontend ' +
    'pushNodesByBackendIdsToFrontend querySelector querySelectorAll redo removeAttribute removeNode ' +
    'requestChildNodes requestNode resolveNode scrollIntoViewIfNeeded setAttributeValue setAttributesAsText ' +
    'setFileInputFiles setInspectedNode setNodeName setNodeStackTracesEnabled setNodeValue setOuterHTML ' +
    'setTextMarker undo',
  DOMDebugger:
    'getEventListeners removeDOMBreakpoint removeEventListenerBreakpoint removeInstrumentationBreakpoint ' +
    'removeXHRBreakpoint setBreakOnCSPViolation setDOMBreakpoint setEventListenerBreakpoint ' +
    'setInstrumentationBreakpoint setXHRBreakpoint',
  DOMSnapshot: 'captureSnapshot disable enable getSnapshot',
  DOMStorage: 'clear disable enable getDOMStorageItems removeDOMStorageItem setDOMStorageItem',
  Debugger:
    'continueToLocation disable disassembleWasmModule enable evaluateOnCallFrame getPossibleBreakpoints ' +
    'getScriptSource getStackTrace getWasmBytecode nextWasmDisassemblyChunk pause pauseOnAsyncCall removeBreakpoint ' +
    'restartFrame resume searchInContent setAsyncCallStackDepth setBlackboxExecutionContexts setBlackboxPatterns ' +
    'setBlackboxedRanges setBreakpoint setBreakpointByUrl setBreakpointOnFunctionCall setBreakpointsActive ' +
    'setInstrumentationBreakpoint setPauseOnExceptions setReturnValue setScriptSource setSkipAllPauses ' +
    'setVariableValue stepInto stepOut stepOver',
  DeviceAccess: 'cancelPrompt disable enable selectPrompt',
  DeviceOrientation: 'clearDeviceOrientationOverride setDeviceOrientationOverride',
  DigitalCredentials: 'setVirtualWalletBehavior',
  Emulation:
    'addScreen canEmulate clearDeviceMetricsOverride clearDevicePostureOverride clearDisplayFeaturesOverride ' +
    'clearGeolocationOverride clearIdleOverride getOverriddenSensorInformation getScreenInfos removeScreen ' +
    'resetPageScaleFactor setAutoDarkModeOverride setAutomationOverride setCPUPerformanceOverride ' +
    'setCPUThrottlingRate setDataSaverOverride setDefaultBackgroundColorOverride setDeviceMetricsOverride ' +
    'setDevicePostureOverride setDisabledImageTypes setDisplayFeaturesOverride setDocumentCookieDisabled ' +
    'setEmitTouchEventsForMouse setEmulatedMedia setEmulatedOSTextScale setEmulatedVisionDeficiency ' +
    'setFocusEmulationEnabled setGeolocationOverride setHardwareConcurrencyOverride setIdleOverride ' +
    'setLocaleOverride setNavigatorOverrides setPageScaleFactor setPressureSourceOverrideEnabled ' +
    'setPressureStateOverride setPrimaryScreen setSafeAreaInsetsOverride setScriptExecutionDisabled ' +
    'setScrollbarsHidden setSensorOverrideEnabled setSensorOverrideReadings setSmallViewportHeightDifferenceOverride ' +
    'setTimezoneOverride setTouchEmulationEnabled setUserAgentOverride setVirtualKeyboardGeometryOverride ' +
    'setVirtualTimePolicy setVisibleSize updateScreen',
  EventBreakpoints: 'disable removeInstrumentationBreakpoint setInstrumentationBreakpoint',
  Extensions:
    'clearStorageItems getExtensions getStorageItems loadUnpacked removeStorageItems setStorageItems triggerAction ' +
    'uninstall',
  FedCm: 'clickDialogButton disable dismissDialog enable openUrl resetCooldown selectAccount',
  Fetch:
    'continueRequest continueResponse continueWithAuth disable enable failRequest fulfillRequest getResponseBody ' +
    'takeResponseBodyAsStream',
  FileSystem: 'getDirectory',
  HeadlessExperimental: 'beginFrame disable enable',
  HeapProfiler:
    'addInspectedHeapObject collectGarbage disable enable getHeapObjectId getObjectByHeapObjectId getSamplingProfile ' +
    'startSampling startTrackingHeapObjects stopSampling stopTrackingHeapObjects takeHeapSnapshot',
  IO: 'close read resolveBlob',
  IndexedDB:
    'clearObjectStore deleteDatabase deleteObjectStoreEntries disable enable getMetadata requestData requestDatabase ' +
    'requestDatabaseNames',
  Input:
    'cancelDragging dispatchDragEvent dispatchKeyEvent dispatchMouseEvent dispatchTouchEvent ' +
    'emulateTouchFromMouseEvent imeSetComposition insertText setIgnoreInputEvents setInterceptDrags ' +
    'synthesizePinchGesture synthesizeScrollGesture synthesizeTapGesture',
  Inspector: 'disable enable',
  LayerTree:
    'compositingReasons disable enable loadSnapshot makeSnapshot profileSnapshot releaseSnapshot replaySnapshot ' +
    'snapshotCommandLog',
  Log: 'clear disable enable startViolationsReport stopViolationsReport',
  Media: 'disable enable',
  Memory:
    'forciblyPurgeJavaScriptMemory getAllTimeSamplingProfile getBrowserSamplingProfile getDOMCounters ' +
    'getDOMCountersForLeakDetection getSamplingProfile prepareForLeakDetection setPressureNotificationsSuppressed ' +
    'simulatePressureNotification startSampling stopSampling',
  Network:
    'canClearBrowserCache canClearBrowserCookies canEmulateNetworkConditions clearBrowserCache clearBrowserCookies ' +
    'configureDurableMessages deleteCookies deleteDeviceBoundSession disable emulateNetworkConditions ' +
    'emulateNetworkConditionsByRule enable enableDeviceBoundSessions enableReportingApi fetchSchemefulSite ' +
    'getAllCookies getCertificate getCookies getRequestPostData getResponseBody getSecurityIsolationStatus ' +
    'loadNetworkResource overrideNetworkState replayXHR searchInResponseBody setAttachDebugStack setBlockedURLs ' +
    'setBypassServiceWorker setCacheDisabled setCookie setCookieControls setCookies setExtraHTTPHeaders ' +
    'setUserAgentOverride streamResourceContent',
  Overlay:
    'disable enable getGridHighlightObjectsForTest getHighlightObjectForTest getSourceOrderHighlightObjectForTest ' +
    'hideHighlight highlightFrame highlightNode highlightQuad highlightRect highlightSourceOrder setInspectMode ' +
    'setPausedInDebuggerMessage setShowAdHighlights setShowContainerQueryOverlays setShowDebugBorders ' +
    'setShowDisplayCutout setShowFPSCounter setShowFlexOverlays setShowGridOverlays setShowHinge ' +
    'setShowHitTestBorders setShowInspectedElementAnchor setShowIsolatedElements setShowLayoutShiftRegions ' +
    'setShowPaintRects setShowScrollBottleneckRects setShowScrollSnapOverlays setShowViewportSizeOnResize ' +
    'setShowWebVitals setShowWindowControlsOverlay',
  PWA: 'changeAppUserSettings getOsAppState install launch launchFilesInApp openCurrentPageInApp uninstall',
  Page:
    'addCompilationCache addScriptToEvaluateOnLoad addScriptToEvaluateOnNewDocument bringToFront captureScreenshot ' +
    'captureSnapshot clearCompilationCache clearDeviceMetricsOverride clearDeviceOrientationOverride ' +
    'clearGeolocationOverride close crash createIsolatedWorld deleteCookie disable enable generateTestReport ' +
    'getAdScriptAncestry getAnnotatedPageContent getAppId getAppManifest getFrameTree getInstallabilityErrors ' +
    'getLayoutMetrics getManifestIcons getNavigationHistory getOriginTrials getPermissionsPolicyState ' +
    'getResourceContent getResourceTree getSiblingSubApps getSubApps handleJavaScriptDialog navigate ' +
    'navigateToHistoryEntry printToPDF produceCompilationCache reload removeScriptToEvaluateOnLoad ' +
    'removeScriptToEvaluateOnNewDocument resetNavigationHistory screencastFrameAck searchInResource ' +
    'setAdBlockingEnabled setBypassCSP setDeviceMetricsOverride setDeviceOrientationOverride setDocumentContent ' +
    'setDownloadBehavior setFontFamilies setFontSizes setGeolocationOverride setInterceptFileChooserDialog ' +
    'setLifecycleEventsEnabled setPrerenderingAllowed setRPHRegistrationMode setSPCTransactionMode ' +
    'setTouchEmulationEnabled setWebLifecycleState startScreenRecording startScreencast stopLoading ' +
    'stopScreenRecording stopScreencast waitForDebugger',
  Performance: 'disable enable getMetrics setTimeDomain',
  PerformanceTimeline: 'enable',
  Preload: 'disable enable',
  Profiler:
    'disable enable getBestEffortCoverage setSamplingInterval start startPreciseCoverage stop stopPreciseCoverage ' +
    'takePreciseCoverage',
  Runtime:
    'addBinding awaitPromise callFunctionOn compileScript disable discardConsoleEntries enable evaluate ' +
    'getExceptionDetails getHeapUsage getIsolateId getProperties globalLexicalScopeNames queryObjects releaseObject ' +
    'releaseObjectGroup removeBinding runIfWaitingForDebugger runScript setAsyncCallStackDepth ' +
    'setCustomObjectFormatterEnabled setMaxCallStackSizeToCapture terminateExecution',
  Schema: 'getDomains',
  Security: 'disable enable handleCertificateError setIgnoreCertificateErrors setOverrideCertificateErrors',
  ServiceWorker:
    'deliverPushMessage disable dispatchPeriodicSyncEvent dispatchSyncEvent enable setForceUpdateOnPageLoad ' +
    'skipWaiting startWorker stopAllWorkers stopWorker unregister updateRegistration',
  SmartCardEmulation:
    'disable enable reportBeginTransactionResult reportConnectResult reportDataResult reportError ' +
    'reportEstablishContextResult reportGetStatusChangeResult reportListReadersResult reportPlainResult ' +
    'reportReleaseContextResult reportStatusResult',
  Storage:
    'clearCookies clearDataForOrigin clearDataForStorageKey clearPrivateVerificationTokens clearTrustTokens ' +
    'deletePrivateVerificationToken deleteStorageBucket getCookies getPrivateVerificationTokens ' +
    'getPrivateVerificationTokensIssuerConfigs getStorageKey getStorageKeyForFrame getTrustTokens getUsageAndQuota ' +
    'overrideQuotaForOrigin runBounceTrackingMitigations setCookies setPrivateVerificationTokensTracking ' +
    'setStorageBucketTracking trackCacheStorageForOrigin trackCacheStorageForStorageKey trackIndexedDBForOrigin ' +
    'trackIndexedDBForStorageKey untrackCacheStorageForOrigin untrackCacheStorageForStorageKey ' +
    'untrackIndexedDBForOrigin untrackIndexedDBForStorageKey',
  SystemInfo: 'getFeatureState getInfo getProcessInfo',
  Target:
    'activateTarget attachToBrowserTarget attachToTarget autoAttachRelated closeTarget createBrowserContext ' +
    'createTarget detachFromTarget disposeBrowserContext exposeDevToolsProtocol getBrowserContexts getDevToolsTarget ' +
    'getTargetInfo getTargets openDevTools sendMessageToTarget setAutoAttach setDiscoverTargets setRemoteLocations',
  Tethering: 'bind unbind',
  Tracing: 'end getCategories getTrackEventDescriptor recordClockSyncMarker requestMemoryDump start',
  WebAudio: 'disable enable getRealtimeData',
  WebAuthn:
    'addCredential addVirtualAuthenticator clearCredentials disable enable getCredential getCredentials ' +
    'removeCredential removeVirtualAuthenticator setAutomaticPresenceSimulation setCredentialProperties ' +
    'setResponseOverrideBits setUserVerified',
  WebMCP: 'cancelInvocation disable enable invokeTool',
}

const KNOWN: ReadonlySet<string> = new Set(
  Object.entries(METHODS_BY_DOMAIN).flatMap(([domain, names]) => names.split(' ').map((name) => `${domain}.${name}`)),
)

/**
 * Whether Chromium knows `method` at all (a domain and a command of its protocol).
 *
 * @example
 * knownMethod('Browser.setContentsSize') // true
 */
export const knownMethod = (method: string): boolean => KNOWN.has(method)
