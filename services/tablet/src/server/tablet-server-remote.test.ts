import { ClientConnection } from '@sluice/core/rpc'
import { afterEach, describe, expect, it } from 'vitest'
import { OffsetType } from '../replica/replica-types.js'
import {
  arrowBatch,
  decodeRows,
  LOG_SCHEMA,
  notifyRequest,
  rows,
  TABLE_ID,
  TestCluster,
} from '../testing/cluster.js'
import type { TabletServer } from './tablet-server.js'

let cluster: TestCluster

afterEach(async () => {
  await cluster?.close()
})

const BUCKET = { tableId: TABLE_ID, bucket: 0 }
const REMOTE_DIR = 'file:///var/sluice/remote'

/** A leader whose first segments are uploaded and deleted locally: offsets below 60 are remote only. */
async function tieredLeader(): Promise<{ server: TabletServer; uploadedEnd: number }> {
  cluster = new TestCluster()
  await cluster.createLogTable(1, { 'table.log.tiered.local-segments': '1' })
  const server = await cluster.startServer(
    1,
    undefined,
    {
      'log.segment.file-size': '1kb',
      'remote.log.task-interval-duration': '1h',
      'remote.data.dir': REMOTE_DIR,
    },
    { remote: true },
  )
  const c = await cluster.connect(server)
  await c.request('NOTIFY_LEADER_AND_ISR', notifyRequest(1, [{ bucket: 0, leader: 1, replicas: [1] }]))
  for (let i = 0; i < 6; i++) {
    const r = await c.request('PRODUCE_LOG', {
      acks: 1,
      tableId: TABLE_ID,
      timeoutMs: 1000,
      bucketsReq: [{ bucketId: 0, records: arrowBatch(rows(i * 20, 20)) }],
    })
    expect(r.bucketsResp[0]?.errorCode ?? 0).toBe(0)
  }
  const manager = server.remoteLogManager
  if (manager === null) throw new Error('the server has no remote log')
  await server.replicaManager.getReplica(BUCKET)?.whenLeaderReady()
  const run = await manager.runOnce(BUCKET)
  expect(run?.uploaded).toBeGreaterThan(0)
  expect(run?.localDeleted).toBeGreaterThan(0)
  const uploadedEnd = manager.reader(BUCKET)?.remoteLogEndOffset ?? -1
  return { server, uploadedEnd }
}

async function connectAs(server: TabletServer, clientSoftwareName: string): Promise<ClientConnection> {
  const { host, port } = server.endpoints[0] as { host: string; port: number }
  return ClientConnection.connect({ host, port, expectedRole: 'tablet', clientSoftwareName })
}

function fetchFromStart(projectedFields: number[] | null = null) {
  return {
    followerServerId: -1,
    maxBytes: 1 << 20,
    tablesReq: [
      {
        tableId: TABLE_ID,
        projectionPushdownEnabled: projectedFields !== null,
        projectedFields: projectedFields ?? [],
        bucketsReq: [{ bucketId: 0, fetchOffset: 0, maxFetchBytes: 1 << 20 }],
      },
    ],
  }
}

describe('fetches below the local log start are served from the remote log', () => {
  it('gives a Sluice client the remote batches (projected too) and EARLIEST offset 0', async () => {
    const { server, uploadedEnd } = await tieredLeader()
    expect(server.replicaManager.getReplica(BUCKET)?.logTablet.logStartOffset).toBeGreaterThan(0)
    const c = await connectAs(server, 'sluice-test')
    try {
      const full = await c.request('FETCH_LOG', fetchFromStart())
      const bucket = full.tablesResp[0]?.bucketsResp[0]
      expect(bucket?.errorCode ?? 0).toBe(0)
      expect(bucket?.remoteLogFetchInfo).toBeNull()
      const got = decodeRows(bucket?.records ?? null)
      expect(got.length).toBeGreaterThan(0)
      expect(got.length).toBeLessThanOrEqual(uploadedEnd)
      expect(got).toEqual(rows(0, got.length))

      const projected = await c.request('FETCH_LOG', fetchFromStart([2]))
      const p = projected.tablesResp[0]?.bucketsResp[0]
      const scores = decodeRows(p?.records ?? null, {
        ...LOG_SCHEMA.rowType,
        fields: [LOG_SCHEMA.rowType.fields[2]!],
      })
      expect(scores).toEqual(rows(0, scores.length).map(r => [r[2]]))

      const earliest = await c.request('LIST_OFFSETS', {
        followerServerId: -1,
        offsetType: OffsetType.EARLIEST,
        tableId: TABLE_ID,
        bucketId: [0],
      })
      expect(earliest.bucketsResp[0]?.offset).toBe(0)
    } finally {
      c.close()
    }
  })

  it("gives an official client Fluss's remote-log fetch info and no records", async () => {
    const { server, uploadedEnd } = await tieredLeader()
    const c = await connectAs(server, 'fluss-java-client')
    try {
      const response = await c.request('FETCH_LOG', fetchFromStart())
      const bucket = response.tablesResp[0]?.bucketsResp[0]
      expect(bucket?.errorCode ?? 0).toBe(0)
      expect(bucket?.records ?? null).toBeNull()
      const info = bucket?.remoteLogFetchInfo
      expect(info?.remoteLogTabletDir.startsWith(REMOTE_DIR)).toBe(true)
      expect(info?.firstStartPos).toBe(0)
      const segments = info?.remoteLogSegments ?? []
      expect(segments[0]?.remoteLogStartOffset).toBe(0)
      expect(segments.at(-1)?.remoteLogEndOffset).toBe(uploadedEnd)
    } finally {
      c.close()
    }
  })

  it('a new follower restarts its log at the end of the remote segments and then replicates', async () => {
    const { server, uploadedEnd } = await tieredLeader()
    const follower = await cluster.startServer(
      2,
      undefined,
      { 'remote.data.dir': REMOTE_DIR },
      { remote: true },
    )
    const notify = notifyRequest(1, [{ bucket: 0, leader: 1, replicas: [1, 2], isr: [1], bucketEpoch: 1 }])
    for (const s of [server, follower])
      await (await cluster.connect(s)).request('NOTIFY_LEADER_AND_ISR', notify)
    const replica = () => follower.replicaManager.getReplica(BUCKET)
    const leaderEnd = server.replicaManager.getReplica(BUCKET)?.logTablet.logEndOffset ?? -1
    const deadline = Date.now() + 5000
    while ((replica()?.logTablet.logEndOffset ?? -1) < leaderEnd && Date.now() < deadline) {
      await new Promise(resolve => setTimeout(resolve, 20))
    }
    expect(replica()?.logTablet.logStartOffset).toBe(uploadedEnd)
    expect(replica()?.logTablet.logEndOffset).toBe(leaderEnd)
  })
})
