import { describe, expect, it } from 'vitest'
import { databaseDescriptor, resolvedPartitionSpec } from '../metadata/index.js'
import { MemoryMetaStore, tableItemsPk } from '../metastore/index.js'
import { TestingCrashingMetaStore } from '../testing/crashing-metastore.js'
import { testLogTable } from '../testing/test-tables.js'
import { Catalog } from './catalog.js'
import { deletePartitionItems, deleteTableItems } from './item-cleanup.js'
import { inspectPartitions, inspectTable, nextTableId } from './orphans.js'
import { createPartition, dropPartition } from './partition-ddl.js'
import { createDatabase, createTable, dropTable, setTableState } from './table-ddl.js'
import type { TableRecord } from './table-items.js'

const GRACE_MS = 60_000
const path = { databaseName: 'db', tableName: 't' }
const createReq = {
  tablePath: path,
  descriptor: testLogTable(2),
  assignment: [[1], [2]],
  coordinatorEpoch: 1,
  ignoreIfExists: false,
}

async function setup() {
  const store = new MemoryMetaStore()
  let now = 1_000
  const clock = { nowMs: () => now, advance: (ms: number) => (now += ms) }
  const catalog = new Catalog(store, { nowMs: clock.nowMs })
  await createDatabase(catalog, 'db', databaseDescriptor(), false)
  return { store, clock, catalog }
}

/** Runs `op` against a store that dies after `writes` writes; the op must fail unless it finished. */
async function crashAfter<T>(
  store: MemoryMetaStore,
  nowMs: () => number,
  writes: number,
  op: (c: Catalog) => Promise<T>,
) {
  const crashing = new TestingCrashingMetaStore(store, writes)
  const result = await op(new Catalog(crashing, { nowMs })).then(
    () => 'finished',
    e => (e as Error).message,
  )
  return { crashed: crashing.crashed, result }
}

describe('create table crash safety', () => {
  // allocate id, table item, schema, 2 buckets, pointer (commit), READY: 7 writes.
  it.each([
    [0, undefined, false],
    [1, undefined, false],
    [2, 'rollback-creation', false],
    [4, 'rollback-creation', false],
    [5, 'rollback-creation', false],
    [6, 'finish-creation', true],
    [7, undefined, true],
  ] as const)('a crash after %i writes is repaired by %s; visible: %s', async (writes, kind, visible) => {
    const { store, clock, catalog } = await setup()
    const { crashed } = await crashAfter(store, clock.nowMs, writes, c => createTable(c, createReq))
    expect(crashed).toBe(writes < 7)
    expect(await catalog.tableExists(path)).toBe(visible)
    if (kind === 'rollback-creation') expect((await inspectTable(catalog, 0, GRACE_MS))?.kind).toBe('pending')
    clock.advance(GRACE_MS + 1)
    const repair = await inspectTable(catalog, 0, GRACE_MS)
    expect(repair?.kind).toBe(kind)
    if (repair?.kind === 'rollback-creation') await deleteTableItems(store, 0)
    if (repair?.kind === 'finish-creation') await setTableState(catalog, repair.table, 'READY')
    expect(await inspectTable(catalog, 0, GRACE_MS)).toBeUndefined()
    if (!visible) {
      expect((await store.query(tableItemsPk(0))).items).toEqual([])
      const again = await createTable(catalog, createReq)
      expect(again?.table.tableId).toBe((await nextTableId(catalog)) - 1)
    }
    expect((await catalog.getTableOrThrow(path)).state).toBe('READY')
  })
})

describe('drop table crash safety', () => {
  it('a crash after the pointer delete leaves a READY item without pointer: cleanup', async () => {
    const { store, clock, catalog } = await setup()
    await createTable(catalog, createReq)
    expect((await crashAfter(store, clock.nowMs, 1, c => dropTable(c, path, false))).crashed).toBe(true)
    expect(await catalog.tableExists(path)).toBe(false)
    const repair = await inspectTable(catalog, 0, GRACE_MS)
    expect(repair?.kind).toBe('cleanup')
    await setTableState(catalog, repair?.table as TableRecord, 'DROPPED')
    await deleteTableItems(store, 0)
    expect((await store.query(tableItemsPk(0))).items).toEqual([])
    expect(await inspectTable(catalog, 0, GRACE_MS)).toBeUndefined()
  })

  it('a crash before the pointer delete leaves the table as it was', async () => {
    const { store, clock, catalog } = await setup()
    await createTable(catalog, createReq)
    expect((await crashAfter(store, clock.nowMs, 0, c => dropTable(c, path, false))).crashed).toBe(true)
    expect(await catalog.tableExists(path)).toBe(true)
    expect(await inspectTable(catalog, 0, GRACE_MS)).toBeUndefined()
  })
})

describe('partition crash safety', () => {
  async function partitioned() {
    const s = await setup()
    const created = await createTable(s.catalog, {
      ...createReq,
      descriptor: testLogTable(2, 1, ['dt']),
      assignment: undefined,
    })
    return { ...s, table: created?.table as TableRecord }
  }
  const req = (table: TableRecord) => ({
    table,
    spec: resolvedPartitionSpec(['dt'], ['x']),
    assignment: [[1], [2]],
    coordinatorEpoch: 1,
    ignoreIfExists: false,
    maxPartitionNum: 10,
    maxBucketNum: 10,
  })

  // allocate id, partition item CREATING, 2 buckets, READY: 5 writes.
  it.each([2, 3, 4])('a create cut after %i writes stays invisible and is rolled back', async writes => {
    const { store, clock, catalog, table } = await partitioned()
    expect((await crashAfter(store, clock.nowMs, writes, c => createPartition(c, req(table)))).crashed).toBe(
      true,
    )
    expect(await catalog.listPartitions(table.tableId)).toEqual([])
    expect((await inspectPartitions(catalog, table.tableId, GRACE_MS)).map(r => r.kind)).toEqual(['pending'])
    clock.advance(GRACE_MS + 1)
    const [repair] = await inspectPartitions(catalog, table.tableId, GRACE_MS)
    expect(repair.kind).toBe('rollback-creation')
    await deletePartitionItems(store, repair.partition, 2)
    expect(await catalog.listAllBuckets(table.tableId)).toEqual([])
    expect(await inspectPartitions(catalog, table.tableId, GRACE_MS)).toEqual([])
    expect((await createPartition(catalog, req(table)))?.partition.state).toBe('READY')
  })

  it('a dropped partition awaits cleanup', async () => {
    const { catalog, table } = await partitioned()
    await createPartition(catalog, req(table))
    await dropPartition(catalog, table, resolvedPartitionSpec(['dt'], ['x']), false)
    expect((await inspectPartitions(catalog, table.tableId, GRACE_MS)).map(r => r.kind)).toEqual(['cleanup'])
  })
})
