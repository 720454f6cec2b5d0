import { pathToFileURL } from 'node:url'
import type { Row } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { LakeFileIO } from '@sluice/lake/io'
import { scanSnapshot } from '@sluice/lake/scan'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { LocalCatalog } from '../catalog/local-catalog.js'
import { IcebergTable } from '../iceberg/table.js'
import { FaultyBlobStore } from '../testing/faulty-blob-store.js'
import {
  byBucketAndOffset,
  expectedLogRows,
  type TestBucketLog,
  type TieringTestEnv,
  tieringTestEnv,
} from '../testing/tiering-env.js'
import { readLakeItem } from './lake-item.js'
import { runTieringRound } from './tiering-round.js'

const COLUMNS = [
  ['id', notNull(DataTypes.BIGINT())],
  ['name', DataTypes.STRING()],
] as const

let env: TieringTestEnv
beforeEach(async () => {
  env = await tieringTestEnv()
})
afterEach(() => env.close())

async function setup(buckets = 2) {
  const info = await env.createTable('events', { columns: COLUMNS, buckets })
  const logs = Array.from({ length: buckets }, (_, b) => env.log(info, b))
  return { info, logs }
}

async function write(logs: readonly TestBucketLog[], from: number, count: number): Promise<void> {
  for (const log of logs) {
    for (let i = 0; i < count; i += 3) {
      log.append(
        Array.from(
          { length: Math.min(3, count - i) },
          (_, k): Row => [BigInt(from + i + k), `r${from + i + k}`],
        ),
      )
    }
    await log.seal()
  }
}

async function lake(info: { tablePath: IcebergTable['path'] }) {
  const table = new IcebergTable(info.tablePath, { io: env.io, catalog: env.lakeCatalog })
  const state = await table.load()
  return { state, rows: byBucketAndOffset(await scanSnapshot(env.io, state.metadata)) }
}

/** Data files under the table location (orphans included). */
async function dataFiles(info: { tablePath: IcebergTable['path'] }): Promise<string[]> {
  const out: string[] = []
  for await (const b of env.io.list(`${env.io.tableLocation(info.tablePath)}/data`)) out.push(b.key)
  return out
}

