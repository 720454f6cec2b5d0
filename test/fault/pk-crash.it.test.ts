import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Connection, Table, UpsertWriter } from '@sluice/client'
import { FlussError } from '@sluice/core/errors'
import { Schema, TableDescriptor, type TablePath } from '@sluice/core/metadata'
import { changeTypeShortString } from '@sluice/core/record'
import { DataTypes, notNull } from '@sluice/core/types'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  connect,
  createDatabase,
  createTable,
  startReadyCluster,
  type TestCluster,
  waitForLeaders,
} from '../it/support/cluster.js'
import { type KeyChange, KvHistory } from '../it/support/kv-history.js'
import { Prng } from '../it/support/prng.js'
import { restartAfterKill } from '../it/support/restart.js'
import { countOf, offsetGaps, scanAll } from '../it/support/scan.js'

/**
 * kill -9 of the only tablet server (RF=1, every bucket on it) in the middle of acks=1 upserts and
 * deletes (issue 4): after the restart the KV state, rebuilt from the local RocksDB and the log,
 * equals what every acknowledged write implies, and the changelog is intact with dense offsets.
 *
 * The writer has neither idempotence nor retries, so a write that fails is simply missing, and not
 * only around the kill: when the server's lease (4 s here) lapses before the kill (a loaded
 * machine may stall it; the test freezes it twice to be sure), the coordinator moves the buckets'
 * leader epoch on, and puts fail until the server leads again while later ones succeed. Each key's
 * changelog must therefore be produced by some subsequence of its writes, in order, that holds
 * every acknowledged one (see `KvHistory`).
 */
const BUCKETS = 3
const KEYS = 2000
const SEED = 4711
/** Acknowledged writes before the kill. */
const ACKED_BEFORE_KILL = 20_000
/**
 * Before the kill the tablet server is frozen (SIGSTOP) past its lease, twice, once these many
 * writes are acknowledged, as a loaded machine may stall it: the coordinator sees it leave and
 * moves the buckets' leader epoch on, puts fail with NOT_LEADER_OR_FOLLOWER until it leads again,
 * and later puts succeed.
 */
const FREEZES_AT_ACKED = [6000, 12_000]
/** Longer than the lease (4 s) and the coordinator's membership poll (3 s) together. */
const FREEZE_MS = 7500
/** Writes sent but not yet acknowledged, at most. */
const WINDOW_WRITES = 4000
const DELETE_SHARE = 0.25
/** Sentinel keys written after the restart, enough to reach every bucket. */
const SENTINELS = 32
const TABLET_ID = 1
/** Longest wait for the writes in flight at the kill to fail or be acknowledged. */
const SETTLE_TIMEOUT_MS = 20_000
const WAIT_MS = 30_000
const LEASE_CONFIG = {
  'sluice.tablet-server.lease-duration': '4s',
  'sluice.tablet-server.heartbeat-interval': '1s',
  'sluice.coordinator.membership-poll-interval': '3s',
}
const WRITER_CONFIG = {
  'client.writer.acks': '1',
  'client.writer.enable-idempotence': 'false',
  'client.writer.retries': '0',
  'client.writer.batch-timeout': '5ms',
  'client.request-timeout': '10s',
}
const SCHEMA = Schema.newBuilder()
  .column('id', notNull(DataTypes.BIGINT()))
  .column('seq', DataTypes.BIGINT())
  .primaryKey('id')
  .build()

/**
 * Why writes failed, counted by whether the kill had been asked for when they failed and by error,
 * e.g. `before the kill: FlussError(NOT_LEADER_OR_FOLLOWER)` (for the message of a failed check).
 */
class FailureTally {
  readonly #counts = new Map<string, number>()

  add(afterKill: boolean, error: unknown): void {
    const name = error instanceof Error ? error.name : typeof error
    const key = `${afterKill ? 'after' : 'before'} the kill: ${name}`
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1)
  }

  toString(): string {
    return [...this.#counts].map(([key, n]) => `${n} ${key}`).join('; ') || 'none'
  }
}

