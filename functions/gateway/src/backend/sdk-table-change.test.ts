import { Connection } from '@sluice/client'
import { DataTypes, notNull } from '@sluice/core'
import { Schema, TableDescriptor, type TablePath } from '@sluice/core/metadata'
import { afterEach, describe, expect, it } from 'vitest'
import { startSdkGateway } from '../testing/sdk-gateway.js'

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const PATH: TablePath = { databaseName: 'db', tableName: 't' }
const URL_T = '/v1/databases/db/tables/t'

function descriptor(vType: ReturnType<typeof DataTypes.INT>): TableDescriptor {
  const schema = Schema.newBuilder().column('id', notNull(DataTypes.INT())).column('v', vType).build()
  return TableDescriptor.builder().schema(schema).distributedBy(1).build()
}

describe('SdkBackend writes after the table changed behind the gateway', () => {
  it('never writes rows validated against an older table into the new one', async () => {
    const { cluster, call } = await startSdkGateway(cleanups, {}, 1)
    const other = await Connection.create({ 'bootstrap.servers': cluster.bootstrapServers })
    cleanups.push(() => other.close())
    const admin = other.getAdmin()
    const append = (row: unknown) => call('POST', `${URL_T}/append`, { rows: [row] })
    const scan = async () => {
      const res = await call('POST', `${URL_T}/scan`, { limit: 10 })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.records.map((r: { row: unknown }) => r.row)
    }
    expect((await call('POST', '/v1/databases', { name: 'db' })).status).toBe(201)
    await admin.createTable(PATH, descriptor(DataTypes.BIGINT()))
    expect((await append({ id: 1, v: '1' })).status).toBe(200)

    await admin.dropTable(PATH)
    await admin.createTable(PATH, descriptor(DataTypes.STRING()))
    // The kept info (v BIGINT) refuses "x": checked against a fresh load, taken, written to the new table.
    const fresh = await append({ id: 2, v: 'x' })
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200)
    expect(await scan()).toEqual([{ id: 2, v: 'x' }])

    await admin.dropTable(PATH)
    await admin.createTable(PATH, descriptor(DataTypes.BOOLEAN()))
    // The kept info (v STRING) takes "5", so the row goes to the table that info describes, which
    // is dropped: a cluster refuses it once the replicas are gone (the fake one keeps them), and
    // it never reaches the new table, whose schema refuses it.
    const stale = await append({ id: 3, v: '5' })
    expect([200, 504]).toContain(stale.status)
    const next = await append({ id: 4, v: true })
    expect(next.status, JSON.stringify(next.body)).toBe(200)
    expect(await scan()).toEqual([{ id: 4, v: true }])

    await admin.dropTable(PATH)
    await admin.createTable(PATH, descriptor(DataTypes.STRING()))
    // A read opens the new table first; the kept info (v BOOLEAN) takes true, the new table
    // (v STRING) does not: the request is validated again against it before its writer sees a row.
    expect(await scan()).toEqual([])
    const refused = await append({ id: 5, v: true })
    expect([refused.status, refused.body.error?.message]).toEqual([
      400,
      'rows[0].v: expected a string, got boolean',
    ])
    const typed = await append({ id: 6, v: '6' })
    expect(typed.status, JSON.stringify(typed.body)).toBe(200)
    expect(await scan()).toEqual([{ id: 6, v: '6' }])
  })
})
