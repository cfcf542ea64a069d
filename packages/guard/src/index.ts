/**
 * `@errands/guard` — the containment policy every request, navigation and WebSocket of every
 * browser context passes (SPEC G1, G2). Pure: no I/O.
 *
 * @example
 * import { decide, defaultPolicy } from '@errands/guard'
 * decide('file:///etc/passwd', defaultPolicy([{ port: 7070 }])).allow // false
 */
export * from './ip.ts'
export * from './policy.ts'
export * from './decide.ts'
export * from './patterns.ts'
export * from './resolved.ts'
