import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Connection, Table } from '@sluice/client'
import type { BlobStore } from '@sluice/core/blobstore'
import { Schema, type TableBucket, TableDescriptor, type TablePath } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
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
import { Prng } from '../it/support/prng.js'
import { latestKvSnapshot } from '../it/support/remote-state.js'
import { restartAfterKill } from '../it/support/restart.js'
import { type BucketRecords, scanAll } from '../it/support/scan.js'
import { kvRecoveries } from '../it/support/server-log.js'
import { localSegmentBaseOffsets, tableDir } from '../it/support/storage-files.js'
import { AppendLedger, KeyLedger } from './crash-ledgers.js'
import { CrashRoundWriters, type CrashWriterTargets } from './crash-writers.js'
import {
  type ActivityWatch,
  type KillReport,
  killDuringSnapshot,
  killDuringUpload,
} from './remote-activity.js'
import { checkKeys, checkManifests, checkSnapshotRegistry, lookupAll } from './remote-crash-checks.js'

/**
 * kill -9 of the only tablet server (RF=1) in the middle of a remote log segment upload and in the
 * middle of a KV snapshot, several rounds, with writes to a log table and a primary-key table going
 * on. Afterwards: every remote log manifest names only segments whose files exist, covers its range
 * without gaps, and the objects of the killed uploads are never read; the KV snapshot registry's
 * committed snapshots have all their files, and the newest one restores (proven by a restart without
 * the local RocksDB); reads from the earliest offset return every acknowledged record exactly once,
 * in order; lookups equal the acknowledged state.
 */
const TABLET_ID = 1
const LOG_BUCKETS = 2
const KEYS = 2000
const SEED = 20_717
const ROUNDS: readonly KillReport['point'][] = ['upload', 'snapshot', 'upload', 'snapshot']
const SERVER_CONFIG = {
  'log.segment.file-size': '16kb',
  'remote.log.task-interval-duration': '200ms',
  'remote.log.task-max-upload-segments': '20',
  'kv.snapshot.interval': '1s',
  'sluice.tablet-server.lease-duration': '4s',
  'sluice.tablet-server.heartbeat-interval': '1s',
  'sluice.coordinator.membership-poll-interval': '500ms',
}
/** Longest watch for an upload or a snapshot to catch in progress. */
const CATCH_TIMEOUT_MS = 20_000
const WAIT_MS = 30_000
const LOG_SCHEMA = Schema.newBuilder()
  .column('id', notNull(DataTypes.BIGINT()))
  .column('payload', DataTypes.STRING())
  .build()
const PK_SCHEMA = Schema.newBuilder()
  .column('id', notNull(DataTypes.BIGINT()))
  .column('seq', DataTypes.BIGINT())
  .primaryKey('id')
  .build()

