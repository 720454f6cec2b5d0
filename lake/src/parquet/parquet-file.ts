import { type FieldMetadataTree, writeArrowStream } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import type { RowType } from '@sluice/core/types'
import { Compression, Table, WriterPropertiesBuilder, writeParquet } from 'parquet-wasm/node'

/**
 * Arrow record batches → one Parquet file (ZSTD), through parquet-wasm. Every column, and every
 * nested field of a list, map or struct column, carries its Iceberg field id (Arrow field metadata
 * `PARQUET:field_id`); TIMESTAMP_LTZ columns are declared
 * with time zone UTC so that Parquet marks them adjusted to UTC (Iceberg timestamptz). The Arrow
 * stream handed to parquet-wasm is uncompressed: its arrow-rs build cannot decompress IPC bodies.
 */

export const PARQUET_FIELD_ID_KEY = 'PARQUET:field_id'

export interface ParquetEncodeInput {
  readonly rowType: RowType
  /** RecordBatch messages of `rowType` (ArrowBatchWriter.finish() without compression). */
  readonly batches: readonly Uint8Array[]
  /** Iceberg field id of each column of `rowType`. */
  readonly fieldIds: readonly number[]
  /** Field ids of the nested children of each column (list, map and struct columns). */
  readonly fieldMetadataTrees?: ReadonlyArray<FieldMetadataTree | undefined>
  /** File key/value metadata (`iceberg.schema`, delete-file markers). */
  readonly keyValueMetadata: Readonly<Record<string, string>>
  readonly rowGroupRows: number
}

export function encodeParquet(input: ParquetEncodeInput): Uint8Array {
  const ipc = writeArrowStream(input.rowType, input.batches, {
    fieldMetadata: input.fieldIds.map(id => ({ [PARQUET_FIELD_ID_KEY]: String(id) })),
    ...(input.fieldMetadataTrees === undefined ? {} : { fieldMetadataTrees: input.fieldMetadataTrees }),
    timestampLtzTimezone: 'UTC',
  })
  return encodeParquetStream(ipc, input.keyValueMetadata, input.rowGroupRows)
}

/**
 * An uncompressed Arrow IPC stream whose fields carry `PARQUET:field_id` → one Parquet file (ZSTD).
 */
export function encodeParquetStream(
  ipc: Uint8Array,
  keyValueMetadata: Readonly<Record<string, string>>,
  rowGroupRows: number,
): Uint8Array {
  try {
    const props = new WriterPropertiesBuilder()
      .setCompression(Compression.ZSTD)
      .setMaxRowGroupSize(rowGroupRows)
      .setKeyValueMetadata(new Map(Object.entries(keyValueMetadata)))
      .build()
    return writeParquet(Table.fromIPCStream(ipc), props)
  } catch (e) {
    throw new FlussError('UNKNOWN_SERVER_ERROR', `parquet-wasm failed to write a data file: ${String(e)}`, {
      cause: e,
    })
  }
}