/** Freezes a server process (SIGSTOP) for FREEZE_MS, then lets it go on (SIGCONT). */
function freezePastLease(server: { pause(): void; resume(): void }): void {
  server.pause()
  setTimeout(() => server.resume(), FREEZE_MS).unref()
}

/** How often the coordinator logged that a tablet server left (its lease lapsed). */
function departures(tc: TestCluster): number {
  const file = join(tc.dataDir, 'logs', 'coordinator-0.log')
  if (!existsSync(file)) return 0
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(line => line.includes('"message":"tablet server left"')).length
}

/**
 * Upserts and deletes random keys until `stop()` reports true, recording every write and its
 * acknowledgement or failure in `history` (and why it failed in `failures`); calls `onThreshold`
 * once `threshold` writes are acknowledged, and each of `freezes` once its count of writes is;
 * then waits (bounded) for the writes still outstanding
 * to settle. Returns the number of writes sent.
 */
async function writeUntilStopped(
  writer: UpsertWriter,
  history: KvHistory,
  failures: FailureTally,
  threshold: number,
  onThreshold: () => void,
  freezes: ReadonlyMap<number, () => void>,
  stop: () => boolean,
): Promise<number> {
  const prng = new Prng(SEED)
  const outstanding = new Set<Promise<unknown>>()
  let seq = 0
  let fired = false
  while (!stop()) {
    const id = prng.int(0, KEYS - 1)
    const kind = history.present(id) && prng.next() < DELETE_SHARE ? 'delete' : 'upsert'
    const index = history.send(id, seq, kind)
    const key = [BigInt(id), kind === 'upsert' ? BigInt(seq) : null]
    const p = (kind === 'upsert' ? writer.upsertWithResult(key) : writer.deleteWithResult(key)).then(
      r => {
        history.ack(id, index, { bucket: r.bucket, logEndOffset: r.logEndOffset })
        freezes.get(history.ackCount)?.()
        if (!fired && history.ackCount >= threshold) {
          fired = true
          onThreshold()
        }
      },
      error => {
        history.fail(id, index)
        failures.add(fired, error)
      },
    )
    outstanding.add(p)
    void p.finally(() => outstanding.delete(p))
    if (outstanding.size >= WINDOW_WRITES) await Promise.race(outstanding)
    else if ((seq & 255) === 0) await new Promise(resolve => setImmediate(resolve))
    seq++
  }
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    Promise.allSettled([...outstanding]),
    new Promise(resolve => {
      timer = setTimeout(resolve, SETTLE_TIMEOUT_MS)
    }),
  ])
  clearTimeout(timer)
  return seq
}

/**
 * After the restart the high watermark returns from its checkpoint and moves up to the log end
 * only once the bucket's KvTablet is open. An acks=all upsert of a sentinel key (ids from KEYS on)
 * in every bucket, acknowledged, puts the high watermark past everything written before it, so
 * that LIST_OFFSETS latest covers the whole changelog.
 */
async function writeSentinels(table: Table, buckets: readonly number[]): Promise<void> {
  const writer = table.newUpsert().createWriter()
  try {
    const results = await Promise.all(
      Array.from({ length: SENTINELS }, (_, i) => writer.upsertWithResult([BigInt(KEYS + i), -1n])),
    )
    expect(new Set(results.map(r => r.bucket))).toEqual(new Set(buckets))
  } finally {
    await writer.close()
  }
}

