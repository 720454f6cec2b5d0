import type { Table } from '@sluice/client'
import { tablePath } from '@sluice/core/metadata'
import { DataTypes } from '@sluice/core/types'
import { describe, expect } from 'vitest'
import type { Canonical, TableSpec } from './canonical.js'
import { itWhenServed } from './features.js'
import { compatSuite } from './harness.js'

/**
 * Schema evolution through the official Java client (Admin#alterTable with Fluss's TableChange):
 * ADD COLUMN as Fluss 0.9.1 defines it, and the changes Sluice applies beyond it (rename, drop,
 * comments) sent by the same client. A writer and a reader opened before a change keep their
 * schema and keep working; one opened after it has the new schema; every row is read once, by
 * column id, old rows with NULL in added columns. Our SDK reads the same data under both schemas.
 * pyfluss writes and looks up after ADD COLUMN and RENAME, and scans older batches only projected.
 */

const { env, apis, db } = await compatSuite('schemaevo', ['ALTER_TABLE', 'PUT_KV', 'LOOKUP'])
const it = itWhenServed(apis, ['ALTER_TABLE', 'PUT_KV', 'LOOKUP'])

type Row = Canonical[]

interface Evolved {
  oldSchemaId: number
  newSchemaId: number
  oldColumns: string[]
  newColumns: string[]
  oldRead: (Row | null)[]
  newRead: (Row | null)[]
}

interface Scenario {
  changes: Record<string, string | boolean>[]
  before: Row[]
  old: Row[]
  new: Row[]
  count?: number
  keys?: Row[]
}

async function javaEvolve(table: string, scenario: Scenario): Promise<Evolved> {
  const file = env.java.file('evolve', scenario)
  return (await env.java.call(['evolve', db, table, file])) as unknown as Evolved
}

async function javaAlter(table: string, changes: Scenario['changes']): Promise<Record<string, unknown>> {
  return env.java.call(['alter', db, table, env.java.file('alter', changes)])
}

/** Rows sorted as the Java driver sorts them (canonical texts joined, NULL as ''). */
const sorted = (rows: readonly Row[]) =>
  [...rows].sort((a, b) => {
    const x = a.map(v => v ?? '').join('\u0000')
    const y = b.map(v => v ?? '').join('\u0000')
    return x < y ? -1 : x > y ? 1 : 0
  })

/** Every row of a log table through an SDK table (its schema as got), as canonical-ish texts. */
async function sdkScan(table: Table, count: number, project?: string[]): Promise<Row[]> {
  const scan = project ? table.newScan().project(project) : table.newScan()
  const scanner = scan.createLogScanner()
  const rows: Row[] = []
  try {
    for (let b = 0; b < table.getTableInfo().numBuckets; b++) scanner.subscribeFromBeginning(b)
    const deadline = Date.now() + 30_000
    while (rows.length < count && Date.now() < deadline) {
      for (const r of await scanner.poll(500)) rows.push(r.row.map(v => (v === null ? null : String(v))))
    }
  } finally {
    scanner.close()
  }
  return sorted(rows)
}

const spec = (columns: TableSpec['columns'], extra: Partial<TableSpec> = {}): TableSpec => ({
  columns,
  buckets: 2,
  properties: { 'table.replication.factor': '3' },
  ...extra,
})

