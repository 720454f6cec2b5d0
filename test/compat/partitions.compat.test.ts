import { describe, expect } from 'vitest'
import type { Canonical, ColumnSpec, TableSpec } from './canonical.js'
import type { Driver, PartitionOut } from './drivers/driver.js'
import { type Change, expectChanges, rowOf } from './expect-log.js'
import { itWhenServed } from './features.js'
import { compatSuite } from './harness.js'

/**
 * Issue 5: partitioned log and primary-key tables through the official Java and Python clients (and
 * our SDK for log tables): writes to several partitions with dynamic creation (pyfluss has none, so
 * it creates its partitions through Admin), listing, reading back and lookups.
 */

const { env, apis, db } = await compatSuite('partitions')
const partitionIt = itWhenServed(apis, ['CREATE_PARTITION', 'LIST_PARTITION_INFOS'])
const kvPartitionIt = itWhenServed(apis, ['CREATE_PARTITION', 'LIST_PARTITION_INFOS', 'PUT_KV', 'LOOKUP'])
const kvPrefixPartitionIt = itWhenServed(apis, ['CREATE_PARTITION', 'PUT_KV', 'LOOKUP', 'PREFIX_LOOKUP'])

const names = (partitions: PartitionOut[]) => partitions.map(p => p.name)

async function expectSamePartitions(table: string, expected: string[]): Promise<void> {
  const listed: PartitionOut[][] = []
  for (const driver of [env.java, env.python, env.sdk] as Driver[])
    listed.push(await driver.partitions(db, table))
  expect(names(listed[0])).toEqual(expected)
  for (const l of listed) expect(l).toEqual(listed[0])
}

describe('partitioned log table', () => {
  const COLUMNS: readonly ColumnSpec[] = [
    { name: 'id', type: 'INT', nullable: false },
    { name: 'region', type: 'STRING', nullable: false },
    { name: 'v', type: 'STRING' },
    { name: 'ts', type: 'TIMESTAMP(3)' },
  ]
  const spec: TableSpec = { columns: COLUMNS, partitionKeys: ['region'], buckets: 2 }
  const table = 'events'
  const row = (id: number, region: string): Canonical[] =>
    rowOf(COLUMNS, [
      id,
      region,
      id % 7 === 0 ? null : `v${id}-ü`,
      String(BigInt(1_700_000_000_000 + id) * 1_000_000n),
    ])
  const rows = (from: number, to: number, regions: string[]) =>
    Array.from({ length: to - from }, (_, k) => row(from + k, regions[k % regions.length]))
  const javaRows = rows(1, 41, ['eu', 'us'])
  const pythonRows = rows(41, 61, ['asia', 'eu'])

  partitionIt('Java creates the table and appends to eu and us (dynamic partition creation)', async () => {
    await env.java.createTable(db, table, spec)
    await env.java.append(db, table, javaRows)
  })

  partitionIt('Python creates partition asia through Admin and appends to asia and eu', async () => {
    await env.python.createPartition(db, table, { region: 'asia' })
    await env.python.append(db, table, pythonRows)
  })

  partitionIt('Java, Python and the SDK list the same three partitions', async () => {
    await expectSamePartitions(table, ['asia', 'eu', 'us'])
  })

  partitionIt('Java, Python and the SDK read every row of every partition exactly once', async () => {
    const expected = [...javaRows, ...pythonRows].map(r => ({
      change: '+A',
      row: r,
      partition: r[1] as string,
    }))
    for (const reader of [env.java, env.python, env.sdk] as Driver[]) {
      expectChanges(await reader.changelog(db, table, expected.length), expected, [0])
    }
  })

  partitionIt(
    'the SDK appends to four new partitions (dynamic creation); Java and Python read them',
    async () => {
      const sdkTable = 'events_sdk'
      const sdkRows = rows(81, 121, ['af', 'eu', 'sa', 'oc'])
      await env.sdk.createTable(db, sdkTable, spec)
      await env.sdk.append(db, sdkTable, sdkRows)
      await expectSamePartitions(sdkTable, ['af', 'eu', 'oc', 'sa'])
      const expected = sdkRows.map(r => ({ change: '+A', row: r, partition: r[1] as string }))
      for (const reader of [env.java, env.python]) {
        expectChanges(await reader.changelog(db, sdkTable, expected.length), expected, [0])
      }
    },
  )
})

