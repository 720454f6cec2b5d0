import { ERRORS } from '@sluice/core/errors'
import { MemoryLogRecords } from '@sluice/core/record'
import { decodeCompactedRow, decodeValue, type Row } from '@sluice/core/row'
import type { ClientConnection } from '@sluice/core/rpc'
import { afterEach, describe, expect, it } from 'vitest'
import { keyRouter } from '../kv/index.js'
import { arrowBatch, notifyRequest, PK_SCHEMA, TABLE_ID, TestCluster } from '../testing/cluster.js'
import { TestingKvBatches } from '../testing/kv.js'

/**
 * PUT_KV, LOOKUP, PREFIX_LOOKUP and LIMIT_SCAN through the TabletService of one server: the
 * responses of the primary-key path, its per-bucket errors, and keys sent to the wrong bucket.
 */

let cluster: TestCluster

afterEach(async () => {
  await cluster?.close()
})

const rowOf = (value: Buffer | Uint8Array | null | undefined): Row | null =>
  value === null || value === undefined
    ? null
    : decodeCompactedRow(decodeValue(Buffer.from(value)).row, PK_SCHEMA.rowType)

/** A primary-key table of `buckets` buckets, every one led by server 1 (or followed, `leader` 2). */
async function pkTable(buckets = 1, leader = 1) {
  cluster = new TestCluster()
  const info = await cluster.createPkTable(buckets)
  const server = await cluster.startServer(1)
  const c = await cluster.connect(server)
  const all = Array.from({ length: buckets }, (_, bucket) => ({ bucket, leader, replicas: [1, 2] }))
  await c.request(
    'NOTIFY_LEADER_AND_ISR',
    notifyRequest(
      1,
      all.map(b => ({ ...b, isr: [leader] })),
    ),
  )
  return { info, server, c, batches: new TestingKvBatches(PK_SCHEMA, info.schemaId) }
}

function putKv(
  c: ClientConnection,
  records: Buffer,
  extra: { acks?: number; targetColumns?: number[] } = {},
) {
  return c.request('PUT_KV', {
    acks: extra.acks ?? 1,
    tableId: TABLE_ID,
    timeoutMs: 5000,
    ...(extra.targetColumns === undefined ? {} : { targetColumns: extra.targetColumns }),
    bucketsReq: [{ bucketId: 0, records }],
  })
}

describe('PUT_KV through the TabletService', () => {
  it('puts, moves the high watermark (flushing the KV store) and answers the log end offset', async () => {
    const { server, c, batches } = await pkTable()
    const response = await putKv(
      c,
      batches.batch([
        [1, 'x', 1n],
        [1, 'x', 2n],
      ]),
      { acks: -1 },
    )
    expect(response.bucketsResp[0]).toMatchObject({ bucketId: 0, logEndOffset: 3 })
    const replica = server.replicaManager.getReplica({ tableId: TABLE_ID, bucket: 0 })
    expect(replica?.logTablet.highWatermark).toBe(3)
    expect(replica?.kvTablet?.flushedOffset).toBe(3)
  })

  it('refuses unknown acks for the whole request', async () => {
    const { c, batches } = await pkTable()
    await expect(putKv(c, batches.batch([[1, 'x', 1n]]), { acks: 2 })).rejects.toMatchObject({
      errorName: 'INVALID_REQUIRED_ACKS',
    })
  })

  it('answers per-bucket errors: bad target columns, unknown buckets, followers', async () => {
    const { c, batches } = await pkTable()
    const badTargets = await putKv(c, batches.batch([[1, 'x', 1n]]), { targetColumns: [2] })
    expect(badTargets.bucketsResp[0]).toMatchObject({
      errorCode: ERRORS.INVALID_TARGET_COLUMN.code,
      errorMessage: 'The target write columns [score] must contain the primary key columns [id, name].',
    })
    const unknown = await c.request('PUT_KV', {
      acks: 1,
      tableId: TABLE_ID,
      timeoutMs: 1000,
      bucketsReq: [{ partitionId: 4, bucketId: 9, records: batches.batch([]) }],
    })
    expect(unknown.bucketsResp[0]).toMatchObject({
      partitionId: 4,
      bucketId: 9,
      errorCode: ERRORS.UNKNOWN_TABLE_OR_BUCKET_EXCEPTION.code,
    })
    await cluster.close()
    const follower = await pkTable(1, 2)
    const answer = await putKv(follower.c, follower.batches.batch([[1, 'x', 1n]]))
    expect(answer.bucketsResp[0]).toMatchObject({
      errorCode: ERRORS.NOT_LEADER_OR_FOLLOWER.code,
      errorMessage: `Leader not local for bucket TableBucket{tableId=${TABLE_ID}, bucket=0} on tabletServer 1`,
    })
  })

  it('refuses puts, lookups and prefix lookups on a log table', async () => {
    cluster = new TestCluster()
    await cluster.createLogTable(1)
    const server = await cluster.startServer(1)
    const c = await cluster.connect(server)
    await c.request('NOTIFY_LEADER_AND_ISR', notifyRequest(1, [{ bucket: 0, leader: 1, replicas: [1] }]))
    const batches = new TestingKvBatches(PK_SCHEMA)
    const put = await putKv(c, batches.batch([[1, 'x', 1n]]))
    expect(put.bucketsResp[0]?.errorCode).toBe(ERRORS.NON_PRIMARY_KEY_TABLE_EXCEPTION.code)
    const lookup = await c.request('LOOKUP', {
      tableId: TABLE_ID,
      bucketsReq: [{ bucketId: 0, keys: [batches.key([1, 'x'])] }],
    })
    expect(lookup.bucketsResp[0]?.errorCode).toBe(ERRORS.NON_PRIMARY_KEY_TABLE_EXCEPTION.code)
    const prefix = await c.request('PREFIX_LOOKUP', {
      tableId: TABLE_ID,
      bucketsReq: [{ bucketId: 0, keys: [batches.key([1, 'x'])] }],
    })
    expect(prefix.bucketsResp[0]).toMatchObject({
      errorCode: ERRORS.NON_PRIMARY_KEY_TABLE_EXCEPTION.code,
      errorMessage: `Try to do prefix lookup on a non primary key table: TableBucket{tableId=${TABLE_ID}, bucket=0}`,
    })
  })
})

