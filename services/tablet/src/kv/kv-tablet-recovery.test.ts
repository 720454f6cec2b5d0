import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Schema } from '@sluice/core/metadata'
import { decodeCompactedRow, decodeValue } from '@sluice/core/row'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { LogTablet } from '../log/log-tablet.js'
import { readChangelog, TestingKvBatches, TestingKvBucket, testingLogOptions } from '../testing/kv.js'
import { KvTablet } from './kv-tablet.js'
import { fixedSchemaSource } from './table-schemas.js'

const schema = Schema.newBuilder()
  .column('k', DataTypes.STRING())
  .column('v', DataTypes.BIGINT())
  .primaryKey('k')
  .build()
const schemas = fixedSchemaSource(1, schema)
const kv = new TestingKvBatches(schema)

let bucket: TestingKvBucket

afterEach(async () => {
  await bucket?.close()
})

/** Every stored row, in key order (limit scan of RocksDB). */
async function storedRows(tablet: KvTablet = bucket.kv): Promise<unknown[][]> {
  const values = await tablet.limitScan(1000)
  return values.map(v => decodeCompactedRow(decodeValue(v).row, schema.rowType))
}

async function writeSomeHistory(): Promise<void> {
  await bucket.kv.putAsLeader(
    kv.batch([
      ['a', 1n],
      ['b', 2n],
      ['c', 3n],
    ]),
  )
  await bucket.kv.putAsLeader(kv.batch([['a', 10n], { delete: ['b', null] }]))
  await bucket.acknowledge()
  // Not acknowledged: above the high watermark.
  await bucket.kv.putAsLeader(
    kv.batch([
      ['c', 30n],
      ['d', 4n],
    ]),
  )
}

describe('KvTablet recovery from the changelog', () => {
  it('reopens from its flushed offset: acknowledged state in RocksDB, the rest back in the pre-write buffer', async () => {
    bucket = await TestingKvBucket.open(schema)
    await writeSomeHistory()
    const highWatermark = bucket.log.highWatermark
    const reopened = await bucket.reopenKv()
    expect(reopened.flushedOffset).toBe(highWatermark)
    expect(await storedRows()).toEqual([
      ['a', 10n],
      ['c', 3n],
    ])
    expect(reopened.pendingWrites).toBe(2)
    await reopened.putAsLeader(kv.batch([['d', 5n]]))
    expect((await readChangelog(bucket.log, schemas)).slice(-2)).toEqual([
      [9, '-U', ['d', 4n]],
      [10, '+U', ['d', 5n]],
    ])
    await bucket.acknowledge()
    expect(await storedRows()).toEqual([
      ['a', 10n],
      ['c', 30n],
      ['d', 5n],
    ])
  })

  it('rebuilds everything from the log when the RocksDB directory is gone', async () => {
    bucket = await TestingKvBucket.open(schema)
    await writeSomeHistory()
    await bucket.kv.close()
    await rm(join(bucket.dir, 'kv'), { recursive: true, force: true })
    const reopened = await bucket.reopenKv()
    expect(await storedRows()).toEqual([
      ['a', 10n],
      ['c', 3n],
    ])
    expect(reopened.rowCount).toBe(2)
    await bucket.acknowledge()
    expect(await storedRows()).toEqual([
      ['a', 10n],
      ['c', 30n],
      ['d', 4n],
    ])
  })

  it('replays acknowledged data written by a store that was never flushed (process restart)', async () => {
    bucket = await TestingKvBucket.open(schema)
    await bucket.kv.putAsLeader(
      kv.batch([
        ['x', 1n],
        ['y', 2n],
      ]),
    )
    await bucket.kv.putAsLeader(kv.batch([['x', 3n]]))
    bucket.log.updateHighWatermark(bucket.log.logEndOffset)
    await bucket.kv.close()
    await bucket.log.close()
    const log = await LogTablet.open(join(bucket.dir, 'log'), testingLogOptions())
    const tablet = await KvTablet.open(join(bucket.dir, 'kv'), { ...bucket.options, log })
    expect(await storedRows(tablet)).toEqual([
      ['x', 3n],
      ['y', 2n],
    ])
    expect(tablet.flushedOffset).toBe(4)
    await tablet.close()
    await log.close()
  })

  it('rebuilds when the log was truncated below the flushed offset and rewritten differently', async () => {
    bucket = await TestingKvBucket.open(schema)
    await bucket.kv.putAsLeader(kv.batch([['a', 1n]]))
    await bucket.kv.putAsLeader(kv.batch([['b', 2n]]))
    await bucket.acknowledge()
    await bucket.kv.close()
    // As a follower: truncate to offset 1 and take different data at the same offsets from a new leader.
    await bucket.log.truncateTo(1)
    const other = await TestingKvBucket.open(schema)
    await other.kv.putAsLeader(kv.batch([['a', 1n]]))
    await other.kv.putAsLeader(kv.batch([['z', 26n]]))
    const { records } = await other.log.read({
      fetchOffset: 1,
      maxBytes: 1 << 20,
      isolation: 'LOG_END',
      minOneMessage: true,
    })
    await bucket.log.appendAsFollower(records)
    await other.close()
    bucket.log.updateHighWatermark(2)
    const reopened = await bucket.reopenKv()
    expect(await storedRows(reopened)).toEqual([
      ['a', 1n],
      ['z', 26n],
    ])
  })
})