describe('partitioned primary-key table', () => {
  const COLUMNS: readonly ColumnSpec[] = [
    { name: 'region', type: 'STRING', nullable: false },
    { name: 'id', type: 'INT', nullable: false },
    { name: 'seq', type: 'INT', nullable: false },
    { name: 'v', type: 'STRING' },
    { name: 'n', type: 'BIGINT' },
  ]
  const spec: TableSpec = {
    columns: COLUMNS,
    primaryKey: ['region', 'id', 'seq'],
    partitionKeys: ['region'],
    bucketKeys: ['id'],
    buckets: 2,
  }
  const table = 'accounts'
  const r = (...values: (string | number | null)[]) => rowOf(COLUMNS, values)
  const change = (c: string, row: Canonical[]): Change & { partition: string } => ({
    change: c,
    row,
    partition: row[0] as string,
  })

  kvPartitionIt(
    'Java upserts into eu and us (dynamic creation); Python adds asia, updates, deletes',
    async () => {
      await env.java.createTable(db, table, spec)
      await env.java.upsert(db, table, [
        { op: 'upsert', row: r('eu', 1, 1, 'a', 1) },
        { op: 'upsert', row: r('us', 1, 1, 'b', 2) },
        { op: 'upsert', row: r('eu', 2, 1, 'c', 3) },
        { op: 'upsert', row: r('eu', 1, 2, 'd', 4) },
      ])
      await env.python.createPartition(db, table, { region: 'asia' })
      await env.python.upsert(db, table, [
        { op: 'upsert', row: r('asia', 1, 1, 'e', 5) },
        { op: 'upsert', row: r('eu', 1, 1, 'a2', 6) },
        { op: 'delete', row: r('us', 1, 1, null, null) },
      ])
      await expectSamePartitions(table, ['asia', 'eu', 'us'])
    },
  )

  kvPartitionIt('Java and Python read the changelog of every partition', async () => {
    const expected = [
      change('+I', r('eu', 1, 1, 'a', 1)),
      change('-U', r('eu', 1, 1, 'a', 1)),
      change('+U', r('eu', 1, 1, 'a2', 6)),
      change('+I', r('us', 1, 1, 'b', 2)),
      change('-D', r('us', 1, 1, 'b', 2)),
      change('+I', r('eu', 2, 1, 'c', 3)),
      change('+I', r('eu', 1, 2, 'd', 4)),
      change('+I', r('asia', 1, 1, 'e', 5)),
    ]
    for (const reader of [env.java, env.python]) {
      expectChanges(await reader.changelog(db, table, expected.length), expected, [1, 2])
    }
  })

  kvPartitionIt(
    'Java and Python look up keys, including one in a partition that does not exist',
    async () => {
      const keys = [
        ['eu', '1', '1'],
        ['us', '1', '1'],
        ['asia', '1', '1'],
        ['nowhere', '1', '1'],
      ]
      for (const reader of [env.java, env.python]) {
        expect(await reader.lookup(db, table, keys)).toEqual([
          r('eu', 1, 1, 'a2', 6),
          null,
          r('asia', 1, 1, 'e', 5),
          null,
        ])
      }
    },
  )

  kvPrefixPartitionIt('Java and Python prefix-look-up by partition key + bucket key', async () => {
    const prefixes = [
      ['eu', '1'],
      ['eu', '2'],
      ['nowhere', '1'],
    ]
    for (const reader of [env.java, env.python]) {
      const found = await reader.lookup(db, table, prefixes, ['region', 'id'])
      expect(found).toEqual([[r('eu', 1, 1, 'a2', 6), r('eu', 1, 2, 'd', 4)], [r('eu', 2, 1, 'c', 3)], []])
    }
  })
})
