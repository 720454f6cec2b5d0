import { FlussError } from '@sluice/core/errors'
import { KvRecordBatchBuilder, writeKvBatchWriterState } from '@sluice/core/kvbatch'
import { AggFunctions, Schema } from '@sluice/core/metadata'
import { CompactedRowEncoder } from '@sluice/core/row'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import type { LogTablet } from '../log/log-tablet.js'
import { readChangelog, TestingKvBatches, TestingKvBucket } from '../testing/kv.js'
import { testBatch } from '../testing/log.js'
import type { KvChangelogLog } from './kv-tablet-types.js'
import { fixedSchemaSource } from './table-schemas.js'

const schema = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('total', DataTypes.BIGINT(), AggFunctions.SUM())
  .primaryKey('id')
  .build()
const schemas = fixedSchemaSource(1, schema)
const kv = new TestingKvBatches(schema)
const AGG = { 'table.merge-engine': 'AGGREGATION' }

let bucket: TestingKvBucket

afterEach(async () => {
  await bucket?.close()
})

async function expectCode(promise: Promise<unknown>, code: string, message?: string): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(FlussError)
  expect((error as FlussError).errorName).toBe(code)
  if (message !== undefined) expect((error as FlussError).message).toContain(message)
}

/** The log, failing the next `failures` appends (after running `before`, if given). */
function failingLog(
  log: LogTablet,
  failures: { count: number },
  before?: () => Promise<unknown>,
): KvChangelogLog {
  return {
    get name() {
      return log.name
    },
    get logStartOffset() {
      return log.logStartOffset
    },
    get logEndOffset() {
      return log.logEndOffset
    },
    get highWatermark() {
      return log.highWatermark
    },
    appendAsLeader: async records => {
      await before?.()
      if (failures.count-- > 0) throw new FlussError('LOG_STORAGE_EXCEPTION', 'injected append failure')
      return log.appendAsLeader(records)
    },
    read: params => log.read(params),
    writerState: writerId => log.writerState(writerId),
  }
}

/** A valid batch (CRC included) of one record whose key is empty. */
function emptyKeyBatch(): Buffer {
  const row = new CompactedRowEncoder(schema.rowType).encode([1, 5n])
  const batch = Buffer.alloc(28 + 4 + 1 + row.length)
  batch.writeInt32LE(batch.length - 4, 0)
  batch.writeInt16LE(1, 9)
  batch.writeInt32LE(1, 24)
  batch.writeInt32LE(1 + row.length, 28)
  row.copy(batch, 33)
  writeKvBatchWriterState(batch, -1n, -1)
  return batch
}

describe('idempotent writers', () => {
  it('answers a retried batch with its original offsets without merging it again', async () => {
    bucket = await TestingKvBucket.open(schema, AGG)
    const writer = (batchSequence: number) => ({ writerId: 42n, batchSequence })
    await bucket.kv.putAsLeader(kv.batch([[1, 5n]], writer(0)))
    const second = kv.batch([[1, 7n]], writer(1))
    const first = await bucket.kv.putAsLeader(second)
    const retry = await bucket.kv.putAsLeader(second)
    expect(retry).toMatchObject({
      duplicate: true,
      firstOffset: first.firstOffset,
      lastOffset: first.lastOffset,
    })
    await bucket.kv.putAsLeader(kv.batch([[1, 1n]], writer(2)))
    expect(await readChangelog(bucket.log, schemas)).toEqual([
      [0, '+I', [1, 5n]],
      [1, '-U', [1, 5n]],
      [2, '+U', [1, 12n]],
      [3, '-U', [1, 12n]],
      [4, '+U', [1, 13n]],
    ])
  })

  it('answers a retried batch without changes (a delete of an absent key) without a second offset', async () => {
    bucket = await TestingKvBucket.open(schema)
    const writer = (batchSequence: number) => ({ writerId: 43n, batchSequence })
    await bucket.kv.putAsLeader(kv.batch([[1, 5n]], writer(0)))
    const absentDelete = kv.batch([{ delete: [9, null] }], writer(1))
    const first = await bucket.kv.putAsLeader(absentDelete)
    expect(first).toMatchObject({ firstOffset: 1, lastOffset: 1, logEndOffset: 2, changelogRecords: 0 })
    const retry = await bucket.kv.putAsLeader(absentDelete)
    expect(retry).toMatchObject({ duplicate: true, firstOffset: 1, lastOffset: 1, logEndOffset: 2 })
    await bucket.kv.putAsLeader(kv.batch([[2, 3n]], writer(2)))
    expect(await readChangelog(bucket.log, schemas)).toEqual([
      [0, '+I', [1, 5n]],
      [2, '+I', [2, 3n]],
    ])
    expect(bucket.log.logEndOffset).toBe(3)
  })

  it('refuses a sequence gap with OUT_OF_ORDER_SEQUENCE_EXCEPTION and rolls the buffer back', async () => {
    bucket = await TestingKvBucket.open(schema, AGG)
    await bucket.kv.putAsLeader(kv.batch([[1, 5n]], { writerId: 9n, batchSequence: 0 }))
    await expectCode(
      bucket.kv.putAsLeader(kv.batch([[1, 100n]], { writerId: 9n, batchSequence: 2 })),
      'OUT_OF_ORDER_SEQUENCE_EXCEPTION',
    )
    expect([bucket.log.logEndOffset, bucket.kv.pendingWrites]).toEqual([1, 1])
    await bucket.kv.putAsLeader(kv.batch([[1, 1n]], { writerId: 9n, batchSequence: 1 }))
    expect(await readChangelog(bucket.log, schemas, 1)).toEqual([
      [1, '-U', [1, 5n]],
      [2, '+U', [1, 6n]],
    ])
  })
})

