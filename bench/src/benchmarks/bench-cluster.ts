import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LocalCluster } from '@sluice/cli/cluster'
import { Connection } from '@sluice/client'
import { isFlussError } from '@sluice/core/errors'
import { databaseDescriptor, type TableDescriptor, type TablePath, tablePath } from '@sluice/core/metadata'
import { sleep } from '@sluice/core/util'

/** A one-tablet-server LocalCluster in a temp directory, with a client connection to it. */
export interface BenchCluster {
  readonly cluster: LocalCluster
  readonly dataDir: string
  readonly connection: Connection
  /** The tablet server's address. */
  readonly tablet: { readonly host: string; readonly port: number }
  /** Closes the connection, stops the cluster and removes the directory. */
  stop(): Promise<void>
}

const READY_TIMEOUT_MS = 60_000

export async function startBenchCluster(
  name: string,
  clientConfig: Record<string, string> = {},
  clusterOptions: { readonly metrics?: boolean } = {},
): Promise<BenchCluster> {
  const dataDir = mkdtempSync(join(tmpdir(), `sluice-bench-${name}-`))
  let cluster: LocalCluster | undefined
  let connection: Connection | undefined
  try {
    cluster = await LocalCluster.start({ dataDir, tabletServers: 1, coordinatorPort: 0, ...clusterOptions })
    connection = await Connection.create({ 'bootstrap.servers': cluster.bootstrapServers, ...clientConfig })
    const t = cluster.tablet(1)
    const c = cluster
    const conn = connection
    return {
      cluster,
      dataDir,
      connection,
      tablet: { host: t.host, port: t.port },
      async stop() {
        await conn.close().catch(() => undefined)
        await c.stop()
        rmSync(dataDir, { recursive: true, force: true })
      },
    }
  } catch (e) {
    await connection?.close().catch(() => undefined)
    await cluster?.stop().catch(() => undefined)
    rmSync(dataDir, { recursive: true, force: true })
    throw e
  }
}

/**
 * Creates a database and a table and waits until every bucket has a leader. Table creation is
 * retried while the coordinator has not yet seen the tablet server (NOT_ENOUGH_REPLICAS_EXCEPTION).
 */
export async function createBenchTable(
  connection: Connection,
  descriptor: TableDescriptor,
  tableName = 'data',
): Promise<TablePath> {
  const admin = connection.getAdmin()
  const suffix = `${process.pid}_${Date.now().toString(36)}`
  const path = tablePath(`bench_${suffix}`, tableName)
  await admin.createDatabase(path.databaseName, databaseDescriptor(), true)
  const deadline = Date.now() + READY_TIMEOUT_MS
  for (;;) {
    try {
      await admin.createTable(path, descriptor, true)
      break
    } catch (e) {
      if (!isFlussError(e, 'NOT_ENOUGH_REPLICAS_EXCEPTION') || Date.now() > deadline) throw e
      await sleep(200)
    }
  }
  const buckets = Array.from({ length: descriptor.bucketCount ?? 1 }, (_, i) => i)
  for (;;) {
    const offsets = await admin.listOffsets(path, buckets, 'latest').catch(() => new Map())
    if (offsets.size === buckets.length) return path
    if (Date.now() > deadline)
      throw new Error(`no leaders for ${path.tableName} within ${READY_TIMEOUT_MS} ms`)
    await sleep(200)
  }
}
