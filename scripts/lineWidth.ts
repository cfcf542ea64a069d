import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/*
 * The line width the tree keeps (docs/adr/0039-biome.md): 120 columns, counted in characters, in
 * every source and style file, comments and strings included — Biome's formatter wraps code but
 * leaves a long comment or string literal alone, so this check holds the rest.
 */

export const WIDTH = 120

/** Where a file's lines are wider than `width`: 1-based line numbers and their lengths. */
export const longLines = (text: string, width = WIDTH): Array<{ line: number; length: number }> =>
  text
    .split('\n')
    .map((l, i) => ({ line: i + 1, length: [...l].length }))
    .filter((l) => l.length > width)

/** The files the check covers: tracked sources and styles, bar the generated ones biome.json ignores. */
export const checkedFiles = (root: string): Array<string> =>
  execFileSync('git', ['ls-files', '-z', '--', '*.ts', '*.tsx', '*.js', '*.mjs', '*.css'], { cwd: root })
    .toString('utf8')
    .split('\0')
    .filter((f) => f !== '' && !f.startsWith('packages/mcp/src/pinned/'))

/** Every line wider than WIDTH in the tree at `root`, as `path:line (length)`. */
export const treeLongLines = (root: string): Array<string> =>
  checkedFiles(root).flatMap((f) =>
    longLines(readFileSync(join(root, f), 'utf8')).map((l) => `${f}:${l.line} (${l.length})`),
  )
