import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { ChangeType } from '@sluice/core/record'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { type Cleanups, createTable, runCleanups, startClient } from '../testing/client-fixture.js'
import type { LogScanner } from './log-scanner.js'
import type { ScanRecord } from './scan-records.js'

const cleanups: Cleanups = []
afterEach(() => runCleanups(cleanups))

const path = { databaseName: 'fluss', tableName: 'changes' }

async function pollUntil(scanner: LogScanner, count: number, timeoutMs = 5000): Promise<ScanRecord[]> {
  const records: ScanRecord[] = []
  const deadline = Date.now() + timeoutMs
  while (records.length < count) {
    if (Date.now() > deadline) throw new Error(`got ${records.length} of ${count} records`)
    for (const r of await scanner.poll(200)) records.push(r)
  }
  return records
}

describe('LogScanner on a primary-key table', () => {
  it('reads the changelog with its change types; an empty batch still advances the offset', async () => {
    const { connection } = await startClient(cleanups)
    const schema = Schema.newBuilder()
      .column('id', DataTypes.INT())
      .column('name', DataTypes.STRING())
      .primaryKey('id')
      .build()
    const { table } = await createTable(
      connection,
      path,
      TableDescriptor.builder().schema(schema).distributedBy(1).build(),
    )
    const writer = table.newUpsert().createWriter()
    const steps: (() => void)[] = [
      () => writer.upsert([1, 'a']),
      () => writer.upsert([1, 'b']),
      () => writer.delete({ id: 1 }),
      () => writer.delete({ id: 1 }), // nothing to delete: an empty changelog batch
      () => writer.upsert([2, 'c']),
    ]
    for (const step of steps) {
      step()
      await writer.flush()
    }
    const scanner = table.newScan().createLogScanner()
    scanner.subscribeFromBeginning(0)
    const records = await pollUntil(scanner, 5)
    expect(records.map(r => [r.offset, r.changeType, r.row])).toEqual([
      [0, ChangeType.INSERT, [1, 'a']],
      [1, ChangeType.UPDATE_BEFORE, [1, 'a']],
      [2, ChangeType.UPDATE_AFTER, [1, 'b']],
      [3, ChangeType.DELETE, [1, 'b']],
      [5, ChangeType.INSERT, [2, 'c']],
    ])
    expect(scanner.position(0)).toBe(6)

    const projected = table.newScan().project(['name']).createLogScanner()
    projected.subscribe(0, 4)
    const tail = await pollUntil(projected, 1)
    expect(tail.map(r => [r.offset, r.changeType, r.row])).toEqual([[5, ChangeType.INSERT, ['c']]])
  })

  it('moves past a trailing empty batch without returning records', async () => {
    const { connection } = await startClient(cleanups)
    const schema = Schema.newBuilder().column('id', DataTypes.INT()).primaryKey('id').build()
    const { table } = await createTable(
      connection,
      path,
      TableDescriptor.builder().schema(schema).distributedBy(1).build(),
    )
    const writer = table.newUpsert().createWriter()
    writer.delete([9])
    await writer.flush()
    const scanner = table.newScan().createLogScanner()
    scanner.subscribe(0, 0)
    const deadline = Date.now() + 5000
    while (scanner.position(0) === 0 && Date.now() < deadline) {
      expect((await scanner.poll(100)).count).toBe(0)
    }
    expect(scanner.position(0)).toBe(1)
  })
})

describe('LogScanner on tiered (remote) log data', () => {
  async function tieredLog() {
    const { cluster, connection } = await startClient(cleanups)
    const schema = Schema.newBuilder().column('id', DataTypes.INT()).build()
    const { table, tableId } = await createTable(
      connection,
      path,
      TableDescriptor.builder().schema(schema).distributedBy(1).build(),
    )
    const writer = table.newAppend().createWriter()
    for (let i = 0; i < 6; i++) writer.append([i])
    await writer.flush()
    cluster.state.log(tableId, 0).tieredBelowOffset = 4
    return { cluster, table }
  }

  it('reads offsets in remote storage when the server sends their records inline', async () => {
    const { table } = await tieredLog()
    const scanner = table.newScan().createLogScanner()
    scanner.subscribe(0, 0)
    expect((await pollUntil(scanner, 6)).map(r => r.row[0])).toEqual([0, 1, 2, 3, 4, 5])
  })

  it('fails with LOG_STORAGE_EXCEPTION naming remote storage when only a remote location comes back', async () => {
    const { cluster, table } = await tieredLog()
    cluster.state.remoteRead = 'fetch-info'
    const scanner = table.newScan().createLogScanner()
    scanner.subscribe(0, 1)
    let error: unknown
    const deadline = Date.now() + 5000
    while (error === undefined && Date.now() < deadline) await scanner.poll(100).catch(e => (error = e))
    expect(error).toMatchObject({
      errorName: 'LOG_STORAGE_EXCEPTION',
      message: expect.stringContaining('Offset 1 of bucket 0 is only in remote (tiered) log storage'),
    })
    scanner.subscribe(0, 4)
    expect((await pollUntil(scanner, 2)).map(r => r.row[0])).toEqual([4, 5])
  })
})
