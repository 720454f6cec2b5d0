import { ERRORS } from '@sluice/core/errors'
import { ValueRecordBatch } from '@sluice/core/kvbatch'
import type { TableInfo } from '@sluice/core/metadata'
import { CompactedKeyEncoder, decodeCompactedRow, decodeValue, type Row } from '@sluice/core/row'
import type { ClientConnection } from '@sluice/core/rpc'
import { afterEach, describe, expect, it } from 'vitest'
import { arrowBatch, notifyRequest, PK_SCHEMA, TABLE_ID, TestCluster, waitUntil } from '../testing/cluster.js'
import { TestingKvBatches, type TestingKvRecord } from '../testing/kv.js'

let cluster: TestCluster

afterEach(async () => {
  await cluster?.close()
})

const rowOf = (value: Buffer | null | undefined): Row | null =>
  value === null || value === undefined ? null : decodeCompactedRow(decodeValue(value).row, PK_SCHEMA.rowType)

async function setup(replicationFactor: 1 | 2, properties: Record<string, string> = {}) {
  cluster = new TestCluster()
  const info = await cluster.createPkTable(1, properties)
  const ids = replicationFactor === 1 ? [1] : [1, 2]
  const servers = await Promise.all(ids.map(id => cluster.startServer(id)))
  const connections = await Promise.all(servers.map(s => cluster.connect(s)))
  const notify = notifyRequest(1, [{ bucket: 0, leader: 1, replicas: ids }])
  for (const c of connections) await c.request('NOTIFY_LEADER_AND_ISR', notify)
  return { info, servers, connections, batches: new TestingKvBatches(PK_SCHEMA, info.schemaId) }
}

async function put(
  c: ClientConnection,
  batches: TestingKvBatches,
  records: readonly TestingKvRecord[],
  acks = -1,
) {
  const response = await c.request('PUT_KV', {
    acks,
    tableId: TABLE_ID,
    timeoutMs: 5000,
    bucketsReq: [{ bucketId: 0, records: batches.batch(records) }],
  })
  return response.bucketsResp[0]
}

async function lookup(c: ClientConnection, batches: TestingKvBatches, keys: readonly Row[]) {
  const response = await c.request('LOOKUP', {
    tableId: TABLE_ID,
    bucketsReq: [{ bucketId: 0, keys: keys.map(k => batches.key(k)) }],
  })
  const bucket = response.bucketsResp[0]
  if (bucket.errorCode !== null && bucket.errorCode !== 0) return { errorCode: bucket.errorCode }
  return { rows: bucket.values.map(v => rowOf(v.values)) }
}

