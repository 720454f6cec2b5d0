import { beforeAll, describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { Decimal, type Row, Timestamp } from '../row/value.js'
import { ALL_TYPES, ALL_TYPES_ROWS, manyRows } from '../testing/all-types.js'
import { DataTypes, notNull, type RowType } from '../types/data-type.js'
import { ArrowBatchReader } from './batch-reader.js'
import { ArrowBatchWriter } from './batch-writer.js'
import { type ArrowCompressionInfo, initArrowCodecs } from './compression.js'
import { CODEC_LZ4_FRAME, CODEC_NONE, CODEC_ZSTD, readRecordBatchHeader } from './message.js'

const COMPRESSIONS: [ArrowCompressionInfo, number][] = [
  [{ type: 'NONE' }, CODEC_NONE],
  [{ type: 'ZSTD', level: 3 }, CODEC_ZSTD],
  [{ type: 'LZ4_FRAME' }, CODEC_LZ4_FRAME],
]

function encode(rowType: RowType, rows: Row[], compression?: ArrowCompressionInfo): Uint8Array {
  const writer = new ArrowBatchWriter(rowType, { compression })
  for (const row of rows) writer.addRow(row)
  return writer.finish()
}

function header(message: Uint8Array) {
  return readRecordBatchHeader(new DataView(message.buffer, message.byteOffset, message.byteLength))
}

function expectFlussError(fn: () => unknown, name: string, text?: RegExp): void {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(FlussError)
    expect((e as FlussError).errorName).toBe(name)
    if (text) expect((e as Error).message).toMatch(text)
    return
  }
  throw new Error(`expected FlussError ${name}`)
}

const SIMPLE: RowType = DataTypes.ROW([
  { name: 'id', type: notNull(DataTypes.INT()), fieldId: 0 },
  { name: 'name', type: DataTypes.STRING(), fieldId: 1 },
  { name: 'price', type: DataTypes.DECIMAL(5, 2), fieldId: 2 },
  { name: 'at', type: DataTypes.TIMESTAMP(6), fieldId: 3 },
])

beforeAll(() => initArrowCodecs())

