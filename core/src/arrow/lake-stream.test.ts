import { tableFromIPC } from 'apache-arrow'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Row, Timestamp } from '../row/value.js'
import { ALL_TYPES, ALL_TYPES_ROWS, manyRows } from '../testing/all-types.js'
import { type DataType, DataTypes, type RowType, withNullability } from '../types/data-type.js'
import { ArrowBatchReader } from './batch-reader.js'
import { ArrowBatchWriter } from './batch-writer.js'
import { type ArrowCompressionInfo, initArrowCodecs } from './compression.js'
import { LakeArrowStreamWriter } from './lake-stream.js'
import { lakeStreamRowType } from './lake-system-columns.js'
import { readArrowStream } from './stream.js'

/** The lake representation of a Fluss type (as the tiering function maps it). */
function lakeType(t: DataType): DataType {
  const keep = (x: DataType) => withNullability(x, t.nullable)
  switch (t.type) {
    case 'TINYINT':
    case 'SMALLINT':
      return keep(DataTypes.INT())
    case 'CHAR':
      return keep(DataTypes.STRING())
    case 'TIME_WITHOUT_TIME_ZONE':
      return keep(DataTypes.TIME(6))
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
      return keep(DataTypes.TIMESTAMP(6))
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return keep(DataTypes.TIMESTAMP_LTZ(6))
    default:
      return t
  }
}

const LAKE_TYPES: RowType = {
  ...ALL_TYPES,
  fields: ALL_TYPES.fields.map(f => ({ ...f, type: lakeType(f.type) })),
}
const FIELD_IDS = [...ALL_TYPES.fields.map((_, i) => i + 1), 1_000_000, 1_000_001, 1_000_002]

/** What the row path produces: the rows written in lake types, read back. */
function lakeRows(rows: readonly Row[]): Row[] {
  const w = new ArrowBatchWriter(LAKE_TYPES)
  for (const r of rows) w.addRow(r)
  return new ArrowBatchReader(w.finish(), LAKE_TYPES).toRows()
}

function flussBatch(rowType: RowType, rows: readonly Row[], compression?: ArrowCompressionInfo): Uint8Array {
  const w = new ArrowBatchWriter(rowType, compression === undefined ? {} : { compression })
  for (const r of rows) w.addRow(r)
  return w.finish()
}

function readStream(stream: Uint8Array): Row[] {
  const s = readArrowStream(stream)
  return s.batches.flatMap(b => b.toRows())
}

beforeAll(async () => {
  await initArrowCodecs()
})