describe('LOOKUP and LIMIT_SCAN through the TabletService', () => {
  it('inserts missing keys on an insert-if-not-exists lookup', async () => {
    const { c, batches } = await pkTable()
    await putKv(c, batches.batch([[1, 'a', 10n]]))
    const response = await c.request('LOOKUP', {
      tableId: TABLE_ID,
      bucketsReq: [{ bucketId: 0, keys: [batches.key([1, 'a']), batches.key([9, 'n'])] }],
      insertIfNotExists: true,
      acks: -1,
      timeoutMs: 1000,
    })
    expect(response.bucketsResp[0]?.values.map(v => rowOf(v.values))).toEqual([
      [1, 'a', 10n],
      [9, 'n', null],
    ])
  })

  it('limit scans the latest records below the high watermark of a log bucket; a negative limit is refused', async () => {
    cluster = new TestCluster()
    await cluster.createLogTable(1)
    const server = await cluster.startServer(1)
    const c = await cluster.connect(server)
    await c.request('NOTIFY_LEADER_AND_ISR', notifyRequest(1, [{ bucket: 0, leader: 1, replicas: [1] }]))
    for (let i = 0; i < 4; i++) {
      await c.request('PRODUCE_LOG', {
        acks: 1,
        tableId: TABLE_ID,
        timeoutMs: 1000,
        bucketsReq: [
          {
            bucketId: 0,
            records: arrowBatch([
              [i, 'a', 1n],
              [i, 'b', 2n],
            ]),
          },
        ],
      })
    }
    const scan = await c.request('LIMIT_SCAN', {
      tableId: TABLE_ID,
      partitionId: null,
      bucketId: 0,
      limit: 3,
    })
    expect(scan.isLogTable).toBe(true)
    const offsets = new MemoryLogRecords(scan.records as Uint8Array).validateAll().map(b => b.baseOffset)
    expect(offsets).toEqual([4, 6])
    const refused = await c.request('LIMIT_SCAN', {
      tableId: TABLE_ID,
      partitionId: null,
      bucketId: 0,
      limit: -1,
    })
    expect(refused.errorCode).toBe(ERRORS.INVALID_REQUEST.wireCode)
  })
})

describe('keys sent to the wrong bucket', () => {
  it('are put and looked up in their own bucket (led by the same server)', async () => {
    const { info, server, c, batches } = await pkTable(4)
    const router = keyRouter(info)
    const elsewhere: Row[] = []
    for (let id = 0; elsewhere.length < 3; id++) {
      const row: Row = [id, `n${id}`, BigInt(id)]
      if (router.bucketOfKey(batches.key(row)) !== 0) elsewhere.push(row)
    }
    const put = await putKv(c, batches.batch(elsewhere))
    expect(put.bucketsResp[0]?.errorCode ?? 0).toBe(0)
    for (const row of elsewhere) {
      const own = router.bucketOfKey(batches.key(row))
      const replica = server.replicaManager.getReplica({ tableId: TABLE_ID, bucket: own })
      expect(rowOf((await replica?.kvTablet?.lookup([batches.key(row)]))?.[0])).toEqual(row)
    }
    const lookup = await c.request('LOOKUP', {
      tableId: TABLE_ID,
      bucketsReq: [{ bucketId: 0, keys: elsewhere.map(r => batches.key(r)) }],
    })
    expect(lookup.bucketsResp[0]?.values.map(v => rowOf(v.values))).toEqual(elsewhere)
  })
})