describe('schema evolution with the Java client', () => {
  it('ADD COLUMN on a log table: old writer and scanner keep working, new ones see the column', async () => {
    const table = 'evo_log'
    await env.java.createTable(
      db,
      table,
      spec([
        { name: 'id', type: 'INT', nullable: false },
        { name: 'name', type: 'STRING' },
      ]),
    )
    const sdkBefore = await env.sdk.connection.getTable(tablePath(db, table))
    const result = await javaEvolve(table, {
      changes: [{ op: 'add', name: 'score', type: 'BIGINT', comment: 'added' }],
      before: [
        ['0', 'a0'],
        ['1', 'a1'],
      ],
      old: [
        ['2', 'a2'],
        ['3', 'a3'],
      ],
      new: [
        ['4', 'a4', '40'],
        ['5', 'a5', null],
      ],
      count: 6,
    })
    expect([result.oldSchemaId, result.newSchemaId]).toEqual([1, 2])
    expect(result.oldColumns).toEqual(['id', 'name'])
    expect(result.newColumns).toEqual(['id', 'name', 'score'])
    const newRows: Row[] = [
      ['0', 'a0', null],
      ['1', 'a1', null],
      ['2', 'a2', null],
      ['3', 'a3', null],
      ['4', 'a4', '40'],
      ['5', 'a5', null],
    ]
    expect(result.newRead).toEqual(newRows)
    expect(result.oldRead).toEqual(newRows.map(r => r.slice(0, 2)))

    // Our SDK: a table got before the change reads the old columns, one got now the new ones.
    expect(await sdkScan(sdkBefore, 6)).toEqual(newRows.map(r => r.slice(0, 2)))
    const sdkAfter = await env.sdk.connection.getTable(tablePath(db, table))
    expect(sdkAfter.getTableInfo().schemaId).toBe(2)
    expect(sdkAfter.getTableInfo().schema.column('score')?.comment).toBe('added')
    expect(await sdkScan(sdkAfter, 6)).toEqual(newRows)
    expect(await sdkScan(sdkAfter, 6, ['score', 'id'])).toEqual(sorted(newRows.map(r => [r[2], r[0]])))
    // And the SDK's rows of the new schema reach the Java reader of the old one.
    await env.sdk.append(db, table, [['6', 'a6', '60']])
    const later = await javaEvolve(table, {
      changes: [{ op: 'add', name: 'note', type: 'STRING' }],
      before: [],
      old: [],
      new: [],
      count: 7,
    })
    expect([later.oldSchemaId, later.newSchemaId]).toEqual([2, 3])
    expect(later.oldRead).toEqual([...newRows, ['6', 'a6', '60']])
    expect(later.newRead).toEqual([...newRows, ['6', 'a6', '60']].map(r => [...r, null]))
  })

  it('ADD COLUMN on a primary-key table: upserts of the old schema leave the new column NULL', async () => {
    const table = 'evo_pk'
    await env.java.createTable(
      db,
      table,
      spec(
        [
          { name: 'k', type: 'STRING', nullable: false },
          { name: 'v', type: 'INT' },
        ],
        { primaryKey: ['k'] },
      ),
    )
    const keys = [['k0'], ['k1'], ['k2'], ['k3'], ['k4']]
    const result = await javaEvolve(table, {
      changes: [{ op: 'add', name: 'extra', type: 'STRING' }],
      before: [
        ['k0', '1'],
        ['k1', '2'],
      ],
      old: [
        ['k2', '3'],
        ['k0', '10'],
      ],
      new: [
        ['k3', '4', 'x'],
        ['k1', '20', 'y'],
      ],
      keys,
    })
    const rows: (Row | null)[] = [
      ['k0', '10', null],
      ['k1', '20', 'y'],
      ['k2', '3', null],
      ['k3', '4', 'x'],
      null,
    ]
    expect(result.newRead).toEqual(rows)
    expect(result.oldRead).toEqual(rows.map(r => r?.slice(0, 2) ?? null))
    expect(await env.sdk.lookup(db, table, keys)).toEqual(rows)
    // An SDK writer of the old schema upserting a whole row after the new column was written
    // leaves that column NULL (its row is padded, as Fluss pads rows of older schemas).
    const sdkOld = await env.sdk.connection.getTable(tablePath(db, table))
    await javaEvolve(table, {
      changes: [{ op: 'add', name: 'more', type: 'INT' }],
      before: [],
      old: [],
      new: [['k3', '5', 'z', '7']],
      keys: [],
    })
    expect(await env.sdk.lookup(db, table, [['k3']])).toEqual([['k3', '5', 'z', '7']])
    const writer = sdkOld.newUpsert().createWriter()
    await writer.upsert(['k3', 6, 'w'])
    await writer.flush()
    await writer.close()
    expect(await env.sdk.lookup(db, table, [['k3']])).toEqual([['k3', '6', 'w', null]])
  })

  it('rename and drop sent by the Java client: readers of every schema resolve columns by id', async () => {
    const table = 'evo_rename'
    await env.java.createTable(
      db,
      table,
      spec([
        { name: 'id', type: 'INT', nullable: false },
        { name: 'a', type: 'STRING' },
        { name: 'b', type: 'STRING' },
      ]),
    )
    const result = await javaEvolve(table, {
      changes: [
        { op: 'drop', name: 'b' },
        { op: 'rename', name: 'a', newName: 'alpha' },
      ],
      before: [['0', 'x0', 'y0']],
      old: [['1', 'x1', 'y1']],
      new: [['2', 'x2']],
      count: 3,
    })
    expect(result.newColumns).toEqual(['id', 'alpha'])
    expect(result.newRead).toEqual([
      ['0', 'x0'],
      ['1', 'x1'],
      ['2', 'x2'],
    ])
    // The old reader: b of rows written before the drop (by any writer of the old schema), NULL after.
    expect(result.oldRead).toEqual([
      ['0', 'x0', 'y0'],
      ['1', 'x1', 'y1'],
      ['2', 'x2', null],
    ])
    const sdk = await env.sdk.connection.getTable(tablePath(db, table))
    expect(await sdkScan(sdk, 3)).toEqual(result.newRead)
  })

  it('refuses unsafe changes with InvalidAlterTableException and changes nothing', async () => {
    const table = 'evo_refused'
    await env.java.createTable(
      db,
      table,
      spec(
        [
          { name: 'k', type: 'STRING', nullable: false },
          { name: 'v', type: 'BIGINT' },
        ],
        { primaryKey: ['k'] },
      ),
    )
    const refusals: [Scenario['changes'], string][] = [
      [[{ op: 'drop', name: 'k' }], 'primary key'],
      [[{ op: 'add', name: 'nn', type: 'INT', nullable: false }], 'must be nullable'],
      [[{ op: 'modify', name: 'v', type: 'INT' }], 'BIGINT'],
      [[{ op: 'add', name: 'v', type: 'INT' }], 'already exists'],
      [[{ op: 'rename', name: 'missing', newName: 'x' }], 'missing'],
    ]
    for (const [changes, text] of refusals) {
      const error = await javaAlter(table, changes).then(
        () => undefined,
        (e: Error) => e.message,
      )
      expect(error, JSON.stringify(changes)).toContain('InvalidAlterTableException')
      expect(error).toContain(text)
    }
    const info = await env.sdk.connection.getAdmin().getTableSchema(tablePath(db, table))
    expect(info.schemaId).toBe(1)
    expect(info.schema.columnNames).toEqual(['k', 'v'])
    // A property change goes through the same call (Fluss's SET).
    expect((await javaAlter(table, [{ op: 'set', key: 'table.log.ttl', value: '2 d' }])).schemaId).toBe(1)
    const props = (await env.sdk.connection.getAdmin().getTableInfo(tablePath(db, table))).properties
    expect(props['table.log.ttl']).toBe('2 d')
  })
})