describe('kill -9 of a tablet server in the middle of acks=1 upserts and deletes', () => {
  let tc: TestCluster
  let connection: Connection
  let path: TablePath

  beforeAll(async () => {
    tc = await startReadyCluster({ tabletServers: 1, prefix: 'sluice-pk-crash', serverConfig: LEASE_CONFIG })
    connection = await connect(tc.cluster)
    const database = await createDatabase(connection, 'pk_crash')
    const descriptor = TableDescriptor.builder().schema(SCHEMA).distributedBy(BUCKETS).build()
    path = await createTable(connection, database, descriptor, 'upserts')
  })

  afterAll(async () => {
    await connection?.close().catch(() => undefined)
    await tc?.stop()
  })

  it('after the restart, lookups and the changelog follow the writes in order, holding every acknowledged one', async () => {
    const cluster = tc.cluster
    const history = new KvHistory()
    const failures = new FailureTally()
    const writerConnection = await connect(cluster, WRITER_CONFIG)
    let sent: number
    try {
      const writer = (await writerConnection.getTable(path)).newUpsert().createWriter()
      // Writes go on until the process is gone, so the kill lands in the middle of the stream.
      let killed: Promise<void> | undefined
      let dead = false
      sent = await writeUntilStopped(
        writer,
        history,
        failures,
        ACKED_BEFORE_KILL,
        () => {
          killed = cluster.killTabletServer(TABLET_ID).finally(() => {
            dead = true
          })
        },
        new Map(FREEZES_AT_ACKED.map(at => [at, () => freezePastLease(cluster.tablet(TABLET_ID))])),
        () => dead,
      )
      await killed
      writer.abort(new FlussError('NETWORK_EXCEPTION', 'the tablet server was killed'))
    } finally {
      await writerConnection.close().catch(() => undefined)
    }
    expect(history.ackCount).toBeGreaterThanOrEqual(ACKED_BEFORE_KILL)
    expect(history.ackCount, 'some writes were still in flight at the kill').toBeLessThan(sent)

    await restartAfterKill(cluster, TABLET_ID, WAIT_MS)
    await waitForLeaders(connection, path, WAIT_MS)
    const table = await connection.getTable(path)
    const buckets = Array.from({ length: BUCKETS }, (_, b) => b)
    await writeSentinels(table, buckets)
    const latest = await connection.getAdmin().listOffsets(path, buckets, 'latest')
    const total = [...latest.values()].reduce((a, b) => a + b, 0)
    const records = await scanAll(table, total, { timeoutMs: WAIT_MS })
    expect(offsetGaps(records)).toEqual([])
    expect(countOf(records)).toBe(total)
    for (const b of buckets) expect(records.get(b)?.length ?? 0, `bucket ${b}`).toBe(latest.get(b))
    const changelog = new Map<number, KeyChange[]>()
    for (const [bucket, list] of records) {
      for (const r of list) {
        const id = Number(r.row[0])
        if (id >= KEYS) continue
        const changes = changelog.get(id) ?? []
        changelog.set(id, changes)
        changes.push({
          bucket,
          offset: r.offset,
          change: changeTypeShortString(r.changeType),
          seq: Number(r.row[1]),
        })
      }
    }

    const lookuper = table.newLookup().createLookuper()
    const problems: string[] = []
    const keys = [...new Set([...history.keys(), ...changelog.keys()])]
    const found = await Promise.all(keys.map(id => lookuper.lookup([BigInt(id)])))
    keys.forEach((id, i) => {
      const row = found[i]?.singletonRow() ?? null
      const lookedUp = row === null ? null : Number(row[1])
      if (problems.length < 20) problems.push(...history.checkKey(id, lookedUp, changelog.get(id) ?? []))
    })
    const writes =
      `of ${sent} writes ${history.ackCount} were acknowledged and ${history.failCount} failed ` +
      `(${failures}); the coordinator saw the tablet server leave ${departures(tc)} times ` +
      '(the restart after the kill, within the lease, is not a departure: each is a lease that lapsed); ' +
      'the first problems'
    expect(problems, writes).toEqual([])
    expect(keys).toEqual(history.keys())
    expect(keys.length).toBe(KEYS)
  })
})
