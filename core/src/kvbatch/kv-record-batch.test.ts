import { crc32c } from '@node-rs/crc32'
import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { encodeCompactedRow } from '../row/compacted/compacted-row.js'
import { DataTypes } from '../types/data-type.js'
import { KvRecordBatch } from './kv-record-batch.js'
import { KvRecordBatchBuilder, kvRecordSize, writeKvBatchWriterState } from './kv-record-batch-builder.js'
import { KV_BATCH_HEADER_SIZE, KV_CRC_OFFSET, KV_SCHEMA_ID_OFFSET } from './kv-record-batch-format.js'

const rowType = DataTypes.ROW([
  { name: 'id', type: DataTypes.INT(), fieldId: 0 },
  { name: 'name', type: DataTypes.STRING(), fieldId: 1 },
])

function build(records: [number[], Uint8Array | null][], schemaId = 1): Buffer {
  const builder = new KvRecordBatchBuilder({ schemaId, writeLimitBytes: 1 << 20, initialCapacityBytes: 32 })
  for (const [key, row] of records) builder.append(new Uint8Array(key), row)
  return Buffer.from(builder.build())
}

/** Recomputes the CRC after a test tampers with bytes inside the checksummed range. */
function fixCrc(batch: Buffer): Buffer {
  batch.writeUInt32LE(crc32c(batch.subarray(KV_SCHEMA_ID_OFFSET)), KV_CRC_OFFSET)
  return batch
}

function corrupt(bytes: Uint8Array): string {
  try {
    KvRecordBatch.from(bytes)
  } catch (e) {
    expect(e).toBeInstanceOf(FlussError)
    expect((e as FlussError).errorName).toBe('CORRUPT_MESSAGE')
    return (e as Error).message
  }
  throw new Error('expected CORRUPT_MESSAGE')
}

describe('KvRecordBatchBuilder', () => {
  it('sizes records like DefaultKvRecordTest: 4 + 1 + 2 + 6 = 13, a delete 7', () => {
    const row = encodeCompactedRow([10, 'abc'], rowType)
    expect(row.length).toBe(6)
    expect(kvRecordSize(new Uint8Array([1, 2]), row)).toBe(13)
    expect(kvRecordSize(new Uint8Array([2, 3]), null)).toBe(7)
  })

  it('lays out the header and records little-endian with a CRC-32C over SchemaId..end', () => {
    expect(crc32c(Buffer.from('123456789')).toString(16)).toBe('e3069283')
    const row = encodeCompactedRow([10, 'abc'], rowType)
    const batch = build([
      [[1, 2], row],
      [[2, 3], null],
    ])
    const records = '09000000' + '02' + '0102' + '000a03616263' + '03000000' + '02' + '0203'
    const afterCrc = `010000ffffffffffffffffffffffff02000000${records}`
    const crc = Buffer.alloc(4)
    crc.writeUInt32LE(crc32c(Buffer.from(afterCrc, 'hex')))
    const total = 9 + afterCrc.length / 2
    const length = Buffer.alloc(4)
    length.writeInt32LE(total - 4)
    expect(batch.toString('hex')).toBe(`${length.toString('hex')}00${crc.toString('hex')}${afterCrc}`)
  })

  it('round-trips 100 puts and deletes', () => {
    const entries: [number[], Uint8Array | null][] = []
    for (let i = 0; i < 100; i++) {
      entries.push([[i, i], i % 2 === 1 ? null : encodeCompactedRow([i, `name-${i}`], rowType)])
    }
    const batch = KvRecordBatch.from(build(entries, 7))
    expect(batch.schemaId).toBe(7)
    expect(batch.magic).toBe(0)
    expect(batch.attributes).toBe(0)
    expect(batch.recordCount).toBe(100)
    expect(batch.writerId).toBe(-1n)
    expect(batch.batchSequence).toBe(-1)
    const read = [...batch].map(r => [[...r.key], r.row === null ? null : new Uint8Array(r.row)])
    expect(read).toEqual(entries.map(([k, r]) => [k, r === null ? null : new Uint8Array(r)]))
  })

  it('builds an empty batch of just the header', () => {
    const batch = KvRecordBatch.from(build([]))
    expect(batch.sizeInBytes).toBe(KV_BATCH_HEADER_SIZE)
    expect([...batch]).toEqual([])
  })

  it('rewrites writer id, batch sequence and CRC when the writer state changes after build', () => {
    const builder = new KvRecordBatchBuilder({ schemaId: 1, writeLimitBytes: 1024 })
    builder.append(new Uint8Array([1]), new Uint8Array([0, 1]))
    const first = builder.build()
    expect(builder.build()).toBe(first)
    const before = first.readUInt32LE(KV_CRC_OFFSET)
    builder.setWriterState(42n, 7)
    const second = builder.build()
    const batch = KvRecordBatch.from(second)
    expect([batch.writerId, batch.batchSequence]).toEqual([42n, 7])
    expect(second.readUInt32LE(KV_CRC_OFFSET)).not.toBe(before)
    expect(builder.writerId).toBe(42n)
    expect(builder.batchSequence).toBe(7)
  })

  it('patches the writer state of an encoded batch in place', () => {
    const bytes = build([[[5], new Uint8Array([0, 2])]])
    writeKvBatchWriterState(bytes, 1n << 40n, 3)
    const batch = KvRecordBatch.from(bytes)
    expect([batch.writerId, batch.batchSequence]).toEqual([1n << 40n, 3])
  })

  it('enforces the write limit, except for the first record', () => {
    const builder = new KvRecordBatchBuilder({ schemaId: 1, writeLimitBytes: 40 })
    const big = new Uint8Array(100).fill(1)
    expect(builder.hasRoomFor(new Uint8Array([1]), big)).toBe(true)
    builder.append(new Uint8Array([1]), big)
    expect(builder.hasRoomFor(new Uint8Array([2]), null)).toBe(false)
    expect(() => builder.append(new Uint8Array([2]), null)).toThrow(/does not fit/)
    expect(builder.recordCount).toBe(1)
  })

  it('rejects empty keys, empty rows and appends after close', () => {
    const builder = new KvRecordBatchBuilder({ schemaId: 1, writeLimitBytes: 1024 })
    expect(() => builder.append(new Uint8Array(), null)).toThrow(/key must not be empty/)
    expect(() => builder.append(new Uint8Array([1]), new Uint8Array())).toThrow(/null row is a delete/)
    expect(() => new KvRecordBatchBuilder({ schemaId: 40_000, writeLimitBytes: 1024 })).toThrow(/Schema id/)
    builder.close()
    expect(() => builder.append(new Uint8Array([1]), null)).toThrow(/assertion failed/)
  })
})

