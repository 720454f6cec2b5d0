export * from './table-meters.js'
export * from './tablet-gauges.js'
export * from './tablet-server-metrics.js'
