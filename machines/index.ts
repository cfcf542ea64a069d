export * from './errand/types.ts'
export * from './errand/machine.ts'