/** A log record's row, sorted by the first column, as pyfluss returned it. */
const rowsOf = (records: readonly { row: Canonical[] }[]) => sorted(records.map(r => r.row))

describe('schema evolution with pyfluss', () => {
  it('ADD COLUMN and RENAME on a log table: pyfluss appends after each, reads old batches only projected', async () => {
    const table = 'evo_py_log'
    const path = tablePath(db, table)
    await env.python.createTable(
      db,
      table,
      spec([
        { name: 'id', type: 'INT', nullable: false },
        { name: 'name', type: 'STRING' },
      ]),
    )
    await env.python.append(db, table, [
      ['0', 'a0'],
      ['1', 'a1'],
    ])
    const admin = env.sdk.connection.getAdmin()
    await admin.alterTable(path, { addColumns: [{ name: 'score', type: DataTypes.BIGINT() }] })
    await env.python.append(db, table, [['2', 'a2', '20']])
    const afterAdd: Row[] = [
      ['0', 'a0', null],
      ['1', 'a1', null],
      ['2', 'a2', '20'],
    ]
    // pyfluss 1.0.0 decodes every fetched batch with the table's latest schema, whatever schema id
    // the batch carries: an unprojected read of batches written before ADD COLUMN fails.
    expect(await env.python.error(['changelog', db, table, '3'])).toContain(
      'column index 2 out of bounds (batch has 2 columns)',
    )
    // A projected read works: the server projects every batch by column id, old ones padded.
    expect(rowsOf(await env.python.changelog(db, table, 3, ['id', 'name', 'score']))).toEqual(afterAdd)
    expect(rowsOf(await env.python.changelog(db, table, 3, ['score', 'id']))).toEqual(
      sorted(afterAdd.map(r => [r[2], r[0]])),
    )

    await admin.alterTable(path, { renameColumns: [{ name: 'name', newName: 'title' }] })
    await env.python.append(db, table, [['3', 'a3', '30']])
    const afterRename = [...afterAdd, ['3', 'a3', '30']]
    expect(rowsOf(await env.python.changelog(db, table, 4, ['id', 'title', 'score']))).toEqual(afterRename)
    expect(rowsOf(await env.python.changelog(db, table, 4, ['title']))).toEqual(
      sorted(afterRename.map(r => [r[1]])),
    )
    // Our SDK reads what pyfluss wrote under each schema.
    expect(await sdkScan(await env.sdk.connection.getTable(path), 4)).toEqual(afterRename)
  })

  it('ADD COLUMN and RENAME on a primary-key table: pyfluss upserts and looks up; reads the changelog only projected', async () => {
    const table = 'evo_py_pk'
    const path = tablePath(db, table)
    await env.python.createTable(
      db,
      table,
      spec(
        [
          { name: 'k', type: 'STRING', nullable: false },
          { name: 'v', type: 'INT' },
        ],
        { primaryKey: ['k'] },
      ),
    )
    await env.python.upsert(db, table, [
      { op: 'upsert', row: ['k0', '1'] },
      { op: 'upsert', row: ['k1', '2'] },
    ])
    const admin = env.sdk.connection.getAdmin()
    await admin.alterTable(path, { addColumns: [{ name: 'extra', type: DataTypes.STRING() }] })
    await env.python.upsert(db, table, [
      { op: 'upsert', row: ['k1', '3', 'x'] },
      { op: 'upsert', row: ['k2', '4', 'y'] },
    ])
    const keys = [['k0'], ['k1'], ['k2'], ['k9']]
    const afterAdd: (Row | null)[] = [['k0', '1', null], ['k1', '3', 'x'], ['k2', '4', 'y'], null]
    expect(await env.python.lookup(db, table, keys)).toEqual(afterAdd)

    await admin.alterTable(path, { renameColumns: [{ name: 'v', newName: 'value' }] })
    // A partial update by the new name of a column written under its old one.
    await env.python.upsert(db, table, [{ op: 'upsert', row: ['k0', '5', null], columns: ['k', 'value'] }])
    const afterRename: (Row | null)[] = [['k0', '5', null], ...afterAdd.slice(1)]
    expect(await env.python.lookup(db, table, keys)).toEqual(afterRename)
    expect(await env.sdk.lookup(db, table, keys)).toEqual(afterRename)
    expect(await env.python.error(['changelog', db, table, '7'])).toContain(
      'column index 2 out of bounds (batch has 2 columns)',
    )
    const changelog = await env.python.changelog(db, table, 7, ['k', 'value', 'extra'])
    expect(changelog.map(r => [r.change, ...r.row]).sort()).toEqual(
      [
        ['+I', 'k0', '1', null],
        ['+I', 'k1', '2', null],
        ['-U', 'k1', '2', null],
        ['+U', 'k1', '3', 'x'],
        ['+I', 'k2', '4', 'y'],
        ['-U', 'k0', '1', null],
        ['+U', 'k0', '5', null],
      ].sort(),
    )
  })
})
