// Merge-on-read of a lake snapshot: its live data and delete files, then the surviving rows.
export * from './lake-files.js'
export * from './scan-snapshot.js'
