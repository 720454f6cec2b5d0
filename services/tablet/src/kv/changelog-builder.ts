import { ArrowBatchWriter, type ArrowCompressionInfo } from '@sluice/core/arrow'
import {
  type Configuration,
  TABLE_LOG_ARROW_COMPRESSION_TYPE,
  TABLE_LOG_ARROW_COMPRESSION_ZSTD_LEVEL,
  TABLE_LOG_FORMAT,
} from '@sluice/core/config'
import { assert, FlussError } from '@sluice/core/errors'
import { buildLogBatch, type ChangeType, RowLogRecordsWriter } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import type { SchemaContext } from './kv-schemas.js'

/** The log formats a primary-key table's changelog can be written in. */
export type ChangelogFormat = 'ARROW' | 'COMPACTED'

/** The changelog compression of a table (`table.log.arrow.compression.*`). */
export function changelogCompression(tableConfig: Configuration): ArrowCompressionInfo {
  const type = tableConfig.get(TABLE_LOG_ARROW_COMPRESSION_TYPE)
  return type === 'ZSTD' ? { type, level: tableConfig.get(TABLE_LOG_ARROW_COMPRESSION_ZSTD_LEVEL) } : { type }
}

/**
 * The changelog format of a primary-key table (`table.log.format`). INDEXED needs INDEXED values
 * (Fluss refuses it with COMPACTED ones, the only value format here), so it is refused.
 */
export function changelogFormat(tableConfig: Configuration): ChangelogFormat {
  const format = tableConfig.get(TABLE_LOG_FORMAT)
  if (format === 'INDEXED') {
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      "Primary Key Table with COMPACTED kv format doesn't support INDEXED cdc log format.",
    )
  }
  return format
}

/** Writes a builder from a table's properties (format and compression). */
export function changelogBuilderFor(tableConfig: Configuration): ChangelogBuilder {
  return new ChangelogBuilder(changelogCompression(tableConfig), changelogFormat(tableConfig))
}

/**
 * Collects the changelog rows of one put and builds its log batch, a V0 batch that is not
 * append-only, of the rows in the latest schema (values of older schemas are mapped to it first):
 * - ARROW (Fluss's `ArrowWalBuilder`): the change-type vector and one Arrow RecordBatch message;
 * - COMPACTED (`CompactedWalBuilder`): one record per row, its change type and CompactedRow.
 * A put without changes builds an empty batch (the header alone, no records), which still takes
 * one offset. The buffers are reused across puts.
 */
export class ChangelogBuilder {
  #writer: ArrowBatchWriter | null = null
  readonly #rows: RowLogRecordsWriter | null
  #schema: SchemaContext | null = null
  #changeTypes: ChangeType[] = []

  constructor(
    readonly compression: ArrowCompressionInfo,
    readonly format: ChangelogFormat = 'ARROW',
  ) {
    this.#rows = format === 'COMPACTED' ? new RowLogRecordsWriter() : null
  }

  /** Starts a new batch written in `latest`. */
  start(latest: SchemaContext): void {
    if (this.#rows !== null) {
      this.#rows.reset()
    } else if (this.#schema !== latest || this.#writer === null) {
      this.#writer = new ArrowBatchWriter(latest.rowType, { compression: this.compression })
    } else {
      this.#writer.reset()
    }
    this.#schema = latest
    this.#changeTypes = []
  }

  get recordCount(): number {
    return this.#changeTypes.length
  }

  /** Appends a row of the latest schema (the put maps every value to it before merging). */
  append(changeType: ChangeType, row: Row): void {
    const schema = this.#schema as SchemaContext
    assert(row.length === schema.fieldCount, 'changelog rows are rows of the latest schema')
    if (this.#rows !== null) this.#rows.append(changeType, schema.encoder.encodeView(row))
    else (this.#writer as ArrowBatchWriter).addRow(row)
    this.#changeTypes.push(changeType)
  }

  /** The log batch of the rows appended since `start` (offset and timestamp left for the log). */
  build(writerId: number, batchSequence: number): Buffer {
    const schema = this.#schema as SchemaContext
    const count = this.#changeTypes.length
    const header = {
      schemaId: schema.schemaId,
      appendOnly: false,
      writerId,
      batchSequence,
      recordCount: count,
    }
    if (this.#rows !== null) return buildLogBatch({ ...header, vector: false, records: this.#rows.view() })
    const records = count === 0 ? new Uint8Array(0) : (this.#writer as ArrowBatchWriter).finish()
    return buildLogBatch({ ...header, changeTypes: this.#changeTypes, records })
  }
}
