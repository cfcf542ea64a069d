export * from './errand/types.ts'
export * from './errand/machine.ts'
export * from './lease/types.ts'
export * from './lease/machine.ts'
