import type { BucketingFunction } from '@sluice/core/bucketing'
import { partitionGetter, type TableInfo } from '@sluice/core/metadata'
import { CompactedRowEncoder, type KeyEncoder, keyPositions, type Row, type Value } from '@sluice/core/row'
import { projectFields, tableKeyEncoders } from '../table/key-encoding.js'
import { RowConverter, type RowInput, schemaDefaults } from '../table/row-converter.js'
import type { KvWriteRecord } from './batch-format.js'

/** A user row turned into a KV record, with where it goes. */
export interface EncodedKvRecord {
  readonly record: KvWriteRecord
  readonly partitionName: string | undefined
  readonly bucket: number
}

/**
 * Turns upsert and delete rows into KV records as Fluss's UpsertWriter does: the key is the
 * physical primary key (partition columns excluded) encoded with the table's primary-key encoding,
 * the bucket is the table's bucketing of the encoded bucket key (both per `keyEncoderFor`: Fluss's
 * own, or Iceberg's for Iceberg lake tables), the partition comes from the partition columns, and the
 * value is the CompactedRow of the full row (null for a delete).
 *
 * For a partial update, rows hold the target columns only, in target order; the value row has those
 * columns set and every other column NULL (the server takes only the target columns from it).
 * Deletes need only the primary key columns. Every value is checked before anything is encoded: a
 * bad row throws INVALID_REQUEST naming the column.
 *
 * The key and value are views of reused buffers, valid until the next call.
 */
export class KvRecordEncoder {
  readonly #fieldCount: number
  readonly #targets: readonly number[] | undefined
  readonly #converter: RowConverter
  /** Positions of the primary key columns in the rows the converter produces. */
  readonly #keyPositions: readonly number[]
  readonly #keyEncoder: KeyEncoder
  readonly #bucketKeyEncoder: KeyEncoder
  readonly #bucketing: BucketingFunction
  readonly #numBuckets: number
  readonly #valueEncoder: CompactedRowEncoder
  readonly #partitionOf: ((row: Row) => string) | undefined

  constructor(info: TableInfo, targets: readonly number[] | undefined) {
    const rowType = info.rowType
    this.#fieldCount = rowType.fields.length
    this.#targets = targets
    this.#converter =
      targets === undefined
        ? new RowConverter(rowType, undefined, schemaDefaults(info.schema))
        : new RowConverter(projectFields(rowType, targets), 'the partial update writes')
    const keyIndexes = keyPositions(rowType, info.primaryKeys)
    this.#keyPositions = targets === undefined ? keyIndexes : keyIndexes.map(k => targets.indexOf(k))
    const encoders = tableKeyEncoders(info)
    this.#keyEncoder = encoders.key
    this.#bucketKeyEncoder = encoders.bucketKey
    this.#bucketing = encoders.bucketing
    this.#numBuckets = info.numBuckets
    this.#valueEncoder = new CompactedRowEncoder(rowType)
    this.#partitionOf = info.isPartitioned ? partitionGetter(rowType, info.partitionKeys) : undefined
  }

  /** An upsert of `input` (the full row, or the target columns of a partial update). */
  encodeUpsert(input: RowInput): EncodedKvRecord {
    const row = this.#fullRow(this.#converter.toRow(input))
    return this.#encode(row, true)
  }

  /** A delete of the row with the primary key of `input` (other columns are ignored). */
  encodeDelete(input: RowInput): EncodedKvRecord {
    const row = this.#fullRow(this.#converter.toKeyRow(input, this.#keyPositions))
    return this.#encode(row, false)
  }

  #fullRow(converted: Row): Row {
    const targets = this.#targets
    if (targets === undefined) return converted
    const row = new Array<Value>(this.#fieldCount).fill(null)
    for (let i = 0; i < targets.length; i++) row[targets[i]] = converted[i]
    return row
  }

  #encode(row: Row, withValue: boolean): EncodedKvRecord {
    const partitionName = this.#partitionOf?.(row)
    const bucket = this.#bucketing(this.#bucketKeyEncoder.encodeKeyView(row), this.#numBuckets)
    const key = this.#keyEncoder.encodeKeyView(row)
    const value = withValue ? this.#valueEncoder.encodeView(row) : null
    return { record: { key, value }, partitionName, bucket }
  }
}
