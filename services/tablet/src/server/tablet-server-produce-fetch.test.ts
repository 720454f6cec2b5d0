import { ERRORS } from '@sluice/core/errors'
import type { ClientConnection } from '@sluice/core/rpc'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  arrowBatch,
  batchOffsets,
  decodeRows,
  notifyRequest,
  rows,
  TABLE_ID,
  TestCluster,
} from '../testing/cluster.js'
import type { TabletServer } from './tablet-server.js'

const code = (name: keyof typeof ERRORS) => ERRORS[name].code

function fetchRequest(bucket: number, fetchOffset: number, extra: Record<string, unknown> = {}) {
  return {
    followerServerId: -1,
    maxBytes: 1024 * 1024,
    tablesReq: [
      {
        tableId: TABLE_ID,
        projectionPushdownEnabled: false,
        bucketsReq: [{ bucketId: bucket, fetchOffset, maxFetchBytes: 1024 * 1024 }],
      },
    ],
    ...extra,
  }
}

describe('TabletServer produce and fetch on a single-replica log table', () => {
  let cluster: TestCluster
  let server: TabletServer
  let client: ClientConnection

  beforeEach(async () => {
    cluster = new TestCluster()
    await cluster.createLogTable(2)
    server = await cluster.startServer(1)
    client = await cluster.connect(server)
    const notified = await client.request(
      'NOTIFY_LEADER_AND_ISR',
      notifyRequest(1, [{ bucket: 0, leader: 1, replicas: [1] }]),
    )
    expect(notified.notifyBucketsLeaderResp.map(r => r.errorCode ?? 0)).toEqual([0])
  })

  afterEach(async () => {
    await cluster.close()
  })

  function produce(acks: number, records: Buffer, bucket = 0) {
    return client.request('PRODUCE_LOG', {
      acks,
      tableId: TABLE_ID,
      timeoutMs: 5000,
      bucketsReq: [{ bucketId: bucket, records }],
    })
  }

  it('assigns dense offsets for acks 0, 1 and -1 and fetches the rows back', async () => {
    const r0 = await produce(0, arrowBatch(rows(0, 3)))
    const r1 = await produce(1, arrowBatch(rows(3, 2)))
    const r2 = await produce(-1, arrowBatch(rows(5, 4)))
    expect([r0, r1, r2].map(r => r.bucketsResp[0].baseOffset)).toEqual([0, 3, 5])
    expect([r0, r1, r2].map(r => r.bucketsResp[0].errorCode ?? 0)).toEqual([0, 0, 0])

    const fetched = await client.request('FETCH_LOG', fetchRequest(0, 0))
    const bucket = fetched.tablesResp[0].bucketsResp[0]
    expect(bucket.errorCode ?? 0).toBe(0)
    expect(bucket.highWatermark).toBe(9)
    expect(bucket.logStartOffset).toBe(0)
    expect(batchOffsets(bucket.records)).toEqual([
      { base: 0, count: 3 },
      { base: 3, count: 2 },
      { base: 5, count: 4 },
    ])
    expect(decodeRows(bucket.records)).toEqual(rows(0, 9))

    const fromMiddle = await client.request('FETCH_LOG', fetchRequest(0, 5))
    expect(decodeRows(fromMiddle.tablesResp[0].bucketsResp[0].records)).toEqual(rows(5, 4))
  })

  it('refuses a corrupt batch in its bucket and appends nothing', async () => {
    const batch = arrowBatch(rows(0, 2))
    batch[batch.length - 1] ^= 0xff
    const response = await produce(1, batch)
    expect(response.bucketsResp[0].errorCode).toBe(code('CORRUPT_RECORD_EXCEPTION'))
    const listed = await client.request('LIST_OFFSETS', {
      followerServerId: -1,
      offsetType: 1,
      tableId: TABLE_ID,
      bucketId: [0],
    })
    expect(listed.bucketsResp[0].offset).toBe(0)
  })

  it('rejects invalid acks for the whole request', async () => {
    await expect(produce(2, arrowBatch(rows(0, 1)))).rejects.toMatchObject({
      code: code('INVALID_REQUIRED_ACKS'),
    })
  })

  it('answers NOT_LEADER_OR_FOLLOWER for a bucket led elsewhere and UNKNOWN for a bucket that does not exist', async () => {
    const response = await produce(1, arrowBatch(rows(0, 1)), 1)
    expect(response.bucketsResp[0].errorCode).toBe(code('NOT_LEADER_OR_FOLLOWER'))
    const unknown = await produce(1, arrowBatch(rows(0, 1)), 5)
    expect(unknown.bucketsResp[0].errorCode).toBe(code('UNKNOWN_TABLE_OR_BUCKET_EXCEPTION'))
    const fetched = await client.request('FETCH_LOG', fetchRequest(1, 0))
    expect(fetched.tablesResp[0].bucketsResp[0].errorCode).toBe(code('NOT_LEADER_OR_FOLLOWER'))
  })

  it('does not append a retried idempotent batch twice', async () => {
    const first = arrowBatch(rows(0, 2), { writerId: 42, batchSequence: 0 })
    const retry = Buffer.from(first)
    const a = await produce(1, first)
    const b = await produce(1, retry)
    expect(a.bucketsResp[0].baseOffset).toBe(0)
    expect(b.bucketsResp[0].baseOffset).toBe(0)
    expect(b.bucketsResp[0].errorCode ?? 0).toBe(0)
    const next = await produce(1, arrowBatch(rows(2, 1), { writerId: 42, batchSequence: 1 }))
    expect(next.bucketsResp[0].baseOffset).toBe(2)
    const fetched = await client.request('FETCH_LOG', fetchRequest(0, 0))
    expect(decodeRows(fetched.tablesResp[0].bucketsResp[0].records)).toEqual(rows(0, 3))
  })

  it('answers LOG_OFFSET_OUT_OF_RANGE_EXCEPTION for a fetch offset past the log end', async () => {
    await produce(1, arrowBatch(rows(0, 2)))
    const fetched = await client.request('FETCH_LOG', fetchRequest(0, 10))
    expect(fetched.tablesResp[0].bucketsResp[0].errorCode).toBe(code('LOG_OFFSET_OUT_OF_RANGE_EXCEPTION'))
  })

  it('fetches from the log start with offset -2 and honours the byte limits with one whole batch first', async () => {
    const big = arrowBatch(rows(0, 50))
    await produce(1, big)
    await produce(1, arrowBatch(rows(50, 5)))
    const fetched = await client.request('FETCH_LOG', {
      ...fetchRequest(0, -2),
      maxBytes: 10,
    })
    const bucket = fetched.tablesResp[0].bucketsResp[0]
    expect(batchOffsets(bucket.records)).toEqual([{ base: 0, count: 50 }])
  })

  it('long-poll fetch returns when data arrives, and after max_wait with nothing', async () => {
    const empty = await client.request('FETCH_LOG', fetchRequest(0, 0, { minBytes: 1, maxWaitMs: 100 }))
    expect(empty.tablesResp[0].bucketsResp[0].records?.length ?? 0).toBe(0)
    expect(empty.tablesResp[0].bucketsResp[0].errorCode ?? 0).toBe(0)

    const parked = client.request('FETCH_LOG', fetchRequest(0, 0, { minBytes: 1, maxWaitMs: 10_000 }))
    let settled = false
    void parked.then(() => {
      settled = true
    })
    await new Promise(resolve => setTimeout(resolve, 50))
    expect(settled).toBe(false)
    await produce(1, arrowBatch(rows(0, 2)))
    const answered = await parked
    expect(decodeRows(answered.tablesResp[0].bucketsResp[0].records)).toEqual(rows(0, 2))
  })

  it('lists earliest, latest and by-timestamp offsets', async () => {
    const before = Date.now() - 1
    await produce(1, arrowBatch(rows(0, 3)))
    await produce(1, arrowBatch(rows(3, 3)))
    const list = (offsetType: number, startTimestamp?: number) =>
      client.request('LIST_OFFSETS', {
        followerServerId: -1,
        offsetType,
        tableId: TABLE_ID,
        bucketId: [0],
        ...(startTimestamp === undefined ? {} : { startTimestamp }),
      })
    expect((await list(0)).bucketsResp[0].offset).toBe(0)
    expect((await list(1)).bucketsResp[0].offset).toBe(6)
    expect((await list(2, before)).bucketsResp[0].offset).toBe(0)
    expect((await list(2, Date.now())).bucketsResp[0].offset).toBe(6)
    const future = await list(2, Date.now() + 3_600_000)
    expect(future.bucketsResp[0].errorCode).toBe(code('INVALID_TIMESTAMP_EXCEPTION'))
    const stats = await client.request('GET_TABLE_STATS', {
      tableId: TABLE_ID,
      bucketsReq: [{ bucketId: 0 }],
    })
    expect(stats.bucketsResp[0].rowCount).toBe(6)
  })

  it('answers the read-only admin APIs from the catalog', async () => {
    const path = { databaseName: 'db1', tableName: 'events' }
    expect((await client.request('TABLE_EXISTS', { tablePath: path })).exists).toBe(true)
    const info = await client.request('GET_TABLE_INFO', { tablePath: path })
    expect(info.tableId).toBe(TABLE_ID)
    await expect(
      client.request('GET_TABLE_INFO', { tablePath: { databaseName: 'db1', tableName: 'nope' } }),
    ).rejects.toMatchObject({ code: code('TABLE_NOT_EXIST') })
  })

  it('refuses UPDATE_METADATA from an older coordinator', async () => {
    await expect(client.request('UPDATE_METADATA', { coordinatorEpoch: 0 })).rejects.toMatchObject({
      code: code('INVALID_COORDINATOR_EXCEPTION'),
    })
    expect(await client.request('UPDATE_METADATA', { coordinatorEpoch: 1 })).toEqual({})
  })

  it('allocates writer ids from the catalog', async () => {
    const a = await client.request('INIT_WRITER', {
      tablePath: [{ databaseName: 'db1', tableName: 'events' }],
    })
    const b = await client.request('INIT_WRITER', { tablePath: [] })
    expect(b.writerId).toBe(a.writerId + 1)
  })

  it('refuses a stale coordinator epoch for the request and a stale leader epoch per bucket', async () => {
    const renotify = await client.request(
      'NOTIFY_LEADER_AND_ISR',
      notifyRequest(3, [{ bucket: 0, leader: 1, replicas: [1], leaderEpoch: 2 }]),
    )
    expect(renotify.notifyBucketsLeaderResp[0].errorCode ?? 0).toBe(0)
    await expect(
      client.request(
        'NOTIFY_LEADER_AND_ISR',
        notifyRequest(2, [{ bucket: 0, leader: 1, replicas: [1], leaderEpoch: 3 }]),
      ),
    ).rejects.toMatchObject({ code: code('INVALID_COORDINATOR_EXCEPTION') })
    const stale = await client.request(
      'NOTIFY_LEADER_AND_ISR',
      notifyRequest(3, [{ bucket: 0, leader: 1, replicas: [1], leaderEpoch: 1 }]),
    )
    expect(stale.notifyBucketsLeaderResp[0].errorCode).toBe(code('FENCED_LEADER_EPOCH_EXCEPTION'))
    const stop = await client.request('STOP_REPLICA', {
      coordinatorEpoch: 3,
      stopReplicasReq: [{ tableBucket: { tableId: TABLE_ID, bucketId: 0 }, leaderEpoch: 1, delete: false }],
    })
    expect(stop.stopReplicasResp[0].errorCode).toBe(code('FENCED_LEADER_EPOCH_EXCEPTION'))
    const produced = await produce(1, arrowBatch(rows(0, 1)))
    expect(produced.bucketsResp[0].errorCode ?? 0).toBe(0)
  })

  it('stops serving a bucket on STOP_REPLICA; the bucket of a dropped table becomes unknown', async () => {
    const stop = await client.request('STOP_REPLICA', {
      coordinatorEpoch: 1,
      stopReplicasReq: [{ tableBucket: { tableId: TABLE_ID, bucketId: 0 }, leaderEpoch: 0, delete: false }],
    })
    expect(stop.stopReplicasResp[0].errorCode ?? 0).toBe(0)
    const moved = await produce(1, arrowBatch(rows(0, 1)))
    expect(moved.bucketsResp[0].errorCode).toBe(code('NOT_LEADER_OR_FOLLOWER'))
    // delete (local and remote) is what dropping the table sends.
    const drop = await client.request('STOP_REPLICA', {
      coordinatorEpoch: 1,
      stopReplicasReq: [{ tableBucket: { tableId: TABLE_ID, bucketId: 0 }, leaderEpoch: 0, delete: true }],
    })
    expect(drop.stopReplicasResp[0].errorCode ?? 0).toBe(0)
    const dropped = await produce(1, arrowBatch(rows(0, 1)))
    expect(dropped.bucketsResp[0].errorCode).toBe(code('UNKNOWN_TABLE_OR_BUCKET_EXCEPTION'))
  })
})
