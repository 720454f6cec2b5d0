import type { Table } from '@sluice/client'
import { initArrowCodecs } from '@sluice/core/arrow'
import { TABLET_SERVER_NODE_FLAGS } from '@sluice/core/config'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { DataTypes, notNull } from '@sluice/core/types'
import type { Benchmark } from '../harness.js'
import { preloadRedis, type RedisPeer, redisGetBenchmark, startRedis, stopRedis } from '../support/redis.js'
import { type BenchCluster, createBenchTable, startBenchCluster } from './bench-cluster.js'
import { LoadClient } from './pk-lookup-load.js'

const KEYS = 100_000
const VALUE_BYTES = 1024
const CLIENTS = 50
const REQUESTS = 200_000
/**
 * Untimed lookups before the runs (random keys, like the runs): the benchmark compares lookups
 * with a warm cache, as Redis holds every key in memory; 400,000 random lookups touch ~98% of the
 * keys, so the tablet server's row cache (`sluice.tablet-server.kv.row-cache-size`) holds them.
 */
const WARM_UP_REQUESTS = 400_000
const BUCKETS = 4
/** Lookups go out at once (the default batch-timeout of 100 ms is for throughput, not latency). */
export const LOOKUP_CONFIG = { 'client.lookup.batch-timeout': '0ms' }
/** V8 heap settings of the load client: with the defaults it falls into back-to-back mark-compacts. */
export const CLIENT_NODE_ARGS: readonly string[] = ['--max-semi-space-size=8', '--initial-old-space-size=256']

interface Ctx {
  readonly bench: BenchCluster
  readonly client: LoadClient
  readonly redis: RedisPeer
  /** The p99 of a Redis run whose subject run of the same pair comes next (else NaN). */
  redisP99Ms: number
  /** The extras of a subject run whose Redis run of the same pair comes next. */
  pendingSubject: { readonly p99Ms: number; readonly extra: Record<string, number> } | undefined
}

const P99_RATIO = 'p99 / Redis p99 (target ≤ 2)'

/**
 * The harness runs subject and baseline in pairs (one warm-up pair, then alternating which goes
 * first), so the p99 ratio of a subject run is taken against the Redis run of its own pair: the one
 * just before it, or, when the subject went first, the one just after it (which then fills in the
 * subject's extras; the harness summarizes the extras after all runs).
 */
function pairSubjectP99(ctx: Ctx, p99Ms: number, extra: Record<string, number>): void {
  if (Number.isFinite(ctx.redisP99Ms)) {
    extra[P99_RATIO] = p99Ms / ctx.redisP99Ms
    ctx.redisP99Ms = Number.NaN
  } else {
    extra[P99_RATIO] = Number.NaN
    ctx.pendingSubject = { p99Ms, extra }
  }
}

function pairRedisP99(ctx: Ctx, redisP99Ms: number): void {
  const pending = ctx.pendingSubject
  if (pending !== undefined) {
    pending.extra[P99_RATIO] = pending.p99Ms / redisP99Ms
    ctx.pendingSubject = undefined
  } else {
    ctx.redisP99Ms = redisP99Ms
  }
}

/** The value of key `i` (VALUE_BYTES bytes). */
export function value(i: number): Buffer {
  const out = Buffer.alloc(VALUE_BYTES, 0x61 + (i % 26))
  out.writeUInt32BE(i, 0)
  return out
}

/** A primary-key table with keys 0..keys-1 upserted (1 KiB values), through `bench.connection`. */
export async function preloadTable(bench: Pick<BenchCluster, 'connection'>, keys = KEYS): Promise<Table> {
  const schema = Schema.newBuilder()
    .column('id', notNull(DataTypes.BIGINT()))
    .column('payload', DataTypes.BYTES())
    .primaryKey('id')
    .build()
  const descriptor = TableDescriptor.builder().schema(schema).distributedBy(BUCKETS).build()
  const table = await bench.connection.getTable(await createBenchTable(bench.connection, descriptor))
  const writer = table.newUpsert().createWriter()
  for (let i = 0; i < keys; i++) {
    const wait = writer.upsert([BigInt(i), value(i)])
    if (wait) await wait
  }
  await writer.close()
  return table
}

