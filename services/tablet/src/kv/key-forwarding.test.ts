import { bucketForKey } from '@sluice/core/bucketing'
import { ERRORS } from '@sluice/core/errors'
import { KvRecordBatch } from '@sluice/core/kvbatch'
import { Schema, type TableBucket, TableDescriptor, TableInfo } from '@sluice/core/metadata'
import { CompactedKeyEncoder, decodeCompactedRow, decodeValue } from '@sluice/core/row'
import type { PutKvRequest } from '@sluice/core/rpc'
import { DataTypes, notNull } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { TestingKvBatches, TestingKvBucket } from '../testing/kv.js'
import type { KeyForwarder } from './key-forwarding.js'
import { keyRouter } from './key-routing.js'
import type { KvReplica, KvRequestContext } from './kv-handler-context.js'
import { handleLookup, handlePutKv } from './kv-handlers.js'
import { maybeIncrementHighWatermark } from './kv-high-watermark.js'

const schema = Schema.newBuilder()
  .column('id', notNull(DataTypes.INT()))
  .column('v', DataTypes.STRING())
  .primaryKey('id')
  .build()
const BUCKETS = 4
const info = TableInfo.of(
  { databaseName: 'db', tableName: 't' },
  7,
  1,
  TableDescriptor.builder().schema(schema).distributedBy(BUCKETS).build(),
  0,
  0,
)
const router = keyRouter(info)
const batches = new TestingKvBatches(schema)
const buckets: TestingKvBucket[] = []
afterEach(async () => {
  for (const b of buckets.splice(0)) await b.close()
})

/** Ids of `count` keys of `bucket` (as Fluss computes buckets). */
function idsOf(bucket: number, count: number): number[] {
  const ids: number[] = []
  for (let id = 0; ids.length < count; id++)
    if (router.bucketOfKey(batches.key([id, null])) === bucket) ids.push(id)
  return ids
}

/** The leader of every bucket in one process: bucket b's replica is `local[b]`. */
async function cluster(withForwarder: boolean) {
  const local = await Promise.all(Array.from({ length: BUCKETS }, () => TestingKvBucket.open(schema)))
  buckets.push(...local)
  const replica = (b: TestingKvBucket): KvReplica => ({
    isPrimaryKeyTable: true,
    isLeader: true,
    kvTablet: b.kv,
    logTablet: b.log,
    keyRouter: router,
    checkInSyncReplicas: () => undefined,
    maybeIncrementLeaderHighWatermark: () => maybeIncrementHighWatermark(b.log, b.kv, b.log.logEndOffset),
  })
  const forwarded: { target: number; keys: number }[] = []
  const ctx: KvRequestContext = {
    serverId: 1,
    limitScanMaxBytes: 1 << 20,
    getReplica: (tb: TableBucket) => replica(local[tb.bucket]),
    awaitReplication: async (_t, results) => results,
  }
  const forwarder: KeyForwarder = {
    async putKv(target, records, request) {
      forwarded.push({ target: target.bucket, keys: KvRecordBatch.from(records).recordCount })
      const r = await handlePutKv(put(records, target.bucket, request.acks), ctx)
      if ((r.bucketsResp[0].errorCode ?? 0) !== 0) throw new Error(String(r.bucketsResp[0].errorMessage))
    },
    async lookup(target, keys) {
      forwarded.push({ target: target.bucket, keys: keys.length })
      return local[target.bucket].kv.lookup([...keys])
    },
    async prefixLookup() {
      throw new Error('not used')
    },
  }
  return { local, forwarded, ctx: withForwarder ? { ...ctx, forwarder } : ctx }
}

function put(records: Buffer, bucketId: number, acks = 1): PutKvRequest {
  return {
    acks,
    tableId: 7,
    timeoutMs: 1000,
    targetColumns: [],
    bucketsReq: [{ partitionId: null, bucketId, records }],
    aggMode: null,
  }
}

