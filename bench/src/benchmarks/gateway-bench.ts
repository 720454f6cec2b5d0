import type { Table } from '@sluice/client'
import { Configuration } from '@sluice/core/config'
import type { TableDescriptor, TablePath } from '@sluice/core/metadata'
import { type GatewayServer, SdkBackend, SILENT_LOGGER, startGatewayServer } from '@sluice/gateway'
import { percentile } from '../harness.js'
import { type BenchCluster, createBenchTable, startBenchCluster } from './bench-cluster.js'

/**
 * A LocalCluster with one tablet server (temp directory), a client connection for the SDK
 * baseline, and the HTTP gateway on 127.0.0.1 (random port) with its own SdkBackend connection;
 * both connections use the same client settings.
 */
export interface GatewayBench {
  readonly bench: BenchCluster
  readonly backend: SdkBackend
  readonly server: GatewayServer
  readonly path: TablePath
  /** The table opened through the baseline connection. */
  readonly table: Table
  /** `/v1/databases/<db>/tables/<table>` on the gateway. */
  readonly tableUrl: string
  stop(): Promise<void>
}

export async function startGatewayBench(
  name: string,
  descriptor: TableDescriptor,
  clientConfig: Record<string, string> = {},
): Promise<GatewayBench> {
  const bench = await startBenchCluster(name, clientConfig)
  let backend: SdkBackend | undefined
  try {
    const path = await createBenchTable(bench.connection, descriptor)
    const table = await bench.connection.getTable(path)
    const config = Configuration.load({
      'bootstrap.servers': bench.cluster.bootstrapServers,
      ...clientConfig,
    })
    backend = await SdkBackend.connect(config)
    const gatewayBackend = backend
    const server = await startGatewayServer({
      config,
      backend,
      host: '127.0.0.1',
      port: 0,
      logger: SILENT_LOGGER,
    })
    return {
      bench,
      backend,
      server,
      path,
      table,
      tableUrl: `${server.url}/v1/databases/${path.databaseName}/tables/${path.tableName}`,
      async stop() {
        await server.close().catch(() => undefined)
        await gatewayBackend.close().catch(() => undefined)
        await bench.stop()
      },
    }
  } catch (e) {
    await backend?.close().catch(() => undefined)
    await bench.stop()
    throw e
  }
}

export interface HttpLoad {
  /** Seconds from the first request to the last response. */
  readonly seconds: number
  /** Milliseconds of each request, request order. */
  readonly latenciesMs: readonly number[]
}

/**
 * Sends `count` POSTs of prepared bodies (`body(i)`) to `url`, `inFlight` at a time, and checks
 * each answer with `check` (throws on a failure, so a broken run never reports a figure).
 */
export async function postAll(
  url: string,
  count: number,
  inFlight: number,
  body: (i: number) => { readonly bytes: Uint8Array | string; readonly contentType: string },
  check: (status: number, text: string) => void,
): Promise<HttpLoad> {
  const latenciesMs: number[] = new Array(count)
  let next = 0
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const { bytes, contentType } = body(i)
      const t0 = performance.now()
      const res = await fetch(url, { method: 'POST', body: bytes, headers: { 'content-type': contentType } })
      const text = await res.text()
      latenciesMs[i] = performance.now() - t0
      check(res.status, text)
    }
  }
  const t0 = performance.now()
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, worker))
  return { seconds: (performance.now() - t0) / 1000, latenciesMs }
}

/** p50 and p99 of latencies, in ms. */
export function latencyExtras(latenciesMs: readonly number[], prefix = 'request'): Record<string, number> {
  return {
    [`${prefix} p50 ms`]: percentile(latenciesMs, 50),
    [`${prefix} p99 ms`]: percentile(latenciesMs, 99),
  }
}
