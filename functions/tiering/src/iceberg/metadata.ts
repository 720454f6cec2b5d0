// Table metadata JSON parsing and writing live with the SDK's lake reader; the writer shares them.
export {
  ancestors,
  currentSnapshot,
  parseTableMetadata,
  serializeTableMetadata,
  snapshotById,
} from '@sluice/client/union/iceberg'
