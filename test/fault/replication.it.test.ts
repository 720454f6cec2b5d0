import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { AppendResult, Connection, Table } from '@sluice/client'
import { ArrowBatchWriter } from '@sluice/core/arrow'
import { type BucketRecord, Catalog, writeIsrAsLeader } from '@sluice/core/catalog'
import { isFlussError } from '@sluice/core/errors'
import { Schema, TableDescriptor, type TablePath } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import { buildLogBatch } from '@sluice/core/record'
import { ServerConnection } from '@sluice/core/rpc'
import { DataTypes, notNull } from '@sluice/core/types'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitUntil } from '../harness/index.js'
import {
  connect,
  createDatabase,
  createTable,
  startReadyCluster,
  type TestCluster,
} from '../it/support/cluster.js'
import { scanAll } from '../it/support/scan.js'

/**
 * Replication faults against a LocalCluster of processes: 3 tablet servers, RF=3, min ISR 2,
 * short leases and lag time so each scenario stays well under a minute.
 */
const LEASE_MS = 3000
const SERVER_CONFIG = {
  'sluice.tablet-server.lease-duration': `${LEASE_MS}ms`,
  'sluice.tablet-server.heartbeat-interval': '500ms',
  'sluice.coordinator.lease-duration': `${LEASE_MS}ms`,
  'sluice.coordinator.lease-renew-interval': '500ms',
  'sluice.coordinator.membership-poll-interval': '200ms',
  'sluice.coordinator.notify-retry-backoff': '100ms',
  'sluice.coordinator.notify-retry-max-backoff': '1s',
  'log.replica.max-lag-time': '2s',
  'log.replica.min-in-sync-replicas-number': '2',
  'log.replica.fetch.backoff-interval': '200ms',
  'tablet-server.controlled-shutdown.retry-interval': '200ms',
}
const WRITER_CONFIG = {
  'client.writer.acks': 'all',
  'client.writer.enable-idempotence': 'true',
  'client.writer.batch-timeout': '5ms',
  'client.request-timeout': '5s',
}

const SCHEMA = Schema.newBuilder()
  .column('id', notNull(DataTypes.BIGINT()))
  .column('payload', DataTypes.STRING())
  .build()
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

function descriptor(): TableDescriptor {
  return TableDescriptor.builder()
    .schema(SCHEMA)
    .distributedBy(1)
    .property('table.replication.factor', '3')
    .build()
}

/** Appends rows with per-row acknowledgements until stopped; records what was acknowledged and when. */
class AckingWriter {
  readonly acked = new Map<number, AppendResult & { appendedAtMs: number; atMs: number }>()
  readonly failed: unknown[] = []
  #next = 0
  #stopped = false
  #loop: Promise<void> | undefined
  readonly #pending = new Set<Promise<unknown>>()

  constructor(private readonly table: Table) {}

  get appended(): number {
    return this.#next
  }

