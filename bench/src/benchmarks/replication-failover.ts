import type { Table } from '@sluice/client'
import type { BucketRecord } from '@sluice/core/control-plane'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { DataTypes, notNull } from '@sluice/core/types'
import type { Benchmark, Sample } from '../harness.js'
import { type ClusterBench, startClusterBench, waitFor } from '../support/cluster.js'
import { ProbeWriter } from '../support/probe-writer.js'
import { createBenchTable } from './bench-cluster.js'

const SERVERS = [1, 2, 3]
/**
 * Min ISR 2 as issue #6 asks. A killed leader is found by the coordinator's connection probe, not by
 * its lease; the lease is shortened from 30 s to 6 s only because a restarted server waits for its
 * previous incarnation's lease to lapse before it registers (the untimed part between runs).
 */
const SERVER_CONFIG = {
  'log.replica.min-in-sync-replicas-number': '2',
  'sluice.tablet-server.lease-duration': '6s',
  'sluice.tablet-server.heartbeat-interval': '2s',
}
const WRITER_CONFIG = { 'client.writer.acks': 'all', 'client.writer.enable-idempotence': 'true' }
const FAILOVER_TIMEOUT_MS = 120_000
const REJOIN_TIMEOUT_MS = 120_000

interface Ctx {
  readonly bench: ClusterBench
  readonly table: Table
  readonly tableId: number
  readonly probe: ProbeWriter
}

const bucketOf = async (ctx: Ctx): Promise<BucketRecord> => {
  const b = await ctx.bench.catalog.getBucket({ tableId: ctx.tableId, partitionId: null, bucket: 0 })
  if (b === undefined) throw new Error('the bucket item is missing')
  return b
}

/** Every server runs and is back in the bucket's ISR (a killed one is restarted). */
async function waitForFullIsr(ctx: Ctx): Promise<void> {
  for (const id of SERVERS)
    if (!ctx.bench.cluster.tablet(id).running) await ctx.bench.cluster.startTabletServer(id)
  await waitFor('all three replicas in the ISR', REJOIN_TIMEOUT_MS, async () => {
    const { leader, isr } = (await bucketOf(ctx)).leaderAndIsr
    return leader !== null && isr.length === SERVERS.length
  })
}

/** kill -9 of the bucket's leader; ms until the first row appended after the kill is acknowledged. */
async function killLeader(ctx: Ctx): Promise<Sample> {
  await waitForFullIsr(ctx)
  const before = (await bucketOf(ctx)).leaderAndIsr
  const leader = before.leader as number
  const killedAtMs = Date.now()
  const acked = ctx.probe.firstAckAfter(killedAtMs, FAILOVER_TIMEOUT_MS)
  await ctx.bench.cluster.killTabletServer(leader)
  const elected = waitFor(
    'a new leader',
    FAILOVER_TIMEOUT_MS,
    async () => {
      const now = (await bucketOf(ctx)).leaderAndIsr
      return now.leader !== null && now.leader !== leader && Date.now()
    },
    50,
  )
  const ackedAtMs = await acked
  const electedAtMs = await elected
  const restartStartedMs = Date.now()
  await waitForFullIsr(ctx)
  return {
    value: ackedAtMs - killedAtMs,
    extra: {
      'new leader in metadata ms': electedAtMs - killedAtMs,
      'restart + ISR rejoin ms (untimed)': Date.now() - restartStartedMs,
    },
  }
}

/** The same probe without a kill: ms until the first row appended after now is acknowledged. */
async function probeOnly(ctx: Ctx): Promise<Sample> {
  await waitForFullIsr(ctx)
  const markMs = Date.now()
  return { value: (await ctx.probe.firstAckAfter(markMs, FAILOVER_TIMEOUT_MS)) - markMs }
}

/**
 * Issue #6 failover time: a writer appends a row every 5 ms with acks=all (idempotent) to a
 * one-bucket table with 3 replicas and min ISR 2 on 3 tablet server processes; each subject run
 * kills the bucket's leader with SIGKILL and measures the time from the kill to the first
 * acknowledged write appended after it; the killed server is then restarted and allowed back
 * into the ISR before the next run (not timed). The baseline is the same probe without a kill.
 * Run with `--runs 10` for the distribution over 10 kills (min/median/max; p90 from the samples).
 */
export const replicationFailover: Benchmark<Ctx> = {
  name: 'replication-failover',
  description:
    'Failover time after kill -9 of a bucket leader: ms from the kill to the first acknowledged acks=all write appended after it (idempotent AppendWriter appending a row every 5 ms; 1 bucket, RF=3, min ISR 2, 3 tablet server processes of a LocalCluster, default coordinator probe and client settings, tablet server lease 6 s instead of 30 s; the killed server is restarted and rejoins the ISR between runs, untimed) vs the same probe without a kill (time to the first acknowledged write after a mark). Issue #6 target: failover ≤ 10 s; p90 = 9th of the 10 sorted samples in bench/results.',
  unit: 'ms',
  better: 'lower',
  runs: 10,
  async setup() {
    const bench = await startClusterBench('failover', { tabletServers: 3, serverConfig: SERVER_CONFIG })
    try {
      const connection = await bench.connect(WRITER_CONFIG)
      const schema = Schema.newBuilder()
        .column('id', notNull(DataTypes.BIGINT()))
        .column('payload', DataTypes.STRING())
        .build()
      const descriptor = TableDescriptor.builder()
        .schema(schema)
        .distributedBy(1)
        .property('table.replication.factor', '3')
        .build()
      const table = await connection.getTable(await createBenchTable(connection, descriptor))
      const probe = new ProbeWriter(table, id => [BigInt(id), `probe-${id}`]).start()
      return { bench, table, tableId: table.getTableInfo().tableId, probe }
    } catch (e) {
      await bench.stop()
      throw e
    }
  },
  async teardown(ctx) {
    await ctx.probe.stop()
    await ctx.bench.stop()
  },
  subject: { name: 'kill -9 of the leader → first ack', run: killLeader },
  baseline: { name: 'no kill → first ack', run: probeOnly },
}
