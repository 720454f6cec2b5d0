import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { Timestamp } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { type Cleanups, createTable, runCleanups, startClient } from '../testing/client-fixture.js'

/** Tables with ARRAY, MAP and ROW columns through the SDK: rows written as objects, read as objects. */

const cleanups: Cleanups = []
afterEach(() => runCleanups(cleanups))

const POINT = DataTypes.ROW([
  { name: 'x', type: notNull(DataTypes.INT()), fieldId: 0 },
  { name: 'label', type: DataTypes.STRING(), fieldId: 0 },
])

function schema(primaryKey?: string[]) {
  const b = Schema.newBuilder()
    .column('id', notNull(DataTypes.INT()))
    .column('seq', notNull(DataTypes.INT()))
    .column('tags', DataTypes.ARRAY(DataTypes.STRING()))
    .column('point', POINT)
    .column('scores', DataTypes.MAP(DataTypes.STRING(), DataTypes.ARRAY(POINT)))
    .column('at', DataTypes.ARRAY(DataTypes.TIMESTAMP_LTZ(3)))
  return (primaryKey === undefined ? b : b.primaryKey(primaryKey)).build()
}

async function setup(name: string, s: Schema, bucketKeys: string[] = []) {
  const { connection } = await startClient(cleanups, { config: { 'client.lookup.batch-timeout': '10ms' } })
  const descriptor = TableDescriptor.builder()
    .schema(s)
    .distributedBy(1, ...bucketKeys)
    .build()
  return (await createTable(connection, { databaseName: 'fluss', tableName: name }, descriptor)).table
}

/** Row `i` as a user writes it: ROW values as objects, a MAP<STRING, …> as an object, Dates. */
const written = (i: number) => ({
  id: i,
  seq: 0,
  tags: [`t${i}`, null],
  point: { x: i, label: `p${i}` },
  scores: { a: [{ x: i, label: null }], b: [] },
  at: [new Date(1_000 * i), null],
})

/** Row `i` as an object row reads it back: ROW values as objects, MAP values as Maps, Timestamps. */
const read = (i: number) => ({
  id: i,
  seq: 0,
  tags: [`t${i}`, null],
  point: { x: i, label: `p${i}` },
  scores: new Map([
    ['a', [{ x: i, label: null }]],
    ['b', []],
  ]),
  at: [new Timestamp(1_000 * i), null],
})

describe('nested columns through the SDK', () => {
  it('log tables: appended object rows are scanned back as rows and as objects', async () => {
    const table = await setup('nested_log', schema())
    const writer = table.newAppend().createWriter()
    for (const i of [1, 2]) writer.append(written(i))
    writer.append({ id: 3, seq: 0 })
    await writer.close()
    const scanner = table.newScan().createLogScanner()
    scanner.subscribeFromBeginning(0)
    const records = await scanner.poll(5000)
    expect(records.objects().map(r => r.row)).toEqual([
      read(1),
      read(2),
      { id: 3, seq: 0, tags: null, point: null, scores: null, at: null },
    ])
    // Rows keep the core value model: a ROW value is an array in field order.
    expect([...records][0].row[3]).toEqual([1, 'p1'])
    scanner.close()

    const projected = table.newScan().project(['scores', 'id']).createLogScanner()
    projected.subscribeFromBeginning(0)
    const [first] = (await projected.poll(5000)).objects()
    expect(first.row).toEqual({ scores: read(1).scores, id: 1 })
    projected.close()
  })

  it('primary-key tables: upserts, partial updates and deletes of nested values; lookups as objects', async () => {
    const table = await setup('nested_pk', schema(['id', 'seq']), ['id'])
    const upserter = table.newUpsert().createWriter()
    for (const i of [1, 2]) upserter.upsert(written(i))
    upserter.upsert({ ...written(1), seq: 1 })
    await upserter.flush()
    const partial = table.newUpsert().partialUpdate(['id', 'seq', 'point']).createWriter()
    partial.upsert({ id: 2, seq: 0, point: { x: 20 } })
    await partial.flush()
    upserter.delete({ id: 1, seq: 1, point: { not: 'checked' } })
    await upserter.close()
    await partial.close()

    const lookuper = table.newLookup().createLookuper()
    expect((await lookuper.lookup({ id: 1, seq: 0 })).objects()).toEqual([read(1)])
    expect((await lookuper.lookup({ id: 2, seq: 0 })).objects()).toEqual([
      { ...read(2), point: { x: 20, label: null } },
    ])
    expect((await lookuper.lookup({ id: 1, seq: 1 })).objects()).toEqual([])
    const prefix = table.newLookup().lookupBy(['id']).createLookuper()
    expect((await prefix.lookup([1])).objects()).toEqual([read(1)])
    expect((await prefix.lookup([1])).rows()).toEqual([
      [
        1,
        0,
        ['t1', null],
        [1, 'p1'],
        new Map<string, unknown>([
          ['a', [[1, null]]],
          ['b', []],
        ]),
        read(1).at,
      ],
    ])
  })
})
