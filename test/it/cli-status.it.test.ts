import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uniqueName, waitUntil } from '../harness/index.js'
import { sluice } from './support/cli.js'
import { startReadyCluster, type TestCluster } from './support/cluster.js'

interface Unhealthy {
  readonly table: string
  readonly bucket: number
  readonly offline: number[]
  readonly outOfSync: number[]
}

/** `sluice cluster status` judges under-replication by the ISR, not only by which servers are live. */
describe('sluice cluster status', () => {
  let tc: TestCluster
  let env: Record<string, string>
  const status = async (): Promise<{ underReplicatedBuckets: Unhealthy[] }> => {
    const r = await sluice(['--output', 'json', 'cluster', 'status'], { env })
    expect(r.code, r.stderr).toBe(0)
    return JSON.parse(r.stdout)
  }

  beforeAll(async () => {
    tc = await startReadyCluster({
      tabletServers: 2,
      prefix: 'sluice-it-cli-status',
      serverConfig: { 'log.replica.max-lag-time': '2s', 'default.replication.factor': '2' },
    })
    env = { SLUICE_BOOTSTRAP: tc.cluster.bootstrapServers }
  })

  afterAll(async () => {
    await tc?.stop()
  })

  it('reports a bucket whose replica fell out of the ISR, and clears it once the replica caught up', {
    timeout: 360_000,
  }, async () => {
    const db = uniqueName('cli_status')
    const run = async (...args: string[]) => {
      const r = await sluice(args, { env })
      expect(r.code, r.stderr).toBe(0)
      return r
    }
    await run('db', 'create', db)
    await run('table', 'create', `${db}.t`, '--column', 'id:BIGINT', '--buckets', '1')
    const before = JSON.parse((await run('--output', 'json', 'table', 'describe', `${db}.t`)).stdout)
    const [location] = before.bucketLocations as { leader: number; replicas: number[] }[]
    const follower = location.replicas.find(r => r !== location.leader) as number
    expect(follower).toBeDefined()
    await waitUntil(async () => (await status()).underReplicatedBuckets.length === 0, {
      timeoutMs: 30_000,
      intervalMs: 500,
      what: 'a healthy cluster',
    })

    await tc.cluster.killTabletServer(follower)
    // A record the follower lacks: its leader drops it from the ISR after log.replica.max-lag-time.
    const write = await sluice(
      ['-p', 'client.writer.acks=1', '-p', 'client.writer.enable-idempotence=false', 'produce', `${db}.t`],
      {
        env,
        input: '{"id": 1}\n',
      },
    )
    expect(write.code, write.stderr).toBe(0)
    // The follower leaves the ISR (shrunk by its leader or, once its registration lapses, by the
    // coordinator): the bucket is reported with the replica out of the ISR.
    let bucket: Unhealthy | undefined
    await waitUntil(
      async () => {
        bucket = (await status()).underReplicatedBuckets.find(u => u.table === `${db}.t`)
        return bucket?.outOfSync.includes(follower) === true
      },
      { timeoutMs: 120_000, intervalMs: 500, what: 'the killed follower to leave the ISR' },
    )
    expect(bucket?.bucket).toBe(0)
    const text = await run('cluster', 'status')
    expect(text.stdout).toMatch(/under-replicated or leaderless buckets: [1-9]/)
    expect(text.stdout).toContain('out of ISR')
    const described = JSON.parse((await run('--output', 'json', 'table', 'describe', `${db}.t`)).stdout)
    expect(described.bucketLocations[0].isr).toEqual([location.leader])

    await tc.cluster.startTabletServer(follower)
    await waitUntil(async () => (await status()).underReplicatedBuckets.length === 0, {
      timeoutMs: 120_000,
      intervalMs: 500,
      what: 'the follower to rejoin the ISR',
    })
    const healthy = JSON.parse((await run('--output', 'json', 'table', 'describe', `${db}.t`)).stdout)
    expect([...healthy.bucketLocations[0].isr].sort()).toEqual([...location.replicas].sort())
  })
})