describe('failures leave nothing behind', () => {
  it('rolls the pre-write buffer back when the append fails', async () => {
    bucket = await TestingKvBucket.open(schema, AGG)
    await bucket.kv.putAsLeader(kv.batch([[1, 5n]]))
    const failures = { count: 1 }
    const kvTablet = await bucket.reopenKv({ log: failingLog(bucket.log, failures) })
    await expectCode(
      kvTablet.putAsLeader(
        kv.batch([
          [1, 100n],
          [2, 1n],
        ]),
      ),
      'LOG_STORAGE_EXCEPTION',
    )
    expect(kvTablet.pendingWrites).toBe(1)
    await kvTablet.putAsLeader(kv.batch([[1, 1n]]))
    expect(await readChangelog(bucket.log, schemas)).toEqual([
      [0, '+I', [1, 5n]],
      [1, '-U', [1, 5n]],
      [2, '+U', [1, 6n]],
    ])
  })

  it('moves its staged entries when something else appended to the log first', async () => {
    bucket = await TestingKvBucket.open(schema)
    const foreign = { count: 1 }
    const log = bucket.log
    const produce = async () => {
      if (foreign.count-- > 0) await log.appendAsLeader(testBatch({ recordCount: 2 }))
    }
    const kvTablet = await bucket.reopenKv({ log: failingLog(log, { count: 0 }, produce) })
    const put = await kvTablet.putAsLeader(kv.batch([[1, 5n]]))
    expect([put.firstOffset, put.lastOffset]).toEqual([2, 2])
    await kvTablet.putAsLeader(kv.batch([[1, 6n]]))
    expect(await readChangelog(log, schemas, 2)).toEqual([
      [2, '+I', [1, 5n]],
      [3, '-U', [1, 5n]],
      [4, '+U', [1, 6n]],
    ])
    expect(await kvTablet.flush(3)).toBe(3)
    const [value] = await kvTablet.lookup([kv.key([1, null])])
    expect(value?.subarray(2)).toEqual(new CompactedRowEncoder(schema.rowType).encode([1, 5n]))
  })

  it('refuses corrupt batches, unknown schema ids, undecodable rows and empty keys', async () => {
    bucket = await TestingKvBucket.open(schema)
    const corrupt = kv.batch([[1, 5n]])
    corrupt[corrupt.length - 1] ^= 0xff
    await expectCode(bucket.kv.putAsLeader(corrupt), 'CORRUPT_MESSAGE')
    const future = new TestingKvBatches(schema, 2)
    await expectCode(
      bucket.kv.putAsLeader(future.batch([[1, 5n]])),
      'SCHEMA_NOT_EXIST',
      'Invalid schema id: 2, latest schema id: 1',
    )
    const garbage = new KvRecordBatchBuilder({ schemaId: 1, writeLimitBytes: 1024 })
    garbage.append(
      kv.key([1, null]),
      Buffer.from([0x00, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
    )
    await expectCode(bucket.kv.putAsLeader(Buffer.from(garbage.build())), 'CORRUPT_RECORD_EXCEPTION')
    await expectCode(bucket.kv.putAsLeader(emptyKeyBatch()), 'INVALID_REQUEST', 'empty key')
    expect([bucket.log.logEndOffset, bucket.kv.pendingWrites]).toEqual([0, 0])
  })

  it('refuses puts while the pre-write buffer is over its bound (RESOURCE_EXHAUSTED)', async () => {
    bucket = await TestingKvBucket.open(schema, {}, { maxPendingBytes: 1 })
    await bucket.kv.putAsLeader(kv.batch([[1, 5n]]))
    await expectCode(bucket.kv.putAsLeader(kv.batch([[2, 5n]])), 'RESOURCE_EXHAUSTED')
    await bucket.acknowledge()
    await bucket.kv.putAsLeader(kv.batch([[2, 5n]]))
    expect(bucket.log.logEndOffset).toBe(2)
  })
})
