import { FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import type { Value } from '@sluice/core/row'
import type { ArrowValidationOptions, ValidatedArrowBatch } from './arrow-batch-input.js'
import type { WriteBucketAssigner } from './bucket-assigner.js'

/** Options of `AppendWriter.appendArrowBatch`, `appendArrowStream` and `appendArrowBatches`. */
export interface ArrowAppendOptions extends ArrowValidationOptions {
  /**
   * The bucket every batch goes to; only for tables without bucket keys that are not partitioned.
   * Default: the writer's bucket assigner (`client.writer.bucket.no-key-assigner`) picks one per
   * batch.
   */
  readonly bucket?: number
  /**
   * Store each batch with the table's `table.log.arrow.compression.type` rather than the codec it
   * came with: a batch with another codec is re-encoded buffer by buffer (decompressed if needed,
   * then compressed; no values are decoded), as the SDK's own batches of rows are. Default false:
   * the batch is stored exactly as given.
   */
  readonly tableCompression?: boolean
}

/** Checks `options.bucket` against the table before anything is written. */
export function checkArrowAppendOptions(info: TableInfo, options: ArrowAppendOptions): void {
  const bucket = options.bucket
  if (bucket === undefined) return
  const name = `${info.tablePath.databaseName}.${info.tablePath.tableName}`
  if (info.hasBucketKey || info.isPartitioned) {
    throw new FlussError(
      'INVALID_REQUEST',
      `Table ${name} routes rows by ${info.hasBucketKey ? 'bucket key' : 'partition'}: an Arrow batch cannot name its bucket`,
    )
  }
  if (!Number.isInteger(bucket) || bucket < 0 || bucket >= info.numBuckets) {
    throw new FlussError(
      'INVALID_REQUEST',
      `Bucket ${bucket} is outside 0..${info.numBuckets - 1} of ${name}`,
    )
  }
}

/**
 * How a validated Arrow batch is written: whole, to `bucket` (undefined: the bucket assigner picks
 * one when it is added), or row by row.
 */
export type ArrowBatchRoute =
  | { readonly whole: true; readonly bucket: number | undefined }
  | { readonly whole: false }

/**
 * Routes a validated Arrow batch: whole unless the table is partitioned or its bucket keys spread
 * the batch's rows over several buckets. For bucket keys only the key columns are read.
 */
export function routeArrowBatch(
  info: TableInfo,
  assigner: WriteBucketAssigner,
  input: ValidatedArrowBatch,
  bucket: number | undefined,
): ArrowBatchRoute {
  if (info.isPartitioned) return ROW_BY_ROW
  if (!info.hasBucketKey) return { whole: true, bucket }
  const names = info.rowType.fields.map(f => f.name)
  const keys = info.bucketKeys.map(k => names.indexOf(k))
  const reader = input.reader
  const scratch = new Array<Value>(names.length).fill(null)
  let first: number | undefined
  for (let r = 0; r < reader.recordCount; r++) {
    for (const k of keys) scratch[k] = reader.getValue(r, k)
    const b = assigner.assign(scratch, undefined)
    if (first === undefined) first = b
    else if (b !== first) return ROW_BY_ROW
  }
  return { whole: true, bucket: first }
}

const ROW_BY_ROW: ArrowBatchRoute = { whole: false }
