import type { Connection } from '@sluice/client'
import { ArrowBatchWriter, initArrowCodecs, readRecordBatchInfo, writeArrowStream } from '@sluice/core/arrow'
import { Schema } from '@sluice/core/metadata'
import { MemoryLogRecords } from '@sluice/core/record'
import { ClientConnection, type FetchLogResponse } from '@sluice/core/rpc'
import { DataTypes, notNull } from '@sluice/core/types'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, startReadyCluster, type TestCluster } from './support/cluster.js'
import { scanAll } from './support/scan.js'

/**
 * The HTTP gateway as `npm start` runs it: a process of its own started by the LocalCluster, with
 * its append body encoder on worker threads. JSON and Arrow appends through it land in the log as
 * compressed batches with the table's codec, are read back exactly by the SDK, and bad bodies
 * write nothing.
 */

const BUCKETS = 2
const schema = Schema.newBuilder()
  .column('id', notNull(DataTypes.INT()))
  .column('msg', DataTypes.STRING())
  .build()

let tc: TestCluster
let connection: Connection
let base: string

beforeAll(async () => {
  await initArrowCodecs()
  tc = await startReadyCluster({ tabletServers: 1, prefix: 'sluice-it-gateway' })
  await tc.cluster.startGateway('127.0.0.1:0')
  base = `${tc.cluster.gatewayUrl}/v1`
  connection = await connect(tc.cluster)
}, 120_000)

afterAll(async () => {
  await connection?.close()
  await tc?.stop()
})

/** What the tests read of a gateway answer: its error envelope, when there is one. */
interface GatewayBody {
  readonly error?: { readonly message: string }
}

async function call(method: string, path: string, body?: unknown, contentType = 'application/json') {
  const init: RequestInit = { method, headers: { 'content-type': contentType } }
  if (body !== undefined) init.body = body instanceof Uint8Array ? body : JSON.stringify(body)
  const response = await fetch(`${base}${path}`, init)
  return { status: response.status, body: (await response.json()) as GatewayBody }
}

/** The compression of every stored batch of a bucket, read over the wire from the tablet server. */
async function storedCodecs(tableId: number, bucket: number): Promise<string[]> {
  const t = tc.cluster.tablet(1)
  const conn = await ClientConnection.connect({ host: t.host, port: t.port })
  try {
    const response: FetchLogResponse = await conn.request('FETCH_LOG', {
      followerServerId: -1,
      maxBytes: 64 << 20,
      tablesReq: [
        {
          tableId,
          projectionPushdownEnabled: false,
          projectedFields: [],
          bucketsReq: [{ bucketId: bucket, fetchOffset: 0, maxFetchBytes: 64 << 20 }],
        },
      ],
    })
    const records = response.tablesResp[0].bucketsResp[0].records
    if (records === null || records === undefined) return []
    return new MemoryLogRecords(Buffer.from(records))
      .validateAll()
      .map(b => readRecordBatchInfo(b.arrowPayload()).compression)
  } finally {
    conn.close()
  }
}

describe('the gateway process of a local cluster', () => {
  it('appends JSON and Arrow bodies as compressed batches the SDK reads back, and refuses bad ones whole', async () => {
    expect((await call('POST', '/databases', { name: 'gw_it' })).status).toBe(201)
    const created = await call('POST', '/databases/gw_it/tables', {
      name: 'events',
      schema: { columns: schema.rowType.fields.map(f => ({ name: f.name, type: typeJson(f.type) })) },
      bucket_count: BUCKETS,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const path = { databaseName: 'gw_it', tableName: 'events' }
    const info = await connection.getAdmin().getTableInfo(path)

    const json = { rows: Array.from({ length: 300 }, (_, i) => ({ id: i, msg: `json ${i}` })) }
    expect(await call('POST', '/databases/gw_it/tables/events/append', json)).toMatchObject({
      status: 200,
      body: { row_count: 300 },
    })
    const writer = new ArrowBatchWriter(schema.rowType)
    for (let i = 300; i < 500; i++) writer.addRow([i, `arrow ${i}`])
    const stream = writeArrowStream(schema.rowType, [writer.finish()])
    expect(
      await call(
        'POST',
        '/databases/gw_it/tables/events/append',
        stream,
        'application/vnd.apache.arrow.stream',
      ),
    ).toMatchObject({ status: 200, body: { row_count: 200 } })

    // A body with one bad row is refused whole, naming the row; nothing of it is written.
    const bad = {
      rows: [
        { id: 900, msg: 'ok' },
        { id: 'nine hundred and one', msg: 'bad' },
      ],
    }
    const refused = await call('POST', '/databases/gw_it/tables/events/append', bad)
    expect(refused.status).toBe(400)
    expect(refused.body.error?.message).toContain('rows[1]')

    const table = await connection.getTable(path)
    const records = await scanAll(table, 500)
    const rows = [...records.values()].flat().map(r => r.row)
    expect(rows.sort((a, b) => (a[0] as number) - (b[0] as number))).toEqual([
      ...Array.from({ length: 300 }, (_, i) => [i, `json ${i}`]),
      ...Array.from({ length: 200 }, (_, i) => [300 + i, `arrow ${300 + i}`]),
    ])
    const codecs = (await Promise.all([0, 1].map(b => storedCodecs(info.tableId, b)))).flat()
    expect(codecs.length).toBeGreaterThanOrEqual(2)
    expect(new Set(codecs)).toEqual(new Set(['ZSTD']))
  })
})

function typeJson(type: { type: string; nullable: boolean }): string {
  const name = type.type === 'INTEGER' ? 'INT' : type.type
  return type.nullable ? name : `${name} NOT NULL`
}
