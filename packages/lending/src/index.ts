/**
 * `@errands/lending` — sign-ins are lent, never shared (SPEC L1–L7): the one site function,
 * storage filtered by site, the person's browser settings, and the `Lending` service that seeds,
 * lends, revokes and signs errands out.
 *
 * @example
 * import { Lending, Settings, siteOf } from '@errands/lending'
 * siteOf('a.shop.example') // 'shop.example'
 */
export * from './sites.ts'
export * from './filter.ts'
export * from './redact.ts'
export * from './errors.ts'
export * from './Settings.ts'
export { settingsPath, writeFileAtomic } from './settingsFile.ts'
export { mergeStorage, type Moved, type Reach } from './moves.ts'
export * from './seed.ts'
export * from './Lending.ts'
export * from './answers.ts'
export * from './testing.ts'
