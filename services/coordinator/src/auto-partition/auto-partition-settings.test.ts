import { expectFlussError } from '@sluice/core/testing'
import { describe, expect, it } from 'vitest'
import { setupManager } from '../testing/auto-partition.js'
import { autoPartitionedTable, localInstant } from '../testing/auto-partition-tables.js'
import { autoPartitionSettings } from './auto-partition-settings.js'

describe('autoPartitionSettings', () => {
  it('reads unit, format, zone and counts from the table properties', () => {
    const s = autoPartitionSettings(
      autoPartitionedTable({ tableId: 1, unit: 'QUARTER', zone: 'system', numPreCreate: 3, numRetention: 5 }),
      'Asia/Tokyo',
    )
    expect([s.timeUnit, s.timeFormat.pattern, s.zone.id, s.numPreCreate, s.numToRetain]).toEqual([
      'QUARTER',
      'yyyyQ',
      'Asia/Tokyo',
      3,
      5,
    ])
    expect(s.partitionKeys).toEqual(['dt'])
  })

  it('uses yyyy-MM-dd for a DATE key and the time key position for multi-key tables', () => {
    expect(
      autoPartitionSettings(autoPartitionedTable({ tableId: 1, unit: 'DAY', zone: 'UTC', dateKey: true }))
        .timeFormat.pattern,
    ).toBe('yyyy-MM-dd')
    const multi = autoPartitionSettings(
      autoPartitionedTable({
        tableId: 1,
        unit: 'DAY',
        zone: 'UTC',
        multiKey: true,
        numPreCreate: 2,
        properties: { 'table.auto-partition.key': 'a' },
      }),
    )
    expect([multi.timeKeyIndex, multi.numPreCreate]).toEqual([1, 0])
  })

  it('rejects settings that table creation should have refused', () => {
    const t = (o: Partial<Parameters<typeof autoPartitionedTable>[0]>) =>
      autoPartitionedTable({ tableId: 1, unit: 'DAY', zone: 'UTC', ...o })
    expectFlussError(
      () => autoPartitionSettings(t({ unit: 'HOUR', dateKey: true })),
      'INVALID_TABLE_EXCEPTION',
      "must be 'DAY'",
    )
    expectFlussError(
      () =>
        autoPartitionSettings(
          t({ dateKey: true, properties: { 'table.auto-partition.time-format': 'yyyyMMdd' } }),
        ),
      'INVALID_TABLE_EXCEPTION',
      "must be 'yyyy-MM-dd' when auto partition key 'dt' has DATE type",
    )
    expectFlussError(
      () => autoPartitionSettings(t({ multiKey: true, properties: { 'table.auto-partition.key': ' ' } })),
      'INVALID_TABLE_EXCEPTION',
      "has partition keys [dt, a] but no 'table.auto-partition.key'",
    )
    expectFlussError(
      () => autoPartitionSettings(t({ properties: { 'table.auto-partition.key': 'id' } })),
      'INVALID_TABLE_EXCEPTION',
      "The auto partition key 'id' of table db.t1 is not in its partition keys [dt]",
    )
    expectFlussError(
      () => autoPartitionSettings(t({ properties: { 'table.auto-partition.time-format': 'MMyyyydd' } })),
      'INVALID_TABLE_EXCEPTION',
      'must contain fields [year, month, day] in this order',
    )
    expectFlussError(
      () => autoPartitionSettings(t({ properties: { 'table.auto-partition.time-unit': 'WEEK' } })),
      'INVALID_CONFIG_EXCEPTION',
    )
  })
})

describe('AutoPartitionManager with DATE keys, custom formats and DST', () => {
  it('creates and retains yyyy-MM-dd partitions of a DATE key in the table zone', async () => {
    const zone = 'Asia/Shanghai'
    const { clock, ops, manager } = setupManager(localInstant(zone, '2024-09-10T00:00'))
    const table = autoPartitionedTable({ tableId: 1, unit: 'DAY', zone, dateKey: true })
    ops.addTable(table, ['2024-09-07', '2024-09-08', '20240901'])
    await manager.checkTable(table)
    expect(ops.names(1)).toEqual([
      '2024-09-08',
      '2024-09-10',
      '2024-09-11',
      '2024-09-12',
      '2024-09-13',
      '20240901',
    ])
    clock.setMs(localInstant(zone, '2024-09-12T23:00'))
    const [result] = await manager.checkNow()
    expect(result.dropped).toEqual(['2024-09-08'])
    expect(result.created).toEqual(['2024-09-14', '2024-09-15'])
  })

  it('uses table.auto-partition.time-format when set', async () => {
    const { ops, manager } = setupManager(localInstant('UTC', '2024-12-31T23:00'))
    const table = autoPartitionedTable({
      tableId: 1,
      unit: 'HOUR',
      zone: 'UTC',
      numPreCreate: 2,
      properties: { 'table.auto-partition.time-format': 'yyyy-MM-dd-HH' },
    })
    ops.addTable(table, ['2024-12-31-20', '2024-12-31-21', '2024123120'])
    const result = await manager.checkTable(table)
    expect([result.dropped, result.created]).toEqual([['2024-12-31-20'], ['2024-12-31-23', '2025-01-01-00']])
  })

  it('follows java.time for HOUR partitions across both DST changes in America/New_York', async () => {
    const zone = 'America/New_York'
    const { clock, ops, manager } = setupManager(Date.parse('2024-03-10T05:00:00Z'))
    const table = autoPartitionedTable({ tableId: 1, unit: 'HOUR', zone })
    ops.addTable(table)
    await manager.checkTable(table)
    expect(ops.names(1)).toEqual(['2024031000', '2024031001', '2024031003', '2024031004'])
    clock.setMs(Date.parse('2024-03-10T08:00:00Z')) // 04:00 EDT; two hours back is 01:00 EST
    await manager.checkNow()
    expect(ops.names(1)).toEqual([
      '2024031001',
      '2024031003',
      '2024031004',
      '2024031005',
      '2024031006',
      '2024031007',
    ])

    clock.setMs(Date.parse('2024-11-03T04:00:00Z')) // 00:00 EDT; 01:00 happens twice
    await manager.checkNow()
    expect(ops.names(1).filter(n => n.startsWith('20241103'))).toEqual([
      '2024110300',
      '2024110301',
      '2024110302',
    ])
    expect(ops.names(1).filter(n => n < '2024110222')).toEqual([])
  })
})
