import type { Lookuper } from '@sluice/client'
import { initArrowCodecs } from '@sluice/core/arrow'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { DataTypes, notNull } from '@sluice/core/types'
import type { Benchmark } from '../harness.js'
import { percentileOf, runConcurrent } from '../support/concurrent.js'
import { type GatewayBench, HttpLoadClient, latencyExtras, startGatewayBench } from './gateway-bench.js'

const KEYS = 50_000
const VALUE_BYTES = 1024
const CONCURRENT = 50
const LOOKUPS_PER_RUN = 20_000
const BUCKETS = 4
/** Distinct request bodies (one random key each), built once; a run sends them round-robin. */
const DISTINCT_BODIES = 4096
/** Lookups go out at once (the default batch-timeout of 100 ms is for throughput, not latency). */
const LOOKUP_CONFIG = { 'client.lookup.batch-timeout': '0ms' }

interface Ctx {
  readonly gw: GatewayBench
  readonly lookuper: Lookuper
  readonly client: HttpLoadClient
  /** The newest SDK p99, for the gateway's p99 ratio. */
  sdkP99Ms: number
}

function value(i: number): Buffer {
  const out = Buffer.alloc(VALUE_BYTES, 0x61 + (i % 26))
  out.writeUInt32BE(i, 0)
  return out
}

function describeTable(): TableDescriptor {
  const schema = Schema.newBuilder()
    .column('id', notNull(DataTypes.BIGINT()))
    .column('payload', DataTypes.BYTES())
    .primaryKey('id')
    .build()
  return TableDescriptor.builder().schema(schema).distributedBy(BUCKETS).build()
}

async function preload(gw: GatewayBench): Promise<void> {
  const writer = gw.table.newUpsert().createWriter()
  for (let i = 0; i < KEYS; i++) {
    const wait = writer.upsert([BigInt(i), value(i)])
    if (wait) await wait
  }
  await writer.close()
}

const randomKey = () => Math.floor(Math.random() * KEYS)

/**
 * Issue #10 benchmark: primary-key point lookups through the HTTP gateway's lookup route (one key
 * per request, 50 requests in flight from a client in a worker thread; JSON answers with the value
 * as base64) against the SDK's Lookuper called directly in this process at 50 concurrent lookups;
 * both on one LocalCluster with one tablet server and the same client settings. No target: the
 * issue asks for the gateway's lookup p99 (and its throughput) to be reported.
 */
export const gatewayLookup: Benchmark<Ctx> = {
  name: 'gateway-lookup',
  description: `Point lookups/s through the HTTP gateway (POST …/lookup with one key per request, ${CONCURRENT} requests in flight from a client in a worker thread, JSON answer with the ${VALUE_BYTES}-byte value as base64) vs the SDK Lookuper called directly at ${CONCURRENT} concurrent lookups, same run: random keys among ${KEYS.toLocaleString('en-US')} preloaded rows, ${BUCKETS} buckets, 1 tablet server in a LocalCluster, client.lookup.batch-timeout 0, ${LOOKUPS_PER_RUN.toLocaleString('en-US')} lookups per run; latencies per request (gateway: HTTP round trip).`,
  unit: 'ops/s',
  better: 'higher',
  runs: 3,
  async setup() {
    await initArrowCodecs()
    const gw = await startGatewayBench('gateway-lookup', describeTable(), LOOKUP_CONFIG)
    try {
      await preload(gw)
      const lookuper = gw.table.newLookup().createLookuper()
      const bodies = Array.from({ length: DISTINCT_BODIES }, () =>
        Buffer.from(JSON.stringify({ keys: [{ id: String(randomKey()) }] })),
      )
      const client = new HttpLoadClient(bodies, 'application/json')
      return { gw, lookuper, client, sdkP99Ms: Number.NaN }
    } catch (e) {
      await gw.stop()
      throw e
    }
  },
  async teardown(ctx) {
    await ctx.client.close()
    await ctx.gw.stop()
  },
  subject: {
    name: `gateway lookup route, ${CONCURRENT} in flight`,
    async run(ctx) {
      const load = await ctx.client.post(`${ctx.gw.tableUrl}/lookup`, LOOKUPS_PER_RUN, CONCURRENT, {
        foundRows: 1,
      })
      const latency = latencyExtras(load.latenciesMs, 'request')
      return {
        value: LOOKUPS_PER_RUN / load.seconds,
        extra: { ...latency, 'p99 / SDK p99': latency['request p99 ms'] / ctx.sdkP99Ms },
      }
    },
  },
  baseline: {
    name: `SDK Lookuper, ${CONCURRENT} concurrent`,
    async run(ctx) {
      let missing = 0
      const { seconds, latenciesMs } = await runConcurrent(CONCURRENT, LOOKUPS_PER_RUN, async () => {
        if ((await ctx.lookuper.lookup([BigInt(randomKey())])).singletonRow() === null) missing++
      })
      if (missing > 0) throw new Error(`${missing} of ${LOOKUPS_PER_RUN} preloaded keys were not found`)
      const p50 = percentileOf(latenciesMs, 50)
      ctx.sdkP99Ms = percentileOf(latenciesMs, 99)
      return {
        value: LOOKUPS_PER_RUN / seconds,
        extra: { 'request p50 ms': p50, 'request p99 ms': ctx.sdkP99Ms },
      }
    },
  },
}
