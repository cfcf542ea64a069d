/**
 * Runs the longest files first, tier by tier (docs/testing.md, "Time"). Vitest orders a clean
 * clone's files by size, having no timings yet, so a two-minute file could start last and run
 * alone on one core while the other idles: the longest-first order of a measured run
 * (`test/durations.json`) keeps both workers busy to the end. A file not listed there counts as
 * {@link UNLISTED_S}. Refresh the list with `node scripts/slowest.mjs <vitest JSON report>
 * --durations` when files come and go.
 *
 * @example
 * // vitest.config.ts
 * test: { sequence: { sequencer: LongestFirst } }
 */
import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/** Seconds a file missing from the list is taken to need: about a median browser file. */
export const UNLISTED_S = 8

const listed = (): Readonly<Record<string, number>> => {
  try {
    return JSON.parse(readFileSync(join(import.meta.dirname, '..', 'durations.json'), 'utf8')) as Record<string, number>
  } catch {
    return {}
  }
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const took = listed()
    const root = this.ctx.config.root
    const cost = new Map(files.map((spec) => [spec, took[relative(root, spec.moduleId)] ?? UNLISTED_S]))
    // Tiers stay together, the tier with the longest file first: a worker whose next file is of
    // another tier (vitest project) is ended and a new one started, which re-imports everything
    // (2–15 s on a loaded machine). Interleaved, that cost a fifth of the run. (Vitest groups by
    // `groupOrder` itself, whatever the order here.)
    const longest = new Map<string, number>()
    for (const [spec, s] of cost) longest.set(spec.project.name, Math.max(longest.get(spec.project.name) ?? 0, s))
    const rank = (spec: TestSpecification) =>
      [longest.get(spec.project.name)!, spec.project.name, cost.get(spec)!] as const
    return [...files].sort((a, b) => {
      const [ta, na, ca] = rank(a)
      const [tb, nb, cb] = rank(b)
      return tb - ta || na.localeCompare(nb) || cb - ca
    })
  }
}
