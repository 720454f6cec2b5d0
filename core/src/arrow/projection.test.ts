import { beforeAll, describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import type { Row } from '../row/value.js'
import { ALL_TYPES, ALL_TYPES_ROWS, manyRows } from '../testing/all-types.js'
import { DataTypes, type RowType } from '../types/data-type.js'
import { ArrowBatchReader } from './batch-reader.js'
import { ArrowBatchWriter } from './batch-writer.js'
import { type ArrowCompressionType, initArrowCodecs } from './compression.js'
import { readRecordBatchHeader } from './message.js'
import {
  ArrowProjection,
  projectedRecordBatchSize,
  projectRecordBatch,
  projectRowType,
} from './projection.js'

function encode(rows: Row[], type: ArrowCompressionType, rowType: RowType = ALL_TYPES): Uint8Array {
  const writer = new ArrowBatchWriter(rowType, { compression: { type } })
  for (const row of rows) writer.addRow(row)
  return writer.finish()
}

function header(message: Uint8Array) {
  return readRecordBatchHeader(new DataView(message.buffer, message.byteOffset, message.byteLength))
}

function errorName(fn: () => unknown): string {
  try {
    fn()
  } catch (e) {
    if (e instanceof FlussError) return e.errorName
    throw e
  }
  return 'none'
}

const PROJECTIONS = [[0], [23], [3, 7], [1, 5, 7, 12, 20], [9, 10, 11], ALL_TYPES.fields.map((_, i) => i), []]

beforeAll(() => initArrowCodecs())

describe('projectRecordBatch', () => {
  for (const type of ['NONE', 'ZSTD', 'LZ4_FRAME'] as const) {
    const rows = manyRows(203)
    it(`equals reading all columns then selecting (${type})`, () => {
      const message = encode(rows, type)
      for (const fields of PROJECTIONS) {
        const projected = projectRecordBatch(message, ALL_TYPES, fields)
        expect(projected.length % 8).toBe(0)
        expect(header(projected).codec).toBe(header(message).codec)
        expect(projectedRecordBatchSize(message, ALL_TYPES, fields)).toBe(projected.length)
        const reader = new ArrowBatchReader(projected, projectRowType(ALL_TYPES, fields))
        expect(reader.recordCount).toBe(rows.length)
        expect(reader.toRows()).toEqual(rows.map(r => fields.map(i => r[i])))
      }
    })

    it(`projects empty batches and projections of projections (${type})`, () => {
      const empty = projectRecordBatch(encode([], type), ALL_TYPES, [2, 7])
      expect(new ArrowBatchReader(empty, projectRowType(ALL_TYPES, [2, 7])).toRows()).toEqual([])
      const once = projectRecordBatch(encode(ALL_TYPES_ROWS, type), ALL_TYPES, [1, 7, 12, 21])
      const onceType = projectRowType(ALL_TYPES, [1, 7, 12, 21])
      const twice = projectRecordBatch(once, onceType, [1, 3])
      expect(new ArrowBatchReader(twice, projectRowType(onceType, [1, 3])).toRows()).toEqual(
        ALL_TYPES_ROWS.map(r => [r[7], r[21]]),
      )
    })
  }

  it('copies selected buffers byte for byte and shrinks the batch', () => {
    const message = encode(manyRows(100), 'ZSTD')
    const projected = projectRecordBatch(message, ALL_TYPES, [7])
    const source = header(message)
    const target = header(projected)
    const view = (m: Uint8Array) => new DataView(m.buffer, m.byteOffset, m.byteLength)
    // column 7 (str) owns buffers 14..16 of the source: columns 0..6 have two buffers each
    const bytesOf = (m: Uint8Array, h: typeof source, i: number) => {
      const v = view(m)
      const offset = Number(v.getBigInt64(h.buffers + 16 * i, true))
      const length = Number(v.getBigInt64(h.buffers + 16 * i + 8, true))
      return m.subarray(h.frame.bodyStart + offset, h.frame.bodyStart + offset + length)
    }
    for (let k = 0; k < 3; k++)
      expect(bytesOf(projected, target, k)).toEqual(bytesOf(message, source, 14 + k))
    expect(projected.length).toBeLessThan(message.length / 3)
  })

  it('reuses one plan across batches', () => {
    const plan = new ArrowProjection(ALL_TYPES, [0, 8])
    expect(plan.projectedRowType.fields.map(f => f.name)).toEqual(['bool', 'chr'])
    for (const type of ['NONE', 'LZ4_FRAME'] as const) {
      const rows = manyRows(17)
      const projected = plan.project(encode(rows, type))
      expect(new ArrowBatchReader(projected, plan.projectedRowType).toRows()).toEqual(
        rows.map(r => [r[0], r[8]]),
      )
    }
  })

  it('rejects invalid projections with INVALID_COLUMN_PROJECTION', () => {
    const message = encode(ALL_TYPES_ROWS, 'NONE')
    for (const fields of [[2, 1], [1, 1], [24], [-1], [0.5], [0, 3, 3]]) {
      expect(errorName(() => projectRecordBatch(message, ALL_TYPES, fields))).toBe(
        'INVALID_COLUMN_PROJECTION',
      )
      expect(errorName(() => projectRowType(ALL_TYPES, fields))).toBe('INVALID_COLUMN_PROJECTION')
    }
  })

  it('rejects corrupt or mismatching batches with CORRUPT_RECORD_EXCEPTION', () => {
    const message = encode(ALL_TYPES_ROWS, 'NONE')
    for (const cut of [0, 7, 100, message.length - 1]) {
      expect(errorName(() => projectRecordBatch(message.subarray(0, cut), ALL_TYPES, [1]))).toBe(
        'CORRUPT_RECORD_EXCEPTION',
      )
      expect(errorName(() => projectedRecordBatchSize(message.subarray(0, cut), ALL_TYPES, [1]))).toBe(
        'CORRUPT_RECORD_EXCEPTION',
      )
    }
    const other = DataTypes.ROW([{ name: 'x', type: DataTypes.INT(), fieldId: 0 }])
    expect(errorName(() => projectRecordBatch(message, other, [0]))).toBe('CORRUPT_RECORD_EXCEPTION')
    const broken = message.slice()
    const h = header(broken)
    new DataView(broken.buffer).setInt32(h.buffers + 16 * 3 + 8, h.frame.bodyLength + 1, true)
    expect(errorName(() => projectRecordBatch(broken, ALL_TYPES, [1]))).toBe('CORRUPT_RECORD_EXCEPTION')
  })
})
