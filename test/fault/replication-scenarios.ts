import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { writeIsrAsLeader } from '@sluice/core/control-plane'
import { isFlussError } from '@sluice/core/errors'
import { ClientConnection } from '@sluice/core/rpc'
import { sleep } from '@sluice/core/util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitUntil } from '../harness/index.js'
import { AckingWriter } from './acking-writer.js'
import { ReplicationFixture, rawBatch } from './replication-fixture.js'
import { SUITE_TIMEOUT_MS, type SuiteVariant, suiteTitle } from './suite-variant.js'

/**
 * The replication and failover scenarios across tablet server processes, registered as one
 * vitest suite: kill -9 of the leader, SIGSTOP of a follower, a zombie leader, SIGTERM of the leader.
 */
export function replicationFailoverSuite(variant: SuiteVariant = {}): void {
  describe(suiteTitle('replication and failover across tablet server processes', variant), () => {
    const f = new ReplicationFixture(variant)
    beforeAll(() => f.start(), SUITE_TIMEOUT_MS)
    afterAll(() => f.stop(), SUITE_TIMEOUT_MS)
    it(
      'kill -9 of the leader during acks=all writes: every acknowledged record survives exactly once, in order',
      () => killLeaderScenario(f),
      SUITE_TIMEOUT_MS,
    )
    it(
      'SIGSTOP of a follower shrinks the ISR while writes go on; SIGCONT lets it catch up and rejoin',
      () => pauseFollowerScenario(f),
      SUITE_TIMEOUT_MS,
    )
    it(
      'a zombie leader (SIGSTOP past its lease, then SIGCONT) gets no acks=all write acknowledged and cannot change the ISR',
      () => zombieLeaderScenario(f),
      SUITE_TIMEOUT_MS,
    )
    it(
      'SIGTERM of the leader: a controlled shutdown moves leadership first, writes go on without loss',
      () => controlledShutdownScenario(f),
      SUITE_TIMEOUT_MS,
    )
  })
}

export async function killLeaderScenario(f: ReplicationFixture): Promise<void> {
  const path = await f.newTable('kill')
  const writerConnection = await f.writerConnection()
  try {
    const table = await writerConnection.getTable(path)
    const writer = new AckingWriter(table).start()
    await waitUntil(() => writer.acked.size >= 500, { timeoutMs: 20_000, what: '500 acknowledged rows' })
    const before = await f.bucketOf(path)
    const leader = before.leaderAndIsr.leader as number
    const killedAtMs = Date.now()
    await f.tc.cluster.killTabletServer(leader)
    await waitUntil(() => writer.ackedAfter(killedAtMs) >= 200, {
      timeoutMs: 30_000,
      what: 'writes after failover',
    })
    const failoverMs = writer.firstAckAfter(killedAtMs) - killedAtMs
    console.log(
      `failover after kill -9 of leader ${leader}: the first write appended after the kill was acknowledged ` +
        `${failoverMs} ms after it; longest pause in acknowledgements ${writer.longestAckPauseMs(killedAtMs)} ms`,
    )
    await writer.stop()
    const after = await f.bucketOf(path)
    expect(after.leaderAndIsr.leader).not.toBe(leader)
    expect(after.leaderAndIsr.leaderEpoch).toBeGreaterThan(before.leaderAndIsr.leaderEpoch)
    expect(writer.acked.size).toBeGreaterThan(700)
    await f.expectAllAckedOnce(table, writer)
  } finally {
    await writerConnection.close()
    await f.waitForAllServers()
  }
}

export async function pauseFollowerScenario(f: ReplicationFixture): Promise<void> {
  await f.waitForAllServers()
  const path = await f.newTable('pause')
  const writerConnection = await f.writerConnection()
  try {
    const table = await writerConnection.getTable(path)
    await waitUntil(async () => (await f.bucketOf(path)).leaderAndIsr.isr.length === 3, { timeoutMs: 20_000 })
    const { leader, replicas } = (await f.bucketOf(path)).leaderAndIsr
    const follower = replicas.find(id => id !== leader) as number
    const writer = new AckingWriter(table).start()
    await waitUntil(() => writer.acked.size >= 200, { timeoutMs: 20_000, what: 'acknowledged rows' })
    f.tc.cluster.tablet(follower).pause()
    await waitUntil(async () => !(await f.bucketOf(path)).leaderAndIsr.isr.includes(follower), {
      timeoutMs: 15_000,
      what: `server ${follower} to leave the ISR`,
    })
    const shrunkAtMs = Date.now()
    await waitUntil(() => writer.ackedAfter(shrunkAtMs) >= 200, {
      timeoutMs: 15_000,
      what: 'writes with a smaller ISR',
    })
    f.tc.cluster.tablet(follower).resume()
    await waitUntil(async () => (await f.bucketOf(path)).leaderAndIsr.isr.includes(follower), {
      timeoutMs: 20_000,
      what: `server ${follower} to rejoin the ISR`,
    })
    const rejoinedAtMs = Date.now()
    await waitUntil(() => writer.ackedAfter(rejoinedAtMs) >= 100, {
      timeoutMs: 15_000,
      what: 'writes after rejoining',
    })
    await writer.stop()
    expect((await f.bucketOf(path)).leaderAndIsr.leader).toBe(leader)
    await f.expectAllAckedOnce(table, writer)
  } finally {
    for (const id of [1, 2, 3]) f.tc.cluster.tablet(id).resume()
    await writerConnection.close()
  }
}

