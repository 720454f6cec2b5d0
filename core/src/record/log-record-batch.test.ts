import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { ChangeType } from './change-type.js'
import { buildLogBatch } from './log-batch-builder.js'
import { LogRecordBatch } from './log-record-batch.js'
import { V0_LAYOUT, V1_LAYOUT } from './log-record-batch-format.js'

const payload = new TextEncoder().encode('abcd')

function expectCorrupt(fn: () => unknown, pattern: RegExp): void {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(FlussError)
    expect((e as FlussError).errorName).toBe('CORRUPT_RECORD_EXCEPTION')
    expect((e as FlussError).message).toMatch(pattern)
    return
  }
  throw new Error('expected CORRUPT_RECORD_EXCEPTION')
}

describe('log batch format', () => {
  it('has the V0 and 0.9.1 V1 field offsets', () => {
    expect(V0_LAYOUT).toMatchObject({
      crcOffset: 21,
      schemaIdOffset: 25,
      attributesOffset: 27,
      lastOffsetDeltaOffset: 28,
      writerIdOffset: 32,
      batchSequenceOffset: 40,
      recordCountOffset: 44,
      headerSize: 48,
      leaderEpochOffset: -1,
    })
    expect(V1_LAYOUT).toMatchObject({
      leaderEpochOffset: 21,
      crcOffset: 25,
      schemaIdOffset: 29,
      attributesOffset: 31,
      lastOffsetDeltaOffset: 32,
      writerIdOffset: 36,
      batchSequenceOffset: 44,
      recordCountOffset: 48,
      headerSize: 52,
    })
  })
})

describe('buildLogBatch', () => {
  it('writes the V0 header byte for byte (golden)', () => {
    const batch = buildLogBatch({
      schemaId: 1,
      appendOnly: true,
      writerId: 7,
      batchSequence: 3,
      recordCount: 2,
      records: payload,
    })
    const expected =
      '0000000000000000' + // BaseOffset 0
      '28000000' + // Length 40 = 52 - 12
      '00' + // Magic 0
      '0000000000000000' + // CommitTimestamp 0
      '1f446fb3' + // CRC-32C 0xb36f441f, little-endian
      '0100' + // SchemaId 1
      '01' + // Attributes: append-only
      '01000000' + // LastOffsetDelta 1
      '0700000000000000' + // WriterId 7
      '03000000' + // BatchSequence 3
      '02000000' + // RecordCount 2
      '61626364' // records
    expect(batch.toString('hex')).toBe(expected)
  })

  it('round-trips every header field and the change-type vector', () => {
    const changeTypes = [ChangeType.INSERT, ChangeType.UPDATE_BEFORE, ChangeType.UPDATE_AFTER]
    const bytes = buildLogBatch({
      schemaId: 300,
      appendOnly: false,
      recordCount: 3,
      changeTypes,
      records: payload,
    })
    const batch = new LogRecordBatch(bytes)
    batch.validate()
    expect(batch.magic).toBe(0)
    expect(batch.sizeInBytes).toBe(48 + 3 + 4)
    expect(batch.schemaId).toBe(300)
    expect(batch.appendOnly).toBe(false)
    expect(batch.writerId).toBe(-1)
    expect(batch.hasWriterId).toBe(false)
    expect(batch.batchSequence).toBe(-1)
    expect(batch.recordCount).toBe(3)
    expect(batch.lastOffsetDelta).toBe(2)
    expect(batch.leaderEpoch).toBe(-1)
    expect([...(batch.changeTypes() ?? [])]).toEqual(changeTypes)
    expect(batch.arrowPayload().toString()).toBe('abcd')
  })

  it('gives an empty batch lastOffsetDelta 0 so it still spans one offset', () => {
    const batch = new LogRecordBatch(
      buildLogBatch({ schemaId: 1, appendOnly: false, recordCount: 0, records: new Uint8Array(0) }),
    )
    batch.validate()
    batch.setBaseOffset(41)
    expect(batch.lastOffset).toBe(41)
    expect(batch.nextOffset).toBe(42)
  })

  it('builds and reads a 0.9.1 V1 batch with a leader epoch', () => {
    const bytes = buildLogBatch({
      magic: 1,
      leaderEpoch: 9,
      schemaId: 2,
      appendOnly: true,
      recordCount: 1,
      records: payload,
    })
    const batch = new LogRecordBatch(bytes)
    batch.validate()
    expect(batch.magic).toBe(1)
    expect(batch.sizeInBytes).toBe(52 + 4)
    expect(batch.leaderEpoch).toBe(9)
    expect(batch.schemaId).toBe(2)
    batch.setLeaderEpoch(10)
    batch.validate()
    expect(batch.leaderEpoch).toBe(10)
  })
})

