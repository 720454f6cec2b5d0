import type { AppendWriter } from '@sluice/client'
import { ArrowBatchWriter, initArrowCodecs, writeArrowStream } from '@sluice/core/arrow'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import { BENCH_ROW_TYPE, benchRows } from '@sluice/core/testing'
import { JsonRowWriter } from '@sluice/gateway/json'
import type { Benchmark } from '../harness.js'
import {
  type GatewayBench,
  gatewayCpu,
  HttpLoadClient,
  latencyExtras,
  mainThreadBusy,
  startGatewayBench,
} from './gateway-bench.js'

const BUCKETS = 4
const ROWS_PER_REQUEST = 500
/** Distinct request bodies, built once; a run sends them round-robin. */
const DISTINCT_BODIES = 16
/** 200,000 rows per run: about a second of either case, long enough to be past GC and JIT noise. */
const REQUESTS_PER_RUN = 400
/**
 * Untimed requests of each case before the first run: the gateway's request path (HTTP parsing,
 * body decoding, validation) and the writer's encoder reach steady state (optimized code, grown
 * heap) only after tens of thousands of rows; one warm-up pair of short runs measured mostly that.
 */
const WARM_UP_REQUESTS = 400
const IN_FLIGHT = 8
const ARROW_STREAM = 'application/vnd.apache.arrow.stream'

type BodyFormat = 'json' | 'arrow'

interface Ctx {
  readonly gw: GatewayBench
  /** The rows of body i are rows[i * ROWS_PER_REQUEST ...]. */
  readonly rows: readonly Row[]
  readonly bodies: readonly Uint8Array[]
  readonly client: HttpLoadClient
  /** The baseline's writer, kept open across runs as the gateway keeps its writer. */
  readonly writer: AppendWriter
}

function describeTable(): TableDescriptor {
  const schema = Schema.newBuilder()
  for (const f of BENCH_ROW_TYPE.fields) schema.column(f.name, f.type)
  return TableDescriptor.builder().schema(schema.build()).distributedBy(BUCKETS).build()
}

function jsonBody(rows: readonly Row[]): Uint8Array {
  const writer = new JsonRowWriter(BENCH_ROW_TYPE)
  return Buffer.from(JSON.stringify({ rows: rows.map(r => writer.write(r)) }))
}

function arrowBody(rows: readonly Row[]): Uint8Array {
  const writer = new ArrowBatchWriter(BENCH_ROW_TYPE, { initialCapacityRows: rows.length })
  for (const row of rows) writer.addRow(row)
  return writeArrowStream(BENCH_ROW_TYPE, [writer.finish()])
}

/** The subject's load: `requests` POSTs of the prepared bodies, IN_FLIGHT at a time. */
function postRequests(ctx: Ctx, requests: number) {
  return ctx.client.post(`${ctx.gw.tableUrl}/append`, requests, IN_FLIGHT, { rowCount: ROWS_PER_REQUEST })
}

/** The baseline's load: `total` rows through the SDK writer, then a flush. */
async function appendRows({ rows, writer }: Ctx, total: number): Promise<void> {
  for (let i = 0; i < total; i++) {
    const wait = writer.append(rows[i % rows.length])
    if (wait) await wait
  }
  await writer.flush()
}

/**
 * Issue #10 benchmarks: rows/s appended through the HTTP gateway (its own process, as `npm start`
 * runs it; pre-built bodies of 500 ~1 KiB rows, 8 requests in flight from a client in a worker
 * thread, each answered once all its rows are acknowledged) against the same rows appended by the
 * SDK's AppendWriter in this process (append + flush); both into one LocalCluster with one tablet
 * server, the table's default ZSTD compression and default writer and gateway settings.
 */
function gatewayAppend(format: BodyFormat, ratio: number): Benchmark<Ctx> {
  const what = format === 'json' ? 'JSON' : 'Arrow IPC stream'
  return {
    name: `gateway-append-${format}`,
    description: `HTTP gateway appends with ${what} bodies (gateway process as npm start runs it, default settings; ${ROWS_PER_REQUEST} rows of ~1 KiB per request, ${IN_FLIGHT} requests in flight from a client in a worker thread, ${BUCKETS} buckets, 1 tablet server) vs the same rows through the SDK AppendWriter directly (append + flush), same run; ${(REQUESTS_PER_RUN * ROWS_PER_REQUEST).toLocaleString('en-US')} rows per run, after ${(WARM_UP_REQUESTS * ROWS_PER_REQUEST).toLocaleString('en-US')} untimed rows of each case.`,
    unit: 'rows/s',
    better: 'higher',
    target: { ratio, note: `issue #10: ≥ ${ratio} × the SDK with ${what} bodies` },
    runs: 5,
    async setup() {
      await initArrowCodecs()
      const { rows } = benchRows(DISTINCT_BODIES * ROWS_PER_REQUEST)
      const gw = await startGatewayBench(`gateway-append-${format}`, describeTable())
      const encode = format === 'json' ? jsonBody : arrowBody
      const bodies = Array.from({ length: DISTINCT_BODIES }, (_, b) =>
        encode(rows.slice(b * ROWS_PER_REQUEST, (b + 1) * ROWS_PER_REQUEST)),
      )
      const writer = gw.table.newAppend().createWriter()
      const client = new HttpLoadClient(bodies, format === 'json' ? 'application/json' : ARROW_STREAM)
      const ctx = { gw, rows, bodies, client, writer }
      try {
        await postRequests(ctx, WARM_UP_REQUESTS)
        await appendRows(ctx, WARM_UP_REQUESTS * ROWS_PER_REQUEST)
      } catch (e) {
        await client.close()
        await writer.close().catch(() => undefined)
        await gw.stop()
        throw e
      }
      return ctx
    },
    async teardown(ctx) {
      await ctx.client.close()
      await ctx.writer.close().catch(() => undefined)
      await ctx.gw.stop()
    },
    subject: {
      name: `gateway (${format} bodies)`,
      async run(ctx) {
        const { result: load, cpuS } = await gatewayCpu(ctx.gw, () => postRequests(ctx, REQUESTS_PER_RUN))
        const rows = REQUESTS_PER_RUN * ROWS_PER_REQUEST
        return {
          value: rows / load.seconds,
          extra: {
            'µs/row': (load.seconds * 1e6) / rows,
            'gateway process CPU µs/row': (cpuS * 1e6) / rows,
            'body KiB/request': ctx.bodies[0].length / 1024,
            ...latencyExtras(load.latenciesMs),
          },
        }
      },
    },
    baseline: {
      name: 'SDK AppendWriter',
      async run(ctx) {
        const total = REQUESTS_PER_RUN * ROWS_PER_REQUEST
        const t0 = performance.now()
        const { busyMs } = await mainThreadBusy(() => appendRows(ctx, total))
        const seconds = (performance.now() - t0) / 1000
        return {
          value: total / seconds,
          extra: { 'µs/row': (seconds * 1e6) / total, 'main-thread busy µs/row': (busyMs * 1000) / total },
        }
      },
    },
  }
}

export const gatewayAppendJson = gatewayAppend('json', 0.4)
export const gatewayAppendArrow = gatewayAppend('arrow', 0.8)
