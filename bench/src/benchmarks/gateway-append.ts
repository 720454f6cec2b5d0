import type { AppendWriter } from '@sluice/client'
import {
  ArrowBatchWriter,
  BENCH_ROW_TYPE,
  benchRows,
  initArrowCodecs,
  writeArrowStream,
} from '@sluice/core/arrow'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import { JsonRowWriter } from '@sluice/gateway/json'
import type { Benchmark } from '../harness.js'
import {
  type GatewayBench,
  HttpLoadClient,
  latencyExtras,
  mainThreadBusy,
  startGatewayBench,
} from './gateway-bench.js'

const BUCKETS = 4
const ROWS_PER_REQUEST = 500
/** Distinct request bodies, built once; a run sends them round-robin. */
const DISTINCT_BODIES = 16
const REQUESTS_PER_RUN = 80
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

/**
 * Issue #10 benchmarks: rows/s appended through the HTTP gateway (pre-built bodies of 500 ~1 KiB
 * rows, 8 requests in flight from a client in a worker thread, each answered once all its rows are
 * acknowledged) against the same rows appended by the SDK's AppendWriter in this process (append +
 * flush); both into one LocalCluster with one tablet server, the table's default ZSTD compression
 * and default writer settings.
 */
function gatewayAppend(format: BodyFormat, ratio: number): Benchmark<Ctx> {
  const what = format === 'json' ? 'JSON' : 'Arrow IPC stream'
  return {
    name: `gateway-append-${format}`,
    description: `HTTP gateway appends with ${what} bodies (${ROWS_PER_REQUEST} rows of ~1 KiB per request, ${IN_FLIGHT} requests in flight from a client in a worker thread, ${BUCKETS} buckets, 1 tablet server) vs the same rows through the SDK AppendWriter directly (append + flush), same run.`,
    unit: 'rows/s',
    better: 'higher',
    target: { ratio, note: `issue #10: ≥ ${ratio} × the SDK with ${what} bodies` },
    runs: 3,
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
      return { gw, rows, bodies, client, writer }
    },
    async teardown(ctx) {
      await ctx.client.close()
      await ctx.writer.close().catch(() => undefined)
      await ctx.gw.stop()
    },
    subject: {
      name: `gateway (${format} bodies)`,
      async run({ gw, bodies, client }) {
        const url = `${gw.tableUrl}/append`
        const { result: load, busyMs } = await mainThreadBusy(() =>
          client.post(url, REQUESTS_PER_RUN, IN_FLIGHT, { rowCount: ROWS_PER_REQUEST }),
        )
        const rows = REQUESTS_PER_RUN * ROWS_PER_REQUEST
        return {
          value: rows / load.seconds,
          extra: {
            'µs/row': (load.seconds * 1e6) / rows,
            'main-thread busy µs/row': (busyMs * 1000) / rows,
            'body KiB/request': bodies[0].length / 1024,
            ...latencyExtras(load.latenciesMs),
          },
        }
      },
    },
    baseline: {
      name: 'SDK AppendWriter',
      async run({ rows, writer }) {
        const total = REQUESTS_PER_RUN * ROWS_PER_REQUEST
        const t0 = performance.now()
        const { busyMs } = await mainThreadBusy(async () => {
          for (let i = 0; i < total; i++) {
            const wait = writer.append(rows[i % rows.length])
            if (wait) await wait
          }
          await writer.flush()
        })
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