describe('kill -9 during remote log uploads and KV snapshots', () => {
  let tc: TestCluster
  let admin: Connection
  let metaStore: MetaStore
  let blobStore: BlobStore
  let logPath: TablePath
  let pkPath: TablePath
  let logBuckets: TableBucket[]
  let pkBucket: TableBucket

  beforeAll(async () => {
    tc = await startReadyCluster({
      tabletServers: 1,
      prefix: 'sluice-remote-crash',
      serverConfig: SERVER_CONFIG,
    })
    admin = await connect(tc.cluster)
    metaStore = tc.cluster.aws.metaStore()
    blobStore = tc.cluster.aws.blobStore()
    const database = await createDatabase(admin, 'remote_crash')
    const logTable = TableDescriptor.builder()
      .schema(LOG_SCHEMA)
      .distributedBy(LOG_BUCKETS)
      .property('table.log.tiered.local-segments', '1')
      .build()
    logPath = await createTable(admin, database, logTable, 'events')
    pkPath = await createTable(
      admin,
      database,
      TableDescriptor.builder().schema(PK_SCHEMA).distributedBy(1).build(),
      'state',
    )
    const logTableId = (await admin.getAdmin().getTableInfo(logPath)).tableId
    logBuckets = Array.from({ length: LOG_BUCKETS }, (_, bucket) => ({ tableId: logTableId, bucket }))
    pkBucket = { tableId: (await admin.getAdmin().getTableInfo(pkPath)).tableId, bucket: 0 }
  })

  afterAll(async () => {
    await admin?.close().catch(() => undefined)
    await metaStore?.close().catch(() => undefined)
    await blobStore?.close().catch(() => undefined)
    await tc?.stop()
  })

  const kvDir = () => join(tableDir(tc.cluster, TABLET_ID, pkPath, pkBucket.tableId), 'kv-0')
  const allBuckets = () => [...logBuckets, pkBucket]

  async function restart(): Promise<void> {
    await restartAfterKill(tc.cluster, TABLET_ID, WAIT_MS)
    await waitForLeaders(admin, logPath, WAIT_MS)
    await waitForLeaders(admin, pkPath, WAIT_MS)
  }

  /** Rounds of writes, each ended by a kill -9 caught in an upload or a snapshot, and a restart. */
  async function crashRounds(targets: CrashWriterTargets, seq: { next: number }): Promise<KillReport[]> {
    const watch: ActivityWatch = {
      cluster: tc.cluster,
      serverId: TABLET_ID,
      metaStore,
      blobStore,
      timeoutMs: CATCH_TIMEOUT_MS,
    }
    const reports: KillReport[] = []
    for (const point of ROUNDS) {
      const writers = await CrashRoundWriters.start(tc.cluster, targets, seq)
      reports.push(
        point === 'upload'
          ? await killDuringUpload(watch, allBuckets())
          : await killDuringSnapshot(watch, pkBucket, `${kvDir()}-checkpoints`),
      )
      await writers.stop()
      await restart()
    }
    return reports
  }

  /** Writes acknowledged after the last restart, then a snapshot covering every write. */
  async function writeAfterRestarts(targets: CrashWriterTargets, seq: { next: number }): Promise<void> {
    const writers = await CrashRoundWriters.start(tc.cluster, targets, seq)
    const ackedBefore = targets.keyLedger.ackCount
    await waitUntil(() => targets.keyLedger.ackCount > ackedBefore + 2000, {
      timeoutMs: WAIT_MS,
      what: 'writes acknowledged after the last restart',
    })
    await writers.stop()
    const pkEnd = (await admin.getAdmin().listOffsets(pkPath, [0], 'latest')).get(0)
    await waitUntil(async () => (await latestKvSnapshot(metaStore, pkBucket))?.logOffset === pkEnd, {
      timeoutMs: WAIT_MS,
      what: 'a KV snapshot of every write, taken after the last restart',
    })
    // The log table keeps one local segment per bucket: reads below it come from remote segments.
    const logDir = (b: TableBucket) =>
      join(tableDir(tc.cluster, TABLET_ID, logPath, b.tableId), `log-${b.bucket}`)
    await waitUntil(() => logBuckets.every(b => (localSegmentBaseOffsets(logDir(b))[0] ?? 0) > 0), {
      timeoutMs: WAIT_MS,
      what: 'local copies of uploaded segments deleted',
    })
  }

  it('manifests and the snapshot registry stay consistent, and nothing is lost or duplicated', async () => {
    const targets: CrashWriterTargets = {
      logTable: logPath,
      pkTable: pkPath,
      logLedger: new AppendLedger(),
      keyLedger: new KeyLedger(),
      keys: KEYS,
      deleteShare: 0.2,
      prng: new Prng(SEED),
    }
    const seq = { next: 0 }
    const reports = await crashRounds(targets, seq)
    expect(
      reports.filter(r => !r.inProgress),
      JSON.stringify(reports),
    ).toEqual([])
    await writeAfterRestarts(targets, seq)

    const orphans = await checkManifests(blobStore, metaStore, allBuckets())
    // Each killed upload left objects behind, unreferenced (the orphan sweep waits an hour for them).
    expect(orphans).toBeGreaterThanOrEqual(ROUNDS.filter(p => p === 'upload').length)
    const latest = await checkSnapshotRegistry(metaStore, blobStore, pkBucket)
    const logRecords = await readAll(await admin.getTable(logPath))
    expect(targets.logLedger.check(logRecords)).toEqual([])
    expect(targets.logLedger.acked.size).toBeGreaterThan(0)
    const pkTable = await admin.getTable(pkPath)
    const lookedUp = await lookupAll(pkTable, KEYS)
    expect(checkKeys(targets.keyLedger, await readAll(pkTable), lookedUp)).toEqual([])

    // The newest snapshot restores: without its local RocksDB the restarted server takes it.
    await tc.cluster.killTabletServer(TABLET_ID)
    expect(await latestKvSnapshot(metaStore, pkBucket)).toEqual(latest)
    rmSync(kvDir(), { recursive: true, force: true })
    const recoveriesBefore = kvRecoveries(tc.cluster, TABLET_ID, pkBucket).length
    await restart()
    const recovery = await waitUntil(() => kvRecoveries(tc.cluster, TABLET_ID, pkBucket)[recoveriesBefore], {
      timeoutMs: WAIT_MS,
      what: 'the KV recovery after the restart',
    })
    expect(recovery, JSON.stringify(recovery)).toMatchObject({
      path: 'snapshot',
      snapshotId: latest.snapshotId,
      replayFromOffset: latest.logOffset,
    })
    expect(await lookupAll(await admin.getTable(pkPath), KEYS)).toEqual(lookedUp)
  })

  async function readAll(table: Table): Promise<BucketRecords> {
    const buckets = Array.from({ length: table.getTableInfo().numBuckets }, (_, b) => b)
    const latest = await admin.getAdmin().listOffsets(table.getTableInfo().tablePath, buckets, 'latest')
    const total = [...latest.values()].reduce((a, b) => a + b, 0)
    return scanAll(table, total, { timeoutMs: WAIT_MS })
  }
})
