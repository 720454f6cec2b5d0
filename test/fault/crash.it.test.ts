import type { LocalCluster } from '@sluice/cli/cluster'
import type { AppendResult, AppendWriter, Connection } from '@sluice/client'
import { FlussError } from '@sluice/core/errors'
import type { TablePath } from '@sluice/core/metadata'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitUntil } from '../harness/index.js'
import { ALL_TYPES_NAMES, allTypesDescriptor, allTypesRow, rowDifference } from '../it/support/all-types.js'
import {
  connect,
  createDatabase,
  createTable,
  startReadyCluster,
  type TestCluster,
  waitForLeaders,
} from '../it/support/cluster.js'
import { countOf, offsetGaps, scanAll } from '../it/support/scan.js'

const BUCKETS = 3
const ROUNDS = 2
/** Acknowledged rows per round before the kill. */
const ACKED_BEFORE_KILL = 4000
/** Rows appended but not yet acknowledged, at most. */
const WINDOW_ROWS = 8000
const TABLET_ID = 1
/** Longest wait for the rows still in flight at the kill to fail or be acknowledged. */
const SETTLE_TIMEOUT_MS = 30_000
/**
 * Short membership leases, so that a dead server's lease lapses within seconds; a membership poll
 * slower than the restart, so that the coordinator usually sees the old incarnation leave and the
 * new one join in the same poll (what a quick restart looks like to it).
 */
const LEASE_CONFIG = {
  'sluice.tablet-server.lease-duration': '4s',
  'sluice.tablet-server.heartbeat-interval': '1s',
  'sluice.coordinator.membership-poll-interval': '3s',
}

interface Acked {
  readonly id: number
  readonly result: AppendResult
}

/**
 * Appends rows from `firstId` with acks=1 (a promise per row), recording every acknowledged
 * (bucket, offset); calls `onThreshold` once `threshold` rows are acknowledged and keeps appending
 * until `stop()` reports true, then waits (bounded) for the outstanding rows to settle.
 */
async function appendUntilStopped(
  writer: AppendWriter,
  firstId: number,
  threshold: number,
  onThreshold: () => void,
  stop: () => boolean,
): Promise<{ acked: Acked[]; attempted: number }> {
  const acked: Acked[] = []
  const outstanding = new Set<Promise<unknown>>()
  let id = firstId
  let fired = false
  while (!stop()) {
    const rowId = id++
    const p = writer.appendWithResult(allTypesRow(rowId)).then(
      result => {
        acked.push({ id: rowId, result })
        if (!fired && acked.length >= threshold) {
          fired = true
          onThreshold()
        }
      },
      () => undefined,
    )
    outstanding.add(p)
    void p.finally(() => outstanding.delete(p))
    if (outstanding.size >= WINDOW_ROWS) await Promise.race(outstanding)
    else if ((rowId & 255) === 0) await new Promise(resolve => setImmediate(resolve))
  }
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    Promise.allSettled([...outstanding]),
    new Promise(resolve => {
      timer = setTimeout(resolve, SETTLE_TIMEOUT_MS)
    }),
  ])
  clearTimeout(timer)
  return { acked, attempted: id - firstId }
}

/**
 * Starts the killed tablet server again. A restart can be refused while the killed incarnation's
 * membership lease is still live (see the separate restart test below); here that is waited out,
 * bounded, so the data checks still run.
 */
async function restartAfterKill(cluster: LocalCluster, id: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      await cluster.startTabletServer(id)
      return
    } catch (e) {
      if (!String(e).includes('is held by a live server') || Date.now() > deadline) throw e
      await new Promise(resolve => setTimeout(resolve, 100))
    }
  }
}

