import { ArrowBatchWriter, projectRowType } from '@sluice/core/arrow'
import { Schema, tableBucket } from '@sluice/core/metadata'
import { buildLogBatch, ChangeType, LogRecordBatch } from '@sluice/core/record'
import { DataTypes } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import { LogBatchDecoding } from './batch-decoding.js'
import { CompletedFetch, decodeBatch } from './completed-fetch.js'

const schema = Schema.newBuilder()
  .column('a', DataTypes.INT())
  .column('b', DataTypes.STRING())
  .column('c', DataTypes.DOUBLE())
  .build()
const rowType = schema.rowType

/** Decoding of schema 1 only (every batch here is written with it). */
function decoding(pushdown?: number[]) {
  const schemas = { known: (id: number) => (id === 1 ? schema : undefined), get: async () => schema }
  return new LogBatchDecoding(1, schema, pushdown, schemas)
}

function batchBytes(
  rows: [number, string, number][],
  baseOffset: number,
  changeTypes?: ChangeType[],
): Buffer {
  const writer = new ArrowBatchWriter(rowType)
  for (const r of rows) writer.addRow(r)
  const bytes = buildLogBatch({
    schemaId: 1,
    appendOnly: changeTypes === undefined,
    recordCount: rows.length,
    records: writer.finish(),
    ...(changeTypes === undefined ? {} : { changeTypes }),
  })
  new LogRecordBatch(bytes).setBaseOffset(baseOffset)
  return bytes
}

const full = { decoding: decoding(), projected: false, reorder: undefined, checkCrc: true }

describe('decodeBatch', () => {
  it('decodes rows from an offset inside the batch, with change types', () => {
    const bytes = batchBytes(
      [
        [1, 'x', 0.5],
        [2, 'y', 1.5],
        [3, 'z', 2.5],
      ],
      10,
      [ChangeType.INSERT, ChangeType.UPDATE_BEFORE, ChangeType.UPDATE_AFTER],
    )
    const records = decodeBatch(new LogRecordBatch(bytes), 11, full)
    expect(records.map(r => [r.offset, r.changeType, r.row])).toEqual([
      [11, ChangeType.UPDATE_BEFORE, [2, 'y', 1.5]],
      [12, ChangeType.UPDATE_AFTER, [3, 'z', 2.5]],
    ])
  })

  it('reads a projected payload and reorders columns as asked', () => {
    const writer = new ArrowBatchWriter(projectRowType(rowType, [0, 2]))
    writer.addRow([1, 9.5])
    const bytes = buildLogBatch({ schemaId: 1, appendOnly: true, recordCount: 1, records: writer.finish() })
    const options = {
      decoding: decoding([0, 2]),
      projected: true,
      reorder: [1, 0],
      checkCrc: true,
    }
    expect(decodeBatch(new LogRecordBatch(bytes), 0, options)[0].row).toEqual([9.5, 1])
  })

  it('checks the CRC of unprojected batches only', () => {
    const bytes = batchBytes([[1, 'x', 0.5]], 0)
    bytes[bytes.length - 9] ^= 0x01
    expect(() => decodeBatch(new LogRecordBatch(bytes), 0, full)).toThrow(
      expect.objectContaining({ errorName: 'CORRUPT_RECORD_EXCEPTION' }),
    )
    expect(() => decodeBatch(new LogRecordBatch(bytes), 0, { ...full, checkCrc: false })).not.toThrow()
  })
})

describe('CompletedFetch', () => {
  const bucket = tableBucket(1, 0)

  it('hands out records across batches in limited takes and tracks the next offset', () => {
    const records = Buffer.concat([
      batchBytes(
        [
          [1, 'a', 0],
          [2, 'b', 0],
        ],
        0,
      ),
      batchBytes([[3, 'c', 0]], 2),
    ])
    const fetch = new CompletedFetch(bucket, 1, 3, records, undefined, full)
    expect(fetch.take(1).map(r => r.offset)).toEqual([1])
    expect(fetch.nextFetchOffset).toBe(2)
    expect(fetch.take(5).map(r => r.row[0])).toEqual([3])
    expect(fetch.nextFetchOffset).toBe(3)
    expect(fetch.take(5)).toEqual([])
    expect(fetch.isConsumed).toBe(true)
  })

  it('stops at a truncated tail once records were read, and fails when the first batch is cut', () => {
    const whole = batchBytes([[1, 'a', 0]], 0)
    const cut = batchBytes([[2, 'b', 0]], 1).subarray(0, 30)
    const fetch = new CompletedFetch(bucket, 0, 2, Buffer.concat([whole, cut]), undefined, full)
    expect(fetch.take(10).map(r => r.offset)).toEqual([0])
    expect(fetch.failed).toBe(false)
    const broken = new CompletedFetch(bucket, 0, 2, cut, undefined, full)
    expect(broken.take(10)).toEqual([])
    expect(broken.failed).toBe(true)
    expect(broken.error?.errorName).toBe('CORRUPT_RECORD_EXCEPTION')
  })
})