describe('KvRecordBatch validation', () => {
  const good = () =>
    build([
      [[1, 2], encodeCompactedRow([10, 'abc'], rowType)],
      [[2, 3], null],
    ])

  it('rejects a buffer shorter than the header', () => {
    expect(corrupt(good().subarray(0, 27))).toMatch(/smaller than the minimum allowed overhead 28/)
  })

  it('rejects a declared size that differs from the buffer', () => {
    expect(corrupt(good().subarray(0, 40))).toMatch(/declared size 48, actual size 40/)
    expect(corrupt(Buffer.concat([good(), Buffer.from([0])]))).toMatch(/actual size 49/)
  })

  it('rejects an unknown magic', () => {
    const bytes = good()
    bytes[4] = 1
    expect(corrupt(bytes)).toMatch(/magic 1/)
  })

  it('rejects a CRC mismatch', () => {
    const bytes = good()
    bytes[bytes.length - 1] ^= 1
    expect(corrupt(bytes)).toMatch(/Record batch is corrupt \(stored crc = \d+, computed crc = \d+\)/)
  })

  it('rejects a negative record count', () => {
    const bytes = good()
    bytes.writeInt32LE(-1, 24)
    expect(corrupt(fixCrc(bytes))).toMatch(/invalid record count -1/)
  })

  it('rejects a record length past the end, or too small for a key length', () => {
    const bytes = good()
    bytes.writeInt32LE(1000, KV_BATCH_HEADER_SIZE)
    expect(corrupt(fixCrc(bytes))).toMatch(/KV record 0 has length 1000/)
    bytes.writeInt32LE(0, KV_BATCH_HEADER_SIZE)
    expect(corrupt(fixCrc(bytes))).toMatch(/KV record 0 has length 0/)
  })

  it('rejects a key length beyond its record', () => {
    const bytes = good()
    bytes[KV_BATCH_HEADER_SIZE + 4] = 0x20
    expect(corrupt(fixCrc(bytes))).toMatch(/key length 32/)
  })

  it('rejects truncated and non-minimal key-length varints', () => {
    const truncated = build([[[1], null]])
    // continuation bits on the key length and the key byte: the varint runs off the record's end
    truncated[KV_BATCH_HEADER_SIZE + 4] = 0x81
    truncated[KV_BATCH_HEADER_SIZE + 5] = 0x81
    expect(corrupt(fixCrc(truncated))).toMatch(/Truncated varint/)
    const nonMinimal = build([[[0x80], null]])
    nonMinimal[KV_BATCH_HEADER_SIZE + 4] = 0x80 // key length 0 as 80 00
    nonMinimal[KV_BATCH_HEADER_SIZE + 5] = 0x00
    expect(corrupt(fixCrc(nonMinimal))).toMatch(/not minimally encoded/)
  })

  it('rejects a record count that disagrees with the records present', () => {
    const bytes = good()
    bytes.writeInt32LE(1, 24)
    expect(corrupt(fixCrc(bytes))).toMatch(/7 bytes follow the last of 1 records/)
    bytes.writeInt32LE(3, 24)
    expect(corrupt(fixCrc(bytes))).toMatch(/KV record 2 is truncated/)
  })

  it('reads a plain Uint8Array', () => {
    const bytes = new Uint8Array(good())
    expect(KvRecordBatch.from(bytes).recordCount).toBe(2)
  })
})
