import { Connection, type Table } from '@sluice/client'
import { FakeCluster, readOnlyHandlers, tabletHandlers } from '@sluice/client/testing'
import {
  ArrowBatchWriter,
  type ArrowCompressionInfo,
  DEFAULT_COMPRESSION,
  initArrowCodecs,
  NO_COMPRESSION,
} from '@sluice/core/arrow'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import { type Handler, RpcServer } from '@sluice/core/rpc'
import { BENCH_ROW_TYPE, benchRows } from '@sluice/core/testing'
import type { Benchmark } from '../harness.js'
import { type BenchCluster, createBenchTable, startBenchCluster } from './bench-cluster.js'

const ROWS = 40_000
const BUCKETS = 4
const ENCODE_BATCH_ROWS = 2048
/** The writer settings of both cases: acks=1, no idempotence, defaults otherwise. */
const WRITER_CONFIG = { 'client.writer.acks': '1', 'client.writer.enable-idempotence': 'false' }

interface NoopSink {
  readonly fake: FakeCluster
  readonly server: RpcServer
  readonly connection: Connection
  readonly table: Table
  produceRequests: number
}

interface Ctx {
  readonly rows: Row[]
  readonly bench: BenchCluster
  readonly table: Table
  readonly sink: NoopSink
}

/** The benchmark table: the ~1 KiB bench rows, 4 buckets. */
export function describeTable(): TableDescriptor {
  const schema = Schema.newBuilder()
  for (const f of BENCH_ROW_TYPE.fields) schema.column(f.name, f.type)
  return TableDescriptor.builder().schema(schema.build()).distributedBy(BUCKETS).build()
}

/**
 * The no-op sink: FakeCluster's coordinator for DDL and metadata, and in place of its tablet server
 * an in-process RpcServer whose PRODUCE_LOG answers success at once without storing anything.
 */
async function startNoopSink(): Promise<NoopSink> {
  const fake = await FakeCluster.start({ tabletServers: 1 })
  const server = new RpcServer({ role: 'tablet' })
  const offsets = new Map<number, number>()
  const sinkState = { produceRequests: 0 }
  let connection: Connection | undefined
  try {
    const sink: Handler<'PRODUCE_LOG'> = r => {
      sinkState.produceRequests++
      return {
        bucketsResp: r.bucketsReq.map(b => {
          const base = offsets.get(b.bucketId) ?? 0
          offsets.set(b.bucketId, base + b.records.readInt32LE(44))
          return { bucketId: b.bucketId, partitionId: b.partitionId, baseOffset: base }
        }),
      }
    }
    server.registerAll({
      ...readOnlyHandlers(fake.state, fake.stats),
      ...tabletHandlers(fake.state, 1, fake.stats, {}),
      PRODUCE_LOG: sink,
    })
    const address = await server.start()
    fake.state.tabletServers[0] = { nodeId: 1, host: '127.0.0.1', port: address.port }
    connection = await Connection.create({ 'bootstrap.servers': fake.bootstrapServers, ...WRITER_CONFIG })
    const path = await createBenchTable(connection, describeTable())
    const table = await connection.getTable(path)
    return Object.assign(sinkState, { fake, server, connection, table })
  } catch (e) {
    await connection?.close().catch(() => undefined)
    await server.close(0).catch(() => undefined)
    await fake.close()
    throw e
  }
}

/** Appends every row through a new writer and waits for all acknowledgements; returns seconds. */
export async function appendAll(table: Table, rows: readonly Row[]): Promise<number> {
  const t0 = performance.now()
  const writer = table.newAppend().createWriter()
  for (let i = 0; i < rows.length; i++) {
    const wait = writer.append(rows[i])
    if (wait) await wait
  }
  await writer.close()
  return (performance.now() - t0) / 1000
}

/** Encodes the rows into Arrow batches (with `compression`), nothing else; returns seconds. */
function encodeOnly(rows: readonly Row[], compression: ArrowCompressionInfo): number {
  const t0 = performance.now()
  const writer = new ArrowBatchWriter(BENCH_ROW_TYPE, { compression, initialCapacityRows: ENCODE_BATCH_ROWS })
  for (let i = 0; i < rows.length; i++) {
    writer.addRow(rows[i])
    if (writer.recordCount === ENCODE_BATCH_ROWS) {
      writer.finish()
      writer.reset()
    }
  }
  if (writer.recordCount > 0) writer.finish()
  return (performance.now() - t0) / 1000
}

/**
 * Issue #3 benchmark (b): rows/s of the SDK's AppendWriter (~1 KiB rows, 15 columns, the table's
 * default ZSTD compression, acks=1, flush at the end) into a LocalCluster with one tablet server,
 * against the same SDK writing to a no-op sink in this process. Extras split the sink run's time:
 * Arrow encoding plus compression alone (same rows, same compression, 2048-row batches) and the
 * rest of the client (validation, batching, requests).
 */
export const sdkAppend: Benchmark<Ctx> = {
  name: 'sdk-append',
  description:
    'SDK end to end: AppendWriter rows/s of ~1 KiB rows (15 columns, ZSTD, 4 buckets, acks=1, flush at end) into a LocalCluster with 1 tablet server vs the same SDK writing to an in-process no-op sink (PRODUCE_LOG answered without storing).',
  unit: 'rows/s',
  better: 'higher',
  runs: 5,
  async setup() {
    await initArrowCodecs()
    const { rows } = benchRows(ROWS)
    const bench = await startBenchCluster('sdk-append', WRITER_CONFIG)
    try {
      const path = await createBenchTable(bench.connection, describeTable())
      const table = await bench.connection.getTable(path)
      const sink = await startNoopSink()
      return { rows, bench, table, sink }
    } catch (e) {
      await bench.stop()
      throw e
    }
  },
  async teardown(ctx) {
    await ctx.sink.connection.close().catch(() => undefined)
    await ctx.sink.server.close(0).catch(() => undefined)
    await ctx.sink.fake.close()
    await ctx.bench.stop()
  },
  subject: {
    name: 'AppendWriter → tablet server',
    async run({ rows, table }) {
      const s = await appendAll(table, rows)
      return { value: rows.length / s, extra: { 'µs/row': (s * 1e6) / rows.length } }
    },
  },
  baseline: {
    name: 'AppendWriter → no-op sink',
    async run({ rows, sink }) {
      const s = await appendAll(sink.table, rows)
      const encodeS = encodeOnly(rows, DEFAULT_COMPRESSION)
      const plainS = encodeOnly(rows, NO_COMPRESSION)
      const perRow = (x: number) => (x * 1e6) / rows.length
      return {
        value: rows.length / s,
        extra: {
          'µs/row': perRow(s),
          'encode+ZSTD µs/row': perRow(encodeS),
          'of which ZSTD µs/row': perRow(encodeS - plainS),
          'rest of the client µs/row': perRow(s - encodeS),
          'encode+ZSTD share of sink time %': (encodeS / s) * 100,
        },
      }
    },
  },
}