const rowOfValue = (v: Buffer | null) =>
  v === null ? null : decodeCompactedRow(decodeValue(v).row, schema.rowType)

describe('keys sent to the wrong bucket', () => {
  it('the router buckets keys as the clients do (one hash of the encoded key)', () => {
    const encoder = CompactedKeyEncoder.of(schema.rowType, ['id'])
    for (let id = 0; id < 1000; id++) {
      const key = encoder.encodeKey([id, null])
      expect(router.bucketOfKey(key)).toBe(bucketForKey(key, BUCKETS))
    }
  })

  it('are written in their own bucket; this bucket keeps its own keys and the writer sequence', async () => {
    const { local, forwarded, ctx } = await cluster(true)
    const [own] = idsOf(0, 1)
    const elsewhere = [...idsOf(1, 2), ...idsOf(3, 1)]
    const writer = { writerId: 5n, batchSequence: 0 }
    const records = batches.batch([[own, 'here'], ...elsewhere.map(id => [id, `moved ${id}`])], writer)
    const response = await handlePutKv(put(records, 0), ctx)
    expect(response.bucketsResp[0].errorCode ?? 0).toBe(0)
    expect(forwarded.sort((a, b) => a.target - b.target)).toEqual([
      { target: 1, keys: 2 },
      { target: 3, keys: 1 },
    ])
    const at = async (b: number, id: number) =>
      rowOfValue((await local[b].kv.lookup([batches.key([id, null])]))[0])
    expect(await at(0, own)).toEqual([own, 'here'])
    expect(await at(0, elsewhere[0])).toBeNull()
    expect(await at(1, elsewhere[0])).toEqual([elsewhere[0], `moved ${elsewhere[0]}`])
    expect(await at(3, elsewhere[2])).toEqual([elsewhere[2], `moved ${elsewhere[2]}`])
    // The same writer's next batch to bucket 0 follows on (its sequence was kept here).
    const next = batches.batch([[own, 'again']], { writerId: 5n, batchSequence: 1 })
    expect((await handlePutKv(put(next, 0), ctx)).bucketsResp[0].errorCode ?? 0).toBe(0)
    expect(await at(0, own)).toEqual([own, 'again'])
  })

  it('a lookup finds keys in their own bucket, answers in key order', async () => {
    const { local, ctx } = await cluster(true)
    const ids = [...idsOf(2, 2), ...idsOf(0, 2)]
    for (const id of ids) {
      const b = router.bucketOfKey(batches.key([id, null]))
      await handlePutKv(put(batches.batch([[id, `v${id}`]]), b), ctx)
    }
    const keys = [...ids, 999_999].map(id => batches.key([id, null]))
    const response = await handleLookup(
      { tableId: 7, bucketsReq: [{ partitionId: null, bucketId: 0, keys }] },
      ctx,
    )
    expect(response.bucketsResp[0].values?.map(v => rowOfValue(v.values))).toEqual([
      ...ids.map(id => [id, `v${id}`]),
      null,
    ])
    expect(local.length).toBe(BUCKETS)
  })

  it('without a forwarder the batch is refused whole, naming the bucket the key belongs to', async () => {
    const { local, ctx } = await cluster(false)
    const [own] = idsOf(0, 1)
    const [other] = idsOf(2, 1)
    const records = batches.batch([
      [own, 'a'],
      [other, 'b'],
    ])
    const answer = (await handlePutKv(put(records, 0), ctx)).bucketsResp[0]
    expect(answer.errorCode).toBe(ERRORS.MISROUTED_KEY.wireCode)
    expect(answer.errorMessage).toContain('belongs to bucket 2')
    expect(await local[0].kv.lookup([batches.key([own, null])])).toEqual([null])
    const lookup = await handleLookup(
      { tableId: 7, bucketsReq: [{ partitionId: null, bucketId: 0, keys: [batches.key([other, null])] }] },
      ctx,
    )
    expect(lookup.bucketsResp[0].errorCode).toBe(ERRORS.MISROUTED_KEY.wireCode)
  })
})
