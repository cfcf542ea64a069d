/**
 * Vitest globalSetup for every tier (docs/testing.md): brings every package's
 * `dist/` up to date with scripts/build.sh (`tsc -b` (incremental: a no-op when nothing changed), and the live view's
 * bundle) before any test
 * starts a host, an MCP server or a soak child — those run the compiled output, as a service
 * manager would (R4, issue #28). In-process tests never need it: vitest resolves `@errands/*`
 * through the `@errands/source` condition.
 *
 * `scripts/test.sh` builds once up front and sets `ERRANDS_BUILT=1`, so a full run builds once.
 * Type errors do not stop the run here (another engineer's half-done edit must not block your
 * test file): `tsc -b` still emits, and the root type-check reports them.
 */
import { spawnSync } from 'node:child_process'
import { resolve } from 'node:path'

const repo = resolve(import.meta.dirname, '../..')
const built = Symbol.for('errands.test.built')

/** Builds once per vitest process, whichever tier's setup comes first. @example export default buildPackages */
export default function buildPackages(): void {
  const g = globalThis as { [built]?: boolean }
  if (g[built] === true || process.env.ERRANDS_BUILT === '1') return
  g[built] = true
  // The one build (scripts/build.sh): tsc -b, then the live view's front end into its dist/.
  const result = spawnSync('bash', [resolve(repo, 'scripts/build.sh')], { cwd: repo, encoding: 'utf8' })
  if (result.status !== 0) {
    process.stderr.write(
      `errands: the build reported errors (dist/ was still ` +
        `written):\n${result.stderr.split('\n').slice(0, 20).join('\n')}\n`,
    )
  }
  // What this process starts (`npm start -- mcp`, scripts/start.sh) need not build again.
  process.env.ERRANDS_BUILT = '1'
}
