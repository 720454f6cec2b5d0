// Iceberg commits of tiering: the lake table of a Fluss table, appends, changelog collapse, maintenance.
export * from './append.js'
export * from './changelog.js'
export * from './maintenance/expire-snapshots.js'
export * from './maintenance/orphan-files.js'
export * from './maintenance/reachable.js'
export * from './table.js'
export * from './table-state.js'
