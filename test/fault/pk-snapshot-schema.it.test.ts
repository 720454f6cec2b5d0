import type { Connection, Table } from '@sluice/client'
import { Catalog } from '@sluice/core/control-plane'
import { Schema, type TableBucket, TableDescriptor, type TablePath } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import type { Row } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitUntil } from '../harness/index.js'
import {
  connect,
  createDatabase,
  createTable,
  startReadyCluster,
  type TestCluster,
  waitForLeaders,
} from '../it/support/cluster.js'
import { latestKvSnapshot } from '../it/support/remote-state.js'
import { scanAll } from '../it/support/scan.js'
import { kvRecoveries } from '../it/support/server-log.js'

/**
 * kill -9 of the leader of a primary-key bucket whose newest KV snapshot was taken under schema 1,
 * after ADD COLUMN (with a default), RENAME and INT → BIGINT: the follower that takes over restores
 * that snapshot, replays the changelog of schemas 1..3, and serves lookups under the latest schema
 * and under the first (a lookuper that never refreshed).
 */
const SERVER_CONFIG = {
  'kv.snapshot.interval': '6s',
  'sluice.tablet-server.lease-duration': '20s',
  'sluice.tablet-server.heartbeat-interval': '2s',
  'sluice.coordinator.membership-poll-interval': '200ms',
  'sluice.coordinator.notify-retry-backoff': '100ms',
  'sluice.coordinator.notify-retry-max-backoff': '1s',
  'log.replica.max-lag-time': '30s',
  'log.replica.fetch.backoff-interval': '200ms',
}
const WRITER_CONFIG = { 'client.writer.acks': 'all', 'client.request-timeout': '30s' }
const WAIT_MS = 40_000
const SCHEMA = Schema.newBuilder()
  .column('id', notNull(DataTypes.BIGINT()))
  .column('qty', DataTypes.INT())
  .column('name', DataTypes.STRING())
  .primaryKey('id')
  .build()
const KEYS = 100

async function upsert(table: Table, rows: Row[]): Promise<void> {
  const writer = table.newUpsert().createWriter()
  for (const row of rows) writer.upsert(row)
  await writer.flush()
  await writer.close()
}

async function lookupAll(table: Table, ids: number[]): Promise<(Row | null)[]> {
  const lookuper = table.newLookup().createLookuper()
  return Promise.all(ids.map(async id => (await lookuper.lookup([BigInt(id)])).singletonRow()))
}

