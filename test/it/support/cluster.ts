import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LocalCluster, type LocalClusterOptions } from '@sluice/cli/cluster'
import { Connection } from '@sluice/client'
import { isFlussError } from '@sluice/core/errors'
import { databaseDescriptor, Schema, TableDescriptor, type TablePath, tablePath } from '@sluice/core/metadata'
import { DataTypes } from '@sluice/core/types'
import { uniqueName, waitUntil } from '../../harness/index.js'

/** A LocalCluster in its own temp directory; `stop()` stops it and removes the directory. */
export interface TestCluster {
  readonly cluster: LocalCluster
  readonly dataDir: string
  stop(): Promise<void>
}

export async function startTestCluster(
  options: Omit<LocalClusterOptions, 'dataDir'> & { readonly prefix?: string },
): Promise<TestCluster> {
  const dataDir = mkdtempSync(join(tmpdir(), `${options.prefix ?? 'sluice-it'}-`))
  let cluster: LocalCluster
  try {
    cluster = await LocalCluster.start({ coordinatorPort: 0, ...options, dataDir })
  } catch (e) {
    rmSync(dataDir, { recursive: true, force: true })
    throw e
  }
  let stopped: Promise<void> | undefined
  const stop = () => {
    stopped ??= cluster.stop().finally(() => rmSync(dataDir, { recursive: true, force: true }))
    return stopped
  }
  return { cluster, dataDir, stop }
}

/** A client connection to the cluster's coordinator. */
export function connect(cluster: LocalCluster, extra: Record<string, string> = {}): Promise<Connection> {
  return Connection.create({ 'bootstrap.servers': cluster.bootstrapServers, ...extra })
}

/**
 * Starts a cluster, then waits until the coordinator knows every tablet server (connecting with
 * `sdkConfig`, e.g. TLS or SASL options).
 */
export async function startReadyCluster(
  options: Omit<LocalClusterOptions, 'dataDir'> & {
    readonly prefix?: string
    readonly sdkConfig?: Record<string, string>
  },
): Promise<TestCluster> {
  const { sdkConfig, ...clusterOptions } = options
  const tc = await startTestCluster(clusterOptions)
  try {
    const connection = await connect(tc.cluster, sdkConfig)
    try {
      await waitForTabletServers(connection, options.tabletServers ?? 3)
    } finally {
      await connection.close()
    }
  } catch (e) {
    await tc.stop()
    throw e
  }
  return tc
}

/**
 * Waits (bounded) until the coordinator can place `count` replicas: the metadata lists the tablet
 * servers as soon as they registered, while table creation counts the servers its membership poll
 * has seen, so a probe table with replication factor `count` is created (and dropped) to be sure.
 */
export async function waitForTabletServers(
  connection: Connection,
  count: number,
  timeoutMs = 60_000,
): Promise<void> {
  const admin = connection.getAdmin()
  await waitUntil(
    async () => (await admin.getServerNodes()).filter(n => n.role === 'tablet').length >= count,
    {
      timeoutMs,
      intervalMs: 200,
      what: `${count} registered tablet servers`,
    },
  )
  const database = await createDatabase(connection, 'it_probe')
  const probe = tablePath(database, 'probe')
  const descriptor = TableDescriptor.builder()
    .schema(Schema.newBuilder().column('a', DataTypes.INT()).build())
    .distributedBy(1)
    .property('table.replication.factor', count)
    .build()
  await waitUntil(
    async () => {
      try {
        await admin.createTable(probe, descriptor, true)
        return true
      } catch (e) {
        if (isFlussError(e, 'INVALID_REPLICATION_FACTOR') || isFlussError(e, 'NOT_ENOUGH_REPLICAS_EXCEPTION'))
          return false
        throw e
      }
    },
    { timeoutMs, intervalMs: 200, what: `the coordinator to see ${count} live tablet servers` },
  )
  await admin.dropDatabase(database, false, true)
}

/** Creates a fresh database (unique name) and returns it. */
export async function createDatabase(connection: Connection, prefix = 'it_db'): Promise<string> {
  const name = uniqueName(prefix)
  await connection.getAdmin().createDatabase(name, databaseDescriptor(), false)
  return name
}

/**
 * Creates a table and waits until every bucket has a leader that answers LIST_OFFSETS (bounded).
 */
export async function createTable(
  connection: Connection,
  database: string,
  descriptor: TableDescriptor,
  prefix = 'it_t',
): Promise<TablePath> {
  const path = tablePath(database, uniqueName(prefix))
  const admin = connection.getAdmin()
  await admin.createTable(path, descriptor, false)
  await waitForLeaders(connection, path)
  return path
}

/** Waits (bounded) until LIST_OFFSETS latest answers for every bucket of the table. */
export async function waitForLeaders(
  connection: Connection,
  path: TablePath,
  timeoutMs = 30_000,
): Promise<void> {
  const admin = connection.getAdmin()
  const info = await admin.getTableInfo(path)
  const buckets = Array.from({ length: info.numBuckets }, (_, i) => i)
  await waitUntil(async () => (await admin.listOffsets(path, buckets, 'latest')).size === buckets.length, {
    timeoutMs,
    intervalMs: 200,
    what: `leaders of every bucket of ${path.databaseName}.${path.tableName}`,
  })
}
