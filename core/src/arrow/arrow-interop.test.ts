import { compress as zstdCompress, decompress as zstdDecompress } from '@bokuweb/zstd-wasm'
import {
  Binary,
  Bool,
  CompressionType,
  compressionRegistry,
  DateDay,
  Float64,
  Int8,
  Int64,
  makeData,
  makeVector,
  RecordBatchStreamWriter,
  Table,
  TimeMillisecond,
  TimeNanosecond,
  TimestampMicrosecond,
  tableFromIPC,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from 'apache-arrow'
import { compressFrameSync, decompressFrameSync } from 'lz4-napi'
import { beforeAll, describe, expect, it } from 'vitest'
import { Decimal, type Row, Timestamp, type Value } from '../row/value.js'
import { ALL_TYPES, ALL_TYPES_ROWS } from '../testing/all-types.js'
import type { DataType, RowType } from '../types/data-type.js'
import { ArrowBatchWriter } from './batch-writer.js'
import { type ArrowCompressionType, initArrowCodecs } from './compression.js'
import { projectRecordBatch, projectRowType } from './projection.js'
import { readArrowStream, writeArrowStream } from './stream.js'

/** apache-arrow (an independent implementation) as the reference reader and writer. */

function plain(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes)
}

beforeAll(async () => {
  await initArrowCodecs()
  compressionRegistry.set(CompressionType.ZSTD, {
    encode: data => zstdCompress(data, 3),
    decode: data => zstdDecompress(data),
  })
  compressionRegistry.set(CompressionType.LZ4_FRAME, {
    encode: data => plain(compressFrameSync(Buffer.from(data))),
    decode: data => plain(decompressFrameSync(Buffer.from(data))),
  })
})

function int128(words: Uint32Array, at: number): bigint {
  let u = 0n
  for (let k = 3; k >= 0; k--) u = (u << 32n) | BigInt(words[at + k])
  return BigInt.asIntN(128, u)
}

/** A value as apache-arrow stores it, converted to our value model from the raw buffers. */
function arrowValue(table: Table, column: number, row: number, type: DataType): Value {
  const vector = table.getChildAt(column)
  if (vector === null) throw new Error(`no column ${column}`)
  if (!vector.isValid(row)) return null
  const values = vector.data[0].values as unknown as ArrayLike<number | bigint>
  const raw = values[row]
  switch (type.type) {
    case 'DECIMAL':
      return new Decimal(int128(values as Uint32Array, row * 4), type.scale)
    case 'TIME_WITHOUT_TIME_ZONE':
      if (type.precision === 0) return (raw as number) * 1000
      if (type.precision <= 3) return raw as number
      return Number((raw as bigint) / (type.precision <= 6 ? 1000n : 1_000_000n))
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      if (type.precision === 0) return new Timestamp(Number(raw) * 1000)
      if (type.precision <= 3) return new Timestamp(Number(raw))
      return type.precision <= 6 ? Timestamp.fromMicros(raw as bigint) : Timestamp.fromNanos(raw as bigint)
    case 'DATE':
      return raw as number
    case 'BINARY':
    case 'BYTES':
      return plain(vector.get(row) as Uint8Array)
    default:
      return vector.get(row) as Value
  }
}

function arrowRows(table: Table, rowType: RowType): Row[] {
  return Array.from({ length: table.numRows }, (_, r) =>
    rowType.fields.map((f, c) => arrowValue(table, c, r, f.type)),
  )
}

function encode(rowType: RowType, rows: Row[], type: ArrowCompressionType): Uint8Array {
  const writer = new ArrowBatchWriter(rowType, { compression: { type } })
  for (const row of rows) writer.addRow(row)
  return writer.finish()
}

const EXPECTED_ARROW_TYPES = [
  'Bool',
  'Int8',
  'Int16',
  'Int32',
  'Int64',
  'Float32',
  'Float64',
  'Utf8',
  'Utf8',
  'FixedSizeBinary[4]',
  'Binary',
  'Decimal[10e+2]',
  'Decimal[38e+10]',
  'Date32<DAY>',
  'Time32<SECOND>',
  'Time32<MILLISECOND>',
  'Time64<MICROSECOND>',
  'Time64<NANOSECOND>',
  'Timestamp<SECOND>',
  'Timestamp<MILLISECOND>',
  'Timestamp<MICROSECOND>',
  'Timestamp<NANOSECOND>',
  'Timestamp<MILLISECOND>',
  'Timestamp<NANOSECOND>',
]