describe('ArrowBatchWriter round trip', () => {
  for (const [compression, codec] of COMPRESSIONS) {
    it(`reads back every type with ${compression.type}`, () => {
      const message = encode(ALL_TYPES, ALL_TYPES_ROWS, compression)
      expect(header(message).codec).toBe(codec)
      const reader = new ArrowBatchReader(message, ALL_TYPES)
      expect(reader.recordCount).toBe(ALL_TYPES_ROWS.length)
      expect(reader.messageSizeInBytes).toBe(message.length)
      expect(reader.toRows()).toEqual(ALL_TYPES_ROWS)
      expect([...reader.rows()]).toEqual(ALL_TYPES_ROWS)
      expect(reader.getValue(2, 4)).toBe(-(2n ** 63n))
      expect(reader.isNullAt(1, 0)).toBe(true)
      expect(reader.isNullAt(1, 3)).toBe(false)
    })

    it(`writes an empty batch with ${compression.type}`, () => {
      const message = encode(ALL_TYPES, [], compression)
      const reader = new ArrowBatchReader(message, ALL_TYPES)
      expect(reader.recordCount).toBe(0)
      expect(reader.toRows()).toEqual([])
    })

    it(`grows past the initial capacity with ${compression.type}`, () => {
      const rows = manyRows(1201)
      const writer = new ArrowBatchWriter(ALL_TYPES, { compression, initialCapacityRows: 3 })
      for (const row of rows) writer.addRow(row)
      expect(writer.recordCount).toBe(1201)
      expect(new ArrowBatchReader(writer.finish(), ALL_TYPES).toRows()).toEqual(rows)
    })
  }

  it('lays out an 8-aligned message with continuation and padded metadata length', () => {
    const message = encode(SIMPLE, [[1, 'a', null, new Timestamp(5)]])
    const view = new DataView(message.buffer)
    expect(view.getUint32(0, true)).toBe(0xffffffff)
    const metadataLength = view.getInt32(4, true)
    expect((8 + metadataLength) % 8).toBe(0)
    expect(message.length % 8).toBe(0)
    const h = header(message)
    expect(h.frame.bodyStart).toBe(8 + metadataLength)
    expect(h.frame.end).toBe(message.length)
  })

  it('omits the validity buffer of columns without nulls', () => {
    const message = encode(SIMPLE, [[1, 'a', null, new Timestamp(5)]])
    const h = header(message)
    const view = new DataView(message.buffer)
    const validityLength = (i: number) => Number(view.getBigInt64(h.buffers + 16 * i + 8, true))
    expect(validityLength(0)).toBe(0) // id: no nulls
    expect(validityLength(2)).toBe(0) // name: no nulls
    expect(validityLength(5)).toBe(1) // price: one null
  })

  it('rescales decimals without losing digits and keeps the type scale', () => {
    const message = encode(SIMPLE, [
      [1, 'a', new Decimal(15n, 1), null],
      [2, 'b', new Decimal(1200n, 3), null],
    ])
    expect(new ArrowBatchReader(message, SIMPLE).toRows().map(r => r[2])).toEqual([
      new Decimal(150n, 2),
      new Decimal(120n, 2),
    ])
  })

  it('truncates timestamps to the column precision like Fluss', () => {
    const rowType = DataTypes.ROW([
      { name: 's', type: DataTypes.TIMESTAMP(0), fieldId: 0 },
      { name: 'ms', type: DataTypes.TIMESTAMP_LTZ(2), fieldId: 1 },
      { name: 'us', type: DataTypes.TIMESTAMP(5), fieldId: 2 },
      { name: 't0', type: DataTypes.TIME(0), fieldId: 3 },
    ])
    const ts = new Timestamp(-1_500, 123_456)
    const rows = new ArrowBatchReader(encode(rowType, [[ts, ts, ts, 1_999]]), rowType).toRows()
    expect(rows).toEqual([
      [new Timestamp(-1_000), new Timestamp(-1_500), new Timestamp(-1_500, 123_000), 1_000],
    ])
  })

  it('accepts safe-integer numbers for BIGINT', () => {
    const rowType = DataTypes.ROW([{ name: 'l', type: DataTypes.BIGINT(), fieldId: 0 }])
    const rows = new ArrowBatchReader(encode(rowType, [[-5], [2 ** 53 - 1]]), rowType).toRows()
    expect(rows).toEqual([[-5n], [2n ** 53n - 1n]])
  })
})

describe('ArrowBatchWriter sizes and reuse', () => {
  it('reports the exact size before finishing (uncompressed)', () => {
    const writer = new ArrowBatchWriter(ALL_TYPES)
    const empty = writer.estimatedSizeInBytes()
    expect(empty).toBe(writer.finish().length)
    for (const row of ALL_TYPES_ROWS) writer.addRow(row)
    const estimate = writer.estimatedSizeInBytes()
    expect(estimate).toBeGreaterThan(empty)
    expect(writer.uncompressedSizeInBytes()).toBe(estimate)
    expect(writer.finish().length).toBe(estimate)
  })

  it('learns the compression ratio from finished batches', () => {
    const writer = new ArrowBatchWriter(SIMPLE, { compression: { type: 'ZSTD' } })
    const fill = () => {
      for (let i = 0; i < 2000; i++)
        writer.addRow([i, 'same text every time', new Decimal(100n, 2), new Timestamp(i)])
    }
    fill()
    expect(writer.estimatedSizeInBytes()).toBe(writer.uncompressedSizeInBytes())
    const first = writer.finish()
    expect(first.length).toBeLessThan(writer.uncompressedSizeInBytes() / 2)
    writer.reset()
    fill()
    expect(writer.estimatedSizeInBytes()).toBeLessThan(writer.uncompressedSizeInBytes())
  })

  it('reuses its buffers after reset without leaking earlier rows', () => {
    const writer = new ArrowBatchWriter(ALL_TYPES, { initialCapacityRows: 8 })
    for (const row of manyRows(20)) writer.addRow(row)
    writer.finish()
    writer.reset()
    expect(writer.recordCount).toBe(0)
    const rows = [ALL_TYPES_ROWS[1], ALL_TYPES_ROWS[4]]
    for (const row of rows) writer.addRow(row)
    const again = writer.finish()
    expect(new ArrowBatchReader(again, ALL_TYPES).toRows()).toEqual(rows)
    const fresh = encode(ALL_TYPES, rows)
    expect(again).toEqual(fresh)
  })
})

