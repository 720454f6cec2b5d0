import { ERRORS } from '@sluice/core/errors'
import type { ClientConnection } from '@sluice/core/rpc'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  arrowBatch,
  decodeRows,
  notifyRequest,
  rows,
  TABLE_ID,
  TestCluster,
  waitUntil,
} from '../testing/cluster.js'
import type { TabletServer } from './tablet-server.js'

const ASSIGNMENT = { bucket: 0, leader: 1, replicas: [1, 2], isr: [1, 2], leaderEpoch: 1 }

describe('replication between two tablet servers (RF=2)', () => {
  let cluster: TestCluster
  let leader: TabletServer
  let follower: TabletServer
  let toLeader: ClientConnection
  let toFollower: ClientConnection

  beforeEach(async () => {
    cluster = new TestCluster()
    await cluster.createLogTable(1)
    leader = await cluster.startServer(1)
    follower = await cluster.startServer(2)
    toLeader = await cluster.connect(leader)
    toFollower = await cluster.connect(follower)
  })

  afterEach(async () => {
    await cluster.close()
  })

  const produce = (acks: number, from: number, count: number, timeoutMs = 5000) =>
    toLeader.request('PRODUCE_LOG', {
      acks,
      tableId: TABLE_ID,
      timeoutMs,
      bucketsReq: [{ bucketId: 0, records: arrowBatch(rows(from, count)) }],
    })
  const latest = async () =>
    (
      await toLeader.request('LIST_OFFSETS', {
        followerServerId: -1,
        offsetType: 1,
        tableId: TABLE_ID,
        bucketId: [0],
      })
    ).bucketsResp[0].offset
  const clientFetch = async () =>
    (
      await toLeader.request('FETCH_LOG', {
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
    ).tablesResp[0].bucketsResp[0]
  const followerLog = () => follower.replicaManager.getReplica({ tableId: TABLE_ID, bucket: 0 })?.logTablet

  it('advances the high watermark only after the follower fetched, then completes acks=-1', async () => {
    await toLeader.request('NOTIFY_LEADER_AND_ISR', notifyRequest(1, [ASSIGNMENT]))
    const first = await produce(1, 0, 3)
    expect(first.bucketsResp[0].baseOffset).toBe(0)
    // Nothing is committed while the in-sync follower has not fetched.
    expect(await latest()).toBe(0)
    const beforeReplication = await clientFetch()
    expect(beforeReplication.highWatermark).toBe(0)
    expect(beforeReplication.records?.length ?? 0).toBe(0)

    // The coordinator announces the servers, then makes server 2 a follower.
    const servers = [leader, follower].map(s => ({
      nodeId: s.serverId,
      host: s.endpoints[0].host,
      port: s.endpoints[0].port,
      listeners: `FLUSS://${s.endpoints[0].host}:${s.endpoints[0].port}`,
    }))
    await toFollower.request('UPDATE_METADATA', { coordinatorEpoch: 1, tabletServers: servers })
    const notified = await toFollower.request('NOTIFY_LEADER_AND_ISR', notifyRequest(1, [ASSIGNMENT]))
    expect(notified.notifyBucketsLeaderResp[0].errorCode ?? 0).toBe(0)
    await waitUntil(async () => (await latest()) === 3)
    expect(followerLog()?.logEndOffset).toBe(3)

    const all = await produce(-1, 3, 4)
    expect(all.bucketsResp[0].errorCode ?? 0).toBe(0)
    expect(all.bucketsResp[0].baseOffset).toBe(3)
    expect(await latest()).toBe(7)
    expect(followerLog()?.logEndOffset).toBe(7)

    // The follower holds the leader's batches byte for byte.
    const leaderBytes = (await clientFetch()).records
    const followerRead = await followerLog()?.read({
      fetchOffset: 0,
      maxBytes: 1 << 20,
      isolation: 'LOG_END',
      minOneMessage: true,
    })
    expect(Buffer.compare(Buffer.from(leaderBytes ?? []), followerRead?.records ?? Buffer.alloc(0))).toBe(0)
    await waitUntil(() => followerLog()?.highWatermark === 7)
  })

  it('times out acks=-1 when the follower stops, and clients never read above the high watermark', async () => {
    await toLeader.request('NOTIFY_LEADER_AND_ISR', notifyRequest(1, [ASSIGNMENT]))
    await toFollower.request('NOTIFY_LEADER_AND_ISR', notifyRequest(1, [ASSIGNMENT]))
    const committed = await produce(-1, 0, 2)
    expect(committed.bucketsResp[0].errorCode ?? 0).toBe(0)

    await cluster.stopServer(follower)
    const timedOut = await produce(-1, 2, 3, 300)
    expect(timedOut.bucketsResp[0].errorCode).toBe(ERRORS.REQUEST_TIME_OUT.code)
    const acked = await produce(1, 5, 1)
    expect(acked.bucketsResp[0].baseOffset).toBe(5)

    const read = await clientFetch()
    expect(read.highWatermark).toBe(2)
    expect(decodeRows(read.records)).toEqual(rows(0, 2))
    expect(await latest()).toBe(2)
  })

  it('refuses follower fetches from a server that is not a replica, and client fetches on the follower', async () => {
    await toLeader.request('NOTIFY_LEADER_AND_ISR', notifyRequest(1, [ASSIGNMENT]))
    await toFollower.request('NOTIFY_LEADER_AND_ISR', notifyRequest(1, [ASSIGNMENT]))
    const request = (followerServerId: number) => ({
      followerServerId,
      maxBytes: 1 << 20,
      tablesReq: [
        {
          tableId: TABLE_ID,
          projectionPushdownEnabled: false,
          bucketsReq: [{ bucketId: 0, fetchOffset: 0, maxFetchBytes: 1 << 20 }],
        },
      ],
    })
    const stranger = await toLeader.request('FETCH_LOG', request(9))
    expect(stranger.tablesResp[0].bucketsResp[0].errorCode).toBe(ERRORS.NOT_LEADER_OR_FOLLOWER.code)
    const onFollower = await toFollower.request('FETCH_LOG', request(-1))
    expect(onFollower.tablesResp[0].bucketsResp[0].errorCode).toBe(ERRORS.NOT_LEADER_OR_FOLLOWER.code)
    const produced = await toFollower.request('PRODUCE_LOG', {
      acks: 1,
      tableId: TABLE_ID,
      timeoutMs: 1000,
      bucketsReq: [{ bucketId: 0, records: arrowBatch(rows(0, 1)) }],
    })
    expect(produced.bucketsResp[0].errorCode).toBe(ERRORS.NOT_LEADER_OR_FOLLOWER.code)
  })

  it('refuses acks=-1 with NOT_ENOUGH_REPLICAS_EXCEPTION when the ISR is below the minimum', async () => {
    await cluster.stopServer(leader)
    leader = await cluster.startServer(1, undefined, { 'log.replica.min-in-sync-replicas-number': 2 })
    toLeader = await cluster.connect(leader)
    await toLeader.request('NOTIFY_LEADER_AND_ISR', notifyRequest(1, [{ ...ASSIGNMENT, isr: [1] }]))
    const refused = await produce(-1, 0, 1)
    expect(refused.bucketsResp[0].errorCode).toBe(ERRORS.NOT_ENOUGH_REPLICAS_EXCEPTION.code)
    expect(await latest()).toBe(0)
    const listed = await toLeader.request('LIST_OFFSETS', {
      followerServerId: 2,
      offsetType: 1,
      tableId: TABLE_ID,
      bucketId: [0],
    })
    expect(listed.bucketsResp[0].offset).toBe(0)
  })
})