  start(): this {
    const writer = this.table.newAppend().createWriter()
    this.#loop = (async () => {
      while (!this.#stopped) {
        for (let k = 0; k < 10 && !this.#stopped; k++) {
          const id = this.#next++
          const appendedAtMs = Date.now()
          let appended: Promise<AppendResult>
          try {
            appended = writer.appendWithResult([BigInt(id), `row-${id}`])
          } catch (e) {
            this.failed.push(e)
            this.#stopped = true
            break
          }
          const p = appended.then(
            r => this.acked.set(id, { ...r, appendedAtMs, atMs: Date.now() }),
            e => this.failed.push(e),
          )
          this.#pending.add(p)
          p.finally(() => this.#pending.delete(p))
        }
        await sleep(10)
        while (this.#pending.size > 500) await sleep(20)
      }
      await writer.close().catch(e => this.failed.push(e))
      await Promise.all(this.#pending)
    })()
    return this
  }

  /** Rows appended after `t` that are acknowledged. */
  ackedAfter(t: number): number {
    return [...this.acked.values()].filter(r => r.appendedAtMs > t).length
  }

  /** The longest time without any acknowledgement, from `t` on. */
  longestAckPauseMs(t: number): number {
    const times = [t, ...[...this.acked.values()].map(r => r.atMs).filter(at => at >= t)].sort(
      (a, b) => a - b,
    )
    let longest = 0
    for (let i = 1; i < times.length; i++) longest = Math.max(longest, times[i] - times[i - 1])
    return longest
  }

  /** When the first row appended after `t` was acknowledged. */
  firstAckAfter(t: number): number {
    return Math.min(...[...this.acked.values()].filter(r => r.appendedAtMs > t).map(r => r.atMs))
  }

  async stop(): Promise<void> {
    this.#stopped = true
    await this.#loop
  }
}

describe('replication and failover across tablet server processes', () => {
  let tc: TestCluster
  let admin: Connection
  let store: MetaStore
  let catalog: Catalog
  let database: string

  beforeAll(async () => {
    tc = await startReadyCluster({
      tabletServers: 3,
      prefix: 'sluice-fault-repl',
      serverConfig: SERVER_CONFIG,
    })
    admin = await connect(tc.cluster)
    database = await createDatabase(admin, 'repl')
    store = tc.cluster.aws.metaStore()
    catalog = new Catalog(store)
  })

  afterAll(async () => {
    await admin?.close().catch(() => undefined)
    await store?.close().catch(() => undefined)
    await tc?.stop()
  })

  /** A fresh RF=3 table, once the coordinator counts three live servers again. */
  function newTable(prefix: string): Promise<TablePath> {
    return waitUntil(
      async () => {
        const path = await createTable(admin, database, descriptor(), prefix)
        await bucketOf(path)
        return path
      },
      { timeoutMs: 20_000, what: 'a table with 3 replicas' },
    )
  }

  const tableIds = new Map<string, number>()

  /** The table's only bucket as stored in the metadata table (read directly, not through a server). */
  async function bucketOf(path: TablePath): Promise<BucketRecord> {
    let tableId = tableIds.get(path.tableName)
    if (tableId === undefined) {
      tableId = (await admin.getAdmin().getTableInfo(path)).tableId
      tableIds.set(path.tableName, tableId)
    }
    const record = await catalog.getBucket({ tableId, partitionId: null, bucket: 0 })
    if (record === undefined) throw new Error('bucket item missing')
    return record
  }

  /** Every acknowledged row exactly once, at the offset it was acknowledged with, in append order. */
  async function expectAllAckedOnce(table: Table, writer: AckingWriter): Promise<number[]> {
    const latest =
      (await admin.getAdmin().listOffsets(table.getTableInfo().tablePath, [0], 'latest')).get(0) ?? 0
    const records = (await scanAll(table, latest, { timeoutMs: 30_000 })).get(0) ?? []
    expect(records.length).toBe(latest)
    const ids = records.map(r => Number(r.row[0]))
    expect(new Set(ids).size).toBe(ids.length)
    for (const [id, result] of writer.acked) {
      expect(records[result.offset]?.row[0], `acknowledged row ${id} at offset ${result.offset}`).toBe(
        BigInt(id),
      )
    }
    const ackedInLogOrder = ids.filter(id => writer.acked.has(id))
    expect(ackedInLogOrder).toEqual([...ackedInLogOrder].sort((a, b) => a - b))
    expect(ackedInLogOrder.length).toBe(writer.acked.size)
    return ids
  }

  it('kill -9 of the leader during acks=all writes: every acknowledged record survives exactly once, in order', async () => {
    const path = await newTable('kill')
    const writerConnection = await connect(tc.cluster, WRITER_CONFIG)
    try {
      const table = await writerConnection.getTable(path)
      const writer = new AckingWriter(table).start()
      await waitUntil(() => writer.acked.size >= 500, { timeoutMs: 20_000, what: '500 acknowledged rows' })
      const before = await bucketOf(path)
      const leader = before.leaderAndIsr.leader as number
      const killedAtMs = Date.now()
      await tc.cluster.killTabletServer(leader)
      await waitUntil(() => writer.ackedAfter(killedAtMs) >= 200, {
        timeoutMs: 30_000,
        what: 'writes after failover',
      })
      const failoverMs = writer.firstAckAfter(killedAtMs) - killedAtMs
      console.log(
        `failover after kill -9 of leader ${leader}: the first write appended after the kill was acknowledged ` +
          `${failoverMs} ms after it; longest pause in acknowledgements ${writer.longestAckPauseMs(killedAtMs)} ms`,
      )
      await writer.stop()
      const after = await bucketOf(path)
      expect(after.leaderAndIsr.leader).not.toBe(leader)
      expect(after.leaderAndIsr.leaderEpoch).toBeGreaterThan(before.leaderAndIsr.leaderEpoch)
      expect(writer.acked.size).toBeGreaterThan(700)
      await expectAllAckedOnce(table, writer)
    } finally {
      await writerConnection.close()
      await waitForAllServers()
    }
  })

  it('SIGSTOP of a follower shrinks the ISR while writes go on; SIGCONT lets it catch up and rejoin', async () => {
    await waitForAllServers()
    const path = await newTable('pause')
    const writerConnection = await connect(tc.cluster, WRITER_CONFIG)
    try {
      const table = await writerConnection.getTable(path)
      await waitUntil(async () => (await bucketOf(path)).leaderAndIsr.isr.length === 3, { timeoutMs: 20_000 })
      const { leader, replicas } = (await bucketOf(path)).leaderAndIsr
      const follower = replicas.find(id => id !== leader) as number
      const writer = new AckingWriter(table).start()
      await waitUntil(() => writer.acked.size >= 200, { timeoutMs: 20_000, what: 'acknowledged rows' })
      tc.cluster.tablet(follower).pause()
      await waitUntil(async () => !(await bucketOf(path)).leaderAndIsr.isr.includes(follower), {
        timeoutMs: 15_000,
        what: `server ${follower} to leave the ISR`,
      })
      const shrunkAtMs = Date.now()
      await waitUntil(() => writer.ackedAfter(shrunkAtMs) >= 200, {
        timeoutMs: 15_000,
        what: 'writes with a smaller ISR',
      })
      tc.cluster.tablet(follower).resume()
      await waitUntil(async () => (await bucketOf(path)).leaderAndIsr.isr.includes(follower), {
        timeoutMs: 20_000,
        what: `server ${follower} to rejoin the ISR`,
      })
      const rejoinedAtMs = Date.now()
      await waitUntil(() => writer.ackedAfter(rejoinedAtMs) >= 100, {
        timeoutMs: 15_000,
        what: 'writes after rejoining',
      })
      await writer.stop()
      expect((await bucketOf(path)).leaderAndIsr.leader).toBe(leader)
      await expectAllAckedOnce(table, writer)
    } finally {
      tc.cluster.tablet(1).resume()
      tc.cluster.tablet(2).resume()
      tc.cluster.tablet(3).resume()
      await writerConnection.close()
    }
  })

  it('a zombie leader (SIGSTOP past its lease, then SIGCONT) gets no acks=all write acknowledged and cannot change the ISR', async () => {
    await waitForAllServers()
    const path = await newTable('zombie')
    await waitUntil(async () => (await bucketOf(path)).leaderAndIsr.isr.length === 3, { timeoutMs: 20_000 })
    const atPause = await bucketOf(path)
    const zombie = atPause.leaderAndIsr.leader as number
    const zombieProcess = tc.cluster.tablet(zombie)
    const toZombie = await ServerConnection.connect({ host: zombieProcess.host, port: zombieProcess.port })
    const writerConnection = await connect(tc.cluster, WRITER_CONFIG)
    try {
      const table = await writerConnection.getTable(path)
      const writer = new AckingWriter(table).start()
      await waitUntil(() => writer.acked.size >= 100, { timeoutMs: 20_000, what: 'acknowledged rows' })
      zombieProcess.pause()
      const failedOver = await waitUntil(
        async () => {
          const b = await bucketOf(path)
          return b.leaderAndIsr.leader !== zombie && b.leaderAndIsr.leader !== null ? b : undefined
        },
        { timeoutMs: 15_000, what: 'a new leader' },
      )
      const resumedAtMs = Date.now()
      zombieProcess.resume()
      // Whatever the zombie hears first after waking up, acks=all writes sent to it directly fail.
      const answers: (number | null)[] = []
      while (Date.now() - resumedAtMs < 3000) {
        const response = await toZombie.request('PRODUCE_LOG', {
          acks: -1,
          tableId: atPause.ref.tableId,
          timeoutMs: 1000,
          bucketsReq: [{ bucketId: 0, records: rawBatch(1_000_000 + answers.length) }],
        })
        answers.push(response.bucketsResp[0].errorCode ?? 0)
        await sleep(100)
      }
      expect(answers.length).toBeGreaterThan(5)
      expect(answers.filter(code => code === 0)).toEqual([])
      // Its ISR change, written as the deposed leader it is, is refused by the metadata store.
      const refused = await writeIsrAsLeader(catalog, atPause, [zombie]).then(
        () => undefined,
        e => e,
      )
      expect(isFlussError(refused, 'METASTORE_CONFLICT')).toBe(true)
      const now = await bucketOf(path)
      expect(now.leaderAndIsr.leader).toBe(failedOver.leaderAndIsr.leader)
      expect(now.leaderAndIsr.leaderEpoch).toBe(failedOver.leaderAndIsr.leaderEpoch)
      // The zombie comes back as a follower: it catches up and rejoins the ISR.
      await waitUntil(async () => (await bucketOf(path)).leaderAndIsr.isr.includes(zombie), {
        timeoutMs: 20_000,
        what: 'the former leader to rejoin the ISR',
      })
      await writer.stop()
      const ids = await expectAllAckedOnce(table, writer)
      expect(ids.filter(id => id >= 1_000_000)).toEqual([])
    } finally {
      zombieProcess.resume()
      toZombie.close()
      await writerConnection.close()
    }
  })

  it('SIGTERM of the leader: a controlled shutdown moves leadership first, writes go on without loss', async () => {
    await waitForAllServers()
    const path = await newTable('sigterm')
    await waitUntil(async () => (await bucketOf(path)).leaderAndIsr.isr.length === 3, { timeoutMs: 20_000 })
    const before = await bucketOf(path)
    const leader = before.leaderAndIsr.leader as number
    const writerConnection = await connect(tc.cluster, WRITER_CONFIG)
    try {
      const table = await writerConnection.getTable(path)
      const writer = new AckingWriter(table).start()
      await waitUntil(() => writer.acked.size >= 300, { timeoutMs: 20_000, what: 'acknowledged rows' })
      const stoppedAtMs = Date.now()
      expect(await tc.cluster.tablet(leader).stop()).toBe(0)
      await waitUntil(() => writer.ackedAfter(stoppedAtMs) >= 200, {
        timeoutMs: 20_000,
        what: 'writes after the stop',
      })
      console.log(
        `controlled shutdown of leader ${leader}: longest pause in acks=all acknowledgements ${writer.longestAckPauseMs(stoppedAtMs)} ms`,
      )
      await writer.stop()
      const after = await bucketOf(path)
      expect(after.leaderAndIsr.leader).not.toBe(leader)
      expect(after.leaderAndIsr.isr).not.toContain(leader)
      expect(after.leaderAndIsr.leaderEpoch).toBe(before.leaderAndIsr.leaderEpoch + 1)
      const coordinatorLog = await readFile(join(tc.dataDir, 'logs', 'coordinator-0.log'), 'utf8')
      expect(coordinatorLog).toContain(`"message":"tablet server shutting down","serverId":${leader}`)
      const tabletLog = await readFile(join(tc.dataDir, 'logs', `tablet-server-${leader}.log`), 'utf8')
      expect(tabletLog).not.toContain('stops without a completed controlled shutdown')
      await expectAllAckedOnce(table, writer)
    } finally {
      await writerConnection.close()
      await waitForAllServers()
    }
  })

  async function waitForAllServers(): Promise<void> {
    for (const id of [1, 2, 3]) if (!tc.cluster.tablet(id).running) await tc.cluster.startTabletServer(id)
    await waitUntil(async () => (await catalog.liveTabletServers()).length === 3, { timeoutMs: 20_000 })
  }
})

/** A one-row ARROW batch as a client would send it (the zombie's would-be write). */
function rawBatch(id: number): Buffer {
  const writer = new ArrowBatchWriter(SCHEMA.rowType)
  writer.addRow([BigInt(id), 'zombie'])
  return buildLogBatch({ schemaId: 1, appendOnly: true, recordCount: 1, records: writer.finish() })
}