describe('kill -9 of a tablet server in the middle of acks=1 appends', () => {
  let tc: TestCluster | undefined
  let connection: Connection
  let path: TablePath

  beforeAll(async () => {
    tc = await startReadyCluster({ tabletServers: 1, prefix: 'sluice-crash', serverConfig: LEASE_CONFIG })
    connection = await connect(tc.cluster)
    const database = await createDatabase(connection, 'crash_db')
    path = await createTable(connection, database, allTypesDescriptor(BUCKETS), 'crash')
  })

  afterAll(async () => {
    await connection?.close().catch(() => undefined)
    await tc?.stop()
  })

  it(`every acknowledged row is readable exactly once and the log is intact after ${ROUNDS} kill/restart rounds`, async () => {
    const cluster = tc!.cluster
    const allAcked: Acked[] = []
    let nextId = 0
    for (let round = 0; round < ROUNDS; round++) {
      const writerConnection = await connect(cluster, {
        'client.writer.acks': '1',
        'client.writer.enable-idempotence': 'false',
        'client.writer.retries': '0',
        'client.writer.batch-size': '64kb',
        'client.request-timeout': '10s',
      })
      try {
        const writer = (await writerConnection.getTable(path)).newAppend().createWriter()
        let killed: Promise<void> | undefined
        const { acked, attempted } = await appendUntilStopped(
          writer,
          nextId,
          ACKED_BEFORE_KILL,
          () => {
            killed = cluster.killTabletServer(TABLET_ID)
          },
          () => killed !== undefined,
        )
        await killed
        writer.abort(new FlussError('NETWORK_EXCEPTION', 'the tablet server was killed'))
        allAcked.push(...acked)
        nextId += attempted
        expect(acked.length, `round ${round}: acknowledged rows`).toBeGreaterThanOrEqual(ACKED_BEFORE_KILL)
        expect(acked.length, `round ${round}: some rows were still in flight at the kill`).toBeLessThan(
          attempted,
        )
      } finally {
        await writerConnection.close().catch(() => undefined)
      }
      await restartAfterKill(cluster, TABLET_ID, 30_000)
      await waitForLeaders(connection, path, 60_000)
    }

    const reader = await connect(cluster)
    try {
      const admin = reader.getAdmin()
      const buckets = Array.from({ length: BUCKETS }, (_, b) => b)
      const latest = await admin.listOffsets(path, buckets, 'latest')
      const total = [...latest.values()].reduce((a, b) => a + b, 0)
      const records = await scanAll(await reader.getTable(path), total, { timeoutMs: 60_000 })
      expect(offsetGaps(records)).toEqual([])
      expect(countOf(records)).toBe(total)
      for (const b of buckets)
        expect(records.get(b)?.length ?? 0, `bucket ${b} vs its latest offset`).toBe(latest.get(b))

      const problems: string[] = []
      const seen = new Map<number, number>()
      for (const list of records.values()) {
        for (const r of list) {
          const id = Number(r.row[0])
          seen.set(id, (seen.get(id) ?? 0) + 1)
          const diff = rowDifference(allTypesRow(id), r.row, ALL_TYPES_NAMES)
          if (diff !== undefined && problems.length < 10)
            problems.push(`id ${id} at offset ${r.offset}: ${diff}`)
        }
      }
      for (const [id, n] of seen) if (n > 1 && problems.length < 20) problems.push(`id ${id} read ${n} times`)
      for (const { id, result } of allAcked) {
        const at = records.get(result.bucket)?.[result.offset]
        if (at === undefined || Number(at.row[0]) !== id) {
          if (problems.length < 30)
            problems.push(
              `acknowledged id ${id} at bucket ${result.bucket} offset ${result.offset}: found ${at === undefined ? 'nothing' : `id ${at.row[0]}`}`,
            )
        }
      }
      expect(problems).toEqual([])
      await waitUntil(() => cluster.tablet(TABLET_ID).running, {
        timeoutMs: 1000,
        what: 'the restarted tablet server',
      })
    } finally {
      await reader.close()
    }
  })

  it('a killed tablet server can be started again at once (its dead incarnation does not block it)', async () => {
    const cluster = tc!.cluster
    await cluster.killTabletServer(TABLET_ID)
    const started = await cluster.startTabletServer(TABLET_ID).then(
      () => 'started',
      (e: unknown) =>
        String(e)
          .split('\n')
          .find(line => line.includes('failed to start')) ?? String(e),
    )
    if (started !== 'started') await restartAfterKill(cluster, TABLET_ID, 30_000)
    expect(started).toBe('started')
    await waitForLeaders(connection, path, 60_000)
  })
})
