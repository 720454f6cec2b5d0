import { ERRORS, FlussError } from '@sluice/core/errors'
import { serverKey } from '@sluice/core/metastore'
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

const fetchAll = {
  followerServerId: -1,
  maxBytes: 1 << 20,
  tablesReq: [
    {
      tableId: TABLE_ID,
      projectionPushdownEnabled: false,
      bucketsReq: [{ bucketId: 0, fetchOffset: 0, maxFetchBytes: 1 << 20 }],
    },
  ],
}

describe('TabletServer lifecycle', () => {
  let cluster: TestCluster

  beforeEach(async () => {
    cluster = new TestCluster()
    await cluster.createLogTable(1)
  })

  afterEach(async () => {
    await cluster.close()
  })

  it('keeps data and the high watermark across a restart on the same data dir', async () => {
    const dataDir = await cluster.tempDir()
    const first = await cluster.startServer(1, dataDir)
    const c1 = await cluster.connect(first)
    await c1.request('NOTIFY_LEADER_AND_ISR', notifyRequest(1, [{ bucket: 0, leader: 1, replicas: [1] }]))
    for (const [from, count] of [
      [0, 3],
      [3, 2],
    ]) {
      const r = await c1.request('PRODUCE_LOG', {
        acks: 1,
        tableId: TABLE_ID,
        timeoutMs: 1000,
        bucketsReq: [{ bucketId: 0, records: arrowBatch(rows(from, count)) }],
      })
      expect(r.bucketsResp[0].errorCode ?? 0).toBe(0)
    }
    await cluster.stopServer(first)

    const second = await cluster.startServer(1, dataDir)
    const c2 = await cluster.connect(second)
    // Now with a second replica that never fetches: only a restored high watermark can be 5.
    await c2.request(
      'NOTIFY_LEADER_AND_ISR',
      notifyRequest(1, [{ bucket: 0, leader: 1, replicas: [1, 2], leaderEpoch: 1 }]),
    )
    const log = second.replicaManager.getReplica({ tableId: TABLE_ID, bucket: 0 })?.logTablet
    expect(log?.highWatermark).toBe(5)
    expect(log?.logEndOffset).toBe(5)
    const more = await c2.request('PRODUCE_LOG', {
      acks: 1,
      tableId: TABLE_ID,
      timeoutMs: 1000,
      bucketsReq: [{ bucketId: 0, records: arrowBatch(rows(5, 1)) }],
    })
    expect(more.bucketsResp[0].baseOffset).toBe(5)
    const fetched = (await c2.request('FETCH_LOG', fetchAll)).tablesResp[0].bucketsResp[0]
    expect(fetched.highWatermark).toBe(5)
    expect(decodeRows(fetched.records)).toEqual(rows(0, 5))
  })

  it('registers its lease with the bound port and releases it on stop', async () => {
    const server = await cluster.startServer(3)
    const registered = await cluster.controlPlane.getTabletServer(3)
    expect(registered?.endpoints).toEqual([
      { listenerName: 'FLUSS', host: '127.0.0.1', port: server.endpoints[0].port },
    ])
    expect(server.endpoints[0].port).toBeGreaterThan(0)
    await cluster.stopServer(server)
    expect(await cluster.controlPlane.getTabletServer(3)).toBeUndefined()
  })

  it('refuses to start while a live server at another address keeps holding the id', async () => {
    await cluster.startServer(4)
    const error = await cluster
      .startServer(4, undefined, { 'sluice.tablet-server.lease-register-timeout': '1s' })
      .catch(e => e)
    expect(error).toBeInstanceOf(FlussError)
    expect((error as FlussError).errorName).toBe('INVALID_CONFIG_EXCEPTION')
  })

  it('waits out the live lease of a previous incarnation (a restart on another port), then starts', async () => {
    const { pk, sk } = serverKey(6)
    const expiresAtMs = Date.now() + 800
    await cluster.store.put(
      pk,
      sk,
      {
        format: 1,
        serverId: 6,
        host: '127.0.0.1',
        port: 1,
        rack: null,
        listeners: 'FLUSS://127.0.0.1:1',
        leaseExpiresAtMs: expiresAtMs,
        incarnation: 'killed-process',
      },
      { version: 'absent' },
    )
    const server = await cluster.startServer(6, undefined, {
      'sluice.tablet-server.lease-register-timeout': '10s',
    })
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAtMs)
    expect((await cluster.controlPlane.getTabletServer(6))?.endpoints[0].port).toBe(server.endpoints[0].port)
  })

  it('stops taking writes when its lease is taken over', async () => {
    const server = await cluster.startServer(5, undefined, {
      'sluice.tablet-server.heartbeat-interval': '100ms',
    })
    const client = await cluster.connect(server)
    await client.request('NOTIFY_LEADER_AND_ISR', notifyRequest(1, [{ bucket: 0, leader: 5, replicas: [5] }]))
    const { pk, sk } = serverKey(5)
    const item = await cluster.store.get(pk, sk)
    // Another live process (elsewhere) takes the id over.
    await cluster.store.put(
      pk,
      sk,
      { ...item?.value, incarnation: 'someone-else', port: 1, listeners: 'FLUSS://127.0.0.1:1' },
      { version: item?.version ?? 'absent' },
    )
    await waitUntil(() => server.writesFenced)
    const refused = await client.request('PRODUCE_LOG', {
      acks: 1,
      tableId: TABLE_ID,
      timeoutMs: 1000,
      bucketsReq: [{ bucketId: 0, records: arrowBatch(rows(0, 1)) }],
    })
    expect(refused.bucketsResp[0].errorCode).toBe(ERRORS.NOT_LEADER_OR_FOLLOWER.code)
  })
})
