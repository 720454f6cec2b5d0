export { LocalCluster, type LocalClusterOptions, ServerProcess } from '@sluice/cli/cluster'
export * from './wait.js'
