import { bucketForKey } from '@sluice/core/bucketing'
import { KvRecordBatch } from '@sluice/core/kvbatch'
import { Schema, type TableBucket, TableDescriptor, TableInfo } from '@sluice/core/metadata'
import { CompactedKeyEncoder, decodeCompactedRow, decodeValue } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { TestingKvBatches, TestingKvBucket } from '../testing/kv.js'
import { type ForwardedPut, type KeyForwarder, routePut, routeReads } from './key-forwarding.js'
import { keyRouter } from './key-routing.js'

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

const PUT: ForwardedPut = { acks: 1, timeoutMs: 1000, targetColumns: [] }
const bucketOf = (b: number): TableBucket => ({ tableId: 7, bucket: b })

/** The leader of every bucket in one process: bucket b's KvTablet is `local[b].kv`. */
async function cluster(withForwarder: boolean) {
  const local = await Promise.all(Array.from({ length: BUCKETS }, () => TestingKvBucket.open(schema)))
  buckets.push(...local)
  const forwarded: { target: number; keys: number }[] = []
  const forwarder: KeyForwarder = {
    async putKv(target, records) {
      forwarded.push({ target: target.bucket, keys: KvRecordBatch.from(records).recordCount })
      await putIn(target.bucket, records)
    },
    async lookup(target, keys) {
      forwarded.push({ target: target.bucket, keys: keys.length })
      return local[target.bucket].kv.lookup([...keys])
    },
    async prefixLookup() {
      throw new Error('not used')
    },
  }
  const routing = { router, forwarder: withForwarder ? forwarder : undefined }
  /** A put sent to bucket b: its misrouted records go to their buckets, its own are put here. */
  const putIn = async (b: number, records: Buffer) => {
    const own = await routePut(routing, bucketOf(b), records, PUT)
    await local[b].kv.putAsLeader(own)
    await local[b].acknowledge()
  }
  /** A lookup sent to bucket b. */
  const lookupIn = (b: number, keys: readonly Buffer[]) =>
    routeReads(
      routing,
      bucketOf(b),
      keys,
      'LOOKUP',
      own => local[b].kv.lookup([...own]),
      (f, target, k) => f.lookup(target, k, {}),
    )
  return { local, forwarded, putIn, lookupIn }
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
    const { local, forwarded, putIn } = await cluster(true)
    const [own] = idsOf(0, 1)
    const elsewhere = [...idsOf(1, 2), ...idsOf(3, 1)]
    const writer = { writerId: 5n, batchSequence: 0 }
    const records = batches.batch([[own, 'here'], ...elsewhere.map(id => [id, `moved ${id}`])], writer)
    await putIn(0, records)
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
    await putIn(0, next)
    expect(await at(0, own)).toEqual([own, 'again'])
  })

  it('a lookup finds keys in their own bucket, answers in key order', async () => {
    const { local, putIn, lookupIn } = await cluster(true)
    const ids = [...idsOf(2, 2), ...idsOf(0, 2)]
    for (const id of ids) {
      await putIn(router.bucketOfKey(batches.key([id, null])), batches.batch([[id, `v${id}`]]))
    }
    const keys = [...ids, 999_999].map(id => batches.key([id, null]))
    expect((await lookupIn(0, keys)).map(v => rowOfValue(v))).toEqual([
      ...ids.map(id => [id, `v${id}`]),
      null,
    ])
    expect(local.length).toBe(BUCKETS)
  })

  it('without a forwarder the batch is refused whole, naming the bucket the key belongs to', async () => {
    const { local, putIn, lookupIn } = await cluster(false)
    const [own] = idsOf(0, 1)
    const [other] = idsOf(2, 1)
    const records = batches.batch([
      [own, 'a'],
      [other, 'b'],
    ])
    const refused = await putIn(0, records).then(
      () => undefined,
      e => e,
    )
    expect(refused).toMatchObject({ errorName: 'MISROUTED_KEY' })
    expect(refused.message).toContain('belongs to bucket 2')
    expect(await local[0].kv.lookup([batches.key([own, null])])).toEqual([null])
    await expect(lookupIn(0, [batches.key([other, null])])).rejects.toMatchObject({
      errorName: 'MISROUTED_KEY',
    })
  })
})
