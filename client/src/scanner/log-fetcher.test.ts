import { ArrowBatchWriter } from '@sluice/core/arrow'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { buildLogBatch } from '@sluice/core/record'
import { ClientConnection, type FetchLogRequestInit } from '@sluice/core/rpc'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type Cleanups, createTable, runCleanups, startClient } from '../testing/client-fixture.js'
import type { FakeCluster } from '../testing/fake-cluster.js'
import type { LogScanner } from './log-scanner.js'

const cleanups: Cleanups = []
afterEach(async () => {
  vi.restoreAllMocks()
  await runCleanups(cleanups)
})

const schema = Schema.newBuilder().column('id', DataTypes.INT()).column('name', DataTypes.STRING()).build()
const path = { databaseName: 'fluss', tableName: 'fetches' }

/** Scanner settings where a fetch of caught-up buckets would be held for a minute. */
const SLOW_LONG_POLL = {
  'client.scanner.log.fetch.wait-max-time': '1min',
  // One batch per bucket and fetch, so a bucket needs several fetches.
  'client.scanner.log.fetch.max-bytes-for-bucket': '1b',
  'client.scanner.log.max-poll-records': 3,
}

interface SentFetch {
  readonly endpoint: string
  readonly maxWaitMs: number
  readonly buckets: readonly { bucketId: number; fetchOffset: number }[]
}

/** Records every FETCH_LOG this process sends. */
function recordFetches(): SentFetch[] {
  const sent: SentFetch[] = []
  const original = ClientConnection.prototype.request
  vi.spyOn(ClientConnection.prototype, 'request').mockImplementation(function (
    this: ClientConnection,
    ...args: Parameters<ClientConnection['request']>
  ) {
    if (args[0] === 'FETCH_LOG') {
      const r = args[1] as FetchLogRequestInit
      sent.push({
        endpoint: this.endpoint,
        maxWaitMs: r.maxWaitMs ?? 0,
        buckets: (r.tablesReq ?? []).flatMap(t =>
          (t.bucketsReq ?? []).map(b => ({ bucketId: b.bucketId, fetchOffset: b.fetchOffset })),
        ),
      })
    }
    return original.apply(this, args) as ReturnType<ClientConnection['request']>
  } as ClientConnection['request'])
  return sent
}

/**
 * Appends `batches` batches of `rowsPerBatch` rows to a bucket of the fake cluster directly; row ids
 * are `bucket * 1000` plus the bucket's offsets.
 */
function appendBatches(
  cluster: FakeCluster,
  tableId: number,
  bucket: number,
  batches: number,
  rowsPerBatch: number,
) {
  const first = cluster.state.log(tableId, bucket).endOffset
  for (let b = 0; b < batches; b++) {
    const writer = new ArrowBatchWriter(schema.rowType)
    for (let i = 0; i < rowsPerBatch; i++)
      writer.addRow([bucket * 1000 + first + b * rowsPerBatch + i, `b${bucket}`])
    const records = Buffer.from(writer.finish())
    const batch = buildLogBatch({ schemaId: 1, appendOnly: true, recordCount: rowsPerBatch, records })
    cluster.state.log(tableId, bucket).append(batch, Date.now())
  }
}

/** Polls into `ids` until `done(ids)` holds. */
async function pollUntil(
  scanner: LogScanner,
  ids: number[],
  done: (ids: number[]) => boolean,
): Promise<void> {
  while (!done(ids)) for (const r of await scanner.poll(30_000)) ids.push(r.row[0] as number)
}

describe('LogFetcher', () => {
  it('does not long-poll caught-up buckets while other buckets of the leader have buffered records', async () => {
    const { cluster, connection } = await startClient(cleanups, { config: SLOW_LONG_POLL })
    const descriptor = TableDescriptor.builder().schema(schema).distributedBy(2).build()
    const { table, tableId } = await createTable(connection, path, descriptor)
    appendBatches(cluster, tableId, 0, 1, 2) // bucket 0: offsets 0..1
    appendBatches(cluster, tableId, 1, 6, 5) // bucket 1: offsets 0..29
    const sent = recordFetches()
    const scanner = table.newScan().createLogScanner()
    scanner.subscribe(0, 0)
    scanner.subscribe(1, 0)
    const ids: number[] = []
    await pollUntil(scanner, ids, got => got.length >= 32)
    expect(ids.filter(id => id < 1000)).toEqual([0, 1])
    expect(ids.filter(id => id >= 1000)).toEqual(Array.from({ length: 30 }, (_, i) => 1000 + i))
    // Every fetch carried bucket 1 while it had data left: none held bucket 0 alone on the server.
    expect(sent.length).toBeGreaterThanOrEqual(6)
    for (const fetch of sent) {
      expect(fetch.maxWaitMs).toBe(60_000)
      expect(fetch.buckets.map(b => b.bucketId)).toContain(1)
    }
    expect(
      sent.filter(f => f.buckets.some(b => b.bucketId === 0 && b.fetchOffset === 2)).length,
    ).toBeGreaterThan(0)
    scanner.close()
  }, 10_000)

  it('still long-polls caught-up buckets of a leader that has nothing buffered', async () => {
    const { cluster, connection } = await startClient(cleanups, { tabletServers: 2, config: SLOW_LONG_POLL })
    const descriptor = TableDescriptor.builder().schema(schema).distributedBy(2).build()
    const { table, tableId } = await createTable(connection, path, descriptor)
    cluster.state.moveLeader(tableId, 0, 1)
    cluster.state.moveLeader(tableId, 1, 2)
    appendBatches(cluster, tableId, 0, 1, 2)
    appendBatches(cluster, tableId, 1, 4, 5)
    const sent = recordFetches()
    const scanner = table.newScan().createLogScanner()
    scanner.subscribe(0, 0)
    scanner.subscribe(1, 0)
    const ids: number[] = []
    await pollUntil(scanner, ids, got => got.includes(1))
    // Bucket 0's leader got its long poll at offset 2 although bucket 1 (another leader) may be
    // buffered: a batch appended now is delivered by that fetch.
    appendBatches(cluster, tableId, 0, 1, 2) // offsets 2..3
    await pollUntil(scanner, ids, got => got.length >= 24)
    expect(ids.filter(id => id < 1000)).toEqual([0, 1, 2, 3])
    expect(ids.filter(id => id >= 1000)).toEqual(Array.from({ length: 20 }, (_, i) => 1000 + i))
    const bucket0Fetches = sent.filter(f => f.buckets.some(b => b.bucketId === 0 && b.fetchOffset === 2))
    expect(bucket0Fetches.length).toBeGreaterThan(0)
    expect(bucket0Fetches.every(f => f.buckets.length === 1 && f.maxWaitMs === 60_000)).toBe(true)
    scanner.close()
  }, 10_000)
})
