import { type BucketRecord, writeIsrAsLeader } from '@sluice/core/control-plane'
import {
  BUCKET_SK_PREFIX,
  type ItemValue,
  MemoryMetaStore,
  metaStoreConflict,
  type WriteCondition,
} from '@sluice/core/metastore'
import { afterEach, describe, expect, it } from 'vitest'
import { TestingTime } from '../testing/coordinator-fixtures.js'
import { TEST_SERVER_LEASE_MS, TestingCluster } from '../testing/testing-cluster.js'
import { CoordinatorFencedError } from './replica-leadership.js'

/** A deterministic pseudo-random sequence in [0, 1). */
function prng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * A MemoryMetaStore that makes bucket writes race: some fail with a spurious conflict (as a
 * DynamoDB condition failure would), some find the item rewritten just before (another writer won
 * the race). Every successful bucket write is recorded.
 */
class ConflictInjectingStore extends MemoryMetaStore {
  readonly history: { sk: string; leader: number | null; leaderEpoch: number; coordinatorEpoch: number }[] =
    []
  injected = 0
  enabled = false

  constructor(private readonly random: () => number) {
    super()
  }

  override async put(pk: string, sk: string, value: ItemValue, condition: WriteCondition): Promise<number> {
    if (this.enabled && sk.startsWith(BUCKET_SK_PREFIX)) {
      const roll = this.random()
      if (roll < 0.25) {
        this.injected++
        throw metaStoreConflict(pk, sk, condition, await this.get(pk, sk))
      }
      if (roll < 0.5) {
        const current = await this.get(pk, sk)
        if (current !== undefined) {
          this.injected++
          await super.put(pk, sk, current.value, { version: current.version })
        }
      }
    }
    const version = await super.put(pk, sk, value, condition)
    if (sk.startsWith(BUCKET_SK_PREFIX)) {
      this.history.push({
        sk: `${pk}/${sk}`,
        leader: value.leader as number | null,
        leaderEpoch: value.leaderEpoch as number,
        coordinatorEpoch: value.coordinatorEpoch as number,
      })
    }
    return version
  }
}

describe('two coordinators racing on the same bucket items', () => {
  let cluster: TestingCluster | undefined

  afterEach(() => cluster?.close())

  it.each([1, 2, 3])('never leave a bucket without a leader or with two (seed %i)', async seed => {
    const store = new ConflictInjectingStore(prng(seed))
    cluster = new TestingCluster({ store })
    const c = cluster
    await c.addTabletServers([null, null, null, null])
    // The first coordinator runs on a clock of its own that stands still (a hung process).
    const c1 = await c.startCoordinator('c1', { time: new TestingTime(c.time.nowMs()) })
    const client = await c.connect(c1)
    await client.request('CREATE_DATABASE', { databaseName: 'db', ignoreIfExists: false })
    await client.request('CREATE_TABLE', {
      tablePath: { databaseName: 'db', tableName: 't' },
      tableJson: Buffer.from(
        JSON.stringify({
          version: 1,
          schema: { version: 1, columns: [{ name: 'id', data_type: { type: 'INTEGER' } }] },
          bucket_key: [],
          bucket_count: 12,
          properties: { 'table.replication.factor': '3' },
          custom_properties: {},
        }),
      ),
      ignoreIfExists: false,
    })
    await c1.settle()

    // The second coordinator takes over once the first one's lease ran out on the shared clock.
    await c.advance(20_000)
    const c2 = await c.startCoordinator('c2')
    await c2.settle()
    expect(c2.coordinatorEpoch).toBe(2)

    // Server 1 dies. Both coordinators react at once (the first does not know it was deposed),
    // while bucket leaders shrink ISRs, and a quarter of all bucket writes hit injected conflicts.
    store.enabled = true
    await c.advance(TEST_SERVER_LEASE_MS + 1, [2, 3, 4])
    const lost = (await c.catalog.listTabletServerLeases()).filter(l => l.serverId === 1)
    const buckets = await c.catalog.listAllBuckets(0)
    await Promise.allSettled([
      c2.pollMembership().then(() => c2.settle()),
      c1.controller.leadership.onMembershipChange({ added: [], removed: lost }),
      ...buckets.map(b => leaderShrinksIsr(c, b)),
    ])
    store.enabled = false
    await c2.pollMembership()
    await c2.settle()

    expect(store.injected).toBeGreaterThan(0)
    const final = await c.catalog.listAllBuckets(0)
    expect(final).toHaveLength(12)
    for (const b of final) {
      const l = b.leaderAndIsr
      expect(l.leader, `bucket ${b.ref.bucket}`).not.toBeNull()
      expect(l.leader).not.toBe(1)
      expect(l.isr).toContain(l.leader)
    }
    // One leader per (bucket, leader epoch) in everything ever written and announced.
    const leaders = new Map<string, Set<number | null>>()
    const record = (key: string, leader: number | null) =>
      leaders.set(key, (leaders.get(key) ?? new Set()).add(leader))
    for (const h of store.history) record(`${h.sk}@${h.leaderEpoch}`, h.leader)
    for (const s of c.servers.values()) {
      for (const n of s.notifications) {
        for (const b of n.notifyBucketsLeaderReq)
          record(`T${b.tableBucket.bucketId}@${b.leaderEpoch}`, b.leader)
      }
    }
    for (const [key, set] of leaders) expect(set.size, key).toBe(1)
    // The old coordinator is fenced by epoch at its next write to a bucket the new one wrote.
    const server2 = (await c.catalog.listTabletServerLeases()).filter(l => l.serverId === 2)
    const late = await c1.controller.leadership.onMembershipChange({ added: [], removed: server2 }).then(
      () => undefined,
      e => e,
    )
    expect(late).toBeInstanceOf(CoordinatorFencedError)
    expect(c1.isActive).toBe(false)
    expect(c2.isActive).toBe(true)
    // Once the new coordinator wrote a bucket, the old one never did again.
    const firstByC2 = new Map<string, number>()
    store.history.forEach((h, i) => {
      if (h.coordinatorEpoch === 2 && !firstByC2.has(h.sk)) firstByC2.set(h.sk, i)
    })
    store.history.forEach((h, i) => {
      const from = firstByC2.get(h.sk)
      if (from !== undefined && i > from) expect(h.coordinatorEpoch).toBe(2)
    })
  })
})

/** The bucket's leader drops server 1 from its ISR itself (as after max lag), if it still leads. */
async function leaderShrinksIsr(cluster: TestingCluster, initial: BucketRecord): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await cluster.catalog.getBucket(initial.ref)
    if (current === undefined || current.leaderAndIsr.leader === 1 || !current.leaderAndIsr.isr.includes(1))
      return
    try {
      await writeIsrAsLeader(
        cluster.catalog,
        current,
        current.leaderAndIsr.isr.filter(id => id !== 1),
      )
      return
    } catch {
      // Lost the race: read again.
    }
  }
}
