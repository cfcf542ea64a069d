/**
 * `@errands/egress` — the one door every context's connections leave through (SPEC G3): a proxy
 * in the engine process that resolves each name itself, decides on the resolved address with
 * `@errands/guard`, connects to that address, knows the errand, and logs every decision.
 *
 * @example
 * import { Egress } from '@errands/egress'
 * const egress = await Egress.start({ policy, log: console.error })
 */
export * from './Egress.ts'
export * from './resolve.ts'
export * from './decideUrl.ts'
export * from './callers.ts'
export * from './machine.ts'
