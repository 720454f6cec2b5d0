import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { CLIENT_SOFTWARE_NAME, Connection } from './connection.js'
import { FakeCluster } from './testing/fake-cluster.js'

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function setup(options: { tabletServers?: number; config?: Record<string, string> } = {}) {
  const cluster = await FakeCluster.start({ tabletServers: options.tabletServers ?? 2 })
  cleanups.push(() => cluster.close())
  const connection = await Connection.create({
    'bootstrap.servers': cluster.bootstrapServers,
    ...options.config,
  })
  cleanups.push(() => connection.close())
  return { cluster, connection }
}

const schema = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('name', DataTypes.STRING())
  .column('score', DataTypes.BIGINT())
  .build()

describe('Connection', () => {
  it("names itself 'sluice' in the ApiVersions handshake with tablet servers", async () => {
    const { cluster, connection } = await setup({ tabletServers: 1 })
    const path = { databaseName: 'fluss', tableName: 'named' }
    await connection
      .getAdmin()
      .createTable(path, TableDescriptor.builder().schema(schema).distributedBy(1).build())
    const writer = (await connection.getTable(path)).newAppend().createWriter()
    writer.append([1, 'a', 1n])
    await writer.flush()
    expect(cluster.handshakes.length).toBeGreaterThan(0)
    for (const h of cluster.handshakes) expect(h.clientSoftwareName).toBe(CLIENT_SOFTWARE_NAME)
    expect(CLIENT_SOFTWARE_NAME).toBe('sluice')
  })

  it('writes rows and reads them back, projected and in full', async () => {
    const { connection } = await setup()
    const admin = connection.getAdmin()
    const path = { databaseName: 'fluss', tableName: 'events' }
    await admin.createTable(path, TableDescriptor.builder().schema(schema).distributedBy(3).build())
    const table = await connection.getTable(path)
    const writer = table.newAppend().createWriter()
    for (let i = 0; i < 30; i++) writer.append([i, `n${i}`, BigInt(i * 10)])
    writer.append({ id: 30, name: null, score: 300 })
    await writer.flush()

    const scanner = table.newScan().createLogScanner()
    for (let b = 0; b < 3; b++) scanner.subscribeFromBeginning(b)
    const rows: unknown[][] = []
    while (rows.length < 31) {
      const records = await scanner.poll(2000)
      for (const r of records) rows.push(r.row)
    }
    expect(rows.map(r => r[0]).sort((a, b) => (a as number) - (b as number))).toEqual(
      Array.from({ length: 31 }, (_, i) => i),
    )
    expect(rows.find(r => r[0] === 30)).toEqual([30, null, 300n])

    const projected = table.newScan().project(['score', 'id']).createLogScanner()
    for (let b = 0; b < 3; b++) projected.subscribe(b, 0)
    const pairs: unknown[][] = []
    while (pairs.length < 31) for (const r of await projected.poll(2000)) pairs.push(r.row)
    expect(pairs.find(r => r[1] === 7)).toEqual([70n, 7])
  })

  it('flushes open writers on close and refuses use afterwards', async () => {
    const { cluster, connection } = await setup({ tabletServers: 1 })
    const path = { databaseName: 'fluss', tableName: 'closing' }
    await connection
      .getAdmin()
      .createTable(path, TableDescriptor.builder().schema(schema).distributedBy(1).build())
    const table = await connection.getTable(path)
    const writer = table.newAppend().createWriter()
    writer.append([1, 'a', 1n])
    await connection.close()
    const info = table.getTableInfo()
    expect(cluster.state.log(info.tableId, 0).rows(info.rowType)).toEqual([[1, 'a', 1n]])
    expect(() => connection.getAdmin()).toThrow(/closed/)
    expect(() => writer.append([2, 'b', 2n])).toThrow(/closed/)
  })

  it('refuses writers for primary-key tables and non-ARROW logs', async () => {
    const { connection } = await setup({ tabletServers: 1 })
    const admin = connection.getAdmin()
    const pk = Schema.newBuilder()
      .column('id', DataTypes.INT())
      .column('v', DataTypes.STRING())
      .primaryKey('id')
      .build()
    const pkPath = { databaseName: 'fluss', tableName: 'pk' }
    await admin.createTable(pkPath, TableDescriptor.builder().schema(pk).distributedBy(1).build())
    const pkTable = await connection.getTable(pkPath)
    expect(() => pkTable.newAppend().createWriter()).toThrow(
      expect.objectContaining({
        errorName: 'INVALID_TABLE_EXCEPTION',
        message: expect.stringContaining('primary key'),
      }),
    )
    const indexedPath = { databaseName: 'fluss', tableName: 'indexed' }
    await admin.createTable(
      indexedPath,
      TableDescriptor.builder()
        .schema(schema)
        .distributedBy(1)
        .property('table.log.format', 'INDEXED')
        .build(),
    )
    const indexed = await connection.getTable(indexedPath)
    expect(() => indexed.newAppend().createWriter()).toThrow(/ARROW/)
    expect(() => indexed.newScan().createLogScanner()).toThrow(/ARROW/)
  })
})
