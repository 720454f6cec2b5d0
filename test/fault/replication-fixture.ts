import type { Connection, Table } from '@sluice/client'
import { ArrowBatchWriter } from '@sluice/core/arrow'
import { type BucketRecord, Catalog } from '@sluice/core/control-plane'
import { Schema, TableDescriptor, type TablePath } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import { buildLogBatch } from '@sluice/core/record'
import { DataTypes, notNull } from '@sluice/core/types'
import { expect } from 'vitest'
import { waitUntil } from '../harness/index.js'
import {
  connect,
  createDatabase,
  createTable,
  startReadyCluster,
  type TestCluster,
} from '../it/support/cluster.js'
import { scanAll } from '../it/support/scan.js'
import type { AckingWriter } from './acking-writer.js'
import type { SuiteVariant } from './suite-variant.js'

/**
 * Replication faults run against a LocalCluster of processes: 3 tablet servers, RF=3, min ISR 2,
 * short leases and lag time so each scenario stays well under a minute.
 */
export const LEASE_MS = 3000
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
export const WRITER_CONFIG = {
  'client.writer.acks': 'all',
  'client.writer.enable-idempotence': 'true',
  'client.writer.batch-timeout': '5ms',
  'client.request-timeout': '5s',
}

const SCHEMA = Schema.newBuilder()
  .column('id', notNull(DataTypes.BIGINT()))
  .column('payload', DataTypes.STRING())
  .build()

function descriptor(): TableDescriptor {
  return TableDescriptor.builder()
    .schema(SCHEMA)
    .distributedBy(1)
    .property('table.replication.factor', '3')
    .build()
}

/** The cluster, an admin connection and direct access to the metadata store, shared by the scenarios. */
export class ReplicationFixture {
  #tc: TestCluster | undefined
  #admin: Connection | undefined
  #store: MetaStore | undefined
  #catalog: Catalog | undefined
  #database = ''
  readonly #tableIds = new Map<string, number>()

  constructor(readonly variant: SuiteVariant) {}

  async start(): Promise<void> {
    const extra = this.variant.cluster?.() ?? {}
    this.#tc = await startReadyCluster({
      tabletServers: 3,
      prefix: 'sluice-fault-repl',
      ...extra,
      serverConfig: { ...SERVER_CONFIG, ...extra.serverConfig },
    })
    this.#admin = await connect(this.#tc.cluster)
    this.#database = await createDatabase(this.#admin, 'repl')
    this.#store = this.#tc.cluster.aws.metaStore()
    this.#catalog = new Catalog(this.#store)
  }

  async stop(): Promise<void> {
    await this.#admin?.close().catch(() => undefined)
    await this.#store?.close().catch(() => undefined)
    await this.#tc?.stop()
  }

  get tc(): TestCluster {
    if (this.#tc === undefined) throw new Error('the replication fixture was not started')
    return this.#tc
  }

  get admin(): Connection {
    if (this.#admin === undefined) throw new Error('the replication fixture was not started')
    return this.#admin
  }

  get catalog(): Catalog {
    if (this.#catalog === undefined) throw new Error('the replication fixture was not started')
    return this.#catalog
  }

  /** A client whose writes wait for every in-sync replica. */
  writerConnection(): Promise<Connection> {
    return connect(this.tc.cluster, WRITER_CONFIG)
  }

  /** A fresh RF=3 table, once the coordinator counts three live servers again. */
  newTable(prefix: string): Promise<TablePath> {
    return waitUntil(
      async () => {
        const path = await createTable(this.admin, this.#database, descriptor(), prefix)
        await this.bucketOf(path)
        return path
      },
      { timeoutMs: 20_000, what: 'a table with 3 replicas' },
    )
  }

  /** The table's only bucket as stored in the metadata table (read directly, not through a server). */
  async bucketOf(path: TablePath): Promise<BucketRecord> {
    let tableId = this.#tableIds.get(path.tableName)
    if (tableId === undefined) {
      tableId = (await this.admin.getAdmin().getTableInfo(path)).tableId
      this.#tableIds.set(path.tableName, tableId)
    }
    const record = await this.catalog.getBucket({ tableId, partitionId: null, bucket: 0 })
    if (record === undefined) throw new Error('bucket item missing')
    return record
  }

  /** Every acknowledged row exactly once, at the offset it was acknowledged with, in append order. */
  async expectAllAckedOnce(table: Table, writer: AckingWriter): Promise<number[]> {
    const path = table.getTableInfo().tablePath
    const latest = (await this.admin.getAdmin().listOffsets(path, [0], 'latest')).get(0) ?? 0
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

  /** Restarts stopped servers and waits until all three hold a membership lease. */
  async waitForAllServers(): Promise<void> {
    for (const id of [1, 2, 3]) {
      if (!this.tc.cluster.tablet(id).running) await this.tc.cluster.startTabletServer(id)
    }
    await waitUntil(async () => (await this.catalog.liveTabletServers()).length === 3, {
      timeoutMs: 20_000,
    })
  }
}

/** A one-row ARROW batch as a client would send it (the zombie's would-be write). */
export function rawBatch(id: number): Buffer {
  const writer = new ArrowBatchWriter(SCHEMA.rowType)
  writer.addRow([BigInt(id), 'zombie'])
  return buildLogBatch({ schemaId: 1, appendOnly: true, recordCount: 1, records: writer.finish() })
}
