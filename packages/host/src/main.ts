#!/usr/bin/env node
/**
 * The host's entry point — what a service manager runs directly (`npm start` does not forward
 * SIGTERM, STACK-NOTES): `node --import tsx packages/host/src/main.ts`.
 *
 * @example
 * // ERRANDS_PORT=7777 ERRANDS_DATA_DIR=/var/lib/errands node --import tsx packages/host/src/main.ts
 */
import { runHost } from './run.ts'

const code = await runHost()
process.exitCode = code
// Nothing of ours should keep the loop alive after shutdown; if a stray handle does, still exit.
setTimeout(() => process.exit(code), 2_000).unref()
