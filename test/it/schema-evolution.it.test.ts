import type { Admin, Connection, Table } from '@sluice/client'
import { type FlussError, isFlussError } from '@sluice/core/errors'
import { Schema, TableDescriptor, tablePath } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { sleep } from '@sluice/core/util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  connect,
  createDatabase,
  createTable,
  startReadyCluster,
  type TestCluster,
} from './support/cluster.js'
import { countOf, pollUntil, scanAll } from './support/scan.js'

async function refusal(p: Promise<unknown>): Promise<FlussError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(isFlussError(error), `expected a FlussError, got ${String(error)}`).toBe(true)
  return error as FlussError
}

/** Rows of a scan, by id (column 0), each id once (a second read fails the test). */
function byId(records: Awaited<ReturnType<typeof scanAll>>): Map<bigint, Row> {
  const out = new Map<bigint, Row>()
  for (const list of records.values()) {
    for (const r of list) {
      const id = r.row[0] as bigint
      expect(out.has(id), `id ${id} read twice`).toBe(false)
      out.set(id, r.row)
    }
  }
  return out
}

/** Added to qty by the writer of the widened schema (still fits an INT: old readers narrow it back). */
const WIDE = 1_000_000n

describe('schema evolution through the SDK against a local cluster', () => {
  let tc: TestCluster | undefined
  let connection: Connection
  let admin: Admin
  let database: string

  beforeAll(async () => {
    tc = await startReadyCluster({ tabletServers: 1, prefix: 'sluice-it-schema' })
    connection = await connect(tc.cluster)
    admin = connection.getAdmin()
    database = await createDatabase(connection)
  })

  afterAll(async () => {
    await connection?.close().catch(() => undefined)
    await tc?.stop()
  })

  it('add (with a default), rename, widen and drop while a writer and a reader of the first schema keep going', async () => {
    const schema = Schema.newBuilder()
      .column('id', notNull(DataTypes.BIGINT()))
      .column('qty', DataTypes.INT())
      .column('label', DataTypes.STRING())
      .column('tmp', DataTypes.STRING())
      .build()
    const path = await createTable(
      connection,
      database,
      TableDescriptor.builder()
        .schema(schema)
        .distributedBy(2)
        .property('table.replication.factor', '1')
        .build(),
      'evo_log',
    )
    const first = await connection.getTable(path)
    const reader = first.newScan().createLogScanner()
    for (let b = 0; b < 2; b++) reader.subscribeFromBeginning(b)
    const oldWriter = first.newAppend().createWriter()
    let written = 0
    let writing = true
    const writes = (async () => {
      while (writing) {
        for (let k = 0; k < 20; k++, written++) {
          const wait = oldWriter.append([BigInt(written), written, `l${written}`, `t${written}`])
          if (wait) await wait
        }
        await oldWriter.flush()
        await sleep(20)
      }
    })()
    const steps: Parameters<Admin['alterTable']>[1][] = [
      { addColumns: [{ name: 'region', type: DataTypes.STRING(), comment: 'where', defaultValue: 'eu' }] },
      { renameColumns: [{ name: 'label', newName: 'title' }] },
      { modifyColumns: [{ name: 'qty', type: DataTypes.BIGINT() }] },
      { dropColumns: ['tmp'] },
    ]
    for (const step of steps) {
      await sleep(150)
      await admin.alterTable(path, step)
    }
    await sleep(150)
    writing = false
    await writes
    await oldWriter.close()
    const oldRows = written

    const last = await connection.getTable(path)
    expect(last.getTableInfo().schemaId).toBe(5)
    expect(last.getTableInfo().schema.columnNames).toEqual(['id', 'qty', 'title', 'region'])
    const newWriter = last.newAppend().createWriter()
    for (let i = oldRows; i < oldRows + 10; i++)
      newWriter.append({ id: BigInt(i), qty: BigInt(i) + WIDE, title: `n${i}` })
    await newWriter.close()
    const total = oldRows + 10

    // The reader of the first schema got every row once: the dropped column NULL for new rows.
    const seen = byId(await pollUntil(reader, total, 60_000))
    reader.close()
    expect(seen.size).toBe(total)
    for (let i = 0; i < oldRows; i++) expect(seen.get(BigInt(i))).toEqual([BigInt(i), i, `l${i}`, `t${i}`])
    // Rows of the new schema: the widened qty narrowed back (it fits an INT), tmp (dropped) NULL.
    for (let i = oldRows; i < total; i++)
      expect(seen.get(BigInt(i))).toEqual([BigInt(i), i + Number(WIDE), `n${i}`, null])
    const full = byId(await scanAll(last, total))
    expect(full.size).toBe(total)
    for (let i = 0; i < oldRows; i++)
      expect(full.get(BigInt(i))).toEqual([BigInt(i), BigInt(i), `l${i}`, null])
    for (let i = oldRows; i < total; i++)
      expect(full.get(BigInt(i))).toEqual([BigInt(i), BigInt(i) + WIDE, `n${i}`, 'eu'])
    const projected = await scanAll(last, total, { columns: ['region', 'title'] })
    expect(countOf(projected)).toBe(total)
    const regions = [...projected.values()].flat().map(r => r.row[0])
    expect(regions.filter(r => r === 'eu').length).toBe(10)
    expect(regions.filter(r => r === null).length).toBe(oldRows)

    const versions = await admin.getTableSchemas(path)
    expect(versions.map(v => v.schemaId)).toEqual([1, 2, 3, 4, 5])
    expect(versions.map(v => v.schema.columnIds)).toEqual([
      [0, 1, 2, 3],
      [0, 1, 2, 3, 4],
      [0, 1, 2, 3, 4],
      [0, 1, 2, 3, 4],
      [0, 1, 2, 4],
    ])
  }, 120_000)

  it('primary-key table: stored values of older schemas, old writers (full and partial), old lookupers', async () => {
    const schema = Schema.newBuilder()
      .column('k', notNull(DataTypes.STRING()))
      .column('v', DataTypes.INT())
      .column('note', DataTypes.STRING())
      .primaryKey('k')
      .build()
    const path = await createTable(
      connection,
      database,
      TableDescriptor.builder()
        .schema(schema)
        .distributedBy(2)
        .property('table.replication.factor', '1')
        .build(),
      'evo_pk',
    )
    const first = await connection.getTable(path)
    const upsert = async (t: Table, rows: unknown[][], columns?: string[]) => {
      const w = t.newUpsert().partialUpdate(columns).createWriter()
      for (const r of rows) w.upsert(r)
      await w.close()
    }
    await upsert(first, [
      ['k0', 0, 'n0'],
      ['k1', 1, 'n1'],
    ])
    await admin.alterTable(path, { addColumns: [{ name: 'extra', type: DataTypes.BIGINT() }] })
    await admin.alterTable(path, {
      renameColumns: [{ name: 'note', newName: 'memo' }],
      modifyColumns: [{ name: 'v', type: DataTypes.BIGINT(), comment: 'widened' }],
    })
    // Writers of the first schema: a full row, and a partial update of the renamed column.
    await upsert(first, [['k2', 2, 'n2']])
    await upsert(first, [['k0', 'changed']], ['k', 'note'])
    const last = await connection.getTable(path)
    expect(last.getTableInfo().schema.column('v')?.comment).toBe('widened')
    await upsert(last, [['k3', 2n ** 40n, 'n3', 7n]])
    await upsert(last, [['k1', 99n]], ['k', 'extra'])

    const look = async (t: Table, k: string) =>
      (await t.newLookup().createLookuper().lookup([k])).singletonRow()
    expect(await look(last, 'k0')).toEqual(['k0', 0n, 'changed', null])
    expect(await look(last, 'k1')).toEqual(['k1', 1n, 'n1', 99n])
    expect(await look(last, 'k2')).toEqual(['k2', 2n, 'n2', null])
    expect(await look(last, 'k3')).toEqual(['k3', 2n ** 40n, 'n3', 7n])
    // A lookuper of the first schema: values narrowed back where they fit, STALE_SCHEMA where not.
    expect(await look(first, 'k1')).toEqual(['k1', 1, 'n1'])
    expect((await refusal(look(first, 'k3'))).errorName).toBe('STALE_SCHEMA')
  }, 120_000)

  it('refuses unsafe changes with INVALID_ALTER_TABLE_EXCEPTION and changes nothing', async () => {
    const schema = Schema.newBuilder()
      .column('id', notNull(DataTypes.INT()))
      .column('b', notNull(DataTypes.INT()))
      .column('dt', notNull(DataTypes.STRING()))
      .column('v', DataTypes.BIGINT())
      .column('s', DataTypes.STRING())
      .primaryKey('id', 'b', 'dt')
      .build()
    // Partitioned: no partition exists, so no bucket waits for a leader.
    const path = tablePath(database, 'evo_refused')
    await admin.createTable(
      path,
      TableDescriptor.builder()
        .schema(schema)
        .partitionedBy('dt')
        .distributedBy(2, ['b'])
        .property('table.replication.factor', '1')
        .build(),
    )
    const refused: [Parameters<Admin['alterTable']>[1], string][] = [
      [{ dropColumns: ['id'] }, "Cannot drop column 'id': it is a primary key column."],
      [{ dropColumns: ['nope'] }, 'Column nope does not exist.'],
      [{ renameColumns: [{ name: 'nope', newName: 'x' }] }, 'Column nope does not exist.'],
      [{ renameColumns: [{ name: 'b', newName: 'x' }] }, "'b'"],
      [{ renameColumns: [{ name: 'v', newName: 's' }] }, 'column s already exists.'],
      [{ modifyColumns: [{ name: 'v', type: DataTypes.INT() }] }, "Cannot modify column 'v'"],
      [{ modifyColumns: [{ name: 'v', type: DataTypes.STRING() }] }, "Cannot modify column 'v'"],
      [{ modifyColumns: [{ name: 'dt', type: DataTypes.STRING() }] }, "'dt'"],
      [{ modifyColumns: [{ name: 'v', defaultValue: 'abc' }] }, 'Invalid default "abc"'],
      [{ addColumns: [{ name: 'nn', type: notNull(DataTypes.INT()) }] }, 'Column nn must be nullable.'],
      [{ addColumns: [{ name: 's', type: DataTypes.INT() }] }, 'Column s already exists.'],
      [{ set: { 'table.log.ttl': '1 d' }, dropColumns: ['s'] }, 'table properties or table schema'],
    ]
    for (const [changes, message] of refused) {
      const e = await refusal(admin.alterTable(path, changes))
      expect(e.errorName, JSON.stringify(changes)).toBe('INVALID_ALTER_TABLE_EXCEPTION')
      expect(e.message).toContain(message)
    }
    const versions = await admin.getTableSchemas(path)
    expect(versions.map(v => v.schemaId)).toEqual([1])
    expect(versions[0].schema.equals(schema)).toBe(true)
    const missing = await refusal(
      admin.alterTable(tablePath(database, 'no_such_table'), { dropColumns: ['v'] }),
    )
    expect(missing.errorName).toBe('TABLE_NOT_EXIST')
    await admin.alterTable(tablePath(database, 'no_such_table'), { dropColumns: ['v'] }, true)
    // A change that changes nothing stores no schema.
    await admin.alterTable(path, { modifyColumns: [{ name: 'v', type: DataTypes.BIGINT() }] })
    expect((await admin.getTableSchema(path)).schemaId).toBe(1)
  }, 60_000)
})
