import { LOG_REPLICA_FETCH_WAIT_MAX_TIME } from '@sluice/core/config'
import type { ClientConnection } from '@sluice/core/rpc'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  arrowBatch,
  type BucketAssignment,
  decodeRows,
  notifyRequest,
  rows,
  TABLE_ID,
  TestCluster,
  waitUntil,
} from '../testing/cluster.js'
import type { TabletServer } from './tablet-server.js'

const BUCKET = { tableId: TABLE_ID, bucket: 0 }

describe('leader failover between in-process tablet servers (RF=3)', () => {
  let cluster: TestCluster
  let servers: TabletServer[]
  let connections: ClientConnection[]

  beforeEach(async () => {
    cluster = new TestCluster()
    await cluster.createLogTable(1)
    // Long follower polls: a follower learns a new high watermark only with its next data.
    const extra = { [LOG_REPLICA_FETCH_WAIT_MAX_TIME.key]: '10s' }
    servers = [await cluster.startServer(1, undefined, extra)]
    servers.push(
      await cluster.startServer(2, undefined, extra),
      await cluster.startServer(3, undefined, extra),
    )
    connections = await Promise.all(servers.map(s => cluster.connect(s)))
  })

  afterEach(async () => {
    await cluster.close()
  })

  const log = (id: number) => servers[id - 1].replicaManager.getReplica(BUCKET)?.logTablet
  const notify = (ids: number[], assignment: BucketAssignment, coordinatorEpoch = 1) =>
    Promise.all(
      ids.map(id =>
        connections[id - 1].request('NOTIFY_LEADER_AND_ISR', notifyRequest(coordinatorEpoch, [assignment])),
      ),
    )
  const produce = async (id: number, acks: number, from: number, count: number) => {
    const response = await connections[id - 1].request('PRODUCE_LOG', {
      acks,
      tableId: TABLE_ID,
      timeoutMs: 5000,
      bucketsReq: [{ bucketId: 0, records: arrowBatch(rows(from, count)) }],
    })
    expect(response.bucketsResp[0].errorCode ?? 0).toBe(0)
  }
  const readAll = async (id: number) => {
    const r = await connections[id - 1].request('FETCH_LOG', {
      followerServerId: -1,
      maxBytes: 1 << 20,
      tablesReq: [
        {
          tableId: TABLE_ID,
          projectionPushdownEnabled: false,
          bucketsReq: [{ bucketId: 0, fetchOffset: 0, maxFetchBytes: 1 << 20 }],
        },
      ],
    })
    return r.tablesResp[0].bucketsResp[0]
  }
  const bytesOf = async (id: number) =>
    (await log(id)?.read({ fetchOffset: 0, maxBytes: 1 << 20, isolation: 'LOG_END', minOneMessage: true }))
      ?.records

  it('keeps acknowledged records a follower holds above its high watermark when it follows a new leader', async () => {
    const epoch0 = { bucket: 0, leader: 1, replicas: [1, 2, 3], isr: [1, 2, 3], leaderEpoch: 0 }
    await notify([1, 2, 3], epoch0)
    await produce(1, -1, 0, 3)
    await produce(1, -1, 3, 2)
    // Both followers hold all 5 acknowledged records but learned a smaller high watermark.
    await waitUntil(() => log(2)?.logEndOffset === 5 && log(3)?.logEndOffset === 5)
    expect(log(3)?.highWatermark).toBeLessThan(5)

    // Server 3 is told to follow server 2 at epoch 1 (before server 2 even knows it leads): it
    // keeps its log until the new leader says where it diverges (Fluss 0.9.1 would cut it to 3).
    const epoch1 = { bucket: 0, leader: 2, replicas: [1, 2, 3], isr: [2, 3], leaderEpoch: 1, bucketEpoch: 1 }
    await notify([3], epoch1)
    expect(log(3)?.logEndOffset).toBe(5)

    // Servers 1 and 2 fail; server 3, the last in-sync replica, must still have every record.
    await cluster.stopServer(servers[0])
    await cluster.stopServer(servers[1])
    const epoch2 = { bucket: 0, leader: 3, replicas: [1, 2, 3], isr: [3], leaderEpoch: 2, bucketEpoch: 2 }
    await notify([3], epoch2)
    await waitUntil(async () => (await readAll(3)).highWatermark === 5)
    expect(decodeRows((await readAll(3)).records)).toEqual(rows(0, 5))
    expect(servers[2].replicaManager.getReplica(BUCKET)?.epochCache.entries).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 5 },
    ])
  })

  it("cuts a deposed leader's unreplicated tail and makes its log equal to the new leader's", async () => {
    const epoch0 = { bucket: 0, leader: 1, replicas: [1, 2, 3], isr: [1, 2, 3], leaderEpoch: 0 }
    await notify([1, 2, 3], epoch0)
    await produce(1, -1, 0, 2)
    // The followers stop fetching; the leader alone takes three more records (acks=1).
    for (const id of [2, 3]) {
      await connections[id - 1].request('STOP_REPLICA', {
        coordinatorEpoch: 1,
        stopReplicasReq: [{ tableBucket: { tableId: TABLE_ID, bucketId: 0 }, leaderEpoch: 0, delete: false }],
      })
    }
    await produce(1, 1, 2, 3)
    expect(log(1)?.logEndOffset).toBe(5)
    expect(log(2)?.logEndOffset).toBe(2)

    const epoch1 = { bucket: 0, leader: 2, replicas: [1, 2, 3], isr: [2, 3], leaderEpoch: 1, bucketEpoch: 1 }
    await notify([2, 3, 1], epoch1)
    await produce(2, 1, 100, 2)
    await waitUntil(() => log(1)?.logEndOffset === 4 && log(3)?.logEndOffset === 4)
    const leaderBytes = await bytesOf(2)
    expect(Buffer.compare(leaderBytes ?? Buffer.alloc(0), (await bytesOf(1)) ?? Buffer.alloc(0))).toBe(0)
    expect(Buffer.compare(leaderBytes ?? Buffer.alloc(0), (await bytesOf(3)) ?? Buffer.alloc(0))).toBe(0)
    expect(servers[0].replicaManager.getReplica(BUCKET)?.epochCache.entries).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 1, startOffset: 2 },
    ])
    await waitUntil(async () => (await readAll(2)).highWatermark === 4)
    expect(decodeRows((await readAll(2)).records)).toEqual([...rows(0, 2), ...rows(100, 2)])
  })

  it('refuses stale control requests: old coordinator epoch for the whole request, old leader epoch per bucket', async () => {
    const epoch3 = { bucket: 0, leader: 1, replicas: [1, 2, 3], isr: [1, 2, 3], leaderEpoch: 3 }
    await notify([1], epoch3, 5)
    const oldCoordinator = await connections[0]
      .request('NOTIFY_LEADER_AND_ISR', notifyRequest(4, [{ ...epoch3, leaderEpoch: 4 }]))
      .then(
        () => undefined,
        e => e,
      )
    expect((oldCoordinator as { errorName?: string }).errorName).toBe('INVALID_COORDINATOR_EXCEPTION')
    const oldLeaderEpoch = await connections[0].request(
      'NOTIFY_LEADER_AND_ISR',
      notifyRequest(5, [{ ...epoch3, leaderEpoch: 2 }]),
    )
    expect(oldLeaderEpoch.notifyBucketsLeaderResp[0].errorCode).toBe(24)
    const oldStop = await connections[0].request('STOP_REPLICA', {
      coordinatorEpoch: 5,
      stopReplicasReq: [{ tableBucket: { tableId: TABLE_ID, bucketId: 0 }, leaderEpoch: 2, delete: false }],
    })
    expect(oldStop.stopReplicasResp[0].errorCode).toBe(24)
    expect(servers[0].replicaManager.getReplica(BUCKET)?.isLeader).toBe(true)
  })
})
