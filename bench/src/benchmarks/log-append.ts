import { closeSync, openSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { ArrowBatchWriter, BENCH_ROW_TYPE, benchRows, initArrowCodecs } from '@sluice/core/arrow'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { buildLogBatch } from '@sluice/core/record'
import { ServerConnection } from '@sluice/core/rpc'
import type { Benchmark, Sample } from '../harness.js'
import { type BenchCluster, createBenchTable, startBenchCluster } from './bench-cluster.js'

interface Ctx {
  readonly bench: BenchCluster
  readonly producer: ServerConnection
  readonly tableId: number
  /** Pre-encoded log batches, sent (and written) in this order, round-robin over the buckets. */
  readonly batches: readonly Buffer[]
  readonly rowsPerBatch: number
  readonly totalBytes: number
  runs: number
}

const BUCKETS = 4
const ROWS_PER_BATCH = 128
/** Distinct batches built once; a run sends them SENDS_PER_BATCH times over. */
const DISTINCT_BATCHES = 64
const SENDS_PER_BATCH = 8
const IN_FLIGHT = 8

function describeTable(): TableDescriptor {
  const schema = Schema.newBuilder()
  for (const f of BENCH_ROW_TYPE.fields) schema.column(f.name, f.type)
  return TableDescriptor.builder()
    .schema(schema.build())
    .distributedBy(BUCKETS)
    .property('table.log.arrow.compression.type', 'NONE')
    .build()
}

function buildBatches(schemaId: number): Buffer[] {
  const { rows } = benchRows(DISTINCT_BATCHES * ROWS_PER_BATCH)
  const writer = new ArrowBatchWriter(BENCH_ROW_TYPE, { initialCapacityRows: ROWS_PER_BATCH })
  const batches: Buffer[] = []
  for (let b = 0; b < DISTINCT_BATCHES; b++) {
    for (let i = 0; i < ROWS_PER_BATCH; i++) writer.addRow(rows[b * ROWS_PER_BATCH + i])
    batches.push(
      buildLogBatch({ schemaId, appendOnly: true, recordCount: ROWS_PER_BATCH, records: writer.finish() }),
    )
    writer.reset()
  }
  return batches
}

function sample(ctx: Ctx, seconds: number): Sample {
  const records = ctx.batches.length * SENDS_PER_BATCH * ctx.rowsPerBatch
  return {
    value: ctx.totalBytes / 1e6 / seconds,
    extra: { 'records/s': records / seconds, MB: ctx.totalBytes / 1e6 },
  }
}

/**
 * Issue #3 benchmark (a): PRODUCE_LOG acks=1 of pre-encoded ~1 KiB-row Arrow batches (128 rows,
 * ~120 KiB, uncompressed) over one raw connection with 8 requests in flight, against appending the
 * same bytes to a file in the same directory with one write per batch (page cache, no fsync on
 * either side).
 */
export const logAppend: Benchmark<Ctx> = {
  name: 'log-append',
  description:
    'Tablet server append throughput: PRODUCE_LOG acks=1 of pre-encoded 128-row Arrow batches of ~1 KiB rows (uncompressed, 4 buckets, 8 requests in flight, one raw connection, 1 tablet server in a LocalCluster) vs fs.writeSync of the same batch bytes to a file in the same temp dir.',
  unit: 'MB/s',
  better: 'higher',
  target: { ratio: 0.5, note: 'issue #3 (a): ≥ 50% of a raw file append of the same bytes' },
  runs: 5,
  async setup() {
    await initArrowCodecs()
    const bench = await startBenchCluster('log-append')
    try {
      const path = await createBenchTable(bench.connection, describeTable())
      const info = await bench.connection.getAdmin().getTableInfo(path)
      const batches = buildBatches(info.schemaId)
      const producer = await ServerConnection.connect({
        ...bench.tablet,
        maxInFlight: IN_FLIGHT * 2,
        requestTimeoutMs: 60_000,
      })
      const totalBytes = batches.reduce((n, b) => n + b.length, 0) * SENDS_PER_BATCH
      return {
        bench,
        producer,
        tableId: info.tableId,
        batches,
        rowsPerBatch: ROWS_PER_BATCH,
        totalBytes,
        runs: 0,
      }
    } catch (e) {
      await bench.stop()
      throw e
    }
  },
  async teardown(ctx) {
    ctx.producer.close()
    await ctx.bench.stop()
  },
  subject: {
    name: 'PRODUCE_LOG acks=1',
    async run(ctx) {
      const total = ctx.batches.length * SENDS_PER_BATCH
      let next = 0
      const t0 = performance.now()
      const lane = async () => {
        while (next < total) {
          const i = next++
          const response = await ctx.producer.request('PRODUCE_LOG', {
            acks: 1,
            tableId: ctx.tableId,
            timeoutMs: 30_000,
            bucketsReq: [{ bucketId: i % BUCKETS, records: ctx.batches[i % ctx.batches.length] }],
          })
          const error = response.bucketsResp[0]?.errorCode
          if (error)
            throw new Error(`PRODUCE_LOG failed with error ${error}: ${response.bucketsResp[0].errorMessage}`)
        }
      }
      await Promise.all(Array.from({ length: IN_FLIGHT }, lane))
      return sample(ctx, (performance.now() - t0) / 1000)
    },
  },
  baseline: {
    name: 'fs.writeSync of the same bytes',
    async run(ctx) {
      const file = join(ctx.bench.dataDir, `append-baseline-${ctx.runs++}.log`)
      const fd = openSync(file, 'a')
      const total = ctx.batches.length * SENDS_PER_BATCH
      const t0 = performance.now()
      try {
        for (let i = 0; i < total; i++) writeSync(fd, ctx.batches[i % ctx.batches.length])
      } finally {
        closeSync(fd)
      }
      const s = (performance.now() - t0) / 1000
      rmSync(file, { force: true })
      return sample(ctx, s)
    },
  },
}
