import type { Connection, Table } from '@sluice/client'
import { Catalog } from '@sluice/core/control-plane'
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
import { type KvSnapshotRecord, latestKvSnapshot, snapshotFileProblems } from '../it/support/remote-state.js'
import { kvRecoveries } from '../it/support/server-log.js'

/**
 * kill -9 of the leader of a primary-key bucket holding 1,000,000 keys (RF=2, KV snapshots to the
 * file-system blob store): the follower that takes over restores the newest KV snapshot and
 * replays only the changelog written after it. Proven by the new leader's own report of the
 * recovery (`kv tablet recovered` in its output: path, snapshot id, replay start offset and
 * replayed records) against the snapshot registry, and by lookups of every key against the
 * acknowledged state.
 */
const KEYS = 1_000_000
/** The tail after the snapshot: updates of existing keys, deletes, and inserts of new keys. */
const TAIL_UPDATES = 3000
const TAIL_DELETES = 1000
const TAIL_INSERTS = 1000
const TAIL_WRITES = TAIL_UPDATES + TAIL_DELETES + TAIL_INSERTS
/** Changelog offsets of the tail: an update appends -U and +U. */
const TAIL_OFFSETS = 2 * TAIL_UPDATES + TAIL_DELETES + TAIL_INSERTS
/**
 * Snapshots every 8 s: after one covers the 1,000,000 inserts, the next comes 8 s later, long after
 * the tail is written and the leader killed (about a second), so the newest snapshot is the one
 * before the tail. A long membership lease keeps a busy machine from moving the leadership before
 * the kill; the kill itself is seen at once (the coordinator's probe finds the listener gone).
 */
const SERVER_CONFIG = {
  'kv.snapshot.interval': '8s',
  'sluice.tablet-server.lease-duration': '20s',
  'sluice.tablet-server.heartbeat-interval': '2s',
  'sluice.coordinator.membership-poll-interval': '200ms',
  'sluice.coordinator.notify-retry-backoff': '100ms',
  'sluice.coordinator.notify-retry-max-backoff': '1s',
  'log.replica.max-lag-time': '30s',
  'log.replica.fetch.backoff-interval': '200ms',
}
const WRITER_CONFIG = {
  'client.writer.acks': 'all',
  'client.writer.batch-timeout': '5ms',
  'client.request-timeout': '30s',
}
const LOOKUP_CONFIG = {
  'client.lookup.max-batch-size': '4096',
  'client.lookup.batch-timeout': '1ms',
  'client.lookup.queue-size': '100000',
}
/** Lookups in flight at once. */
const LOOKUP_WINDOW = 50_000
const WAIT_MS = 40_000
const SCHEMA = Schema.newBuilder()
  .column('id', notNull(DataTypes.BIGINT()))
  .column('v', DataTypes.INT())
  .primaryKey('id')
  .build()
/** Marks a deleted (or never written) key in the expected state. */
const ABSENT = -2_147_483_648

/** The value the inserts give a key. */
function bulkValue(id: number): number {
  return (id * 7919) % 1_000_003
}

/** The key state every acknowledged write implies: value by id, ABSENT when deleted. */
function expectedAfterTail(): { state: Int32Array; tail: Array<[number, number | null]> } {
  const state = new Int32Array(KEYS + TAIL_INSERTS)
  for (let id = 0; id < KEYS; id++) state[id] = bulkValue(id)
  for (let id = KEYS; id < KEYS + TAIL_INSERTS; id++) state[id] = ABSENT
  // Distinct keys spread over the range: updated ids are 17 mod 331, deleted ones 170 mod 331.
  const tail: Array<[number, number | null]> = []
  for (let j = 0; j < TAIL_UPDATES; j++) tail.push([(j * 331 + 17) % KEYS, -(j + 1)])
  for (let j = 0; j < TAIL_DELETES; j++) tail.push([(j * 331 + 170) % KEYS, null])
  for (let j = 0; j < TAIL_INSERTS; j++) tail.push([KEYS + j, j])
  for (const [id, v] of tail) state[id] = v === null ? ABSENT : v
  return { state, tail }
}

/** Upserts (or deletes, for null values) through one acks=all writer, then waits for every ack. */
async function write(table: Table, rows: Iterable<[number, number | null]>): Promise<void> {
  const writer = table.newUpsert().createWriter()
  try {
    let n = 0
    for (const [id, v] of rows) {
      const wait = v === null ? writer.delete([BigInt(id), null]) : writer.upsert([BigInt(id), v])
      if (wait) await wait
      // Let this process's event loop breathe: it also serves the servers' metadata store.
      else if (++n % 2000 === 0) await new Promise(resolve => setImmediate(resolve))
    }
    await writer.flush()
  } finally {
    await writer.close()
  }
}

function* bulkRows(): Generator<[number, number]> {
  for (let id = 0; id < KEYS; id++) yield [id, bulkValue(id)]
}

