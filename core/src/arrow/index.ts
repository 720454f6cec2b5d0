export { ARROW_TYPE_IDS, type ArrowTimeUnit, type ArrowType, toFlussType } from './arrow-type.js'
export {
  ArrowBatchReader,
  type ArrowBatchReaderOptions,
  DEFAULT_MAX_UNCOMPRESSED_BYTES,
  type RecordBatchInfo,
  readRecordBatchInfo,
} from './batch-reader.js'
export { ArrowBatchWriter, type ArrowBatchWriterOptions } from './batch-writer.js'
export {
  arrowNodeCount,
  type ChildField,
  type ColumnLayout,
  columnLayout,
  LIST_ELEMENT_NAME,
  MAP_ENTRIES_NAME,
  MAP_KEY_NAME,
  MAP_VALUE_NAME,
  mapEntriesType,
  rowLayouts,
} from './column-layout.js'
export {
  type ArrowCompressionInfo,
  type ArrowCompressionType,
  arrowCodecsInitialized,
  DEFAULT_COMPRESSION,
  DEFAULT_ZSTD_LEVEL,
  initArrowCodecs,
  NO_COMPRESSION,
  recompressRecordBatch,
} from './compression.js'
export { type LakeColumnBuffers, lakeColumnConverter, nullColumn } from './lake-columns.js'
export { LakeArrowStreamWriter, type LakeBatchSummary, type LakeStreamSchema } from './lake-stream.js'
export {
  LAKE_BUCKET_COLUMN,
  LAKE_OFFSET_COLUMN,
  LAKE_TIMESTAMP_COLUMN,
  type LakeBatchPosition,
  lakeStreamRowType,
  PARQUET_FIELD_ID_METADATA_KEY,
} from './lake-system-columns.js'
export { type ProjectedColumn, projectWithNullColumns } from './null-columns.js'
export {
  ArrowProjection,
  projectedRecordBatchSize,
  projectRecordBatch,
  projectRowType,
} from './projection.js'
export {
  type ArrowField,
  type FieldMetadataTree,
  type SchemaMessageOptions,
  schemaMessage,
} from './schema.js'
export { type ArrowStream, readArrowStream, writeArrowStream } from './stream.js'
