export * from './types.ts'
export * from './errors.ts'
export * from './Runtime.ts'
export * from './memory.ts'
