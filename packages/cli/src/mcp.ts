/**
 * `errands mcp [--session <key>] [--caps vision,pdf]` — an MCP server on stdio (docs/mcp.md): what a desktop agent
 * launches. One errand for the session; stdout is the protocol, logs go to stderr.
 *
 * @example
 * process.exitCode = await runMcp(['--session', 'task-42'])
 */
import { runMcpStdio } from '@errands/host'

const help = `errands mcp — an MCP server on stdio: the agent gets a browser of its own (an errand)

  errands mcp                 a fresh errand with a random key (forgotten when the session ends)
  errands mcp --session K     the errand of session key K (1–128 of A–Z a–z 0–9 . _ : -), shared
                              with a backend that uses K; parked when the session ends, resumed
                              by the next process with the same K
  errands mcp --caps vision,pdf
                              also offer Playwright MCP's optional tools: vision (mouse by
                              coordinates), pdf (browser_pdf_save)
  browser_file_upload takes files of the errand's own files folder only, by name (docs/files.md).
  Stdout carries the protocol; logs go to stderr. Same ERRANDS_* settings and data directory as
  errands host (do not run both on one data directory at once). See docs/mcp.md.
`

/**
 * Parses the arguments and serves; resolves with the exit code (2 for bad arguments).
 *
 * @example
 * process.exitCode = await runMcp(process.argv.slice(3))
 */
export const runMcp = async (argv: ReadonlyArray<string>): Promise<number> => {
  let session: string | undefined
  let caps: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--help' || arg === '-h') {
      process.stderr.write(help)
      return 0
    }
    if (arg === '--session' && argv[i + 1] !== undefined) session = argv[++i]
    else if (arg.startsWith('--session=')) session = arg.slice('--session='.length)
    else if (arg === '--caps' && argv[i + 1] !== undefined) caps = argv[++i]
    else if (arg.startsWith('--caps=')) caps = arg.slice('--caps='.length)
    else {
      process.stderr.write(`errands mcp: unknown argument ${JSON.stringify(arg.slice(0, 100))}\n${help}`)
      return 2
    }
  }
  return runMcpStdio({ session, caps })
}
