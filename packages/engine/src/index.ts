export * from './Engine.ts'
