import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ArrowBatchReader, ArrowBatchWriter, type ArrowCompressionInfo } from '@sluice/core/arrow'
import { MemoryBlobStore } from '@sluice/core/blobstore'
import {
  BIND_LISTENERS,
  Configuration,
  DATA_DIR,
  LOG_REPLICA_FETCH_BACKOFF_INTERVAL,
  LOG_REPLICA_FETCH_WAIT_MAX_TIME,
  SLUICE_RPC_SERVER_SHUTDOWN_TIMEOUT,
  SLUICE_TABLET_SERVER_HEARTBEAT_INTERVAL,
  TABLET_SERVER_CONTROLLED_SHUTDOWN_MAX_RETRIES,
  TABLET_SERVER_ID,
} from '@sluice/core/config'
import { Catalog, createDatabase, createTable, readOnlyAdminHandlers } from '@sluice/core/control-plane'
import { databaseDescriptor, Schema, TableDescriptor, type TableInfo, tablePath } from '@sluice/core/metadata'
import { MemoryMetaStore } from '@sluice/core/metastore'
import { buildLogBatch, MemoryLogRecords } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import { ClientConnection } from '@sluice/core/rpc'
import { DataTypes, type RowType } from '@sluice/core/types'
import { MetaStoreControlPlane } from '../control-plane/metastore-control-plane.js'
import { TabletServer, type TabletServerDeps } from '../server/tablet-server.js'

/** Test scaffolding for tablet server tests: a log table, real batches, servers on loopback. */

export const LOG_SCHEMA = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('name', DataTypes.STRING())
  .column('score', DataTypes.BIGINT())
  .build()

/** The id the first table created in a fresh metadata store gets. */
export const TABLE_ID = 0
export const TABLE_PATH = tablePath('db1', 'events')

/** A primary-key table: (id, name) key, bucketed by id, plus a value column. */
export const PK_SCHEMA = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('name', DataTypes.STRING())
  .column('score', DataTypes.BIGINT())
  .primaryKey('id', 'name')
  .build()

export function rows(from: number, count: number): Row[] {
  return Array.from({ length: count }, (_, i) => [from + i, `name-${from + i}`, BigInt((from + i) * 10)])
}

export interface BatchOptions {
  readonly compression?: ArrowCompressionInfo
  readonly writerId?: number
  readonly batchSequence?: number
  readonly rowType?: RowType
}

/** An append-only ARROW log batch as a client sends it (offset and timestamp 0). */
export function arrowBatch(batchRows: readonly Row[], options: BatchOptions = {}): Buffer {
  const writer = new ArrowBatchWriter(options.rowType ?? LOG_SCHEMA.rowType, {
    ...(options.compression === undefined ? {} : { compression: options.compression }),
  })
  for (const row of batchRows) writer.addRow(row)
  return buildLogBatch({
    schemaId: 1,
    appendOnly: true,
    recordCount: batchRows.length,
    records: writer.finish(),
    writerId: options.writerId ?? -1,
    batchSequence: options.batchSequence ?? -1,
  })
}

/** Decodes every row of fetched ARROW batches (projected ones with the projected row type). */
export function decodeRows(records: Uint8Array | null, rowType: RowType = LOG_SCHEMA.rowType): Row[] {
  if (records === null || records.length === 0) return []
  const out: Row[] = []
  for (const batch of new MemoryLogRecords(records).batches()) {
    if (batch.recordCount === 0) continue
    out.push(...new ArrowBatchReader(batch.arrowPayload(), rowType).toRows())
  }
  return out
}

/** Base offsets and record counts of fetched batches. */
export function batchOffsets(records: Uint8Array | null): { base: number; count: number }[] {
  if (records === null || records.length === 0) return []
  return [...new MemoryLogRecords(records).batches()].map(b => ({ base: b.baseOffset, count: b.recordCount }))
}

/** One control plane (a catalog over one metadata store) shared by the servers of a test. */
export class TestCluster {
  readonly store = new MemoryMetaStore()
  /** Remote storage shared by the servers started with `{ remote: true }`. */
  readonly blobStore = new MemoryBlobStore()
  readonly sharedCatalog = new Catalog(this.store)
  readonly controlPlane = new MetaStoreControlPlane(this.sharedCatalog, this.store, 'FLUSS')
  readonly #dirs: string[] = []
  readonly #servers = new Set<TabletServer>()
  readonly #connections: ClientConnection[] = []

