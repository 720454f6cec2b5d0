import { FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import { MemoryPartitionOps, RecordingLogger, setupManager, TestingTimer } from '../testing/auto-partition.js'
import { alteredTable, autoPartitionedTable, localInstant } from '../testing/auto-partition-tables.js'
import { AutoPartitionManager } from './auto-partition-manager.js'
import { dayCreateDelayMinutes } from './auto-partition-plan.js'

const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR
const utc = (text: string) => localInstant('UTC', text)

describe('AutoPartitionManager DAY jitter', () => {
  it("delays DAY creation by the table's minutes into the day (Fluss testAutoCreateDayPartitionShouldJitter)", async () => {
    const { clock, ops, manager } = setupManager(utc('2025-04-19T00:00'))
    const table = autoPartitionedTable({ tableId: 7, unit: 'DAY', zone: 'UTC', numRetention: 100 })
    ops.addTable(table)
    await manager.checkTable(table)
    expect(ops.names(7)).toEqual(['20250419', '20250420', '20250421', '20250422'])

    const delay = dayCreateDelayMinutes(7)
    clock.advanceMs(DAY + (delay - 1) * MIN)
    await manager.checkNow()
    expect(ops.names(7)).toEqual(['20250419', '20250420', '20250421', '20250422'])

    clock.advanceMs(MIN)
    const [result] = await manager.checkNow()
    expect(result.created).toEqual(['20250423'])
  })

  it('drops on the real clock (Fluss testDayPartitionDropShouldNotBeDelayedByJitter)', async () => {
    const { clock, ops, manager } = setupManager(utc('2025-04-19T00:00'), {
      dayCreateDelayMinutes: () => 600,
    })
    const table = autoPartitionedTable({ tableId: 1, unit: 'DAY', zone: 'UTC' })
    ops.addTable(table)
    await manager.checkTable(table)
    clock.advanceMs(3 * DAY)
    const [result] = await manager.checkNow()
    expect(result.dropped).toEqual(['20250419'])
    expect(ops.names(1)).toEqual(['20250420', '20250421', '20250422', '20250423', '20250424'])
  })

  it('does not delay other units', async () => {
    const { ops, manager } = setupManager(utc('2025-04-19T00:00'), { dayCreateDelayMinutes: () => 1000 })
    ops.addTable(autoPartitionedTable({ tableId: 1, unit: 'HOUR', zone: 'UTC', numPreCreate: 1 }))
    await manager.checkNow()
    expect(ops.names(1)).toEqual(['2025041900'])
  })
})

describe('AutoPartitionManager limits and failures', () => {
  it('creates up to max.partition.num and goes on (Fluss testMaxPartitions)', async () => {
    const logger = new RecordingLogger()
    const { clock, ops, manager } = setupManager(utc('2024-09-10T00:00'), { logger })
    ops.maxPartitionNum = 10
    const table = autoPartitionedTable({ tableId: 1, unit: 'DAY', zone: 'UTC', numRetention: 1000 })
    ops.addTable(table, ['20250101', '20250102', '20250103', '20250104'])
    await manager.checkTable(table)
    expect(ops.names(1)).toHaveLength(8)
    clock.advanceMs(4 * DAY + 23 * HOUR)
    const [result] = await manager.checkNow()
    expect(result.created).toEqual(['20240914', '20240915'])
    expect(result.failures.map(f => [f.partitionName, f.error.errorName])).toEqual([
      ['20240916', 'PARTITION_MAX_NUM_EXCEPTION'],
      ['20240917', 'PARTITION_MAX_NUM_EXCEPTION'],
    ])
    expect(logger.at('WARN')).toHaveLength(2)
    expect(logger.at('ERROR')).toEqual([])
  })

  it('isolates failures: one bad table or partition does not stop the others', async () => {
    const logger = new RecordingLogger()
    const { ops, manager } = setupManager(utc('2024-09-10T00:00'), { logger })
    const tables = [1, 2, 3, 4].map(tableId =>
      autoPartitionedTable({ tableId, unit: 'HOUR', zone: 'UTC', numPreCreate: 2 }),
    )
    for (const t of tables) ops.addTable(t, ['2024090900', '2024090901'])
    ops.addTable(
      autoPartitionedTable({
        tableId: 5,
        unit: 'HOUR',
        zone: 'UTC',
        multiKey: true,
        properties: { 'table.auto-partition.key': '' },
      }),
    )
    ops.failures.set('list:1', new FlussError('NETWORK_EXCEPTION', 'metastore unreachable'))
    ops.failures.set('create:2:2024091000', new FlussError('UNKNOWN_SERVER_ERROR', 'boom'))
    ops.failures.set('drop:3:2024090900', new FlussError('UNKNOWN_SERVER_ERROR', 'boom'))

    const results = await manager.checkNow()
    expect(results.map(r => [r.tableId, r.skipped?.errorName])).toEqual([
      [1, 'NETWORK_EXCEPTION'],
      [2, undefined],
      [3, undefined],
      [4, undefined],
      [5, 'INVALID_TABLE_EXCEPTION'],
    ])
    expect(ops.names(1)).toEqual(['2024090900', '2024090901'])
    expect(ops.names(2)).toEqual(['2024091001'])
    expect(ops.names(3)).toEqual(['2024090900', '2024091000', '2024091001'])
    expect(ops.names(4)).toEqual(['2024091000', '2024091001'])
    expect(results[1].failures.map(f => `${f.op}:${f.partitionName}`)).toEqual(['create:2024091000'])
    expect(results[2].failures.map(f => `${f.op}:${f.partitionName}`)).toEqual(['drop:2024090900'])
    expect(logger.at('ERROR')).toEqual([
      'Auto partitioning skip to create partition 2024091000 for table [db.t2].',
    ])
  })

  it('treats partitions created or dropped concurrently as done', async () => {
    const ops = new MemoryPartitionOps()
    const table = autoPartitionedTable({
      tableId: 1,
      unit: 'HOUR',
      zone: 'UTC',
      numPreCreate: 1,
      numRetention: 0,
    })
    ops.addTable(table, ['2024090923'])
    const racing = {
      listPartitions: (id: number) => ops.listPartitions(id),
      createPartition: async () => {
        throw new FlussError('PARTITION_ALREADY_EXISTS', 'exists')
      },
      dropPartition: async () => {
        throw new FlussError('PARTITION_NOT_EXISTS', 'gone')
      },
    }
    const m = new AutoPartitionManager({
      tables: ops,
      partitions: racing,
      checkIntervalMs: 1000,
      clock: { nowMs: () => utc('2024-09-10T00:00') },
    })
    expect(await m.checkNow()).toEqual([
      { tableId: 1, tablePath: 'db.t1', dropped: [], created: [], failures: [] },
    ])
  })

  it('logs and skips a round when the tables cannot be listed', async () => {
    const logger = new RecordingLogger()
    const { ops, manager } = setupManager(0, { logger })
    ops.failures.set('tables', new FlussError('NETWORK_EXCEPTION', 'down'))
    expect(await manager.checkNow()).toEqual([])
    expect(logger.at('ERROR')).toEqual([
      'Auto partitioning skipped: failed to list the auto-partitioned tables.',
    ])
  })

  it('rejects a check interval below 1 ms', () => {
    const ops = new MemoryPartitionOps()
    expect(() => new AutoPartitionManager({ tables: ops, partitions: ops, checkIntervalMs: 0 })).toThrow(
      /auto-partition.check.interval must be at least 1 ms, but is 0/,
    )
  })
})

describe('AutoPartitionManager ALTER TABLE', () => {
  it('applies a new num-retention at the next check (Fluss testUpdateAutoPartitionNumRetention)', async () => {
    const { clock, ops, manager } = setupManager(utc('2024-09-10T00:00'))
    const table = autoPartitionedTable({ tableId: 1, unit: 'HOUR', zone: 'UTC', numRetention: 3 })
    ops.addTable(table)
    await manager.checkTable(table)
    expect(ops.names(1)).toEqual(['2024091000', '2024091001', '2024091002', '2024091003'])
    ops.tables.set(1, alteredTable(table, { 'table.auto-partition.num-retention': '1' }))
    clock.advanceMs(4 * HOUR)
    await manager.checkNow()
    expect(ops.names(1)).toEqual(['2024091003', '2024091004', '2024091005', '2024091006', '2024091007'])
  })

  it('applies a new num-precreate (Fluss testUpdateAutoPartitionNumPrecreate)', async () => {
    const { clock, ops, manager } = setupManager(utc('2024-09-10T00:00'))
    const table = autoPartitionedTable({
      tableId: 1,
      unit: 'HOUR',
      zone: 'UTC',
      numPreCreate: 1,
      numRetention: 1000,
    })
    ops.addTable(table)
    await manager.checkTable(table)
    expect(ops.names(1)).toEqual(['2024091000'])
    const increased = alteredTable(table, { 'table.auto-partition.num-precreate': '3' })
    ops.tables.set(1, increased)
    await manager.checkTable(increased)
    expect(ops.names(1)).toEqual(['2024091000', '2024091001', '2024091002'])
    ops.tables.set(1, alteredTable(increased, { 'table.auto-partition.num-precreate': '1' }))
    clock.advanceMs(HOUR)
    await manager.checkNow()
    expect(ops.names(1)).toEqual(['2024091000', '2024091001', '2024091002'])
    clock.advanceMs(2 * HOUR)
    await manager.checkNow()
    expect(ops.names(1)).toEqual(['2024091000', '2024091001', '2024091002', '2024091003'])
  })

  it('stops and resumes with table.auto-partition.enabled (Fluss testUpdateAutoPartitionEnabled)', async () => {
    const { clock, ops, manager } = setupManager(utc('2024-09-10T00:00'))
    const table = autoPartitionedTable({ tableId: 1, unit: 'HOUR', zone: 'UTC', numRetention: 1000 })
    ops.addTable(table)
    await manager.checkTable(table)
    const disabled = alteredTable(table, { 'table.auto-partition.enabled': 'false' })
    ops.tables.set(1, disabled)
    clock.advanceMs(4 * HOUR)
    expect(await manager.checkNow()).toEqual([])
    expect((await manager.checkTable(disabled)).created).toEqual([])
    expect((await manager.checkTable(disabled)).created).toEqual([])
    expect(ops.names(1)).toEqual(['2024091000', '2024091001', '2024091002', '2024091003'])
    ops.tables.set(1, alteredTable(disabled, { 'table.auto-partition.enabled': 'true' }))
    await manager.checkNow()
    expect(ops.names(1)).toHaveLength(8)
    expect(ops.names(1).at(-1)).toBe('2024091007')
  })
})

describe('AutoPartitionManager timer', () => {
  const flush = () => new Promise(resolve => setImmediate(resolve))

  it('checks at start, then every interval after the previous check, until stopped', async () => {
    const timer = new TestingTimer()
    const { clock, ops, manager } = setupManager(utc('2024-09-10T00:00'), { timer })
    ops.addTable(autoPartitionedTable({ tableId: 1, unit: 'HOUR', zone: 'UTC', numPreCreate: 1 }))
    manager.start()
    manager.start()
    expect(timer.fire()).toEqual([0])
    await flush()
    expect(ops.names(1)).toEqual(['2024091000'])
    clock.advanceMs(HOUR)
    expect(timer.fire()).toEqual([600_000])
    await flush()
    expect(ops.names(1)).toEqual(['2024091000', '2024091001'])
    expect(timer.pending.size).toBe(1)
    await manager.stop()
    expect(timer.pending.size).toBe(0)
    manager.start()
    expect(timer.fire()).toEqual([0])
    await flush()
    expect(timer.pending.size).toBe(1)
    await manager.stop()
  })

  it('runs checks one after another', async () => {
    const { ops, manager } = setupManager(utc('2024-09-10T00:00'))
    const table = autoPartitionedTable({ tableId: 1, unit: 'HOUR', zone: 'UTC', numPreCreate: 2 })
    ops.addTable(table)
    const [a, b] = await Promise.all([manager.checkNow(), manager.checkTable(table)])
    expect(a[0].created).toEqual(['2024091000', '2024091001'])
    expect(b.created).toEqual([])
    expect(ops.calls).toEqual(['create:1:2024091000', 'create:1:2024091001'])
  })

  it('shares a queued check between callers, with the newest table info', async () => {
    const { ops, manager } = setupManager(utc('2024-09-10T00:00'))
    const table = autoPartitionedTable({ tableId: 1, unit: 'HOUR', zone: 'UTC', numPreCreate: 1 })
    ops.addTable(table)
    const first = manager.checkNow()
    expect(manager.checkNow()).toBe(first)
    const altered = alteredTable(table, { 'table.auto-partition.num-precreate': '3' })
    const a = manager.checkTable(table, false)
    expect(manager.checkTable(altered)).toBe(a)
    expect((await first)[0].created).toEqual(['2024091000'])
    expect((await a).created).toEqual(['2024091001', '2024091002'])
  })
})