export async function zombieLeaderScenario(f: ReplicationFixture): Promise<void> {
  await f.waitForAllServers()
  const path = await f.newTable('zombie')
  await waitUntil(async () => (await f.bucketOf(path)).leaderAndIsr.isr.length === 3, { timeoutMs: 20_000 })
  const atPause = await f.bucketOf(path)
  const zombie = atPause.leaderAndIsr.leader as number
  const zombieProcess = f.tc.cluster.tablet(zombie)
  const toZombie = await ClientConnection.connect({ host: zombieProcess.host, port: zombieProcess.port })
  const writerConnection = await f.writerConnection()
  try {
    const table = await writerConnection.getTable(path)
    const writer = new AckingWriter(table).start()
    await waitUntil(() => writer.acked.size >= 100, { timeoutMs: 20_000, what: 'acknowledged rows' })
    zombieProcess.pause()
    const failedOver = await waitUntil(
      async () => {
        const b = await f.bucketOf(path)
        return b.leaderAndIsr.leader !== zombie && b.leaderAndIsr.leader !== null ? b : undefined
      },
      { timeoutMs: 15_000, what: 'a new leader' },
    )
    const resumedAtMs = Date.now()
    zombieProcess.resume()
    // Whatever the zombie hears first after waking up, acks=all writes sent to it directly fail.
    const answers: (number | null)[] = []
    while (Date.now() - resumedAtMs < 3000) {
      const response = await toZombie.request('PRODUCE_LOG', {
        acks: -1,
        tableId: atPause.ref.tableId,
        timeoutMs: 1000,
        bucketsReq: [{ bucketId: 0, records: rawBatch(1_000_000 + answers.length) }],
      })
      answers.push(response.bucketsResp[0].errorCode ?? 0)
      await sleep(100)
    }
    expect(answers.length).toBeGreaterThan(5)
    expect(answers.filter(code => code === 0)).toEqual([])
    // Its ISR change, written as the deposed leader it is, is refused by the metadata store.
    const refused = await writeIsrAsLeader(f.catalog, atPause, [zombie]).then(
      () => undefined,
      e => e,
    )
    expect(isFlussError(refused, 'METASTORE_CONFLICT')).toBe(true)
    const now = await f.bucketOf(path)
    expect(now.leaderAndIsr.leader).toBe(failedOver.leaderAndIsr.leader)
    expect(now.leaderAndIsr.leaderEpoch).toBe(failedOver.leaderAndIsr.leaderEpoch)
    // The zombie comes back as a follower: it catches up and rejoins the ISR.
    await waitUntil(async () => (await f.bucketOf(path)).leaderAndIsr.isr.includes(zombie), {
      timeoutMs: 20_000,
      what: 'the former leader to rejoin the ISR',
    })
    await writer.stop()
    const ids = await f.expectAllAckedOnce(table, writer)
    expect(ids.filter(id => id >= 1_000_000)).toEqual([])
  } finally {
    zombieProcess.resume()
    toZombie.close()
    await writerConnection.close()
  }
}

export async function controlledShutdownScenario(f: ReplicationFixture): Promise<void> {
  await f.waitForAllServers()
  const path = await f.newTable('sigterm')
  await waitUntil(async () => (await f.bucketOf(path)).leaderAndIsr.isr.length === 3, { timeoutMs: 20_000 })
  const before = await f.bucketOf(path)
  const leader = before.leaderAndIsr.leader as number
  const writerConnection = await f.writerConnection()
  try {
    const table = await writerConnection.getTable(path)
    const writer = new AckingWriter(table).start()
    await waitUntil(() => writer.acked.size >= 300, { timeoutMs: 20_000, what: 'acknowledged rows' })
    const stoppedAtMs = Date.now()
    expect(await f.tc.cluster.tablet(leader).stop()).toBe(0)
    await waitUntil(() => writer.ackedAfter(stoppedAtMs) >= 200, {
      timeoutMs: 20_000,
      what: 'writes after the stop',
    })
    console.log(
      `controlled shutdown of leader ${leader}: longest pause in acks=all acknowledgements ${writer.longestAckPauseMs(stoppedAtMs)} ms`,
    )
    await writer.stop()
    const after = await f.bucketOf(path)
    expect(after.leaderAndIsr.leader).not.toBe(leader)
    expect(after.leaderAndIsr.isr).not.toContain(leader)
    expect(after.leaderAndIsr.leaderEpoch).toBe(before.leaderAndIsr.leaderEpoch + 1)
    const logs = join(f.tc.dataDir, 'logs')
    const coordinatorLog = await readFile(join(logs, 'coordinator-0.log'), 'utf8')
    expect(coordinatorLog).toContain(`"message":"tablet server shutting down","serverId":${leader}`)
    const tabletLog = await readFile(join(logs, `tablet-server-${leader}.log`), 'utf8')
    expect(tabletLog).not.toContain('stops without a completed controlled shutdown')
    await f.expectAllAckedOnce(table, writer)
  } finally {
    await writerConnection.close()
    await f.waitForAllServers()
  }
}
