import { beforeAll, describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import type { Row } from '../row/value.js'
import { ALL_TYPES, ALL_TYPES_ROWS } from '../testing/all-types.js'
import { seededRandom } from '../testing/random.js'
import { DataTypes, notNull, type RowType } from '../types/data-type.js'
import { ArrowBatchReader, type ArrowBatchReaderOptions, readRecordBatchInfo } from './batch-reader.js'
import { ArrowBatchWriter } from './batch-writer.js'
import { type ArrowCompressionType, initArrowCodecs } from './compression.js'
import { type RecordBatchHeader, readRecordBatchHeader } from './message.js'

const SIMPLE: RowType = DataTypes.ROW([
  { name: 'id', type: notNull(DataTypes.INT()), fieldId: 0 },
  { name: 'name', type: DataTypes.STRING(), fieldId: 1 },
])
const SIMPLE_ROWS: Row[] = [
  [1, 'one'],
  [2, null],
  [3, 'three'],
]

function encode(rowType: RowType, rows: Row[], type: ArrowCompressionType = 'NONE'): Uint8Array {
  const writer = new ArrowBatchWriter(rowType, { compression: { type } })
  for (const row of rows) writer.addRow(row)
  return writer.finish()
}

function header(message: Uint8Array): RecordBatchHeader {
  return readRecordBatchHeader(new DataView(message.buffer, message.byteOffset, message.byteLength))
}

/** Reads a message fully; returns the FlussError name, or 'ok'. Any other error fails the test. */
function outcome(message: Uint8Array, rowType: RowType, options?: ArrowBatchReaderOptions): string {
  try {
    new ArrowBatchReader(message, rowType, options).toRows()
    return 'ok'
  } catch (e) {
    if (e instanceof FlussError) return e.errorName
    throw e
  }
}

/** A copy of `message` with an int64 in the metadata or body patched. */
function patched(message: Uint8Array, at: (h: RecordBatchHeader) => number, value: bigint): Uint8Array {
  const copy = message.slice()
  new DataView(copy.buffer).setBigInt64(at(header(copy)), value, true)
  return copy
}

const CORRUPT = 'CORRUPT_RECORD_EXCEPTION'
const node = (c: number, field: 0 | 1) => (h: RecordBatchHeader) => h.nodes + 16 * c + 8 * field
const buffer = (b: number, field: 0 | 1) => (h: RecordBatchHeader) => h.buffers + 16 * b + 8 * field
/** Body position of buffer `b` plus `delta` bytes. */
function inBuffer(message: Uint8Array, b: number, delta: number): number {
  const h = header(message)
  const offset = new DataView(message.buffer).getBigInt64(h.buffers + 16 * b, true)
  return h.frame.bodyStart + Number(offset) + delta
}

beforeAll(() => initArrowCodecs())

describe('readRecordBatchInfo', () => {
  it('reads counts, codec and sizes from the header alone', () => {
    const message = encode(SIMPLE, SIMPLE_ROWS, 'LZ4_FRAME')
    const padded = new Uint8Array(message.length + 16)
    padded.set(message)
    expect(readRecordBatchInfo(padded)).toEqual({
      recordCount: 3,
      fieldCount: 2,
      compression: 'LZ4_FRAME',
      bodyLength: header(message).frame.bodyLength,
      messageSizeInBytes: message.length,
    })
    expect(readRecordBatchInfo(encode(SIMPLE, [], 'ZSTD')).compression).toBe('ZSTD')
    expect(() => readRecordBatchInfo(message.subarray(0, 40))).toThrow(FlussError)
  })
})

describe('ArrowBatchReader on corrupt input', () => {
  for (const type of ['NONE', 'ZSTD', 'LZ4_FRAME'] as const) {
    it(`rejects every truncation (${type})`, () => {
      const message = encode(ALL_TYPES, ALL_TYPES_ROWS, type)
      for (let cut = 0; cut < message.length; cut++) {
        expect(outcome(message.subarray(0, cut), ALL_TYPES), `cut at ${cut}`).toBe(CORRUPT)
      }
    })

    it(`survives random byte corruption with a typed error or a valid result (${type})`, () => {
      const message = encode(ALL_TYPES, ALL_TYPES_ROWS, type)
      const random = seededRandom(type.length)
      for (let round = 0; round < 400; round++) {
        const copy = message.slice()
        for (let k = 1 + Math.floor(random() * 3); k > 0; k--)
          copy[Math.floor(random() * copy.length)] = Math.floor(random() * 256)
        expect(['ok', CORRUPT]).toContain(outcome(copy, ALL_TYPES))
      }
    })
  }

  it('rejects random bytes', () => {
    const random = seededRandom(7)
    for (let round = 0; round < 300; round++) {
      const bytes = Uint8Array.from({ length: Math.floor(random() * 600) }, () => Math.floor(random() * 256))
      if (round % 2 === 0 && bytes.length >= 8) new DataView(bytes.buffer).setUint32(0, 0xffffffff, true)
      if (round % 4 === 0 && bytes.length >= 8)
        new DataView(bytes.buffer).setInt32(4, Math.floor(random() * bytes.length), true)
      expect(outcome(bytes, ALL_TYPES)).toBe(CORRUPT)
    }
  })

  it('rejects a batch read with a row type of another shape', () => {
    const message = encode(SIMPLE, SIMPLE_ROWS)
    expect(outcome(message, ALL_TYPES)).toBe(CORRUPT)
    const threeBuffersMore = DataTypes.ROW([
      ...SIMPLE.fields,
      { name: 'x', type: DataTypes.BYTES(), fieldId: 2 },
    ])
    expect(outcome(message, threeBuffersMore)).toBe(CORRUPT)
    const sameCountOtherLayout = DataTypes.ROW([
      SIMPLE.fields[0],
      { name: 'name', type: DataTypes.BIGINT(), fieldId: 1 },
    ])
    expect(outcome(message, sameCountOtherLayout)).toBe(CORRUPT)
    const notNullName = DataTypes.ROW([
      SIMPLE.fields[0],
      { name: 'name', type: notNull(DataTypes.STRING()), fieldId: 1 },
    ])
    expect(outcome(message, notNullName)).toBe(CORRUPT)
  })

  it('rejects inconsistent field nodes', () => {
    const message = encode(SIMPLE, SIMPLE_ROWS)
    expect(outcome(message, SIMPLE)).toBe('ok')
    expect(outcome(patched(message, node(0, 0), 2n), SIMPLE)).toBe(CORRUPT) // length differs from the batch
    expect(outcome(patched(message, node(1, 1), 4n), SIMPLE)).toBe(CORRUPT) // more nulls than values
    expect(outcome(patched(message, node(1, 1), -1n), SIMPLE)).toBe(CORRUPT)
    expect(outcome(patched(message, node(0, 1), 1n), SIMPLE)).toBe(CORRUPT) // nulls without a validity buffer
    expect(outcome(patched(message, node(0, 0), 2n ** 62n), SIMPLE)).toBe(CORRUPT)
  })

  it('rejects buffers outside the body or too small', () => {
    const message = encode(SIMPLE, SIMPLE_ROWS)
    const bodyLength = BigInt(header(message).frame.bodyLength)
    expect(outcome(patched(message, buffer(1, 1), bodyLength + 1n), SIMPLE)).toBe(CORRUPT)
    expect(outcome(patched(message, buffer(1, 0), bodyLength), SIMPLE)).toBe(CORRUPT)
    expect(outcome(patched(message, buffer(1, 0), -8n), SIMPLE)).toBe(CORRUPT)
    expect(outcome(patched(message, buffer(1, 1), 11n), SIMPLE)).toBe(CORRUPT) // 3 ints need 12 bytes
    expect(outcome(patched(message, buffer(2, 1), 0n), SIMPLE)).toBe(CORRUPT) // validity of 'name' missing
    expect(outcome(patched(message, buffer(3, 1), 8n), SIMPLE)).toBe(CORRUPT) // offsets need 16 bytes
  })

  it('rejects offsets that decrease, start negative or pass the data', () => {
    const message = encode(SIMPLE, SIMPLE_ROWS)
    const offsets = (i: number) => (_: RecordBatchHeader) => inBuffer(message, 3, 4 * i)
    const setInt32 = (at: number, v: number) => {
      const copy = message.slice()
      new DataView(copy.buffer).setInt32(at, v, true)
      return copy
    }
    expect(outcome(setInt32(offsets(3)(header(message)), 1000), SIMPLE)).toBe(CORRUPT)
    expect(outcome(setInt32(offsets(2)(header(message)), 1), SIMPLE)).toBe(CORRUPT)
    expect(outcome(setInt32(offsets(0)(header(message)), -1), SIMPLE)).toBe(CORRUPT)
    expect(outcome(setInt32(offsets(1)(header(message)), 2), SIMPLE)).toBe('ok') // still monotonic: a valid batch
  })

  it('rejects bad compressed buffers', () => {
    const rows: Row[] = Array.from({ length: 200 }, (_, i) => [i, 'compressible text '.repeat(4)])
    for (const type of ['ZSTD', 'LZ4_FRAME'] as const) {
      const message = encode(SIMPLE, rows, type)
      expect(outcome(message, SIMPLE)).toBe('ok')
      const dataPrefix = (_: RecordBatchHeader) => inBuffer(message, 4, 0)
      const declared = new DataView(message.buffer).getBigInt64(dataPrefix(header(message)), true)
      expect(declared).toBe(BigInt(200 * 18 * 4))
      expect(outcome(patched(message, dataPrefix, declared + 1n), SIMPLE)).toBe(CORRUPT)
      expect(outcome(patched(message, dataPrefix, declared - 1n), SIMPLE)).toBe(CORRUPT)
      expect(outcome(patched(message, dataPrefix, -2n), SIMPLE)).toBe(CORRUPT)
      expect(outcome(patched(message, dataPrefix, 2n ** 40n), SIMPLE)).toBe(CORRUPT)
      expect(outcome(message, SIMPLE, { maxUncompressedBytes: 1000 })).toBe(CORRUPT)
      const garbled = message.slice()
      garbled.fill(0x55, inBuffer(message, 4, 8), inBuffer(message, 4, 24))
      expect(outcome(garbled, SIMPLE)).toBe(CORRUPT)
    }
  })

  it('accepts the -1 prefix (stored raw) and the 8-byte zero prefix for empty buffers', () => {
    const rows: Row[] = [[1, 'a']]
    const message = encode(SIMPLE, rows, 'ZSTD')
    // tiny buffers do not compress, so the writer stored them raw
    const view = new DataView(message.buffer)
    expect(view.getBigInt64(inBuffer(message, 1, 0), true)).toBe(-1n)
    expect(outcome(message, SIMPLE)).toBe('ok')
    expect(new ArrowBatchReader(message, SIMPLE).toRows()).toEqual(rows)
  })

  it('bounds-checks row and column indexes', () => {
    const reader = new ArrowBatchReader(encode(SIMPLE, SIMPLE_ROWS), SIMPLE)
    expect(() => reader.getValue(3, 0)).toThrow(RangeError)
    expect(() => reader.getValue(-1, 0)).toThrow(RangeError)
    expect(() => reader.getValue(0, 2)).toThrow(RangeError)
    expect(() => reader.getRow(1.5)).toThrow(RangeError)
    expect(reader.getValue(2, 1)).toBe('three')
  })

  it('reads from a Node Buffer at an odd offset, returning plain copies of bytes', () => {
    const rowType = DataTypes.ROW([
      { name: 'b', type: DataTypes.BYTES(), fieldId: 0 },
      { name: 'l', type: DataTypes.BIGINT(), fieldId: 1 },
    ])
    const message = encode(rowType, [[new Uint8Array([1, 2]), 7n]])
    const shifted = Buffer.alloc(message.length + 3)
    shifted.set(message, 3)
    const value = new ArrowBatchReader(shifted.subarray(3), rowType).getValue(0, 0) as Uint8Array
    expect(Buffer.isBuffer(value)).toBe(false)
    expect(value).toEqual(new Uint8Array([1, 2]))
    expect(new ArrowBatchReader(shifted.subarray(3), rowType).getValue(0, 1)).toBe(7n)
  })
})
