import { initArrowCodecs, projectRowType } from '@sluice/core/arrow'
import { ERRORS } from '@sluice/core/errors'
import { MemoryLogRecords } from '@sluice/core/record'
import type { ClientConnection } from '@sluice/core/rpc'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  arrowBatch,
  decodeRows,
  LOG_SCHEMA,
  notifyRequest,
  rows,
  TABLE_ID,
  TestCluster,
} from '../testing/cluster.js'

function projectedFetch(projectedFields: number[], projectionPushdownEnabled = true) {
  return {
    followerServerId: -1,
    maxBytes: 1024 * 1024,
    tablesReq: [
      {
        tableId: TABLE_ID,
        projectionPushdownEnabled,
        projectedFields,
        bucketsReq: [{ bucketId: 0, fetchOffset: 0, maxFetchBytes: 1024 * 1024 }],
      },
    ],
  }
}

describe('FETCH_LOG column projection', () => {
  let cluster: TestCluster
  let client: ClientConnection

  beforeAll(async () => {
    await initArrowCodecs()
  })

  beforeEach(async () => {
    cluster = new TestCluster()
    await cluster.createLogTable(1)
    const server = await cluster.startServer(1)
    client = await cluster.connect(server)
    await client.request('NOTIFY_LEADER_AND_ISR', notifyRequest(0, [{ bucket: 0, leader: 1, replicas: [1] }]))
    for (const compression of [undefined, { type: 'ZSTD', level: 3 }, { type: 'LZ4_FRAME' }] as const) {
      const batch = arrowBatch(rows(0, 4), compression === undefined ? {} : { compression })
      const produced = await client.request('PRODUCE_LOG', {
        acks: 1,
        tableId: TABLE_ID,
        timeoutMs: 1000,
        bucketsReq: [{ bucketId: 0, records: batch }],
      })
      expect(produced.bucketsResp[0].errorCode ?? 0).toBe(0)
    }
  })

  afterEach(async () => {
    await cluster.close()
  })

  it('returns only the projected columns of uncompressed and compressed batches', async () => {
    const fetched = await client.request('FETCH_LOG', projectedFetch([0, 2]))
    const bucket = fetched.tablesResp[0].bucketsResp[0]
    expect(bucket.errorCode ?? 0).toBe(0)
    const projected = projectRowType(LOG_SCHEMA.rowType, [0, 2])
    const expected = rows(0, 4).map(r => [r[0], r[2]])
    expect(decodeRows(bucket.records, projected)).toEqual([...expected, ...expected, ...expected])
    const batches = [...new MemoryLogRecords(bucket.records ?? Buffer.alloc(0)).batches()]
    expect(batches.map(b => b.baseOffset)).toEqual([0, 4, 8])
    // The Length field was rewritten: every batch is whole, and smaller than the stored one.
    const whole = await client.request('FETCH_LOG', projectedFetch([], false))
    expect((bucket.records?.length ?? 0) < (whole.tablesResp[0].bucketsResp[0].records?.length ?? 0)).toBe(
      true,
    )
  })

  it('projects a single middle column', async () => {
    const fetched = await client.request('FETCH_LOG', projectedFetch([1]))
    const projected = projectRowType(LOG_SCHEMA.rowType, [1])
    const names = decodeRows(fetched.tablesResp[0].bucketsResp[0].records, projected)
    expect(names.slice(0, 4)).toEqual(rows(0, 4).map(r => [r[1]]))
  })

  it('refuses unordered, duplicate or out-of-range projections with INVALID_COLUMN_PROJECTION', async () => {
    for (const fields of [
      [2, 0],
      [1, 1],
      [0, 3],
    ]) {
      const fetched = await client.request('FETCH_LOG', projectedFetch(fields))
      expect(fetched.tablesResp[0].bucketsResp[0].errorCode).toBe(ERRORS.INVALID_COLUMN_PROJECTION.code)
    }
  })

  it('applies the byte limits to the projected size, filling the budget with whole projected batches', async () => {
    const wide = rows(100, 200).map(r => [r[0], `${'x'.repeat(400)}-${r[0]}`, r[2]])
    for (let i = 0; i < 10; i++) {
      await client.request('PRODUCE_LOG', {
        acks: 1,
        tableId: TABLE_ID,
        timeoutMs: 1000,
        bucketsReq: [{ bucketId: 0, records: arrowBatch(wide.slice(i * 20, i * 20 + 20)) }],
      })
    }
    const storedBatch = arrowBatch(wide.slice(0, 20)).length
    const maxBytes = 3 * storedBatch
    const request = projectedFetch([0])
    const limited = {
      ...request,
      maxBytes,
      tablesReq: [
        {
          ...request.tablesReq[0],
          bucketsReq: [{ bucketId: 0, fetchOffset: 12, maxFetchBytes: maxBytes }],
        },
      ],
    }
    const fetched = await client.request('FETCH_LOG', limited)
    const records = fetched.tablesResp[0].bucketsResp[0].records ?? Buffer.alloc(0)
    const batches = [...new MemoryLogRecords(records).batches()]
    expect(records.length).toBeLessThanOrEqual(maxBytes)
    // Limited by stored sizes this would be 3 wide batches; projected, all 10 fit.
    expect(batches.map(b => b.baseOffset)).toEqual(Array.from({ length: 10 }, (_, i) => 12 + i * 20))
    const ids = decodeRows(records, projectRowType(LOG_SCHEMA.rowType, [0])).map(r => r[0])
    expect(ids).toEqual(wide.map(r => r[0]))
  })

  it('returns a first projected batch larger than the limit whole, and nothing more', async () => {
    const request = projectedFetch([0, 1, 2])
    const tiny = {
      ...request,
      maxBytes: 10,
      tablesReq: [
        { ...request.tablesReq[0], bucketsReq: [{ bucketId: 0, fetchOffset: 0, maxFetchBytes: 10 }] },
      ],
    }
    const fetched = await client.request('FETCH_LOG', tiny)
    const batches = [
      ...new MemoryLogRecords(fetched.tablesResp[0].bucketsResp[0].records ?? Buffer.alloc(0)).batches(),
    ]
    expect(batches.map(b => b.baseOffset)).toEqual([0])
  })
})
