import type { Table } from '@sluice/client'
import { initArrowCodecs } from '@sluice/core/arrow'
import type { BlobStore } from '@sluice/core/blobstore'
import { Configuration } from '@sluice/core/config'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import { BENCH_ROW_TYPE, benchRows } from '@sluice/core/testing'
import { sleep } from '@sluice/core/util'
import { type LocalTieringScheduler, startLocalTieringScheduler } from '@sluice/tiering'
import type { Benchmark, Sample } from '../harness.js'
import { percentile } from '../harness.js'
import { type ClusterBench, startClusterBench } from '../support/cluster.js'
import { type LagSample, LakeLagProbe } from '../support/lake-lag.js'
import { SteadyWriter } from '../support/steady-writer.js'
import { createBenchTable } from './bench-cluster.js'

const FRESHNESS_S = 30
const BUCKETS = 2
/** 2,000 rows/s of ~1 KiB: 100 rows every 50 ms. */
const ROWS_PER_TICK = 100
const TICK_MS = 50
/** Each subject run samples the lag once a second for this long while the writes go on. */
const WINDOW_MS = 40_000
const SAMPLE_EVERY_MS = 1000
/** `npm start`'s default tiering scheduler period (SLUICE_TIERING_INTERVAL_MS). */
const TIERING_INTERVAL_MS = 5000
/** Lake tables need a cluster lake format (LocalCluster does not set one). */
const CLUSTER_CONFIG = { 'datalake.format': 'iceberg' }
/** Scheduler errors kept for the failure message. */
const PASS_ERRORS_KEPT = 10

interface Ctx {
  readonly bench: ClusterBench
  readonly table: Table
  readonly writer: SteadyWriter
  readonly tiering: LocalTieringScheduler
  /** The tiering scheduler's and the probe's store handles (closed in teardown). */
  readonly stores: { readonly metaStore: MetaStore; readonly blobStore: BlobStore }
  readonly probe: LakeLagProbe
  readonly passErrors: string[]
  rounds: number
}

async function closeStores(stores: Ctx['stores'] | undefined): Promise<void> {
  await stores?.metaStore.close().catch(() => undefined)
  await stores?.blobStore.close().catch(() => undefined)
}

async function sampleWindow(ctx: Ctx): Promise<Sample> {
  const samples: LagSample[] = []
  const roundsBefore = ctx.rounds
  const appendedBefore = ctx.writer.appended
  const started = Date.now()
  const deadline = Date.now() + WINDOW_MS
  while (Date.now() < deadline) {
    samples.push(await ctx.probe.sample())
    await sleep(SAMPLE_EVERY_MS)
  }
  const s = (pick: (x: LagSample) => number | undefined) =>
    samples
      .map(pick)
      .filter((v): v is number => v !== undefined)
      .map(ms => ms / 1000)
  const lake = s(x => x.lakeLagMs)
  const last = samples[samples.length - 1]
  if (lake.length === 0) {
    throw new Error(
      `lake-lag: no lake snapshot after ${WINDOW_MS / 1000} s of writes (${ctx.writer.appended} rows appended, remote-log lag ${last?.remoteLagMs ?? 'none: no segment uploaded'} ms, tiering rounds ${ctx.rounds}, LAKE item error: ${last?.lastError ?? 'none'}, scheduler errors: ${ctx.passErrors.slice(-3).join(' | ') || 'none'}, writer errors: ${ctx.writer.errors.length})`,
    )
  }
  const worst = s(x => x.worstBucketLakeLagMs)
  const remote = s(x => x.remoteLagMs)
  return {
    value: Math.max(...lake),
    extra: {
      'median lake lag s': percentile(lake, 50),
      'p90 lake lag s': percentile(lake, 90),
      'max lag of the worst bucket s': Math.max(...worst),
      'median remote-log lag s': percentile(remote, 50),
      'max remote-log lag s': Math.max(...remote),
      'tiering rounds in window': ctx.rounds - roundsBefore,
      'samples without lake data': samples.length - lake.length,
      'rows/s appended': ((ctx.writer.appended - appendedBefore) * 1000) / (Date.now() - started),
      'writer errors': ctx.writer.errors.length,
    },
  }
}

