export * from './harness.js'
export * from './report.js'
