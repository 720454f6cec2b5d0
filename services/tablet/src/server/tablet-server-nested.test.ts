import { ArrowBatchWriter, arrowNodeCount, projectRowType } from '@sluice/core/arrow'
import { ERRORS } from '@sluice/core/errors'
import { Schema } from '@sluice/core/metadata'
import { buildLogBatch } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import type { ClientConnection } from '@sluice/core/rpc'
import { NESTED_ROWS, NESTED_TYPES } from '@sluice/core/testing'
import { DataTypes, type RowType } from '@sluice/core/types'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { arrowBatch, decodeRows, notifyRequest, TABLE_ID, TestCluster } from '../testing/cluster.js'
import type { TabletServer } from './tablet-server.js'

/** A log table of ARRAY, MAP and ROW columns (nested several levels deep), written and read over RPC. */
const NESTED_SCHEMA = NESTED_TYPES.fields
  .reduce((b, f) => b.column(f.name, f.type), Schema.newBuilder())
  .build()
const ROW_TYPE = NESTED_SCHEMA.rowType

let cluster: TestCluster
let server: TabletServer
let client: ClientConnection

beforeEach(async () => {
  cluster = new TestCluster()
  await cluster.createLogTable(1, {}, NESTED_SCHEMA)
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

function fetch(projectedFields?: number[]) {
  return client.request('FETCH_LOG', {
    followerServerId: -1,
    maxBytes: 1 << 20,
    tablesReq: [
      {
        tableId: TABLE_ID,
        projectionPushdownEnabled: projectedFields !== undefined,
        projectedFields: projectedFields ?? [],
        bucketsReq: [{ bucketId: 0, fetchOffset: 0, maxFetchBytes: 1 << 20 }],
      },
    ],
  })
}

function arrow(rowType: RowType, rows: readonly Row[]): Uint8Array {
  const w = new ArrowBatchWriter(rowType)
  for (const r of rows) w.addRow(r)
  return w.finish()
}

describe('PRODUCE_LOG and FETCH_LOG on a table with nested columns', () => {
  it('appends batches of ARRAY, MAP and ROW columns and fetches them whole and projected', async () => {
    expect(arrowNodeCount(ROW_TYPE)).toBeGreaterThan(ROW_TYPE.fields.length)
    const appended = await produce(arrowBatch(NESTED_ROWS, { rowType: ROW_TYPE }))
    expect(appended.bucketsResp[0]).toMatchObject({ baseOffset: 0 })
    const whole = (await fetch()).tablesResp[0].bucketsResp[0]
    expect(decodeRows(whole.records ?? null, ROW_TYPE)).toEqual(NESTED_ROWS)
    // One nested column (the deepest), then nested columns around a flat one.
    for (const projection of [[4], [3, 6, 8]]) {
      const projected = (await fetch(projection)).tablesResp[0].bucketsResp[0]
      expect(projected.errorCode ?? 0).toBe(0)
      expect(decodeRows(projected.records ?? null, projectRowType(ROW_TYPE, projection))).toEqual(
        NESTED_ROWS.map(r => projection.map(i => r[i])),
      )
    }
  })

  it('refuses a batch whose field nodes do not fit the nested columns, and appends nothing', async () => {
    // As many columns as the table, all flat: one field node per column, fewer than the schema needs.
    const flat = DataTypes.ROW(
      ROW_TYPE.fields.map((f, i) => ({ name: f.name, type: DataTypes.INT(), fieldId: i })),
    )
    const flatRows = [ROW_TYPE.fields.map((_, i) => i)]
    const refused = await produce(
      buildLogBatch({ schemaId: 1, appendOnly: true, recordCount: 1, records: arrow(flat, flatRows) }),
    )
    expect(refused.bucketsResp[0]).toMatchObject({
      errorCode: ERRORS.CORRUPT_RECORD_EXCEPTION.code,
      errorMessage: expect.stringContaining(
        `the Arrow body has ${ROW_TYPE.fields.length} field nodes, the schema's ${ROW_TYPE.fields.length} columns have ${arrowNodeCount(ROW_TYPE)}`,
      ),
    })
    const log = server.replicaManager.getReplica({ tableId: TABLE_ID, bucket: 0 })?.logTablet
    expect(log?.logEndOffset).toBe(0)
  })
})