describe('ArrowBatchWriter rejects bad rows whole', () => {
  const good: Row = [1, 'a', new Decimal(1n, 2), new Timestamp(0)]
  const cases: [string, Row, RegExp][] = [
    ['null in a NOT NULL column', [null, 'a', null, null], /NOT NULL column 'id'/],
    ['a fraction in INT', [1.5, 'a', null, null], /column 'id'/],
    ['an out-of-range INT', [2 ** 31, 'a', null, null], /column 'id'/],
    ['a number in STRING', [1, 5, null, null], /column 'name'/],
    ['a decimal beyond the precision', [1, 'a', new Decimal(100000n, 2), null], /exceeds the precision/],
    ['a decimal with too many fraction digits', [1, 'a', new Decimal(1001n, 3), null], /fraction digits/],
    ['a Date instead of a Timestamp', [1, 'a', null, new Date(0) as never], /column 'at'/],
    [
      'a timestamp with an invalid nano of millisecond',
      [1, 'a', null, new Timestamp(0, 1_000_000)],
      /column 'at'/,
    ],
  ]
  for (const [what, row, text] of cases) {
    it(`rejects ${what}`, () => {
      const writer = new ArrowBatchWriter(SIMPLE)
      writer.addRow(good)
      expectFlussError(() => writer.addRow(row), 'INVALID_REQUEST', text)
      writer.addRow(good)
      expect(writer.recordCount).toBe(2)
      expect(new ArrowBatchReader(writer.finish(), SIMPLE).toRows()).toEqual([good, good])
    })
  }

  it('rejects rows of the wrong arity', () => {
    expectFlussError(() => new ArrowBatchWriter(SIMPLE).addRow([1]), 'INVALID_REQUEST', /1 values/)
  })

  it('rejects BINARY(n) values of another length and out-of-range TINYINT/BIGINT', () => {
    const w = new ArrowBatchWriter(ALL_TYPES)
    const row = (i: number, v: unknown) => ALL_TYPES_ROWS[0].map((x, j) => (j === i ? v : x)) as Row
    expectFlussError(() => w.addRow(row(9, new Uint8Array(3))), 'INVALID_REQUEST', /column 'bin'/)
    expectFlussError(() => w.addRow(row(1, 128)), 'INVALID_REQUEST', /column 'i8'/)
    expectFlussError(() => w.addRow(row(4, 2n ** 63n)), 'INVALID_REQUEST', /column 'i64'/)
    expectFlussError(() => w.addRow(row(21, new Timestamp(2 ** 52))), 'INVALID_REQUEST', /'ts9'.*int64 range/)
    expect(w.recordCount).toBe(0)
  })

  it('refuses invalid column types with a clear error', () => {
    const badDecimal = DataTypes.ROW([{ name: 'd', type: DataTypes.DECIMAL(39, 0), fieldId: 0 }])
    expectFlussError(() => new ArrowBatchWriter(badDecimal), 'INVALID_REQUEST', /precision/)
  })

  it('validates the ZSTD level', () => {
    expectFlussError(
      () => new ArrowBatchWriter(SIMPLE, { compression: { type: 'ZSTD', level: 23 } }),
      'INVALID_CONFIG_EXCEPTION',
    )
  })
})
