import type { Lookuper, Table } from '@sluice/client'
import { initArrowCodecs } from '@sluice/core/arrow'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { DataTypes, notNull } from '@sluice/core/types'
import type { Benchmark } from '../harness.js'
import { percentileOf, runConcurrent } from '../support/concurrent.js'
import { preloadRedis, type RedisPeer, redisGetBenchmark, startRedis, stopRedis } from '../support/redis.js'
import { type BenchCluster, createBenchTable, startBenchCluster } from './bench-cluster.js'

const KEYS = 100_000
const VALUE_BYTES = 1024
const CLIENTS = 50
const REQUESTS = 200_000
const BUCKETS = 4
/** Lookups go out at once (the default batch-timeout of 100 ms is for throughput, not latency). */
const LOOKUP_CONFIG = { 'client.lookup.batch-timeout': '0ms' }

interface Ctx {
  readonly bench: BenchCluster
  readonly table: Table
  readonly lookuper: Lookuper
  readonly redis: RedisPeer
  /** The newest Redis p99, for the subject's p99 ratio. */
  redisP99Ms: number
}

function value(i: number): Buffer {
  const out = Buffer.alloc(VALUE_BYTES, 0x61 + (i % 26))
  out.writeUInt32BE(i, 0)
  return out
}

async function preloadTable(bench: BenchCluster): Promise<Table> {
  const schema = Schema.newBuilder()
    .column('id', notNull(DataTypes.BIGINT()))
    .column('payload', DataTypes.BYTES())
    .primaryKey('id')
    .build()
  const descriptor = TableDescriptor.builder().schema(schema).distributedBy(BUCKETS).build()
  const table = await bench.connection.getTable(await createBenchTable(bench.connection, descriptor))
  const writer = table.newUpsert().createWriter()
  for (let i = 0; i < KEYS; i++) {
    const wait = writer.upsert([BigInt(i), value(i)])
    if (wait) await wait
  }
  await writer.close()
  return table
}

/** Sets the table up; a failure says plainly that primary-key tables do not work on a LocalCluster. */
async function setupTable(bench: BenchCluster): Promise<{ table: Table; lookuper: Lookuper }> {
  try {
    const table = await preloadTable(bench)
    const lookuper = table.newLookup().createLookuper()
    const row = (await lookuper.lookup([BigInt(KEYS - 1)])).singletonRow()
    if (row === null || !Buffer.from(row[1] as Uint8Array).equals(value(KEYS - 1)))
      throw new Error(`key ${KEYS - 1} was upserted but its lookup returned ${JSON.stringify(row)}`)
    return { table, lookuper }
  } catch (e) {
    throw new Error(
      `pk-lookup setup: a primary-key table on a LocalCluster (upsert ${KEYS} rows, then look one up) failed: ${String(e)}`,
      { cause: e },
    )
  }
}

/**
 * Issue #4 benchmark (a): point lookups of 1 KiB values at 50 concurrent requests through the SDK's
 * Lookuper (LocalCluster, 1 tablet server, 100,000 preloaded keys) against Redis GET at 50 clients
 * (redis-benchmark, same key count and value size). Targets: ≥ 1.0× Redis throughput and p99
 * ≤ 2× Redis p99 (the p99 ratio is in the subject's extras).
 */
export const pkLookup: Benchmark<Ctx> = {
  name: 'pk-lookup',
  description: `Point lookups/s of random keys among ${KEYS.toLocaleString('en-US')} rows with ${VALUE_BYTES}-byte values at ${CLIENTS} concurrent requests: SDK Lookuper (client.lookup.batch-timeout 0, ${BUCKETS} buckets, 1 tablet server in a LocalCluster, ${REQUESTS.toLocaleString('en-US')} lookups per run) vs redis-server GET (redis-benchmark -c ${CLIENTS} -d ${VALUE_BYTES} -r ${KEYS}, no pipelining, same number of requests; all keys preloaded).`,
  unit: 'ops/s',
  better: 'higher',
  target: { ratio: 1.0, note: 'issue #4 (a): ≥ 1.0× Redis GET throughput; p99 ≤ 2× Redis p99 (see extras)' },
  runs: 5,
  async setup() {
    await initArrowCodecs()
    const bench = await startBenchCluster('pk-lookup', LOOKUP_CONFIG)
    let redis: RedisPeer | undefined
    try {
      const { table, lookuper } = await setupTable(bench)
      redis = await startRedis()
      await preloadRedis(redis, KEYS, VALUE_BYTES)
      return { bench, table, lookuper, redis, redisP99Ms: Number.NaN }
    } catch (e) {
      if (redis) await stopRedis(redis)
      await bench.stop()
      throw e
    }
  },
  async teardown(ctx) {
    await stopRedis(ctx.redis)
    await ctx.bench.stop()
  },
  subject: {
    name: `SDK Lookuper, ${CLIENTS} concurrent`,
    async run(ctx) {
      let missing = 0
      const { seconds, latenciesMs } = await runConcurrent(CLIENTS, REQUESTS, async () => {
        const key = Math.floor(Math.random() * KEYS)
        if ((await ctx.lookuper.lookup([BigInt(key)])).singletonRow() === null) missing++
      })
      if (missing > 0) throw new Error(`${missing} of ${REQUESTS} preloaded keys were not found`)
      const p99 = percentileOf(latenciesMs, 99)
      return {
        value: REQUESTS / seconds,
        extra: {
          'p50 ms': percentileOf(latenciesMs, 50),
          'p99 ms': p99,
          'p99 / Redis p99 (target ≤ 2)': p99 / ctx.redisP99Ms,
        },
      }
    },
  },
  baseline: {
    name: `Redis GET, ${CLIENTS} clients`,
    async run(ctx) {
      const r = await redisGetBenchmark(ctx.redis, {
        clients: CLIENTS,
        requests: REQUESTS,
        keys: KEYS,
        valueBytes: VALUE_BYTES,
      })
      ctx.redisP99Ms = r.p99Ms
      return { value: r.opsPerSec, extra: { 'p50 ms': r.p50Ms, 'p99 ms': r.p99Ms } }
    },
  },
}
