import { ERRORS } from '@sluice/core/errors'
import type { ClientConnection } from '@sluice/core/rpc'
import { afterEach, describe, expect, it } from 'vitest'
import {
  arrowBatch,
  decodeRows,
  notifyRequest,
  PK_SCHEMA,
  rows,
  TABLE_ID,
  TestCluster,
  waitUntil,
} from '../testing/cluster.js'
import { TestingKvBatches } from '../testing/kv.js'
import { TestingClock } from '../testing/log.js'
import type { TabletServer } from './tablet-server.js'

let cluster: TestCluster
let clock: TestingClock

afterEach(async () => {
  await cluster?.close()
})

const BUCKET = { tableId: TABLE_ID, bucket: 0 }
const HOUR_MS = 3_600_000
const REMOTE_DIR = 'file:///var/sluice/remote'
/**
 * Small segments (a few batches each), follower fetches that fit in one (a follower appends what
 * one fetch brings as a whole), and an ISR that never expires while the clock jumps hours.
 */
const SERVER_OPTIONS = {
  'log.segment.file-size': '1kb',
  'log.replica.fetch.max-bytes-for-bucket': '1kb',
  'log.replica.max-lag-time': '1h',
}

async function startCluster(properties: Record<string, string>): Promise<void> {
  cluster = new TestCluster()
  clock = new TestingClock()
  await cluster.createLogTable(1, properties)
}

function start(serverId: number, extra: Record<string, unknown> = {}, remote = false): Promise<TabletServer> {
  return cluster.startServer(serverId, undefined, { ...SERVER_OPTIONS, ...extra }, { clock, remote })
}

async function lead(
  servers: readonly TabletServer[],
  replicas: readonly number[],
): Promise<ClientConnection> {
  const notify = notifyRequest(1, [{ bucket: 0, leader: replicas[0] as number, replicas }])
  const connections = await Promise.all(servers.map(s => cluster.connect(s)))
  for (const c of connections) await c.request('NOTIFY_LEADER_AND_ISR', notify)
  return connections[0] as ClientConnection
}

/** `batches` batches of 20 rows from row `from` on (several segments of 1 KiB). */
async function produce(c: ClientConnection, from: number, batches: number, acks: number): Promise<void> {
  for (let i = 0; i < batches; i++) {
    const response = await c.request('PRODUCE_LOG', {
      acks,
      tableId: TABLE_ID,
      timeoutMs: 5000,
      bucketsReq: [{ bucketId: 0, records: arrowBatch(rows(from + i * 20, 20)) }],
    })
    expect(response.bucketsResp[0]?.errorCode ?? 0).toBe(0)
  }
}

function logOf(server: TabletServer) {
  const replica = server.replicaManager.getReplica(BUCKET)
  if (replica === undefined) throw new Error(`server ${server.serverId} hosts no replica of the bucket`)
  return replica.logTablet
}

async function readFrom(c: ClientConnection, fetchOffset: number) {
  const response = await c.request('FETCH_LOG', {
    followerServerId: -1,
    maxBytes: 1 << 20,
    tablesReq: [
      {
        tableId: TABLE_ID,
        projectionPushdownEnabled: false,
        projectedFields: [],
        bucketsReq: [{ bucketId: 0, fetchOffset, maxFetchBytes: 1 << 20 }],
      },
    ],
  })
  return response.tablesResp[0]?.bucketsResp[0]
}

