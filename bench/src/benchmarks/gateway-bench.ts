import { Worker } from 'node:worker_threads'
import type { ServerProcess } from '@sluice/cli/cluster'
import type { Table } from '@sluice/client'
import type { TableDescriptor, TablePath } from '@sluice/core/metadata'
import { percentile } from '../harness.js'
import { type BenchCluster, createBenchTable, startBenchCluster } from './bench-cluster.js'
import { processCpu } from './log-append-support.js'

/**
 * A LocalCluster with one tablet server (temp directory), a client connection for the SDK
 * baseline, and the HTTP gateway on 127.0.0.1 (random port) as a process of its own, started as
 * `npm start` starts it (functions/gateway/dist/main.js with its node flags and default options),
 * with the same client settings as the baseline connection.
 */
export interface GatewayBench {
  readonly bench: BenchCluster
  /** The gateway process (for its CPU time). */
  readonly gateway: ServerProcess
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
  try {
    const path = await createBenchTable(bench.connection, descriptor)
    const table = await bench.connection.getTable(path)
    const gateway = await bench.cluster.startGateway('127.0.0.1:0', clientConfig)
    const url = bench.cluster.gatewayUrl
    return {
      bench,
      gateway,
      path,
      table,
      tableUrl: `${url}/v1/databases/${path.databaseName}/tables/${path.tableName}`,
      stop: () => bench.stop(),
    }
  } catch (e) {
    await bench.stop()
    throw e
  }
}

/** CPU seconds the gateway process used while `body` ran (all its threads). */
export async function gatewayCpu<T>(
  gw: GatewayBench,
  body: () => Promise<T>,
): Promise<{ result: T; cpuS: number }> {
  const before = processCpu(gw.gateway.pid)
  const result = await body()
  const after = processCpu(gw.gateway.pid)
  const cpuS = before === undefined || after === undefined ? Number.NaN : after.processS - before.processS
  return { result, cpuS }
}

export interface HttpLoad {
  /** Seconds from the first request to the last response. */
  readonly seconds: number
  /** Milliseconds of each request, request order. */
  readonly latenciesMs: readonly number[]
}

/** What every answer of a load must show besides status 200 (see gateway-load-worker.ts). */
export interface HttpLoadCheck {
  /** A write answer's `row_count`. */
  readonly rowCount?: number
  /** Non-null entries of a lookup answer's `rows`. */
  readonly foundRows?: number
}

/**
 * An HTTP load generator in a worker thread (gateway-load-worker.ts) holding prepared request
 * bodies: `post` sends `count` POSTs round-robin over them, `inFlight` at a time, and rejects when
 * any answer is not 200 or fails `check`, so a broken run never reports a figure.
 */
export class HttpLoadClient {
  readonly #worker: Worker

  constructor(bodies: readonly Uint8Array[], contentType: string) {
    this.#worker = new Worker(new URL('./gateway-load-worker.js', import.meta.url), {
      workerData: { bodies, contentType },
    })
  }

  post(url: string, count: number, inFlight: number, check: HttpLoadCheck = {}): Promise<HttpLoad> {
    return new Promise((resolve, reject) => {
      const onError = (e: Error) => reject(e)
      this.#worker.once('error', onError)
      this.#worker.once('message', (m: HttpLoad | { error: string }) => {
        this.#worker.off('error', onError)
        if ('error' in m) reject(new Error(m.error))
        else resolve(m)
      })
      this.#worker.postMessage({ url, count, inFlight, check })
    })
  }

  async close(): Promise<void> {
    await this.#worker.terminate()
  }
}

/**
 * Measures the time this thread's event loop was busy (JavaScript and native work on the main
 * thread, not the worker-thread client nor the tablet server process) while `body` runs.
 */
export async function mainThreadBusy<T>(body: () => Promise<T>): Promise<{ result: T; busyMs: number }> {
  const start = performance.eventLoopUtilization()
  const result = await body()
  const used = performance.eventLoopUtilization(start)
  return { result, busyMs: used.active }
}

/** p50 and p99 of latencies, in ms. */
export function latencyExtras(latenciesMs: readonly number[], prefix = 'request'): Record<string, number> {
  return {
    [`${prefix} p50 ms`]: percentile(latenciesMs, 50),
    [`${prefix} p99 ms`]: percentile(latenciesMs, 99),
  }
}
