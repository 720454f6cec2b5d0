import { describe, expect, it } from 'vitest'
import { ChangeType } from './change-type.js'
import { buildLogBatch } from './log-batch-builder.js'
import { LogRecordBatch } from './log-record-batch.js'
import { RowLogRecordsWriter, rowLogRecords } from './row-log-records.js'

function batchOf(records: Uint8Array, recordCount: number): LogRecordBatch {
  return new LogRecordBatch(
    buildLogBatch({ schemaId: 1, appendOnly: false, vector: false, recordCount, records }),
  )
}

describe('row-format log records', () => {
  it('writes Length, change type and row per record, and reads them back', () => {
    const writer = new RowLogRecordsWriter(4)
    writer.append(ChangeType.INSERT, Buffer.from([7, 8, 9]))
    writer.append(ChangeType.DELETE, Buffer.from([]))
    expect(writer.view()).toEqual(Buffer.from([4, 0, 0, 0, 1, 7, 8, 9, 1, 0, 0, 0, 4]))
    const batch = batchOf(writer.view(), writer.recordCount)
    expect(batch.sizeInBytes).toBe(48 + 13)
    expect(rowLogRecords(batch)).toEqual([
      { changeType: ChangeType.INSERT, row: Buffer.from([7, 8, 9]) },
      { changeType: ChangeType.DELETE, row: Buffer.from([]) },
    ])
    writer.reset()
    expect([writer.recordCount, writer.view().length]).toEqual([0, 0])
  })

  it('refuses records that do not fill the section exactly, zero lengths and bad change types', () => {
    const one = Buffer.from([2, 0, 0, 0, 1, 5])
    const cases: [Buffer, number, RegExp][] = [
      [one, 2, /record 1 of 2 starts 0 bytes before the end/],
      [Buffer.concat([one, Buffer.from([0])]), 1, /1 bytes follow its 1 records/],
      [Buffer.from([9, 0, 0, 0, 1, 5]), 1, /record 0 has length 9, 2 bytes remain/],
      [Buffer.from([0, 0, 0, 0, 1]), 1, /record 0 has length 0/],
      [Buffer.from([2, 0, 0, 0, 9, 5]), 1, /unsupported change type byte 9/],
    ]
    for (const [records, count, message] of cases) {
      expect(() => rowLogRecords(batchOf(records, count))).toThrow(message)
    }
  })
})