describe('local retention by table.log.ttl', () => {
  it('deletes expired sealed segments of leaders and followers, keeping the active segment', async () => {
    await startCluster({ 'table.log.ttl': '1h' })
    // The leader has remote storage with the remote log disabled, the follower none at all.
    const leader = await start(
      1,
      { 'remote.log.task-interval-duration': '0ms', 'remote.data.dir': REMOTE_DIR },
      true,
    )
    const follower = await start(2)
    const c = await lead([leader, follower], [1, 2])
    await produce(c, 0, 6, -1)
    const oldEnd = logOf(leader).logEndOffset
    await waitUntil(() => logOf(follower).highWatermark === oldEnd)
    expect(logOf(leader).segmentCount).toBeGreaterThan(2)

    // Not expired yet: nothing goes.
    clock.advance(HOUR_MS - 1000)
    expect(await leader.localRetention.runOnce()).toEqual({ checkedReplicas: 1, deletedSegments: 0 })
    clock.advance(2000)
    await produce(c, 1000, 1, -1)
    const end = logOf(leader).logEndOffset
    await waitUntil(() => logOf(follower).highWatermark === end)

    for (const server of [leader, follower]) {
      const log = logOf(server)
      const segments = log.segmentCount
      const result = await server.localRetention.runOnce()
      expect(result.checkedReplicas).toBe(1)
      expect(result.deletedSegments).toBe(segments - 1)
      expect(log.segmentCount).toBe(1)
      expect(log.logStartOffset).toBeGreaterThan(0)
      expect(log.logStartOffset).toBeLessThanOrEqual(oldEnd)
      expect(log.logEndOffset).toBe(end)
    }
    const start0 = logOf(leader).logStartOffset
    const bucket = await readFrom(c, start0)
    expect(decodeRows(bucket?.records ?? null).at(-1)).toEqual(rows(1019, 1)[0])
    expect(bucket?.logStartOffset).toBe(start0)
    expect((await readFrom(c, 0))?.errorCode).toBe(ERRORS.LOG_OFFSET_OUT_OF_RANGE_EXCEPTION.code)
  })

  it('never deletes segments above the high watermark', async () => {
    await startCluster({ 'table.log.ttl': '1h' })
    const leader = await start(1)
    // Server 2 is in the ISR but not running: the high watermark stays at 0.
    const c = await lead([leader], [1, 2])
    await produce(c, 0, 6, 1)
    const log = logOf(leader)
    expect(log.highWatermark).toBe(0)
    clock.advance(2 * HOUR_MS)
    expect(await leader.localRetention.runOnce()).toEqual({ checkedReplicas: 1, deletedSegments: 0 })
    expect(log.logStartOffset).toBe(0)

    // Once the follower caught up and the high watermark moved, the same segments go.
    const follower = await start(2)
    await lead([follower], [1, 2])
    await new Promise(r => setTimeout(r, 2000))
    console.log(
      'DBG',
      log.highWatermark,
      log.logEndOffset,
      logOf(follower).logEndOffset,
      logOf(follower).highWatermark,
      follower.replicaManager.getReplica(BUCKET)?.leaderId,
    )
    await waitUntil(() => log.highWatermark === log.logEndOffset)
    const segments = log.segmentCount
    expect(await leader.localRetention.runOnce()).toEqual({
      checkedReplicas: 1,
      deletedSegments: segments - 1,
    })
    expect(log.logStartOffset).toBeGreaterThan(0)
  })

  it('leaves buckets of the remote-log manager, primary-key tables and TTL 0 alone', async () => {
    await startCluster({ 'table.log.ttl': '1h' })
    // The remote-log task is registered (its first run is hours away) and owns deletion.
    const remote = await start(
      1,
      { 'remote.log.task-interval-duration': '24h', 'remote.data.dir': REMOTE_DIR },
      true,
    )
    const c = await lead([remote], [1])
    await produce(c, 0, 6, 1)
    expect(remote.remoteLogManager?.has(BUCKET)).toBe(true)
    clock.advance(2 * HOUR_MS)
    expect(await remote.localRetention.runOnce()).toEqual({ checkedReplicas: 0, deletedSegments: 0 })
    expect(logOf(remote).logStartOffset).toBe(0)
    await cluster.close()

    await startCluster({ 'table.log.ttl': '0ms' })
    const forever = await start(1)
    await produce(await lead([forever], [1]), 0, 6, 1)
    clock.advance(1000 * HOUR_MS)
    expect(await forever.localRetention.runOnce()).toEqual({ checkedReplicas: 0, deletedSegments: 0 })
    expect(logOf(forever).logStartOffset).toBe(0)
  })

  it('keeps the changelog of primary-key tables (KvTablets are rebuilt from it)', async () => {
    cluster = new TestCluster()
    clock = new TestingClock()
    const info = await cluster.createPkTable(1, { 'table.log.ttl': '1h' })
    const server = await start(1)
    const c = await lead([server], [1])
    const batches = new TestingKvBatches(PK_SCHEMA, info.schemaId)
    for (let i = 0; i < 10; i++) {
      const response = await c.request('PUT_KV', {
        acks: -1,
        tableId: TABLE_ID,
        timeoutMs: 5000,
        bucketsReq: [{ bucketId: 0, records: batches.batch(rows(i * 10, 10)) }],
      })
      expect(response.bucketsResp[0]?.errorCode ?? 0).toBe(0)
    }
    expect(logOf(server).segmentCount).toBeGreaterThan(1)
    clock.advance(2 * HOUR_MS)
    expect(await server.localRetention.runOnce()).toEqual({ checkedReplicas: 0, deletedSegments: 0 })
    expect(logOf(server).logStartOffset).toBe(0)
  })

  it('runs every log.retention.check-interval', async () => {
    await startCluster({ 'table.log.ttl': '1h' })
    const server = await start(1, { 'log.retention.check-interval': '20ms' })
    await produce(await lead([server], [1]), 0, 6, 1)
    const log = logOf(server)
    expect(log.segmentCount).toBeGreaterThan(1)
    clock.advance(2 * HOUR_MS)
    await waitUntil(() => log.segmentCount === 1)
    expect(log.logStartOffset).toBeGreaterThan(0)
  })
})
