/**
 * Which calls on an errand's page only read it (P1, issue #26): while a person has the wheel,
 * every other call is refused with `PersonDriving`'s words; these still answer. One list for
 * every face, so the host's `/v1` verbs and the MCP tools cannot disagree about what acts: the
 * host's wheel check (`@errands/host` browsing/driving.ts) and the MCP server's pre-check and
 * `readOnlyHint` (`@errands/mcp` server.ts) both ask {@link onlyReads}.
 *
 * @example
 * onlyReads('screenshot')        // true  (GET /v1/screenshot)
 * onlyReads('browser_snapshot')  // true
 * onlyReads('browser_click')     // false: refused while a person drives
 */

/** The read-only calls, by face: a call not named here acts. */
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

const READS: ReadonlySet<string> = new Set([...PAGE_READS.v1, ...PAGE_READS.mcp])

/**
 * Whether a call only reads the page (answers while a person drives).
 *
 * @example
 * onlyReads('navigate') // false
 */
export const onlyReads = (call: string): boolean => READS.has(call)