describe('LogRecordBatch patching', () => {
  it('patches base offset and commit timestamp without breaking the CRC', () => {
    const bytes = buildLogBatch({ schemaId: 1, appendOnly: true, recordCount: 4, records: payload })
    const batch = new LogRecordBatch(bytes)
    const crc = batch.crc
    batch.setBaseOffset(2 ** 40 + 5)
    batch.setCommitTimestamp(1_700_000_000_123)
    expect(batch.crc).toBe(crc)
    batch.validate()
    expect(batch.baseOffset).toBe(2 ** 40 + 5)
    expect(batch.lastOffset).toBe(2 ** 40 + 8)
    expect(batch.commitTimestamp).toBe(1_700_000_000_123)
  })

  it('refuses a leader epoch on V0', () => {
    const batch = new LogRecordBatch(
      buildLogBatch({ schemaId: 1, appendOnly: true, recordCount: 1, records: payload }),
    )
    expect(() => batch.setLeaderEpoch(1)).toThrow(/no leader epoch/)
  })
})

describe('LogRecordBatch.validate', () => {
  const good = () =>
    buildLogBatch({
      schemaId: 1,
      appendOnly: true,
      writerId: 5,
      batchSequence: 0,
      recordCount: 2,
      records: payload,
    })

  it('rejects a flipped payload byte as a CRC mismatch', () => {
    const bytes = good()
    bytes[bytes.length - 1] ^= 0x01
    expectCorrupt(() => new LogRecordBatch(bytes).validate(), /CRC mismatch/)
  })

  it('rejects a flipped header byte inside the CRC range', () => {
    const bytes = good()
    bytes[V0_LAYOUT.batchSequenceOffset] ^= 0x10
    expectCorrupt(() => new LogRecordBatch(bytes).validate(), /CRC mismatch/)
  })

  it('rejects a batch cut short', () => {
    const bytes = good().subarray(0, 50)
    expectCorrupt(() => new LogRecordBatch(bytes).validate(), /truncated/)
  })

  it('rejects a buffer too short to hold the magic', () => {
    expectCorrupt(() => new LogRecordBatch(good().subarray(0, 12)), /truncated/)
  })

  it('rejects a length smaller than the header', () => {
    const bytes = good()
    bytes.writeInt32LE(10, 8)
    expectCorrupt(() => new LogRecordBatch(bytes).validate(), /smaller than the v0 header/)
  })

  it('rejects an unknown magic', () => {
    const bytes = good()
    bytes[12] = 2
    expectCorrupt(() => new LogRecordBatch(bytes), /unsupported log batch magic 2/)
  })

  it('rejects a lastOffsetDelta that disagrees with the record count', () => {
    const bytes = buildLogBatch({ schemaId: 1, appendOnly: true, recordCount: 3, records: payload })
    bytes.writeInt32LE(7, V0_LAYOUT.lastOffsetDeltaOffset)
    const batch = new LogRecordBatch(bytes)
    bytes.writeUInt32LE(batch.computeCrc(), V0_LAYOUT.crcOffset)
    expectCorrupt(() => batch.validate(), /lastOffsetDelta 7 does not match record count 3/)
  })

  it('rejects a negative record count', () => {
    const bytes = buildLogBatch({ schemaId: 1, appendOnly: true, recordCount: 0, records: payload })
    bytes.writeInt32LE(-1, V0_LAYOUT.recordCountOffset)
    const batch = new LogRecordBatch(bytes)
    bytes.writeUInt32LE(batch.computeCrc(), V0_LAYOUT.crcOffset)
    expectCorrupt(() => batch.validate(), /negative/)
  })

  it('rejects a bad change-type byte when the vector is read', () => {
    const bytes = buildLogBatch({
      schemaId: 1,
      appendOnly: false,
      recordCount: 1,
      changeTypes: [ChangeType.DELETE],
      records: payload,
    })
    bytes[48] = 9
    expectCorrupt(() => new LogRecordBatch(bytes).changeTypes(), /change type byte 9/)
  })

  it('reports validity without throwing', () => {
    const bytes = good()
    expect(new LogRecordBatch(bytes).isValid()).toBe(true)
    bytes[30] ^= 1
    expect(new LogRecordBatch(bytes).isValid()).toBe(false)
  })
})
