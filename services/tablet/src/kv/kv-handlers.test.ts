import { ERRORS, FlussError } from '@sluice/core/errors'
import { ValueRecordBatch } from '@sluice/core/kvbatch'
import { Schema, type TableBucket, tableBucketToString } from '@sluice/core/metadata'
import { MemoryLogRecords } from '@sluice/core/record'
import { CompactedKeyEncoder, decodeCompactedRow, decodeValue } from '@sluice/core/row'
import type { PutKvRequest } from '@sluice/core/rpc'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { TestingKvBatches, TestingKvBucket } from '../testing/kv.js'
import { testBatch } from '../testing/log.js'
import type { KvReplica, KvRequestContext, KvWriteResult } from './kv-handler-context.js'
import { handleLookup, handlePutKv } from './kv-handlers.js'
import { maybeIncrementHighWatermark } from './kv-high-watermark.js'
import { handleLimitScan, handlePrefixLookup } from './kv-scan-handlers.js'

const schema = Schema.newBuilder()
  .column('a', DataTypes.INT())
  .column('b', DataTypes.STRING())
  .column('v', DataTypes.STRING())
  .primaryKey('a', 'b')
  .build()
const kv = new TestingKvBatches(schema)

let bucket: TestingKvBucket

afterEach(async () => {
  await bucket?.close()
})

interface Fake {
  ctx: KvRequestContext
  replica: KvReplica & { isLeader: boolean; isPrimaryKeyTable: boolean }
  awaited: KvWriteResult[][]
}

function fakeContext(b: TestingKvBucket): Fake {
  const awaited: KvWriteResult[][] = []
  const replica = {
    isPrimaryKeyTable: true,
    isLeader: true,
    get kvTablet() {
      return b.kv
    },
    logTablet: b.log,
    checkInSyncReplicas: () => undefined,
    maybeIncrementLeaderHighWatermark: () => maybeIncrementHighWatermark(b.log, b.kv, b.log.logEndOffset),
  }
  const ctx: KvRequestContext = {
    serverId: 3,
    limitScanMaxBytes: 1 << 20,
    getReplica: (tb: TableBucket) => {
      if (tb.bucket !== 0)
        throw new FlussError('UNKNOWN_TABLE_OR_BUCKET_EXCEPTION', `no ${tableBucketToString(tb)}`)
      return replica
    },
    awaitReplication: async (_timeoutMs, results) => {
      awaited.push([...results])
      return results
    },
  }
  return { ctx, replica, awaited }
}

function putRequest(records: Buffer, overrides: Partial<PutKvRequest> = {}): PutKvRequest {
  return {
    acks: 1,
    tableId: 7,
    timeoutMs: 1000,
    targetColumns: [],
    bucketsReq: [{ partitionId: null, bucketId: 0, records }],
    aggMode: null,
    ...overrides,
  }
}

const rowOf = (value: Buffer | null) =>
  value === null ? null : decodeCompactedRow(decodeValue(value).row, schema.rowType)

describe('PUT_KV handler', () => {
  it('puts, moves the high watermark (flushing the KV store) and answers the log end offset', async () => {
    bucket = await TestingKvBucket.open(schema)
    const { ctx } = fakeContext(bucket)
    const response = await handlePutKv(
      putRequest(
        kv.batch([
          [1, 'x', 'v1'],
          [1, 'x', 'v2'],
        ]),
      ),
      ctx,
    )
    expect(response.bucketsResp).toEqual([{ partitionId: null, bucketId: 0, logEndOffset: 3 }])
    expect(bucket.log.highWatermark).toBe(3)
    expect(rowOf((await bucket.kv.lookup([kv.key([1, 'x', null])]))[0])).toEqual([1, 'x', 'v2'])
  })

  it('waits for replication with acks=-1 and refuses unknown acks', async () => {
    bucket = await TestingKvBucket.open(schema)
    const fake = fakeContext(bucket)
    await handlePutKv(putRequest(kv.batch([[1, 'x', 'v']]), { acks: -1 }), fake.ctx)
    expect(fake.awaited).toEqual([
      [{ tableBucket: { tableId: 7, bucket: 0 }, baseOffset: 0, writeEndOffset: 1 }],
    ])
    await expect(
      handlePutKv(putRequest(kv.batch([[1, 'x', 'v']]), { acks: 2 }), fake.ctx),
    ).rejects.toMatchObject({
      errorName: 'INVALID_REQUIRED_ACKS',
    })
  })

  it('answers per-bucket errors: bad target columns, log tables, followers, unknown buckets', async () => {
    bucket = await TestingKvBucket.open(schema)
    const fake = fakeContext(bucket)
    const badTargets = await handlePutKv(
      putRequest(kv.batch([[1, 'x', 'v']]), { targetColumns: [2] }),
      fake.ctx,
    )
    expect(badTargets.bucketsResp?.[0]).toMatchObject({
      errorCode: ERRORS.INVALID_TARGET_COLUMN.code,
      errorMessage: 'The target write columns [v] must contain the primary key columns [a, b].',
    })
    const unknown = await handlePutKv(
      putRequest(kv.batch([[1, 'x', 'v']]), {
        bucketsReq: [{ partitionId: 4, bucketId: 9, records: kv.batch([]) }],
      }),
      fake.ctx,
    )
    expect(unknown.bucketsResp?.[0]).toMatchObject({
      partitionId: 4,
      bucketId: 9,
      errorCode: ERRORS.UNKNOWN_TABLE_OR_BUCKET_EXCEPTION.code,
    })
    fake.replica.isLeader = false
    const follower = await handlePutKv(putRequest(kv.batch([[1, 'x', 'v']])), fake.ctx)
    expect(follower.bucketsResp?.[0]).toMatchObject({
      errorCode: ERRORS.NOT_LEADER_OR_FOLLOWER.code,
      errorMessage: 'Leader not local for bucket TableBucket{tableId=7, bucket=0} on tabletServer 3',
    })
    fake.replica.isPrimaryKeyTable = false
    const logTable = await handlePutKv(putRequest(kv.batch([[1, 'x', 'v']])), fake.ctx)
    expect(logTable.bucketsResp?.[0]).toMatchObject({
      errorCode: ERRORS.NON_PRIMARY_KEY_TABLE_EXCEPTION.code,
    })
    expect(bucket.log.logEndOffset).toBe(0)
  })
})

