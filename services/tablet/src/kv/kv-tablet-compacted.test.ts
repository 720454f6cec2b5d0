import { Schema } from '@sluice/core/metadata'
import { MemoryLogRecords } from '@sluice/core/record'
import { encodeCompactedRow } from '@sluice/core/row'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { readChangelog, TestingKvBatches, TestingKvBucket } from '../testing/kv.js'
import { fixedSchemaSource } from './table-schemas.js'

const schema = Schema.newBuilder()
  .column('a', DataTypes.INT())
  .column('b', DataTypes.STRING())
  .primaryKey('a')
  .build()
const schemas = fixedSchemaSource(1, schema)
const kv = new TestingKvBatches(schema)
const COMPACTED = { 'table.log.format': 'COMPACTED', 'table.kv.format': 'COMPACTED' }

let bucket: TestingKvBucket

afterEach(async () => {
  await bucket?.close()
})

async function batchBytes(from: number): Promise<Buffer[]> {
  const { records } = await bucket.log.read({
    fetchOffset: from,
    maxBytes: 1 << 20,
    isolation: 'LOG_END',
    minOneMessage: true,
  })
  return [...new MemoryLogRecords(records).validateAll()].map(b => Buffer.from(b.bytes()))
}

/** One CompactedLogRecord: Length int32 LE (attributes + row), the change-type byte, the row. */
function record(changeType: number, row: [number, string]): Buffer {
  const bytes = encodeCompactedRow(row, schema.rowType)
  const head = Buffer.alloc(5)
  head.writeInt32LE(bytes.length + 1, 0)
  head[4] = changeType
  return Buffer.concat([head, bytes])
}

describe('KvTablet with table.log.format=COMPACTED', () => {
  it('writes CompactedLogRecords (change type per record, no vector) as Fluss does', async () => {
    bucket = await TestingKvBucket.open(schema, COMPACTED)
    await bucket.kv.putAsLeader(kv.batch([[1, 'a']]))
    await bucket.kv.putAsLeader(kv.batch([[1, 'b'], { delete: [1, null] }]))
    const [first, second] = await batchBytes(0)
    expect(first.subarray(48)).toEqual(record(1, [1, 'a']))
    expect(second.readInt32LE(44)).toBe(3)
    expect(second.readInt32LE(28)).toBe(2)
    expect(second[27]).toBe(0)
    expect(second.subarray(48)).toEqual(
      Buffer.concat([record(2, [1, 'a']), record(3, [1, 'b']), record(4, [1, 'b'])]),
    )
    expect(await readChangelog(bucket.log, schemas, 0, 'COMPACTED')).toEqual([
      [0, '+I', [1, 'a']],
      [1, '-U', [1, 'a']],
      [2, '+U', [1, 'b']],
      [3, '-D', [1, 'b']],
    ])
  })

  it('writes an empty batch (the 48-byte header alone) for a put without changes', async () => {
    bucket = await TestingKvBucket.open(schema, COMPACTED)
    const put = await bucket.kv.putAsLeader(
      kv.batch([{ delete: [9, null] }], { writerId: 3n, batchSequence: 0 }),
    )
    expect(put).toMatchObject({ firstOffset: 0, lastOffset: 0, logEndOffset: 1, changelogRecords: 0 })
    const [empty] = await batchBytes(0)
    expect(empty.length).toBe(48)
    expect([empty.readInt32LE(28), empty.readInt32LE(44), empty[27]]).toEqual([0, 0, 0])
    expect([empty.readBigInt64LE(32), empty.readInt32LE(40)]).toEqual([3n, 0])
  })

  it('rebuilds the store from a COMPACTED changelog', async () => {
    bucket = await TestingKvBucket.open(schema, COMPACTED)
    await bucket.kv.putAsLeader(
      kv.batch([
        [1, 'a'],
        [2, 'b'],
      ]),
    )
    await bucket.kv.putAsLeader(kv.batch([[1, 'c'], { delete: [2, null] }, { delete: [7, null] }]))
    await bucket.acknowledge()
    await bucket.kv.drop()
    const reopened = await bucket.reopenKv()
    expect(reopened.recovery).toEqual({ fromOffset: 0, records: 4 })
    const values = await reopened.lookup([kv.key([1, null]), kv.key([2, null])])
    expect(values[0]?.subarray(2)).toEqual(encodeCompactedRow([1, 'c'], schema.rowType))
    expect(values[1]).toBeNull()
    expect(reopened.rowCount).toBe(1)
  })

  it('refuses the INDEXED log format for primary-key tables as Fluss does', async () => {
    await expect(TestingKvBucket.open(schema, { 'table.log.format': 'INDEXED' })).rejects.toMatchObject({
      errorName: 'INVALID_CONFIG_EXCEPTION',
      message: "Primary Key Table with COMPACTED kv format doesn't support INDEXED cdc log format.",
    })
  })
})
