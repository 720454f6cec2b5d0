import { FlussError } from '../errors/index.js'
import { ByteBuilder } from '../kvbatch/byte-builder.js'
import { type ChangeType, changeTypeFromByte } from './change-type.js'
import type { LogRecordBatch } from './log-record-batch.js'

/*
 * The records section of INDEXED and COMPACTED log batches (Fluss's `IndexedLogRecord`,
 * `CompactedLogRecord`): `RecordCount` records back to back, each
 *
 *   Length      int32 LE  bytes that follow (attributes + row)
 *   Attributes  int8      the ChangeType byte
 *   Row         Length-1  IndexedRow or CompactedRow bytes
 *
 * No change-type vector: each record carries its own change type.
 */

/** Length + Attributes. */
export const ROW_LOG_RECORD_OVERHEAD = 5

/** The log formats of `table.log.format`. */
export type LogRecordsFormat = 'ARROW' | 'INDEXED' | 'COMPACTED'

/** One record of a row-format batch; `row` is a view into the batch. */
export interface RowLogRecord {
  readonly changeType: ChangeType
  readonly row: Buffer
}

/** Builds the records section of a row-format batch, reusing its buffer across `reset`s. */
export class RowLogRecordsWriter {
  readonly #out: ByteBuilder
  #count = 0

  constructor(initialCapacityBytes = 1024) {
    this.#out = new ByteBuilder(initialCapacityBytes)
  }

  get recordCount(): number {
    return this.#count
  }

  append(changeType: ChangeType, row: Uint8Array): void {
    this.#out.int32(row.length + 1)
    this.#out.ensure(1)
    this.#out.buf[this.#out.pos++] = changeType
    this.#out.bytes(row)
    this.#count++
  }

  /** The section written since the last reset (a view, valid until the next append or reset). */
  view(): Buffer {
    return this.#out.buf.subarray(0, this.#out.pos)
  }

  reset(): void {
    this.#out.pos = 0
    this.#count = 0
  }
}

function corrupt(batch: LogRecordBatch, message: string): FlussError {
  return new FlussError(
    'CORRUPT_RECORD_EXCEPTION',
    `row-format log batch at offset ${batch.baseOffset}: ${message}`,
  )
}

/**
 * The records of an INDEXED or COMPACTED batch, checked strictly: exactly `recordCount` records
 * that fill the records section, each with a length of at least 1 and a valid change type.
 */
export function rowLogRecords(batch: LogRecordBatch): RowLogRecord[] {
  const section = batch.recordsSection()
  const count = batch.recordCount
  const records: RowLogRecord[] = []
  let at = 0
  for (let i = 0; i < count; i++) {
    if (section.length - at < ROW_LOG_RECORD_OVERHEAD) {
      throw corrupt(batch, `record ${i} of ${count} starts ${section.length - at} bytes before the end`)
    }
    const length = section.readInt32LE(at)
    if (length < 1 || length > section.length - at - 4) {
      throw corrupt(batch, `record ${i} has length ${length}, ${section.length - at - 4} bytes remain`)
    }
    const changeType = changeTypeFromByte(section[at + 4])
    records.push({ changeType, row: section.subarray(at + ROW_LOG_RECORD_OVERHEAD, at + 4 + length) })
    at += 4 + length
  }
  if (at !== section.length) {
    throw corrupt(batch, `${section.length - at} bytes follow its ${count} records`)
  }
  return records
}
