import type { Table } from '@sluice/client'
import { initArrowCodecs } from '@sluice/core/arrow'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import { benchRows } from '@sluice/core/testing'
import { DataTypes } from '@sluice/core/types'
import type { Benchmark } from '../harness.js'
import { type BenchCluster, createBenchTable, startBenchCluster } from './bench-cluster.js'
import { appendAll, describeTable } from './sdk-append.js'

const APPEND_ROWS = 40_000
const KEYS = 20_000
const LOOKUPS = 40_000
const IN_FLIGHT = 50
const WRITER_CONFIG = {
  'client.writer.acks': '1',
  'client.writer.enable-idempotence': 'false',
  'client.lookup.batch-timeout': '0ms',
}

/** A cluster with its tablet server's metrics on (and scraped every second, as Prometheus would) or off. */
interface Side {
  readonly bench: BenchCluster
  readonly log: Table
  readonly kv: Table
  readonly scraper: NodeJS.Timeout | undefined
  scrapes: number
}

interface Ctx {
  readonly rows: Row[]
  readonly on: Side
  readonly off: Side
}

async function startSide(name: string, metrics: boolean): Promise<Side> {
  const bench = await startBenchCluster(name, WRITER_CONFIG, { metrics })
  const log = await bench.connection.getTable(await createBenchTable(bench.connection, describeTable()))
  const kvSchema = Schema.newBuilder()
    .column('k', { ...DataTypes.BIGINT(), nullable: false })
    .column('v', DataTypes.STRING())
  const kvPath = await createBenchTable(
    bench.connection,
    TableDescriptor.builder().schema(kvSchema.primaryKey('k').build()).distributedBy(4).build(),
  )
  const kv = await bench.connection.getTable(kvPath)
  const writer = kv.newUpsert().createWriter()
  for (let i = 0; i < KEYS; i++) {
    const wait = writer.upsert([BigInt(i), `value-${i}`])
    if (wait) await wait
  }
  await writer.close()
  const url = bench.cluster.tablet(1).metricsUrl
  const side: Side = { bench, log, kv, scraper: undefined, scrapes: 0 }
  if (metrics) {
    if (url === undefined) throw new Error('the tablet server printed no metrics URL')
    const scraper = setInterval(() => {
      void fetch(url)
        .then(r => r.text())
        .then(() => side.scrapes++)
    }, 1000)
    return Object.assign(side, { scraper })
  }
  return side
}

async function stopSide(side: Side): Promise<void> {
  if (side.scraper !== undefined) clearInterval(side.scraper)
  await side.bench.stop()
}

/** LOOKUPS point lookups of random keys, IN_FLIGHT at a time; returns lookups/s. */
async function lookups(table: Table): Promise<number> {
  const lookuper = table.newLookup().createLookuper()
  const t0 = performance.now()
  let next = 0
  const worker = async () => {
    while (next < LOOKUPS) {
      next++
      await lookuper.lookup([BigInt(Math.floor(Math.random() * KEYS))])
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  return LOOKUPS / ((performance.now() - t0) / 1000)
}

function overheadBenchmark(kind: 'sdk-append' | 'pk-lookup'): Benchmark<Ctx> {
  const run = async (ctx: Ctx, side: Side) =>
    kind === 'sdk-append'
      ? { value: ctx.rows.length / (await appendAll(side.log, ctx.rows)), extra: { scrapes: side.scrapes } }
      : { value: await lookups(side.kv), extra: { scrapes: side.scrapes } }
  return {
    name: `metrics-${kind}`,
    description:
      kind === 'sdk-append'
        ? 'Cost of metrics on the write path: SDK AppendWriter rows/s (~1 KiB rows, ZSTD, 4 buckets, acks=1) into a 1-tablet-server LocalCluster with metrics.reporters=prometheus (scraped every second) vs an identical cluster without metrics, in the same run.'
        : 'Cost of metrics on the lookup path: point lookups/s (50 in flight, 20,000 keys, 4 buckets, client.lookup.batch-timeout 0) against a 1-tablet-server LocalCluster with metrics.reporters=prometheus (scraped every second) vs an identical cluster without metrics, in the same run.',
    unit: kind === 'sdk-append' ? 'rows/s' : 'lookups/s',
    better: 'higher',
    target: { ratio: 0.98 },
    runs: 5,
    async setup() {
      await initArrowCodecs()
      const { rows } = benchRows(APPEND_ROWS)
      const on = await startSide(`metrics-on-${kind}`, true)
      try {
        return { rows, on, off: await startSide(`metrics-off-${kind}`, false) }
      } catch (e) {
        await stopSide(on)
        throw e
      }
    },
    async teardown(ctx) {
      await stopSide(ctx.on)
      await stopSide(ctx.off)
    },
    subject: { name: 'metrics on (scraped every 1 s)', run: ctx => run(ctx, ctx.on) },
    baseline: { name: 'metrics off', run: ctx => run(ctx, ctx.off) },
  }
}

export const metricsSdkAppend = overheadBenchmark('sdk-append')
export const metricsPkLookup = overheadBenchmark('pk-lookup')
