import { storeNextSchema, tableInfoOf } from '@sluice/core/control-plane'
import { applySchemaChanges, type SchemaChange, type TableInfo } from '@sluice/core/metadata'
import { ChangeType } from '@sluice/core/record'
import { peerAvailable } from '@sluice/core/testing'
import { DataTypes, notNull } from '@sluice/core/types'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IcebergTable } from '../iceberg/table.js'
import { PYICEBERG_PEERS, pyiceberg, sortBy } from '../testing/pyiceberg.js'
import { type TieringTestEnv, tieringTestEnv } from '../testing/tiering-env.js'
import { runTieringRound } from './tiering-round.js'

/**
 * A lake table follows ALTER TABLE: the round after a change commits the next Iceberg schema
 * (fields by id: Fluss column id + 1), tiers batches of every schema version by column id, and
 * keeps the files written before as they are.
 */

const CHANGES: SchemaChange[] = [
  { kind: 'add', name: 'region', dataType: DataTypes.STRING() },
  { kind: 'rename', name: 'label', newName: 'title' },
  { kind: 'modify', name: 'qty', dataType: DataTypes.BIGINT() },
  { kind: 'drop', name: 'tmp' },
]

describe('tiering a table whose schema changes', () => {
  let env: TieringTestEnv
  beforeAll(async () => {
    env = await tieringTestEnv()
  })
  afterAll(() => env.close())

  async function alter(info: TableInfo, changes: readonly SchemaChange[]): Promise<TableInfo> {
    const record = await env.catalog.getTableOrThrow(info.tablePath)
    const next = applySchemaChanges(record.descriptor, changes)
    if (next === undefined) throw new Error('no change')
    return tableInfoOf(await storeNextSchema(env.catalog, record, next))
  }

  const lake = (info: TableInfo) =>
    new IcebergTable(info.tablePath, { io: env.io, catalog: env.lakeCatalog }).load()
  const userFields = (md: Awaited<ReturnType<typeof lake>>['metadata'], schemaId: number) =>
    (md.schemas.find(s => s['schema-id'] === schemaId)?.fields ?? [])
      .filter(f => !f.name.startsWith('__'))
      .map(f => [f.id, f.name, f.type, f.required])

  it('log table: the Iceberg schema evolves by field id and every batch is tiered', async () => {
    const first = await env.createTable('evo_log', {
      columns: [
        ['id', notNull(DataTypes.BIGINT())],
        ['qty', DataTypes.INT()],
        ['label', DataTypes.STRING()],
        ['tmp', DataTypes.STRING()],
      ],
      buckets: 1,
    })
    const log = env.log(first, 0)
    log.append([
      [1n, 10, 'a', 't1'],
      [2n, 20, 'b', 't2'],
    ])
    await log.seal()
    const r1 = await runTieringRound(env.deps(), first)
    const before = (await lake(first)).metadata

    const second = await alter(first, CHANGES)
    log.appendAs(first, [[3n, 30, 'c', 't3']]) // a writer that has not refreshed
    log.appendAs(second, [[4n, 2n ** 40n, 'd', 'eu']])
    await log.seal()
    const r2 = await runTieringRound(env.deps(), second)
    expect(r2.error).toBeUndefined()

    const md = (await lake(second)).metadata
    expect(md.schemas.map(s => s['schema-id'])).toEqual([0, 1])
    expect(md['current-schema-id']).toBe(1)
    expect(userFields(md, 0)).toEqual([
      [1, 'id', 'long', true],
      [2, 'qty', 'int', false],
      [3, 'label', 'string', false],
      [4, 'tmp', 'string', false],
    ])
    expect(userFields(md, 1)).toEqual([
      [1, 'id', 'long', true],
      [2, 'qty', 'long', false],
      [3, 'title', 'string', false],
      [5, 'region', 'string', false],
    ])
    expect(md['last-column-id']).toBe(before['last-column-id'])
    const schemaOf = (id: bigint | undefined) =>
      md.snapshots.find(s => s['snapshot-id'] === id)?.['schema-id']
    expect([schemaOf(r1.snapshotId), schemaOf(r2.snapshotId)]).toEqual([0, 1])

    // A third round with no change keeps the schema.
    log.appendAs(second, [[5n, 5n, 'e', null]])
    await log.seal()
    await runTieringRound(env.deps(), second)
    expect((await lake(second)).metadata.schemas).toHaveLength(2)

    const SUITE = 'pyiceberg reads the evolved lake table'
    if (!peerAvailable(SUITE, PYICEBERG_PEERS)) return
    const state = await lake(second)
    const py = pyiceberg(state.pointer.metadataLocation, [state.metadata['current-snapshot-id'] as bigint])
    const rows = Object.values(py.snapshots)[0].rows.map(r => [r.id, r.qty, r.title, r.region, r.tmp])
    expect(
      sortBy(
        rows.map(r => ({ r })),
        'r',
      ).map(x => x.r),
    ).toEqual([
      [1, 10, 'a', null, undefined],
      [2, 20, 'b', null, undefined],
      [3, 30, 'c', null, undefined],
      [4, 2 ** 40, 'd', 'eu', undefined],
      [5, 5, 'e', null, undefined],
    ])
  }, 120_000)

  it('primary-key table: changelogs of both schemas merged by column id', async () => {
    const first = await env.createTable('evo_pk', {
      columns: [
        ['k', notNull(DataTypes.STRING())],
        ['qty', DataTypes.INT()],
        ['label', DataTypes.STRING()],
        ['tmp', DataTypes.STRING()],
      ],
      primaryKey: ['k'],
      buckets: 1,
    })
    const log = env.log(first, 0)
    log.append([
      ['a', 1, 'x', 't'],
      ['b', 2, 'y', 't'],
    ])
    await log.seal()
    await runTieringRound(env.deps(), first)
    const second = await alter(first, CHANGES)
    const { UPDATE_BEFORE: UB, UPDATE_AFTER: UA } = ChangeType
    log.appendAs(
      second,
      [
        ['a', 1n, 'x', null],
        ['a', 7n, 'x2', 'eu'],
      ],
      [UB, UA],
    )
    log.appendAs(first, [['c', 3, 'z', 't']])
    await log.seal()
    const r = await runTieringRound(env.deps(), second)
    expect(r.error).toBeUndefined()
    const md = (await lake(second)).metadata
    expect(userFields(md, md['current-schema-id']).map(f => f[1])).toEqual(['k', 'qty', 'title', 'region'])
    expect(
      md.schemas.find(s => s['schema-id'] === md['current-schema-id'])?.['identifier-field-ids'],
    ).toEqual([1])

    const SUITE = 'pyiceberg reads the evolved primary-key lake table'
    if (!peerAvailable(SUITE, PYICEBERG_PEERS)) return
    const state = await lake(second)
    const py = pyiceberg(state.pointer.metadataLocation, [state.metadata['current-snapshot-id'] as bigint])
    const rows = sortBy(Object.values(py.snapshots)[0].rows, 'k').map(x => [x.k, x.qty, x.title, x.region])
    expect(rows).toEqual([
      ['a', 7, 'x2', 'eu'],
      ['b', 2, 'y', null],
      ['c', 3, 'z', null],
    ])
  }, 120_000)

  it('an added nested column gets new Iceberg field ids, nested ones counted in last-column-id', async () => {
    const first = await env.createTable('evo_nested', {
      columns: [
        ['id', notNull(DataTypes.BIGINT())],
        ['v', DataTypes.STRING()],
      ],
      buckets: 1,
    })
    const log = env.log(first, 0)
    log.append([[1n, 'a']])
    await log.seal()
    await runTieringRound(env.deps(), first)
    const before = (await lake(first)).metadata['last-column-id']
    const second = await alter(first, [
      { kind: 'add', name: 'tags', dataType: DataTypes.ARRAY(DataTypes.INT()) },
    ])
    log.appendAs(first, [[2n, 'b']])
    log.appendAs(second, [[3n, 'c', [1, null, 3]]])
    await log.seal()
    const r = await runTieringRound(env.deps(), second)
    expect(r.error).toBeUndefined()
    expect(r.records).toBe(2)
    const md = (await lake(second)).metadata
    const current = md.schemas.find(s => s['schema-id'] === md['current-schema-id'])
    const tags = current?.fields.find(f => f.name === 'tags')
    expect(tags?.id).toBe(3)
    expect(tags?.required).toBe(false)
    expect(typeof tags?.type === 'object' && tags.type.type).toBe('list')
    expect(md['last-column-id']).toBeGreaterThanOrEqual(before)
    const elementId =
      typeof tags?.type === 'object' && tags.type.type === 'list' ? tags.type['element-id'] : -1
    expect(md['last-column-id']).toBeGreaterThanOrEqual(elementId)
  }, 120_000)
})
