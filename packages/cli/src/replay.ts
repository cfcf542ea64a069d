import { formatTrace, parseJournal, replay } from '@errands/supervisor'
import { Effect } from 'effect'
import * as fs from 'node:fs'

/**
 * Replays a JSON-lines journal file on the deterministic runtime and returns its trace text.
 *
 * @example
 * process.stdout.write(await Effect.runPromise(replayFile('journals/park.jsonl')))
 */
export const replayFile = (file: string) =>
  Effect.flatMap(
    Effect.try({
      try: () => fs.readFileSync(file, 'utf8'),
      catch: (e) => new Error(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`),
    }),
    (text) => Effect.map(Effect.flatMap(parseJournal(text), replay), formatTrace),
  )