describe('KV snapshot of schema 1 restored by a new leader after ADD, RENAME and widening', () => {
  let tc: TestCluster
  let admin: Connection
  let store: MetaStore
  let path: TablePath
  let bucket: TableBucket

  beforeAll(async () => {
    tc = await startReadyCluster({
      tabletServers: 2,
      prefix: 'sluice-pk-snapshot-schema',
      serverConfig: SERVER_CONFIG,
    })
    admin = await connect(tc.cluster)
    store = tc.cluster.aws.metaStore()
    const database = await createDatabase(admin, 'pk_snapshot_schema')
    const descriptor = TableDescriptor.builder()
      .schema(SCHEMA)
      .distributedBy(1)
      .property('table.replication.factor', '2')
      .build()
    path = await createTable(admin, database, descriptor, 'evolving')
    bucket = { tableId: (await admin.getAdmin().getTableInfo(path)).tableId, bucket: 0 }
  })

  afterAll(async () => {
    await admin?.close().catch(() => undefined)
    await store?.close().catch(() => undefined)
    await tc?.stop()
  })

  async function leader(): Promise<number> {
    const state = (await new Catalog(store).getBucket({ ...bucket, partitionId: null }))?.leaderAndIsr
    if (state?.leader === null || state?.leader === undefined) throw new Error('the bucket has no leader')
    return state.leader
  }

  it('restores the schema-1 snapshot, replays three schema ids, and looks up under old and new schemas', async () => {
    const writer = await connect(tc.cluster, WRITER_CONFIG)
    try {
      const v1 = await writer.getTable(path)
      await upsert(
        v1,
        Array.from({ length: KEYS }, (_, i) => [BigInt(i), i, `n${i}`]),
      )
      const snapshot = await waitUntil(
        async () => {
          const latest = await latestKvSnapshot(store, bucket)
          return latest !== null && latest.logOffset === KEYS ? latest : null
        },
        { timeoutMs: WAIT_MS, intervalMs: 100, what: 'a KV snapshot of the schema-1 rows' },
      )
      const ddl = admin.getAdmin()
      await ddl.alterTable(path, {
        addColumns: [{ name: 'region', type: DataTypes.STRING(), defaultValue: 'eu' }],
      })
      const v2 = await admin.getTable(path)
      await upsert(v2, [
        [0n, 100, 'zero', 'us'],
        [1000n, 1000, 'new', null],
      ])
      await ddl.alterTable(path, {
        renameColumns: [{ name: 'name', newName: 'label' }],
        modifyColumns: [{ name: 'qty', type: DataTypes.BIGINT() }],
      })
      // The connection that altered the table sees its own change at once.
      const v3 = await admin.getTable(path)
      expect(v3.getTableInfo().schemaId).toBe(3)
      await upsert(v3, [
        [1n, 5_000_000_000n, 'one', 'apac'],
        [2000n, 2n, 'two', null],
      ])
      // A writer of schema 1 that never refreshed.
      await upsert(v1, [[2n, 22, 'two-old']])

      const old = await leader()
      const next = old === 1 ? 2 : 1
      expect(kvRecoveries(tc.cluster, next, bucket)).toEqual([])
      await tc.cluster.killTabletServer(old)
      await waitUntil(async () => (await leader()) === next, { timeoutMs: WAIT_MS, what: 'the new leader' })
      await waitForLeaders(admin, path, WAIT_MS)
      const recovery = await waitUntil(() => kvRecoveries(tc.cluster, next, bucket)[0], {
        timeoutMs: WAIT_MS,
        what: 'the new leader to report its KV recovery',
      })
      expect(recovery, JSON.stringify(recovery)).toMatchObject({
        path: 'snapshot',
        snapshotId: snapshot.snapshotId,
        replayFromOffset: KEYS,
      })

      const reader = await connect(tc.cluster)
      try {
        const ids = [0, 1, 2, 3, 1000, 2000, 4000]
        expect(await lookupAll(await reader.getTable(path), ids)).toEqual([
          [0n, 100n, 'zero', 'us'],
          [1n, 5_000_000_000n, 'one', 'apac'],
          [2n, 22n, 'two-old', null],
          [3n, 3n, 'n3', null],
          [1000n, 1000n, 'new', null],
          [2000n, 2n, 'two', null],
          null,
        ])
        // The lookuper of schema 1: renamed and widened columns by id, narrowed back where they fit.
        expect(await lookupAll(v1, [0, 2, 3, 2000])).toEqual([
          [0n, 100, 'zero'],
          [2n, 22, 'two-old'],
          [3n, 3, 'n3'],
          [2000n, 2, 'two'],
        ])
        await expect(lookupAll(v1, [1])).rejects.toMatchObject({ errorName: 'STALE_SCHEMA' })

        // The new leader's changelog: a row restored from the schema-1 snapshot updated under schema 3.
        const latest = await reader.getTable(path)
        await upsert(latest, [[3n, 33n, 'n3b', null]])
        const records = (await scanAll(latest, KEYS + 10)).get(0) ?? []
        expect(records.length).toBe(KEYS + 10)
        const TYPES = ['+A', '+I', '-U', '+U', '-D']
        expect(records.slice(KEYS).map(r => [r.offset, TYPES[r.changeType], ...r.row])).toEqual([
          [100, '-U', 0n, 0n, 'n0', null],
          [101, '+U', 0n, 100n, 'zero', 'us'],
          [102, '+I', 1000n, 1000n, 'new', null],
          [103, '-U', 1n, 1n, 'n1', null],
          [104, '+U', 1n, 5_000_000_000n, 'one', 'apac'],
          [105, '+I', 2000n, 2n, 'two', null],
          [106, '-U', 2n, 2n, 'n2', null],
          [107, '+U', 2n, 22n, 'two-old', null],
          [108, '-U', 3n, 3n, 'n3', null],
          [109, '+U', 3n, 33n, 'n3b', null],
        ])
      } finally {
        await reader.close()
      }
    } finally {
      await writer.close().catch(() => undefined)
    }
  })
})
