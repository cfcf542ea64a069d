#!/usr/bin/env node
import { Effect, Either } from 'effect'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { replayFile } from './replay.ts'

// The `errands` command. Kept to argument handling; each verb is a function of its own module,
// loaded when its verb runs: a host start does not pay for the MCP server's modules, nor `mcp`
// for the host's cluster (a process starts in about a second less).
const usage = `errands — a browser of its own for every AI-agent errand

  errands host               start the browser host (HTTP API on 127.0.0.1:$ERRANDS_PORT, default 7777)
  errands mcp [--session K]  an MCP server on stdio (docs/mcp.md): the agent gets an errand of its own
  errands demo               replay the bundled journals and print their state traces
  errands replay <journal>   replay a JSON-lines journal on the deterministic runtime; print the trace
  errands config             decode every ERRANDS_* setting and print them (exit 2 naming every invalid one)
`

const here = path.dirname(new URL(import.meta.url).pathname)
const repoRoot = path.resolve(here, '../../..')

/**
 * The demo journals: beside the compiled CLI (the build copies them into dist/, so they ship with the package), or the
 * repository's when run from source.
 */
const demoJournals = (): string | undefined =>
  [path.join(here, 'journals'), path.join(repoRoot, 'journals')].find((dir) => fs.existsSync(dir))

const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const [verb, ...rest] = argv
  switch (verb) {
    case 'host':
      return (await import('./host.ts')).runHost(rest)
    case 'mcp':
      return (await import('./mcp.ts')).runMcp(rest)
    case 'replay': {
      if (rest[0] === undefined) {
        process.stderr.write('errands replay: give the journal file to replay\n')
        return 2
      }
      const result = await Effect.runPromise(Effect.either(replayFile(rest[0])))
      if (Either.isLeft(result)) {
        process.stderr.write(`errands replay: ${result.left.message}\n`)
        return 1
      }
      process.stdout.write(result.right)
      return 0
    }
    case 'demo': {
      const dir = demoJournals()
      if (dir === undefined) {
        process.stderr.write(
          `errands demo: the bundled journals are missing (looked in ${path.join(here, 'journals')}); reinstall ` +
            `@errands/cli\n`,
        )
        return 1
      }
      for (const name of fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.jsonl'))
        .sort()) {
        process.stdout.write(`\n== ${name} (t, conversation, state) ==\n`)
        process.stdout.write(await Effect.runPromise(Effect.orDie(replayFile(path.join(dir, name)))))
      }
      return 0
    }
    case 'config':
      // The same pass as `errands host`'s start-up: every ERRANDS_* variable, every bad one named.
      return (await import('./config.ts')).runConfig(process.env, process)
    default:
      process.stdout.write(usage)
      return verb === undefined || verb === 'help' || verb === '--help' ? 0 : 2
  }
}

process.exitCode = await main(process.argv.slice(2))