describe('our writer, apache-arrow reader', () => {
  for (const type of ['NONE', 'ZSTD', 'LZ4_FRAME'] as const) {
    it(`maps every type as Fluss does and round-trips values (${type})`, () => {
      const stream = writeArrowStream(ALL_TYPES, [encode(ALL_TYPES, ALL_TYPES_ROWS, type)])
      const table = tableFromIPC(stream)
      expect(table.schema.fields.map(f => String(f.type))).toEqual(EXPECTED_ARROW_TYPES)
      expect(table.schema.fields.map(f => f.nullable)).toEqual(ALL_TYPES.fields.map(f => f.type.nullable))
      expect(table.schema.fields.every(f => f.type.timezone === undefined || f.type.timezone === null)).toBe(
        true,
      )
      expect(arrowRows(table, ALL_TYPES)).toEqual(ALL_TYPES_ROWS)
    })

    it(`reads several batches and an empty one (${type})`, () => {
      const batches = [
        encode(ALL_TYPES, ALL_TYPES_ROWS, type),
        encode(ALL_TYPES, [], type),
        encode(ALL_TYPES, ALL_TYPES_ROWS.slice(1, 3), type),
      ]
      const table = tableFromIPC(writeArrowStream(ALL_TYPES, batches))
      expect(table.numRows).toBe(ALL_TYPES_ROWS.length + 2)
      expect(table.getChildAt(7)?.toArray()).toEqual([
        'hello',
        null,
        '',
        'héllo wörld ✓ 日本語 🎉',
        'x'.repeat(300),
        null,
        '',
      ])
    })

    it(`reads projected batches (${type})`, () => {
      const fields = [0, 7, 12, 21]
      const projected = projectRecordBatch(encode(ALL_TYPES, ALL_TYPES_ROWS, type), ALL_TYPES, fields)
      const rowType = projectRowType(ALL_TYPES, fields)
      const table = tableFromIPC(writeArrowStream(rowType, [projected]))
      expect(arrowRows(table, rowType)).toEqual(ALL_TYPES_ROWS.map(r => fields.map(i => r[i])))
    })
  }

  it('carries field and schema metadata', () => {
    const stream = writeArrowStream(ALL_TYPES, [], {
      fieldMetadata: [{ 'PARQUET:field_id': '1' }, undefined, { 'PARQUET:field_id': '3', note: 'ü' }],
      metadata: { origin: 'sluice' },
    })
    const table = tableFromIPC(stream)
    expect(table.numRows).toBe(0)
    expect(table.schema.fields[0].metadata.get('PARQUET:field_id')).toBe('1')
    expect(table.schema.fields[1].metadata.size).toBe(0)
    expect(Object.fromEntries(table.schema.fields[2].metadata)).toEqual({
      'PARQUET:field_id': '3',
      note: 'ü',
    })
    expect(table.schema.metadata.get('origin')).toBe('sluice')
  })
})

describe('apache-arrow writer, our reader', () => {
  it('reads a stream written by apache-arrow, validity bitmaps included', () => {
    const table = new Table({
      b: vectorFromArray([true, null, false], new Bool()),
      i8: vectorFromArray([1, -128, null], new Int8()),
      l: vectorFromArray([1n, null, -(2n ** 63n)], new Int64()),
      d: vectorFromArray([0.5, null, -1e300], new Float64()),
      s: vectorFromArray(['a', '', null], new Utf8()),
      bin: vectorFromArray([new Uint8Array([1]), null, new Uint8Array(0)], new Binary()),
      day: vectorFromArray([0, 19000 * 86_400_000, null], new DateDay()), // the builder takes epoch ms
      tms: vectorFromArray([1000, null, 5], new TimeMillisecond()),
      tns: vectorFromArray([1_000_000n, null, 7_000_000n], new TimeNanosecond()),
      ts: makeVector(
        makeData({
          type: new TimestampMicrosecond(),
          length: 3,
          nullCount: 1,
          nullBitmap: Uint8Array.of(0b011),
          data: BigInt64Array.of(1_700_000_000_123_456n, -1n, 0n),
        }),
      ),
    } as never)
    {
      const stream = readArrowStream(tableToIPC(table, 'stream'))
      expect(stream.rowType?.fields.map(f => f.type.type)).toEqual([
        'BOOLEAN',
        'TINYINT',
        'BIGINT',
        'DOUBLE',
        'STRING',
        'BYTES',
        'DATE',
        'TIME_WITHOUT_TIME_ZONE',
        'TIME_WITHOUT_TIME_ZONE',
        'TIMESTAMP_WITHOUT_TIME_ZONE',
      ])
      const rows = stream.batches.flatMap(b => b.toRows())
      expect(rows).toEqual([
        [true, 1, 1n, 0.5, 'a', new Uint8Array([1]), 0, 1000, 1, new Timestamp(1_700_000_000_123, 456_000)],
        [null, -128, null, null, '', null, 19000, null, null, new Timestamp(-1, 999_000)],
        [false, null, -(2n ** 63n), -1e300, null, new Uint8Array(0), null, 5, 7, null],
      ])
    }
  })

  it('rejects compressed batches whose prefix is the compressed length (apache-arrow 21 writer bug)', () => {
    const table = new Table({
      s: vectorFromArray(['abc'.repeat(100), 'abc'.repeat(100)], new Utf8()),
    })
    const writer = new RecordBatchStreamWriter({ compressionType: CompressionType.ZSTD } as never)
    const bytes = writer.writeAll(table).toUint8Array(true)
    expect(() => readArrowStream(bytes)).toThrow(/prefix says/)
  })
})