/** Looks up every id in `state` (LOOKUP_WINDOW at a time); returns the mismatches (first 20). */
async function mismatches(table: Table, state: Int32Array): Promise<string[]> {
  const lookuper = table.newLookup().createLookuper()
  const problems: string[] = []
  for (let start = 0; start < state.length && problems.length < 20; start += LOOKUP_WINDOW) {
    const ids = Array.from({ length: Math.min(LOOKUP_WINDOW, state.length - start) }, (_, k) => start + k)
    const results = await Promise.all(ids.map(id => lookuper.lookup([BigInt(id)])))
    results.forEach((r, k) => {
      const row = r.singletonRow()
      const found = row === null ? ABSENT : Number(row[1])
      const id = ids[k] as number
      if (found !== state[id] && problems.length < 20)
        problems.push(`key ${id}: looked up ${found === ABSENT ? 'nothing' : found}, expected ${state[id]}`)
    })
  }
  return problems
}

describe('kill -9 of the leader of a primary-key bucket with 1,000,000 keys and KV snapshots', () => {
  let tc: TestCluster
  let admin: Connection
  let store: MetaStore
  let path: TablePath
  let bucket: TableBucket

  beforeAll(async () => {
    tc = await startReadyCluster({
      tabletServers: 2,
      prefix: 'sluice-pk-snapshot',
      serverConfig: SERVER_CONFIG,
    })
    admin = await connect(tc.cluster)
    store = tc.cluster.aws.metaStore()
    const database = await createDatabase(admin, 'pk_snapshot')
    const descriptor = TableDescriptor.builder()
      .schema(SCHEMA)
      .distributedBy(1)
      .property('table.replication.factor', '2')
      .build()
    path = await createTable(admin, database, descriptor, 'keys')
    bucket = { tableId: (await admin.getAdmin().getTableInfo(path)).tableId, bucket: 0 }
  })

  afterAll(async () => {
    await admin?.close().catch(() => undefined)
    await store?.close().catch(() => undefined)
    await tc?.stop()
  })

  async function leader(): Promise<{ leader: number; leaderEpoch: number }> {
    const state = (await new Catalog(store).getBucket({ ...bucket, partitionId: null }))?.leaderAndIsr
    if (state?.leader === null || state?.leader === undefined) throw new Error('the bucket has no leader')
    return { leader: state.leader, leaderEpoch: state.leaderEpoch }
  }

  /** Writes the 1,000,000 inserts, waits for a snapshot of exactly them, then writes the tail. */
  async function writeInsertsSnapshotAndTail(
    tail: Iterable<[number, number | null]>,
  ): Promise<KvSnapshotRecord> {
    const writerConnection = await connect(tc.cluster, WRITER_CONFIG)
    try {
      const table = await writerConnection.getTable(path)
      await write(table, bulkRows())
      expect((await admin.getAdmin().listOffsets(path, [0], 'latest')).get(0)).toBe(KEYS)
      // A snapshot covering all 1,000,000 inserts (the changelog holds nothing else yet).
      const snapshot = await waitUntil(
        async () => {
          const latest = await latestKvSnapshot(store, bucket)
          return latest !== null && latest.logOffset === KEYS ? latest : null
        },
        { timeoutMs: WAIT_MS, intervalMs: 100, what: 'a KV snapshot at the end of the inserts' },
      )
      await write(table, tail)
      return snapshot
    } finally {
      await writerConnection.close().catch(() => undefined)
    }
  }

  it('the new leader restores the newest snapshot, replays only the tail, and looks up the acknowledged state', async () => {
    const { state, tail } = expectedAfterTail()
    const first = await leader()
    const snapshot = await writeInsertsSnapshotAndTail(tail)
    const old = await leader()
    expect(old.leaderEpoch, 'the first leader still leads').toBe(first.leaderEpoch)
    const next = old.leader === 1 ? 2 : 1
    expect(kvRecoveries(tc.cluster, next, bucket), 'the follower never led the bucket').toEqual([])
    await tc.cluster.killTabletServer(old.leader)
    expect(await latestKvSnapshot(store, bucket), 'no newer snapshot than the one before the tail').toEqual(
      snapshot,
    )
    const blobStore = tc.cluster.aws.blobStore()
    expect(await snapshotFileProblems(blobStore, snapshot)).toEqual([])
    await blobStore.close()

    await waitUntil(async () => (await leader()).leader === next, {
      timeoutMs: WAIT_MS,
      what: 'the new leader',
    })
    await waitForLeaders(admin, path, WAIT_MS)
    const recovery = await waitUntil(() => kvRecoveries(tc.cluster, next, bucket)[0], {
      timeoutMs: WAIT_MS,
      what: 'the new leader to report its KV recovery',
    })
    expect(recovery, JSON.stringify(recovery)).toMatchObject({
      path: 'snapshot',
      snapshotId: snapshot.snapshotId,
      replayFromOffset: KEYS,
      // One record replayed per tail write (+U, -D, +I; the -U records are skipped).
      replayedRecords: TAIL_WRITES,
    })
    // The high watermark moves up to the log end once the new leader's KvTablet is open.
    await waitUntil(
      async () => (await admin.getAdmin().listOffsets(path, [0], 'latest')).get(0) === KEYS + TAIL_OFFSETS,
      { timeoutMs: WAIT_MS, what: 'the high watermark at the end of the acknowledged tail' },
    )

    const reader = await connect(tc.cluster, LOOKUP_CONFIG)
    try {
      expect(await mismatches(await reader.getTable(path), state)).toEqual([])
    } finally {
      await reader.close()
    }
  })
})