describe('primary-key tables through the TabletServer', () => {
  it('puts, looks up, prefix-looks up, limit-scans and counts rows on a single leader', async () => {
    const { connections, batches } = await setup(1)
    const c = connections[0] as ClientConnection
    const first = await put(c, batches, [
      [1, 'a', 10n],
      [1, 'b', 11n],
      [2, 'a', 20n],
    ])
    expect(first).toMatchObject({ bucketId: 0, logEndOffset: 3 })
    await put(c, batches, [[1, 'a', 12n], { delete: [2, 'a', null] }])
    expect(
      await lookup(c, batches, [
        [1, 'a'],
        [1, 'b'],
        [2, 'a'],
        [3, 'z'],
      ]),
    ).toEqual({
      rows: [[1, 'a', 12n], [1, 'b', 11n], null, null],
    })

    const prefix = CompactedKeyEncoder.of(PK_SCHEMA.rowType, ['id'])
    const prefixed = await c.request('PREFIX_LOOKUP', {
      tableId: TABLE_ID,
      bucketsReq: [{ bucketId: 0, keys: [prefix.encodeKey([1]), prefix.encodeKey([2])] }],
    })
    expect(prefixed.bucketsResp[0]?.valueLists.map(l => l.values.map(v => rowOf(v)))).toEqual([
      [
        [1, 'a', 12n],
        [1, 'b', 11n],
      ],
      [],
    ])

    const scan = await c.request('LIMIT_SCAN', {
      tableId: TABLE_ID,
      partitionId: null,
      bucketId: 0,
      limit: 5,
    })
    expect(scan.isLogTable).toBe(false)
    const scanned = [...ValueRecordBatch.from(scan.records as Buffer).records()].map(r =>
      decodeCompactedRow(r.row, PK_SCHEMA.rowType),
    )
    expect(scanned).toEqual([
      [1, 'a', 12n],
      [1, 'b', 11n],
    ])

    const stats = await c.request('GET_TABLE_STATS', { tableId: TABLE_ID, bucketsReq: [{ bucketId: 0 }] })
    expect(stats.bucketsResp[0]).toMatchObject({ rowCount: 2 })
  })

  it('refuses GET_TABLE_STATS of a WAL-image table as Fluss does (no row count is kept)', async () => {
    const { info, connections, batches } = await setup(1, { 'table.changelog.image': 'WAL' })
    const [c] = connections as [ClientConnection]
    expect(await put(c, batches, [[1, 'a', 1n]])).toMatchObject({ logEndOffset: 1 })
    const stats = await c.request('GET_TABLE_STATS', { tableId: TABLE_ID, bucketsReq: [{ bucketId: 0 }] })
    expect(stats.bucketsResp[0]).toMatchObject({
      errorCode: ERRORS.INVALID_TABLE_EXCEPTION.code,
      errorMessage: expect.stringMatching(
        new RegExp(
          `^Row count is disabled for this table '${info.tablePath.databaseName}\\.${info.tablePath.tableName}'\\. This usually happens when the table iscreated before v0\\.9`,
        ),
      ),
    })
  })

  it('refuses PRODUCE_LOG to a primary-key table and writes to a follower', async () => {
    const { connections, batches } = await setup(2)
    const [leader, follower] = connections as [ClientConnection, ClientConnection]
    const produced = await leader.request('PRODUCE_LOG', {
      acks: 1,
      tableId: TABLE_ID,
      timeoutMs: 1000,
      bucketsReq: [{ bucketId: 0, records: arrowBatch([[1, 'x', 1n]]) }],
    })
    expect(produced.bucketsResp[0]?.errorCode).toBe(ERRORS.INVALID_TABLE_EXCEPTION.code)
    const onFollower = await put(follower, batches, [[1, 'a', 1n]])
    expect(onFollower.errorCode).toBe(ERRORS.NOT_LEADER_OR_FOLLOWER.code)
    expect(await lookup(follower, batches, [[1, 'a']])).toEqual({
      errorCode: ERRORS.NOT_LEADER_OR_FOLLOWER.code,
    })
  })

  it('after a failover (RF=2) the new leader serves lookups equal to the acknowledged state', async () => {
    const { connections, servers, batches } = await setup(2)
    const [leader, follower] = connections as [ClientConnection, ClientConnection]
    const expected = new Map<string, Row | null>()
    for (let round = 0; round < 20; round++) {
      const records: TestingKvRecord[] = []
      for (let id = 0; id < 10; id++) {
        const key = `${id}`
        if ((round + id) % 7 === 0) {
          records.push({ delete: [id, key, null] })
          expected.set(key, null)
        } else {
          const row: Row = [id, key, BigInt(round * 100 + id)]
          records.push(row)
          expected.set(key, row)
        }
      }
      const result = await put(leader, batches, records)
      expect(result.errorCode ?? 0).toBe(0)
    }
    // The follower is in sync (acks=-1 waited for it): make it the leader at a new epoch.
    await waitUntil(
      () =>
        servers[1]?.replicaManager.getReplica({ tableId: TABLE_ID, bucket: 0 })?.logTablet.highWatermark ===
        servers[0]?.replicaManager.getReplica({ tableId: TABLE_ID, bucket: 0 })?.logTablet.highWatermark,
    )
    const failover = notifyRequest(1, [
      { bucket: 0, leader: 2, replicas: [1, 2], isr: [2], leaderEpoch: 1, bucketEpoch: 1 },
    ])
    await follower.request('NOTIFY_LEADER_AND_ISR', failover)
    await leader.request('NOTIFY_LEADER_AND_ISR', failover)
    const keys: Row[] = [...expected.keys()].map(k => [Number(k), k])
    expect(await lookup(follower, batches, keys)).toEqual({ rows: [...expected.values()] })
    // And it takes writes, applied on top of the recovered state.
    await put(follower, batches, [[3, '3', 999n]])
    expect((await lookup(follower, batches, [[3, '3']])).rows).toEqual([[3, '3', 999n]])
  })
})

export type { TableInfo }