/**
 * Issue #8 benchmark: lake lag under steady writes. A LocalCluster (1 tablet server) with the local
 * tiering scheduler (`npm start`'s: every 5 s) holds a lake-enabled log table with
 * `table.datalake.freshness` 30 s; a writer appends ~2,000 rows/s of ~1 KiB for the whole
 * benchmark. Each subject run samples, once a second for 40 s, now − the newest commit timestamp
 * of the rows in the lake (from the LAKE item's tiered offsets and the remote log manifests) and
 * reports the largest; the warm-up run covers the start. The baseline is the configured bound,
 * not a measurement. Target: ≤ freshness + 15 s.
 */
export const lakeLag: Benchmark<Ctx> = {
  name: 'lake-lag',
  description: `Lake lag under steady writes: the largest (now − newest commit timestamp of a row in the lake's latest snapshot), sampled every second over ${WINDOW_MS / 1000} s windows, while ~2,000 rows/s of ~1 KiB (${BUCKETS} buckets) are appended to a log table with table.datalake.enabled and table.datalake.freshness ${FRESHNESS_S}s on a LocalCluster (1 tablet server, datalake.format iceberg, default remote log settings) with the local tiering scheduler every ${TIERING_INTERVAL_MS / 1000} s; extras: median and p90 lag, the lag of the remote log (tiering's input). Baseline: the configured freshness (a bound, not measured).`,
  unit: 's',
  better: 'lower',
  target: { ratio: (FRESHNESS_S + 15) / FRESHNESS_S, note: 'issue #8: lake lag ≤ freshness + 15 s' },
  runs: 3,
  async setup() {
    await initArrowCodecs()
    const bench = await startClusterBench('lake-lag', { tabletServers: 1, serverConfig: CLUSTER_CONFIG })
    const ctx: {
      bench: ClusterBench
      passErrors: string[]
      rounds: number
      stores?: Ctx['stores']
      tiering?: LocalTieringScheduler
    } = { bench, passErrors: [], rounds: 0 }
    try {
      const connection = await bench.connect()
      const schema = Schema.newBuilder()
      for (const f of BENCH_ROW_TYPE.fields) schema.column(f.name, f.type)
      const descriptor = TableDescriptor.builder()
        .schema(schema.build())
        .distributedBy(BUCKETS)
        .property('table.datalake.enabled', 'true')
        .property('table.datalake.freshness', `${FRESHNESS_S}s`)
        .build()
      const table = await connection.getTable(await createBenchTable(connection, descriptor))
      const stores = { metaStore: bench.cluster.aws.metaStore(), blobStore: bench.cluster.aws.blobStore() }
      ctx.stores = stores
      ctx.tiering = await startLocalTieringScheduler({
        config: Configuration.load({ ...bench.cluster.aws.config }),
        intervalMs: TIERING_INTERVAL_MS,
        ...stores,
        onPass: summary => {
          ctx.rounds += (summary.rounds ?? []).length
          if (summary.error === undefined) return
          ctx.passErrors.push(summary.error)
          if (ctx.passErrors.length > PASS_ERRORS_KEPT) ctx.passErrors.shift()
        },
      })
      const probe = new LakeLagProbe(
        stores.metaStore,
        stores.blobStore,
        table.getTableInfo().tableId,
        BUCKETS,
      )
      const writer = new SteadyWriter(table, benchRows(10_000).rows, ROWS_PER_TICK, TICK_MS).start()
      return Object.assign(ctx, { table, writer, tiering: ctx.tiering, stores, probe })
    } catch (e) {
      await ctx.tiering?.stop().catch(() => undefined)
      await closeStores(ctx.stores)
      await bench.stop()
      throw e
    }
  },
  async teardown(ctx) {
    await ctx.writer.stop()
    await ctx.tiering.stop()
    await closeStores(ctx.stores)
    await ctx.bench.stop()
  },
  subject: { name: 'lake lag (max in window)', run: sampleWindow },
  baseline: {
    name: 'table.datalake.freshness (configured bound)',
    async run() {
      return { value: FRESHNESS_S }
    },
  },
}
