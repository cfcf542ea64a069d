import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it } from 'vitest'

// Machines decide and nothing else (STYLE §1): they import xstate and their own files only,
// and never read a clock, randomness, the environment or the network. This test is the lint rule.
const root = path.dirname(new URL(import.meta.url).pathname)
const sources = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name)
    if (d.isDirectory()) return d.name === 'node_modules' ? [] : sources(p)
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : []
  })

const forbidden: Array<[RegExp, string]> = [
  [/\bDate\.now\b|\bnew Date\b/, 'reads the wall clock'],
  [/\bsetTimeout\b|\bsetInterval\b|\bsetImmediate\b|\bqueueMicrotask\b/, 'runs its own timers'],
  [/\bMath\.random\b|\bcrypto\b/, 'uses randomness'],
  [/\bprocess\.|\brequire\(|\bfetch\(/, 'touches the process or the network'],
  [/\bconsole\./, 'logs'],
]

describe('machines are pure', () => {
  const files = sources(root)

  it('has machine sources to check', () => {
    expect(files.map((f) => path.relative(root, f))).toContain(path.join('errand', 'machine.ts'))
  })

  it.each(files.map((f) => [path.relative(root, f), f]))('%s imports only xstate and its own files', (_, file) => {
    const text = fs.readFileSync(file, 'utf8')
    const imports = [...text.matchAll(/(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]/g)].map((m) => m[1]!)
    expect(imports.filter((i) => i !== 'xstate' && !i.startsWith('./') && !i.startsWith('../'))).toEqual([])
    for (const i of imports.filter((i) => i.startsWith('../'))) {
      expect(path.resolve(path.dirname(file), i).startsWith(root)).toBe(true)
    }
  })

  it.each(files.map((f) => [path.relative(root, f), f]))('%s has no clock, timer, randomness or I/O', (_, file) => {
    const code = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
    for (const [pattern, why] of forbidden) expect(pattern.test(code), `${path.basename(file)} ${why}`).toBe(false)
  })
})
