import type { Row } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { uuidV7 } from '@sluice/lake/iceberg'
import { scanSnapshot } from '@sluice/lake/scan'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { IcebergTable } from '../iceberg/table.js'
import {
  byBucketAndOffset,
  expectedLogRows,
  type TieringTestEnv,
  tieringTestEnv,
} from '../testing/tiering-env.js'
import { readLakeItem } from './lake-item.js'
import { maintenanceDue, runMaintenance } from './maintenance-round.js'
import { claimTable } from './tiering-claim.js'
import { runTieringRound } from './tiering-round.js'

let env: TieringTestEnv
beforeEach(async () => {
  env = await tieringTestEnv()
})
afterEach(() => env.close())

describe('lake maintenance', () => {
  it('expires old snapshots and deletes old orphans; the lake reads the same afterwards', async () => {
    let now = 1_800_000_000_000
    const clock = () => now
    const info = await env.createTable('m', {
      columns: [
        ['id', notNull(DataTypes.BIGINT())],
        ['v', DataTypes.STRING()],
      ],
      buckets: 1,
    })
    const log = env.log(info, 0)
    for (let round = 0; round < 4; round++) {
      log.append(
        [0, 1].map((i): Row => [BigInt(round * 10 + i), `v${i}`]),
        undefined,
        now,
      )
      await log.seal()
      expect((await runTieringRound(env.deps({ clock }), info)).status).toBe('committed')
      now += 60_000
    }
    const table = new IcebergTable(info.tablePath, { io: env.io, catalog: env.lakeCatalog })
    const orphan = `${env.io.tableLocation(info.tablePath)}/data/__bucket=0/${uuidV7(now - 10 * 3_600_000)}.parquet`
    await env.io.write(orphan, new Uint8Array([1, 2, 3]))
    now += 2 * 3_600_000
    const options = {
      snapshotRetentionMs: 3_600_000,
      retainLastSnapshots: 2,
      orphanRetentionMs: 3_600_000,
      maxListedFiles: 1000,
      intervalMs: 1000,
    }
    const result = await runMaintenance(env.deps({ clock }), info, options)
    expect(result).toMatchObject({ status: 'done', expiredSnapshots: 2 })
    expect(await env.io.size(orphan)).toBeUndefined()
    const state = await table.load()
    expect(state.metadata.snapshots).toHaveLength(2)
    expect(byBucketAndOffset(await scanSnapshot(env.io, state.metadata))).toEqual(
      byBucketAndOffset(expectedLogRows([log], l => l.endOffset)),
    )
    const item = (await readLakeItem(env.metaStore, info.tableId)).item
    expect(item).toMatchObject({ lastMaintenanceMs: now, claimExpiresAtMs: 0 })
    expect(maintenanceDue(item.lastMaintenanceMs, now + 999, 1000)).toBe(false)
    expect(maintenanceDue(item.lastMaintenanceMs, now + 1000, 1000)).toBe(true)
  })

  it('skips tables without a lake table and is fenced while a round holds the table', async () => {
    const info = await env.createTable('n', { columns: [['id', DataTypes.BIGINT()]], buckets: 1 })
    expect(await runMaintenance(env.deps(), info)).toMatchObject({ status: 'skipped' })
    await claimTable(env.metaStore, info.tableId, 'other', Date.now(), 60_000)
    expect(await runMaintenance(env.deps(), info)).toMatchObject({ status: 'fenced' })
  })
})