describe('LakeArrowStreamWriter', () => {
  for (const compression of [undefined, { type: 'ZSTD', level: 3 }, { type: 'LZ4_FRAME' }] as const) {
    it(`passes ${compression?.type ?? 'uncompressed'} batches through with system columns`, () => {
      const w = new LakeArrowStreamWriter({ userRowType: LAKE_TYPES, fieldIds: FIELD_IDS })
      const first = w.append(flussBatch(ALL_TYPES, ALL_TYPES_ROWS, compression), ALL_TYPES, {
        bucket: 3,
        baseOffset: 100,
        commitTimestampMs: 1_700_000_000_000,
      })
      w.append(flussBatch(ALL_TYPES, ALL_TYPES_ROWS.slice(0, 2), compression), ALL_TYPES, {
        bucket: 3,
        baseOffset: 105,
        commitTimestampMs: 1_700_000_000_001,
      })
      expect(first.recordCount).toBe(5)
      expect(first.nullCounts[ALL_TYPES.fields.findIndex(f => f.name === 'bool')]).toBe(2)
      expect(first.nullCounts.slice(-3)).toEqual([0, 0, 0])
      expect(w.recordCount).toBe(7)
      const stream = w.finish()
      expect(w.recordCount).toBe(0)
      const expected = lakeRows([...ALL_TYPES_ROWS, ...ALL_TYPES_ROWS.slice(0, 2)]).map((r, i) => [
        ...r,
        3,
        BigInt(i < 5 ? 100 + i : 105 + i - 5),
        new Timestamp(i < 5 ? 1_700_000_000_000 : 1_700_000_000_001, 0),
      ])
      expect(readStream(stream)).toEqual(expected)
    })
  }

  it('declares field ids, UTC time zones and microseconds for an independent reader', () => {
    const w = new LakeArrowStreamWriter({ userRowType: LAKE_TYPES, fieldIds: FIELD_IDS })
    w.append(flussBatch(ALL_TYPES, ALL_TYPES_ROWS), ALL_TYPES, {
      bucket: 0,
      baseOffset: 0,
      commitTimestampMs: 5,
    })
    const table = tableFromIPC(w.finish())
    expect(table.numRows).toBe(5)
    const fields = table.schema.fields
    expect(fields.map(f => f.metadata.get('PARQUET:field_id'))).toEqual(FIELD_IDS.map(String))
    const ts = fields.find(f => f.name === '__timestamp')
    expect(String(ts?.type)).toBe('Timestamp<MICROSECOND, UTC>')
    expect(ts?.nullable).toBe(false)
    expect(String(fields.find(f => f.name === 'ltz3')?.type)).toBe('Timestamp<MICROSECOND, UTC>')
    expect(String(fields.find(f => f.name === 'i8')?.type)).toBe('Int32')
    expect(table.getChild('__timestamp')?.get(0)).toBe(5)
    expect(table.getChild('__offset')?.toArray()).toEqual(BigInt64Array.from([0n, 1n, 2n, 3n, 4n]))
  })

  it('fills columns added after a batch was written with nulls', () => {
    const wide = lakeStreamRowType(LAKE_TYPES)
    const narrow: RowType = { ...ALL_TYPES, fields: ALL_TYPES.fields.slice(0, 8) }
    const w = new LakeArrowStreamWriter({ userRowType: LAKE_TYPES, fieldIds: FIELD_IDS })
    w.append(
      flussBatch(
        narrow,
        ALL_TYPES_ROWS.map(r => r.slice(0, 8)),
      ),
      narrow,
      { bucket: 1, baseOffset: 7, commitTimestampMs: 9 },
    )
    const rows = readStream(w.finish())
    expect(rows).toHaveLength(5)
    for (const r of rows) {
      expect(r).toHaveLength(wide.fields.length)
      expect(r.slice(8, ALL_TYPES.fields.length).every(v => v === null)).toBe(true)
    }
    expect(rows.map(r => r.slice(0, 8))).toEqual(lakeRows(ALL_TYPES_ROWS).map(r => r.slice(0, 8)))
  })

  it('keeps memory per batch and many batches in one stream', () => {
    const w = new LakeArrowStreamWriter({ userRowType: LAKE_TYPES, fieldIds: FIELD_IDS })
    const rows = manyRows(1000)
    for (let b = 0; b < 4; b++) {
      w.append(flussBatch(ALL_TYPES, rows, { type: 'ZSTD', level: 1 }), ALL_TYPES, {
        bucket: 0,
        baseOffset: b * 1000,
        commitTimestampMs: b,
      })
    }
    const before = w.bufferedBytes
    const stream = w.finish()
    expect(stream.length).toBe(before)
    const read = readStream(stream)
    expect(read).toHaveLength(4000)
    expect(read[3999].slice(-3)).toEqual([0, 3999n, new Timestamp(3, 0)])
  })

  it('refuses damaged batches, impossible conversions and bad positions with typed errors', () => {
    const w = new LakeArrowStreamWriter({ userRowType: LAKE_TYPES, fieldIds: FIELD_IDS })
    const good = flussBatch(ALL_TYPES, ALL_TYPES_ROWS)
    const position = { bucket: 0, baseOffset: 0, commitTimestampMs: 0 }
    expect(() => w.append(good.subarray(0, good.length - 40), ALL_TYPES, position)).toThrow(
      expect.objectContaining({ errorName: 'CORRUPT_RECORD_EXCEPTION' }),
    )
    const asString: RowType = {
      ...ALL_TYPES,
      fields: ALL_TYPES.fields.map((f, i) => (i === 4 ? { ...f, type: DataTypes.STRING() } : f)),
    }
    const bad = new LakeArrowStreamWriter({ userRowType: asString, fieldIds: FIELD_IDS })
    expect(() => bad.append(good, ALL_TYPES, position)).toThrow(
      expect.objectContaining({ errorName: 'INVALID_REQUEST' }),
    )
    expect(() => w.append(good, ALL_TYPES, { ...position, baseOffset: -1 })).toThrow(
      expect.objectContaining({ errorName: 'INVALID_REQUEST' }),
    )
    expect(
      () => new LakeArrowStreamWriter({ userRowType: LAKE_TYPES, fieldIds: FIELD_IDS.slice(1) }),
    ).toThrow(expect.objectContaining({ errorName: 'INVALID_REQUEST' }))
    expect(w.recordCount).toBe(0)
  })
})
