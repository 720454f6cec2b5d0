import type { Table } from '@sluice/client'
import { initArrowCodecs } from '@sluice/core/arrow'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import { BENCH_ROW_TYPE, benchRows } from '@sluice/core/testing'
import type { Benchmark, Sample } from '../harness.js'
import { type ClusterBench, startClusterBench } from '../support/cluster.js'
import { createBenchTable } from './bench-cluster.js'

const ROWS = 100_000
const BUCKETS = 3
/** Both writers: no idempotence, so that the only difference is the acknowledgement and the replicas. */
const ACKS_ALL = { 'client.writer.acks': 'all', 'client.writer.enable-idempotence': 'false' }
const ACKS_ONE = { 'client.writer.acks': '1', 'client.writer.enable-idempotence': 'false' }

interface Ctx {
  readonly bench: ClusterBench
  readonly rows: Row[]
  readonly replicated: Table
  readonly single: Table
}

function describeTable(replicationFactor: number): TableDescriptor {
  const schema = Schema.newBuilder()
  for (const f of BENCH_ROW_TYPE.fields) schema.column(f.name, f.type)
  return TableDescriptor.builder()
    .schema(schema.build())
    .distributedBy(BUCKETS)
    .property('table.replication.factor', String(replicationFactor))
    .build()
}

async function appendAll(table: Table, rows: readonly Row[]): Promise<Sample> {
  const t0 = performance.now()
  const writer = table.newAppend().createWriter()
  for (let i = 0; i < rows.length; i++) {
    const wait = writer.append(rows[i])
    if (wait) await wait
  }
  await writer.close()
  const s = (performance.now() - t0) / 1000
  return { value: rows.length / s, extra: { 'µs/row': (s * 1e6) / rows.length } }
}

/**
 * Issue #6 benchmark: AppendWriter throughput of ~1 KiB rows into a table with 3 replicas and
 * acks=all against a table with 1 replica and acks=1, on the same 3-server LocalCluster in the same
 * run (3 buckets each, so leaders spread over the servers either way). Target: ≥ 0.6.
 */
export const replication: Benchmark<Ctx> = {
  name: 'replication',
  description: `AppendWriter rows/s of ${ROWS.toLocaleString('en-US')} ~1 KiB rows (15 columns, ZSTD, ${BUCKETS} buckets, flush at end, no idempotence) into a table with replication factor 3 and acks=all vs a table with replication factor 1 and acks=1, both on the same LocalCluster of 3 tablet server processes (default replica fetch settings).`,
  unit: 'rows/s',
  better: 'higher',
  target: { ratio: 0.6, note: 'issue #6: acks=all RF=3 ≥ 0.6 × acks=1 RF=1' },
  runs: 3,
  async setup() {
    await initArrowCodecs()
    const { rows } = benchRows(ROWS)
    const bench = await startClusterBench('replication', { tabletServers: 3 })
    try {
      const all = await bench.connect(ACKS_ALL)
      const one = await bench.connect(ACKS_ONE)
      const replicated = await all.getTable(await createBenchTable(all, describeTable(3)))
      const single = await one.getTable(await createBenchTable(one, describeTable(1)))
      return { bench, rows, replicated, single }
    } catch (e) {
      await bench.stop()
      throw e
    }
  },
  teardown: ctx => ctx.bench.stop(),
  subject: {
    name: 'RF=3, acks=all',
    async run(ctx) {
      const sample = await appendAll(ctx.replicated, ctx.rows)
      // acks=all is only replication if the followers stayed in the ISR.
      const buckets = await ctx.bench.catalog.listAllBuckets(ctx.replicated.getTableInfo().tableId)
      const isr = Math.min(...buckets.map(b => b.leaderAndIsr.isr.length))
      return { value: sample.value, extra: { ...sample.extra, 'smallest ISR after the run': isr } }
    },
  },
  baseline: { name: 'RF=1, acks=1', run: ctx => appendAll(ctx.single, ctx.rows) },
}