  /** Creates the test log table (id TABLE_ID, LOG_SCHEMA unless given) through the shared catalog. */
  async createLogTable(
    numBuckets = 2,
    properties: Record<string, string> = {},
    schema: Schema = LOG_SCHEMA,
  ): Promise<TableInfo> {
    let builder = TableDescriptor.builder().schema(schema).distributedBy(numBuckets)
    for (const [k, v] of Object.entries(properties)) builder = builder.property(k, v)
    await createDatabase(this.sharedCatalog, TABLE_PATH.databaseName, databaseDescriptor(), true)
    const created = await createTable(this.sharedCatalog, {
      tablePath: TABLE_PATH,
      descriptor: builder.build(),
      coordinatorEpoch: 0,
      ignoreIfExists: false,
    })
    const info = await this.controlPlane.getTableInfo(created?.table.tableId ?? -1)
    if (info.tableId !== TABLE_ID) throw new Error(`expected table id ${TABLE_ID}, got ${info.tableId}`)
    return info
  }

  /** Creates a primary-key table (PK_SCHEMA, bucket key `id`) at TABLE_PATH (id TABLE_ID). */
  async createPkTable(numBuckets = 1, properties: Record<string, string> = {}): Promise<TableInfo> {
    let builder = TableDescriptor.builder().schema(PK_SCHEMA).distributedBy(numBuckets, 'id')
    for (const [k, v] of Object.entries(properties)) builder = builder.property(k, v)
    await createDatabase(this.sharedCatalog, TABLE_PATH.databaseName, databaseDescriptor(), true)
    const created = await createTable(this.sharedCatalog, {
      tablePath: TABLE_PATH,
      descriptor: builder.build(),
      coordinatorEpoch: 0,
      ignoreIfExists: false,
    })
    return this.controlPlane.getTableInfo(created?.table.tableId ?? -1)
  }

  async tempDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-tablet-'))
    this.#dirs.push(dir)
    return dir
  }

  /** Starts a tablet server on 127.0.0.1:0 with fast replication timings. */
  async startServer(
    serverId: number,
    dataDir?: string,
    extra: Record<string, unknown> = {},
    deps: { readonly remote?: boolean } & Partial<TabletServerDeps> = {},
  ): Promise<TabletServer> {
    const config = Configuration.load({
      [BIND_LISTENERS.key]: 'FLUSS://127.0.0.1:0',
      [TABLET_SERVER_ID.key]: serverId,
      [DATA_DIR.key]: dataDir ?? (await this.tempDir()),
      [LOG_REPLICA_FETCH_WAIT_MAX_TIME.key]: '200ms',
      [LOG_REPLICA_FETCH_BACKOFF_INTERVAL.key]: '50ms',
      [SLUICE_TABLET_SERVER_HEARTBEAT_INTERVAL.key]: '1s',
      // Peers' pooled connections may hold a stopping server's listener until this passes.
      [SLUICE_RPC_SERVER_SHUTDOWN_TIMEOUT.key]: '200ms',
      // No coordinator runs in these tests: stop without asking one to move leaderships.
      [TABLET_SERVER_CONTROLLED_SHUTDOWN_MAX_RETRIES.key]: 0,
      ...extra,
    })
    // Options not (yet) in the core registry are set directly.
    const { remote, ...overrides } = deps
    const server = new TabletServer({
      config,
      controlPlane: this.controlPlane,
      adminHandlers: readOnlyAdminHandlers(this.sharedCatalog),
      ...(remote === true ? { blobStore: this.blobStore, metaStore: this.store } : {}),
      ...overrides,
    })
    await server.start()
    this.#servers.add(server)
    return server
  }

  async stopServer(server: TabletServer): Promise<void> {
    this.#servers.delete(server)
    await server.stop()
  }

  /** A client connection to a server's first listener. */
  async connect(server: TabletServer): Promise<ClientConnection> {
    const { host, port } = server.endpoints[0]
    const connection = await ClientConnection.connect({ host, port, expectedRole: 'tablet' })
    this.#connections.push(connection)
    return connection
  }

  async close(): Promise<void> {
    for (const c of this.#connections) c.close()
    for (const s of this.#servers) await s.stop().catch(() => undefined)
    this.#servers.clear()
    for (const d of this.#dirs) await rm(d, { recursive: true, force: true })
  }
}

export interface BucketAssignment {
  readonly bucket: number
  readonly leader: number
  readonly replicas: readonly number[]
  readonly isr?: readonly number[]
  readonly leaderEpoch?: number
  readonly bucketEpoch?: number
}

/** A NOTIFY_LEADER_AND_ISR request body for buckets of the test table. */
export function notifyRequest(
  coordinatorEpoch: number,
  buckets: readonly BucketAssignment[],
  tableId = TABLE_ID,
) {
  return {
    coordinatorEpoch,
    notifyBucketsLeaderReq: buckets.map(b => ({
      physicalTablePath: { databaseName: TABLE_PATH.databaseName, tableName: TABLE_PATH.tableName },
      tableBucket: { tableId, bucketId: b.bucket },
      leader: b.leader,
      leaderEpoch: b.leaderEpoch ?? 0,
      replicas: [...b.replicas],
      isr: [...(b.isr ?? b.replicas)],
      bucketEpoch: b.bucketEpoch ?? 0,
    })),
  }
}

/** Polls `condition` every few milliseconds until it holds; fails after `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}
