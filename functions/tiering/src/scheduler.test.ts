import { Configuration } from '@sluice/core/config'
import type { Row } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { tieringHandler } from './handler.js'
import { startLocalTieringScheduler } from './local-scheduler.js'
import { readLakeItem } from './round/lake-item.js'
import { DEFAULT_TIERING_PASS_OPTIONS, runTieringPass } from './scheduler.js'
import { createTieringServices, type TieringServices } from './services.js'
import { tieringStatus } from './status.js'
import { type TieringTestEnv, tieringTestEnv } from './testing/tiering-env.js'

const COLUMNS = [
  ['id', notNull(DataTypes.BIGINT())],
  ['v', DataTypes.STRING()],
] as const

let env: TieringTestEnv
beforeEach(async () => {
  env = await tieringTestEnv()
})
afterEach(() => env.close())

async function seeded(name: string, properties: Record<string, string> = {}) {
  const info = await env.createTable(name, { columns: COLUMNS, buckets: 1, properties })
  const log = env.log(info, 0)
  log.append([0, 1, 2].map((i): Row => [BigInt(i), `v${i}`]))
  await log.seal()
  return { info, log }
}

describe('tiering pass', () => {
  it('tiers due tables by freshness, skips others, and runs maintenance once per interval', async () => {
    let now = 1_800_000_000_000
    const clock = () => now
    const a = await seeded('a', { 'table.datalake.freshness': '10s' })
    const b = await seeded('b', { 'table.datalake.freshness': '1min' })
    await env.createTable('plain', {
      columns: COLUMNS,
      buckets: 1,
      properties: { 'table.datalake.enabled': 'false' },
    })
    const deps = env.deps({ clock })
    const first = await runTieringPass(deps, now + 600_000)
    expect(first).toMatchObject({ lakeTables: 2, dueTables: 2, deferredTables: 0 })
    expect(first.rounds.map(r => [r.table, r.status])).toEqual([
      ['fluss.a', 'committed'],
      ['fluss.b', 'committed'],
    ])
    expect(first.maintenance.map(m => m.status)).toEqual(['done', 'done'])
    expect(JSON.parse(JSON.stringify(first)).rounds[0].snapshotId).toMatch(/^\d+$/)

    now += 6000
    const second = await runTieringPass(deps, now + 600_000)
    expect(second.rounds.map(r => [r.table, r.status])).toEqual([['fluss.a', 'idle']])
    expect(second.maintenance).toEqual([])

    a.log.append([[3n, 'v3']])
    await a.log.seal()
    now += 40_000
    const third = await runTieringPass(deps, now + 600_000)
    expect(third.rounds.map(r => [r.table, r.status, r.records])).toEqual([
      ['fluss.a', 'committed', 1],
      ['fluss.b', 'idle', 0],
    ])
    const status = await tieringStatus(env.metaStore, a.info.tableId, {
      nowMs: now,
      logEndOffsets: new Map([['-:0', 6]]),
    })
    expect(status).toMatchObject({ tieringBy: null, totalLag: 2, lastRoundRecords: 1, lastError: null })
    expect(status.buckets).toEqual([
      { bucket: 0, tieredOffset: 4, remoteEndOffset: 4, logEndOffset: 6, lag: 2 },
    ])
    expect(b.info.tableId).not.toBe(a.info.tableId)
  })

  it('starts no round when too little time remains and leaves the tables due', async () => {
    await seeded('a')
    const deps = env.deps()
    const pass = await runTieringPass(deps, Date.now() + 1000, DEFAULT_TIERING_PASS_OPTIONS)
    expect(pass).toMatchObject({ dueTables: 1, deferredTables: 1, rounds: [] })
  })

  it('the handler and the local scheduler run the same pass over configured services', async () => {
    const { info } = await seeded('a')
    const config = Configuration.load({ 'sluice.blobstore.uri': env.io.rootUri })
    const services: TieringServices = await createTieringServices(config, {
      metaStore: env.metaStore,
      blobStore: env.blobStore,
    })
    const handler = tieringHandler(async () => services)
    const summary = await handler({}, { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 120_000 })
    expect(summary.rounds).toMatchObject([{ status: 'committed', records: 3 }])
    expect((await readLakeItem(env.metaStore, info.tableId)).item.ownerId).toMatch(/^lambda\/req-1/)

    const failing = tieringHandler(async () => {
      throw new Error('no DynamoDB')
    })
    await expect(failing()).rejects.toThrow(/no DynamoDB/)

    const scheduler = await startLocalTieringScheduler({
      config,
      intervalMs: 60_000,
      metaStore: env.metaStore,
      blobStore: env.blobStore,
    })
    try {
      const pass = await scheduler.runNow()
      expect(pass.lakeTables).toBe(1)
      expect(pass.error).toBeUndefined()
    } finally {
      await scheduler.stop()
    }
    await expect(startLocalTieringScheduler({ config, intervalMs: 1 })).rejects.toMatchObject({
      errorName: 'INVALID_CONFIG_EXCEPTION',
    })
  })

  it('chooses the lake catalog from datalake.iceberg.type and refuses unknown ones', async () => {
    const base = { 'sluice.blobstore.uri': env.io.rootUri }
    const glue = await createTieringServices(
      Configuration.load({ ...base, 'datalake.iceberg.type': 'glue', 'sluice.aws.region': 'eu-west-1' }),
      { metaStore: env.metaStore, blobStore: env.blobStore },
    )
    expect(glue.lakeCatalog.constructor.name).toBe('GlueCatalog')
    await expect(
      createTieringServices(Configuration.load({ ...base, 'datalake.iceberg.type': 'hive' }), {
        metaStore: env.metaStore,
        blobStore: env.blobStore,
      }),
    ).rejects.toMatchObject({ errorName: 'INVALID_CONFIG_EXCEPTION' })
    await expect(
      createTieringServices(Configuration.load({}), { metaStore: env.metaStore }),
    ).rejects.toMatchObject({
      errorName: 'LAKE_STORAGE_NOT_CONFIGURED_EXCEPTION',
    })
  })
})
