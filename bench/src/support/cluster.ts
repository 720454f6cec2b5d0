import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LocalCluster } from '@sluice/cli/cluster'
import { Connection } from '@sluice/client'
import { Catalog } from '@sluice/core/control-plane'
import type { MetaStore } from '@sluice/core/metastore'
import { sleep } from '@sluice/core/util'

/**
 * A LocalCluster of `tabletServers` servers in a temp directory, with server options, a handle on
 * its metadata store and client connections that are all closed by `stop()`. For one server and
 * default options, benchmarks/bench-cluster.ts does the same.
 */
export interface ClusterBench {
  readonly cluster: LocalCluster
  readonly dataDir: string
  readonly metaStore: MetaStore
  readonly catalog: Catalog
  /** A client connection with these client options (closed by `stop()`). */
  connect(clientConfig?: Record<string, string>): Promise<Connection>
  /** Closes connections, stops the cluster, removes the directory. */
  stop(): Promise<void>
}

export interface ClusterBenchOptions {
  readonly tabletServers: number
  readonly serverConfig?: Readonly<Record<string, string>>
}

export async function startClusterBench(name: string, options: ClusterBenchOptions): Promise<ClusterBench> {
  const dataDir = mkdtempSync(join(tmpdir(), `sluice-bench-${name}-`))
  let cluster: LocalCluster | undefined
  try {
    cluster = await LocalCluster.start({
      dataDir,
      tabletServers: options.tabletServers,
      coordinatorPort: 0,
      serverConfig: options.serverConfig,
    })
  } catch (e) {
    rmSync(dataDir, { recursive: true, force: true })
    throw e
  }
  const c = cluster
  const metaStore = c.aws.metaStore()
  const connections: Connection[] = []
  let stopped: Promise<void> | undefined
  return {
    cluster: c,
    dataDir,
    metaStore,
    catalog: new Catalog(metaStore),
    async connect(clientConfig = {}) {
      const connection = await Connection.create({ 'bootstrap.servers': c.bootstrapServers, ...clientConfig })
      connections.push(connection)
      return connection
    },
    stop() {
      stopped ??= (async () => {
        for (const connection of connections) await connection.close().catch(() => undefined)
        await metaStore.close().catch(() => undefined)
        await c.stop()
        rmSync(dataDir, { recursive: true, force: true })
      })()
      return stopped
    },
  }
}

/** Polls `check` every `intervalMs` until it returns a value other than undefined/false. */
export async function waitFor<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await check()
    if (v !== undefined && v !== false) return v
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(intervalMs)
  }
}