/** Sets the table up; a failure says plainly that primary-key tables do not work on a LocalCluster. */
async function setupTable(bench: BenchCluster): Promise<Table> {
  try {
    const table = await preloadTable(bench)
    const lookuper = table.newLookup().createLookuper()
    const row = (await lookuper.lookup([BigInt(KEYS - 1)])).singletonRow()
    if (row === null || !Buffer.from(row[1] as Uint8Array).equals(value(KEYS - 1)))
      throw new Error(`key ${KEYS - 1} was upserted but its lookup returned ${JSON.stringify(row)}`)
    return table
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
 * (redis-benchmark, same key count and value size). Both load generators run in a process of their
 * own: redis-benchmark, and the Lookuper in a child process of the harness (pk-lookup-client.ts).
 * Targets: ≥ 1.0× Redis throughput and p99 ≤ 2× Redis p99 (the p99 ratio is in the subject's
 * extras, against the Redis run of the same pair).
 */
export const pkLookup: Benchmark<Ctx> = {
  name: 'pk-lookup',
  description: `Point lookups/s of random keys among ${KEYS.toLocaleString('en-US')} rows with ${VALUE_BYTES}-byte values at ${CLIENTS} concurrent requests: SDK Lookuper in a load-client process (client.lookup.batch-timeout 0, ${BUCKETS} buckets, 1 tablet server in a LocalCluster, ${REQUESTS.toLocaleString('en-US')} lookups per run after ${WARM_UP_REQUESTS.toLocaleString('en-US')} untimed ones; tablet server with its default node flags ${TABLET_SERVER_NODE_FLAGS.join(' ')}, load client ${CLIENT_NODE_ARGS.join(' ')}) vs redis-server GET (redis-benchmark -c ${CLIENTS} -d ${VALUE_BYTES} -r ${KEYS}, no pipelining, same number of requests; all keys preloaded). The p99 ratio pairs each run with the Redis run of its pair.`,
  unit: 'ops/s',
  better: 'higher',
  target: { ratio: 1.0, note: 'issue #4 (a): ≥ 1.0× Redis GET throughput; p99 ≤ 2× Redis p99 (see extras)' },
  runs: 5,
  async setup() {
    await initArrowCodecs()
    const bench = await startBenchCluster('pk-lookup', LOOKUP_CONFIG)
    let redis: RedisPeer | undefined
    let client: LoadClient | undefined
    try {
      const table = await setupTable(bench)
      const { databaseName, tableName } = table.getTableInfo().tablePath
      const config = { 'bootstrap.servers': bench.cluster.bootstrapServers, ...LOOKUP_CONFIG }
      client = await LoadClient.start({
        config,
        database: databaseName,
        table: tableName,
        nodeArgs: CLIENT_NODE_ARGS,
      })
      await client.run(CLIENTS, WARM_UP_REQUESTS, KEYS)
      redis = await startRedis()
      await preloadRedis(redis, KEYS, VALUE_BYTES)
      return { bench, client, redis, redisP99Ms: Number.NaN, pendingSubject: undefined }
    } catch (e) {
      if (redis) await stopRedis(redis)
      await client?.stop()
      await bench.stop()
      throw e
    }
  },
  async teardown(ctx) {
    await stopRedis(ctx.redis)
    await ctx.client.stop()
    await ctx.bench.stop()
  },
  subject: {
    name: `SDK Lookuper, ${CLIENTS} concurrent`,
    async run(ctx) {
      const r = await ctx.client.run(CLIENTS, REQUESTS, KEYS)
      if (r.missing > 0) throw new Error(`${r.missing} of ${REQUESTS} preloaded keys were not found`)
      const extra: Record<string, number> = { 'p50 ms': r.p50Ms, 'p99 ms': r.p99Ms }
      pairSubjectP99(ctx, r.p99Ms, extra)
      return { value: REQUESTS / r.seconds, extra }
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
      pairRedisP99(ctx, r.p99Ms)
      return { value: r.opsPerSec, extra: { 'p50 ms': r.p50Ms, 'p99 ms': r.p99Ms } }
    },
  },
}
