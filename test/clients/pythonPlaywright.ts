/**
 * Python Playwright for the client tests, installed the way the set-up finds Chromium: a cached
 * target folder (`node_modules/.cache/python-playwright-<version>`), filled once with
 * `pip install --target` from whatever index pip is set up with (its driver — Node and
 * Playwright's server — comes inside the wheel: nothing is downloaded at run time). When python3
 * or pip is missing, or pip cannot get the package, it throws saying which and how to fix it:
 * the test fails with that, never skips.
 *
 * @example
 * const python = await pythonPlaywright()
 * const out = await python.run('test/clients/python-playwright-child.py', [url, origin, path])
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** The version the client matrix names (issue text of round two: Python Playwright 1.63). */
export const PYTHON_PLAYWRIGHT = '1.63.0'

const target = resolve('node_modules/.cache', `python-playwright-${PYTHON_PLAYWRIGHT}`)

/** A Python that imports the cached Playwright, and a way to run a script with it. */
export interface PythonPlaywright {
  readonly python: string
  /** Runs a Python script with the cached Playwright on its path; answers its standard output. */
  readonly run: (script: string, args: ReadonlyArray<string>, timeoutMs?: number) => Promise<string>
}

const missing = (what: string, cause: unknown): Error =>
  new Error(
    `Python Playwright ${PYTHON_PLAYWRIGHT} is needed by this test and ${what}: ` +
      `${cause instanceof Error ? cause.message : String(cause)}. Install python3 and pip (Debian: ` +
      "'apt-get install python3 python3-pip'), or fill the cache yourself: " +
      `pip install --target ${target} playwright==${PYTHON_PLAYWRIGHT}`,
  )

/**
 * The cached Python Playwright, installed on first use.
 *
 * @example
 * const { run } = await pythonPlaywright()
 */
export const pythonPlaywright = async (): Promise<PythonPlaywright> => {
  const python = 'python3'
  const env = { ...process.env, PYTHONPATH: target, PYTHONDONTWRITEBYTECODE: '1' }
  await run(python, ['--version']).catch((e: unknown) => {
    throw missing('python3 is not there', e)
  })
  if (!existsSync(join(target, 'playwright', 'driver'))) {
    // No retries: an index that cannot be reached is said at once, not after minutes.
    await run(
      python,
      [
        '-m',
        'pip',
        'install',
        '--quiet',
        '--retries',
        '0',
        '--timeout',
        '20',
        '--target',
        target,
        `playwright==${PYTHON_PLAYWRIGHT}`,
      ],
      { timeout: 180_000 },
    ).catch((e: unknown) => {
      throw missing('pip could not install it', e)
    })
  }
  const { stdout } = await run(
    python,
    ['-c', 'import playwright, importlib.metadata as m; print(m.version("playwright"))'],
    {
      env,
    },
  ).catch((e: unknown) => {
    throw missing(`it does not import from ${target}`, e)
  })
  if (stdout.trim() !== PYTHON_PLAYWRIGHT) throw missing('another version is in the cache', stdout.trim())
  return {
    python,
    run: async (script, args, timeoutMs = 90_000) =>
      (await run(python, [script, ...args], { env, timeout: timeoutMs })).stdout,
  }
}
