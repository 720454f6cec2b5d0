import { ArrowBatchWriter, type ArrowCompressionInfo } from '@sluice/core/arrow'
import {
  type Configuration,
  TABLE_LOG_ARROW_COMPRESSION_TYPE,
  TABLE_LOG_ARROW_COMPRESSION_ZSTD_LEVEL,
} from '@sluice/core/config'
import { buildLogBatch, type ChangeType } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import { padRow, type SchemaContext } from './kv-schemas.js'

/** The changelog compression of a table (`table.log.arrow.compression.*`). */
export function changelogCompression(tableConfig: Configuration): ArrowCompressionInfo {
  const type = tableConfig.get(TABLE_LOG_ARROW_COMPRESSION_TYPE)
  return type === 'ZSTD' ? { type, level: tableConfig.get(TABLE_LOG_ARROW_COMPRESSION_ZSTD_LEVEL) } : { type }
}

/**
 * Collects the changelog rows of one put and builds its log batch (Fluss's `ArrowWalBuilder`): a V0
 * batch that is not append-only, with the change-type vector and one Arrow RecordBatch message of
 * the rows in the latest schema (rows of older schemas padded with NULLs). A put without changes
 * builds an empty batch (no records), which still takes one offset. The Arrow buffers are reused.
 */
export class ChangelogBuilder {
  #writer: ArrowBatchWriter | null = null
  #schema: SchemaContext | null = null
  #changeTypes: ChangeType[] = []

  constructor(readonly compression: ArrowCompressionInfo) {}

  /** Starts a new batch written in `latest`. */
  start(latest: SchemaContext): void {
    if (this.#schema !== latest || this.#writer === null) {
      this.#writer = new ArrowBatchWriter(latest.rowType, { compression: this.compression })
      this.#schema = latest
    } else {
      this.#writer.reset()
    }
    this.#changeTypes = []
  }

  get recordCount(): number {
    return this.#changeTypes.length
  }

  append(changeType: ChangeType, row: Row): void {
    const schema = this.#schema as SchemaContext
    ;(this.#writer as ArrowBatchWriter).addRow(padRow(row, schema.fieldCount))
    this.#changeTypes.push(changeType)
  }

  /** The log batch of the rows appended since `start` (offset and timestamp left for the log). */
  build(writerId: number, batchSequence: number): Buffer {
    const schema = this.#schema as SchemaContext
    const count = this.#changeTypes.length
    const records = count === 0 ? new Uint8Array(0) : (this.#writer as ArrowBatchWriter).finish()
    return buildLogBatch({
      schemaId: schema.schemaId,
      appendOnly: false,
      writerId,
      batchSequence,
      recordCount: count,
      changeTypes: this.#changeTypes,
      records,
    })
  }
}