describe('tiering round faults', () => {
  it('a crash after the lake commit is repaired from the snapshot summary: no gap, no duplicate', async () => {
    const { info, logs } = await setup()
    await write(logs, 0, 6)
    await runTieringRound(env.deps(), info)
    await write(logs, 6, 5)
    const crashed = await runTieringRound(
      env.deps({
        faults: {
          afterLakeCommit: () => {
            throw new Error('process killed between the lake commit and the offset commit')
          },
        },
      }),
      info,
    )
    expect(crashed.status).toBe('failed')
    const item = (await readLakeItem(env.metaStore, info.tableId)).item
    expect(item.tieredOffsets.map(o => o.offset)).toEqual([6, 6])
    expect(item.lastError).toMatch(/process killed/)
    expect((await lake(info)).state.flussOffsets.map(o => o.offset)).toEqual([11, 11])

    await write(logs, 11, 2)
    const repaired = await runTieringRound(env.deps(), info)
    expect(repaired).toMatchObject({ status: 'committed', repaired: true, records: 4 })
    expect((await lake(info)).rows).toEqual(byBucketAndOffset(expectedLogRows(logs, l => l.endOffset)))
    const after = (await readLakeItem(env.metaStore, info.tableId)).item
    expect(after.tieredOffsets.map(o => o.offset)).toEqual([13, 13])
    expect(after.repairs).toBe(1)
  })

  it('two rounds at once: one commits, the other is fenced without changing anything', async () => {
    const { info, logs } = await setup()
    await write(logs, 0, 9)
    const results = await Promise.all([
      runTieringRound(env.deps({ ownerId: 'a' }), info),
      runTieringRound(env.deps({ ownerId: 'b' }), info),
    ])
    const statuses = results.map(r => r.status).sort()
    expect(statuses).toEqual(['committed', 'fenced'])
    expect(results.find(r => r.status === 'fenced')?.errorCode).toBe('FENCED_TIERING_EPOCH_EXCEPTION')
    const { state, rows } = await lake(info)
    expect(state.metadata.snapshots).toHaveLength(1)
    expect(rows).toEqual(byBucketAndOffset(expectedLogRows(logs, l => l.endOffset)))
  })

  it('a round whose claim expired loses: its commit conflicts and its files are deleted', async () => {
    const { info, logs } = await setup(1)
    await write(logs, 0, 6)
    let now = Date.now()
    const clock = () => now
    const slow = runTieringRound(
      env.deps({
        ownerId: 'slow',
        clock,
        options: { claimTtlMs: 1000 },
        faults: {
          beforeLakeCommit: async () => {
            now += 5000
            const fast = await runTieringRound(env.deps({ ownerId: 'fast', clock }), info)
            expect(fast.status).toBe('committed')
          },
        },
      }),
      info,
    )
    const r = await slow
    expect(r).toMatchObject({ status: 'fenced', errorCode: 'LAKE_COMMIT_CONFLICT' })
    const { state, rows } = await lake(info)
    expect(state.metadata.snapshots).toHaveLength(1)
    expect(rows).toEqual(byBucketAndOffset(expectedLogRows(logs, l => l.endOffset)))
    expect(await dataFiles(info)).toHaveLength(1)
  })

  it('object-store errors: reads are retried; a failed write aborts the round without a trace', async () => {
    const { info, logs } = await setup()
    await write(logs, 0, 7)
    const faulty = new FaultyBlobStore(env.blobStore)
    const io = new LakeFileIO(faulty, pathToFileURL(env.dir).href)
    const deps = env.deps({
      blobStore: faulty,
      lakeIo: io,
      lakeCatalog: new LocalCatalog(env.metaStore, io),
      options: { retryBackoffMs: 1 },
    })
    faulty.failNext('get', /^remote-log\/.*\.log$/, 2)
    expect(await runTieringRound(deps, info)).toMatchObject({ status: 'committed', records: 14 })
    expect(faulty.failures).toHaveLength(2)

    await write(logs, 7, 4)
    faulty.failNext('put', /\/data\/__bucket=1\/.*\.parquet$/)
    const failed = await runTieringRound(deps, info)
    expect(failed).toMatchObject({ status: 'failed', errorCode: 'STORAGE_EXCEPTION' })
    expect((await lake(info)).state.metadata.snapshots).toHaveLength(1)
    expect(await dataFiles(info)).toHaveLength(2)
    expect((await readLakeItem(env.metaStore, info.tableId)).item).toMatchObject({ claimExpiresAtMs: 0 })

    faulty.failNext('get', /^remote-log\/.*\.log$/, 5)
    expect(await runTieringRound(deps, info)).toMatchObject({
      status: 'failed',
      errorCode: 'STORAGE_EXCEPTION',
    })
    expect(await runTieringRound(deps, info)).toMatchObject({ status: 'committed', records: 8 })
    expect((await lake(info)).rows).toEqual(byBucketAndOffset(expectedLogRows(logs, l => l.endOffset)))
  })

  it('a damaged segment fails the round with LOG_STORAGE_EXCEPTION and records the error', async () => {
    const { info, logs } = await setup(1)
    await write(logs, 0, 6)
    const keys = (await env.blobStore.list('remote-log/')).items
      .map(i => i.key)
      .filter(k => k.endsWith('.log'))
    const bytes = (await env.blobStore.get(keys[0])) as Uint8Array
    bytes[bytes.length - 3] ^= 0xff
    await env.blobStore.put(keys[0], bytes)
    const r = await runTieringRound(env.deps(), info)
    expect(r).toMatchObject({ status: 'failed', errorCode: 'LOG_STORAGE_EXCEPTION' })
    expect((await readLakeItem(env.metaStore, info.tableId)).item.lastError).toMatch(/LOG_STORAGE_EXCEPTION/)
    expect(await dataFiles(info)).toEqual([])
  })
})
