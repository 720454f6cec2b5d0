import { ArrowBatchWriter } from '@sluice/core/arrow'
import { ERRORS, type FlussError } from '@sluice/core/errors'
import { lakeKey } from '@sluice/core/metastore'
import { buildLogBatch } from '@sluice/core/record'
import type { ClientConnection } from '@sluice/core/rpc'
import { DataTypes } from '@sluice/core/types'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  arrowBatch,
  LOG_SCHEMA,
  notifyRequest,
  rows,
  TABLE_ID,
  TABLE_PATH,
  TestCluster,
} from '../testing/cluster.js'
import type { TabletServer } from './tablet-server.js'

let cluster: TestCluster
let server: TabletServer
let client: ClientConnection

beforeEach(async () => {
  cluster = new TestCluster()
  await cluster.createLogTable(1)
  server = await cluster.startServer(1)
  client = await cluster.connect(server)
  await client.request('NOTIFY_LEADER_AND_ISR', notifyRequest(0, [{ bucket: 0, leader: 1, replicas: [1] }]))
})

afterEach(async () => {
  await cluster.close()
})

function produce(records: Buffer) {
  return client.request('PRODUCE_LOG', {
    acks: 1,
    tableId: TABLE_ID,
    timeoutMs: 1000,
    bucketsReq: [{ bucketId: 0, records }],
  })
}

describe('PRODUCE_LOG refuses CRC-valid batches whose body does not fit the table', () => {
  it('answers CORRUPT_RECORD_EXCEPTION for each malformed body and appends nothing', async () => {
    const otherType = DataTypes.ROW([{ name: 'a', type: DataTypes.INT(), fieldId: 0 }])
    const arrow = (rowType: typeof otherType, data: unknown[][]) => {
      const w = new ArrowBatchWriter(rowType)
      for (const r of data) w.addRow(r as never)
      return w.finish()
    }
    const batch = (recordCount: number, records: Uint8Array, schemaId = 1) =>
      buildLogBatch({ schemaId, appendOnly: true, recordCount, records })
    const cases: [string, Buffer][] = [
      ['random bytes', batch(2, Buffer.from('not an arrow record batch at all, just text'))],
      ['another schema', batch(2, arrow(otherType, [[1], [2]]))],
      ['wrong record count', batch(3, arrow(LOG_SCHEMA.rowType, rows(0, 2)))],
      ['unknown schema id', batch(2, arrow(LOG_SCHEMA.rowType, rows(0, 2)), 77)],
      // A good batch followed by a bad one: the request is refused whole.
      ['good then bad', Buffer.concat([arrowBatch(rows(0, 2)), batch(2, arrow(otherType, [[1], [2]]))])],
    ]
    for (const [what, records] of cases) {
      const response = await produce(records)
      expect(response.bucketsResp[0]?.errorCode, what).toBe(ERRORS.CORRUPT_RECORD_EXCEPTION.code)
    }
    const log = server.replicaManager.getReplica({ tableId: TABLE_ID, bucket: 0 })?.logTablet
    expect(log?.logEndOffset).toBe(0)
    expect((await produce(arrowBatch(rows(0, 3)))).bucketsResp[0]).toMatchObject({ baseOffset: 0 })
  })
})

describe('tablet servers answer the admin reads official clients send them', () => {
  it('GET_FILESYSTEM_SECURITY_TOKEN: the remote scheme, an empty token, no expiry', async () => {
    const token = await client.request('GET_FILESYSTEM_SECURITY_TOKEN', {})
    expect(token).toMatchObject({ schema: 'file', expirationTime: null, additionInfo: [] })
    expect(token.token.length).toBe(0)
  })

  it('GET_LAKE_SNAPSHOT: LAKE_SNAPSHOT_NOT_EXIST before tiering, then the tiered offsets', async () => {
    const request = { tablePath: TABLE_PATH }
    const refused = await client.request('GET_LAKE_SNAPSHOT', request).catch((e: FlussError) => e)
    expect((refused as FlussError).errorName).toBe('LAKE_SNAPSHOT_NOT_EXIST')
    const { pk, sk } = lakeKey(TABLE_ID)
    await cluster.store.put(
      pk,
      sk,
      { format: 1, lastSnapshotId: '5', tieredOffsets: [{ bucket: 0, offset: 42 }] },
      { version: 'absent' },
    )
    const answer = await client.request('GET_LAKE_SNAPSHOT', request)
    expect({ tableId: answer.tableId, snapshotId: answer.snapshotId }).toEqual({
      tableId: TABLE_ID,
      snapshotId: 5,
    })
    expect(answer.bucketSnapshots.map(b => [b.partitionId, b.bucketId, b.logOffset])).toEqual([[null, 0, 42]])
  })
})