describe('LOOKUP, PREFIX_LOOKUP and LIMIT_SCAN handlers', () => {
  async function loaded(): Promise<Fake> {
    bucket = await TestingKvBucket.open(schema)
    const fake = fakeContext(bucket)
    await handlePutKv(
      putRequest(
        kv.batch([
          [1, 'b', '1b'],
          [1, 'a', '1a'],
          [2, 'a', '2a'],
        ]),
      ),
      fake.ctx,
    )
    return fake
  }

  it('looks keys up; absent keys have no value', async () => {
    const { ctx } = await loaded()
    const response = await handleLookup(
      {
        tableId: 7,
        bucketsReq: [
          { partitionId: null, bucketId: 0, keys: [kv.key([1, 'a', null]), kv.key([5, 'z', null])] },
        ],
        insertIfNotExists: null,
        acks: null,
        timeoutMs: null,
      },
      ctx,
    )
    const values = response.bucketsResp?.[0].values ?? []
    expect(values.map(v => rowOf((v.values as Buffer) ?? null))).toEqual([[1, 'a', '1a'], null])
  })

  it('inserts missing keys on an insert-if-not-exists lookup', async () => {
    const { ctx } = await loaded()
    const response = await handleLookup(
      {
        tableId: 7,
        bucketsReq: [
          { partitionId: null, bucketId: 0, keys: [kv.key([1, 'a', null]), kv.key([9, 'n', null])] },
        ],
        insertIfNotExists: true,
        acks: -1,
        timeoutMs: 1000,
      },
      ctx,
    )
    const values = response.bucketsResp?.[0].values ?? []
    expect(values.map(v => rowOf((v.values as Buffer) ?? null))).toEqual([
      [1, 'a', '1a'],
      [9, 'n', null],
    ])
  })

  it('prefix lookups return rows in key order per prefix', async () => {
    const { ctx } = await loaded()
    const prefix = CompactedKeyEncoder.of(schema.rowType, ['a'])
    const response = await handlePrefixLookup(
      {
        tableId: 7,
        bucketsReq: [
          { partitionId: null, bucketId: 0, keys: [prefix.encodeKey([1]), prefix.encodeKey([3])] },
        ],
      },
      ctx,
    )
    const lists = response.bucketsResp?.[0].valueLists ?? []
    expect(lists.map(l => (l.values ?? []).map(v => rowOf(v as Buffer)))).toEqual([
      [
        [1, 'a', '1a'],
        [1, 'b', '1b'],
      ],
      [],
    ])
  })

  it('limit scans a primary-key bucket into a value record batch', async () => {
    const { ctx } = await loaded()
    const response = await handleLimitScan({ tableId: 7, partitionId: null, bucketId: 0, limit: 2 }, ctx)
    expect(response.isLogTable).toBe(false)
    const batch = ValueRecordBatch.from(response.records as Buffer)
    expect([...batch.records()].map(r => decodeCompactedRow(r.row, schema.rowType))).toEqual([
      [1, 'a', '1a'],
      [1, 'b', '1b'],
    ])
    expect(
      (await handleLimitScan({ tableId: 7, partitionId: null, bucketId: 0, limit: -1 }, ctx)).errorCode,
    ).toBe(ERRORS.INVALID_REQUEST.wireCode)
  })

  it('limit scans the latest records below the high watermark of a log bucket', async () => {
    bucket = await TestingKvBucket.open(schema)
    const fake = fakeContext(bucket)
    fake.replica.isPrimaryKeyTable = false
    for (let i = 0; i < 4; i++) await bucket.log.appendAsLeader(testBatch({ recordCount: 2 }))
    bucket.log.updateHighWatermark(6)
    const response = await handleLimitScan({ tableId: 7, partitionId: null, bucketId: 0, limit: 3 }, fake.ctx)
    expect(response.isLogTable).toBe(true)
    const batches = new MemoryLogRecords(response.records as Buffer).validateAll()
    expect(batches.map(b => b.baseOffset)).toEqual([2, 4])
  })
})
