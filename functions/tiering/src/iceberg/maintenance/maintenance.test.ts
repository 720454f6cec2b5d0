import { ChangeType } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import { EntryStatus, readManifest, readManifestList, uuidV7 } from '@sluice/lake/iceberg'
import { scanSnapshot } from '@sluice/lake/scan'
import { LOG_TABLE, PK_TABLE, tableInfoOf } from '@sluice/lake/testing'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type TempLake, tempLake, tierLogRound, tierPkRound } from '../../testing/temp-lake.js'
import { expireSnapshots } from './expire-snapshots.js'
import { deleteOrphanFiles } from './orphan-files.js'
import { ReachableFiles } from './reachable.js'

const logRow = (id: number): Row => [BigInt(id), `n${id}`, null, null]
const ids = (rows: Row[]) => rows.map(r => Number(r[0])).sort((a, b) => a - b)
const range = (n: number) => Array.from({ length: n }, (_, i) => i)

describe('lake maintenance', () => {
  let lake: TempLake
  let now: number
  beforeEach(async () => {
    now = 1_800_000_000_000
    lake = await tempLake(() => now)
  })
  afterEach(() => lake.close())

  it('merges manifests above the threshold, keeping sequence numbers, snapshot ids and the read', async () => {
    const info = tableInfoOf(LOG_TABLE)
    const table = lake.table(info, { manifestMergeMinCount: 3 })
    let state = await table.createIfAbsent(info)
    const added = new Map<string, { snapshotId: bigint; seq: number }>()
    for (let round = 0; round < 6; round++) {
      now += 1000
      const c = await tierLogRound(table, state, 0, round * 2, round * 2 + 2, logRow)
      state = c.state
      for (const m of readManifestList(
        await lake.io.read(state.currentSnapshot?.['manifest-list'] as string),
      )) {
        for (const e of readManifest(await lake.io.read(m.manifestPath), 0).entries) {
          if (e.status === EntryStatus.ADDED && !added.has(e.dataFile.filePath)) {
            added.set(e.dataFile.filePath, { snapshotId: c.snapshotId, seq: c.sequenceNumber })
          }
        }
      }
    }
    const list = readManifestList(await lake.io.read(state.currentSnapshot?.['manifest-list'] as string))
    expect(list.length).toBeLessThanOrEqual(3)
    const merged = list.find(m => m.existingFilesCount > 0)
    expect(merged).toBeDefined()
    for (const m of list) {
      for (const e of readManifest(await lake.io.read(m.manifestPath), 0).entries) {
        const origin = added.get(e.dataFile.filePath)
        if (e.status === EntryStatus.EXISTING) {
          expect(e.snapshotId).toBe(origin?.snapshotId)
          expect(e.sequenceNumber).toBe(origin?.seq)
          expect(e.fileSequenceNumber).toBe(origin?.seq)
        }
      }
      expect(m.minSequenceNumber).toBeLessThanOrEqual(m.sequenceNumber)
    }
    expect(ids(await scanSnapshot(lake.io, state.metadata))).toEqual(range(12))
    expect(state.currentSnapshot?.summary['total-data-files']).toBe('6')
  })

  it('expires old snapshots, keeps what retained snapshots reference, and the read is unchanged', async () => {
    const info = tableInfoOf(PK_TABLE)
    const table = lake.table(info)
    let state = await table.createIfAbsent(info)
    const { INSERT: I, UPDATE_BEFORE: UB, UPDATE_AFTER: UA } = ChangeType
    for (let round = 0; round < 5; round++) {
      now += 60_000
      const rows: [ChangeType, Row][] =
        round === 0
          ? range(3).map(i => [I, [BigInt(i), 'v0', 0]])
          : [
              [UB, [1n, `v${round - 1}`, round - 1]],
              [UA, [1n, `v${round}`, round]],
            ]
      state = (
        await tierPkRound(
          table,
          state,
          0,
          rows.map(([changeType, row], i) => ({ changeType, row, offset: round * 10 + i, timestampMs: now })),
          round * 10 + 2,
        )
      ).state
    }
    const before = await scanSnapshot(lake.io, state.metadata)
    const reach = new ReachableFiles(lake.io)
    const all = await reach.of(state.metadata.snapshots)
    now += 1000
    const result = await expireSnapshots(table, { olderThanMs: now - 90_000, retainLast: 2 })
    expect(result.expiredSnapshotIds.length).toBe(3)
    const md = result.state.metadata
    expect(md.snapshots.length).toBe(2)
    expect(md['snapshot-log'].map(e => e['snapshot-id'])).toEqual(md.snapshots.map(s => s['snapshot-id']))
    expect(await scanSnapshot(lake.io, md)).toEqual(before)
    const retained = await new ReachableFiles(lake.io).of(md.snapshots)
    for (const f of retained) expect(await lake.io.size(f)).toBeDefined()
    for (const f of result.deletedFiles) {
      expect(retained.has(f)).toBe(false)
      expect(all.has(f)).toBe(true)
      expect(await lake.io.size(f)).toBeUndefined()
    }
    expect(result.deletedFiles.some(f => f.includes('/snap-'))).toBe(true)
    expect((await table.load()).flussOffsets).toEqual([{ bucket: 0, offset: 42 }])
    await expect(expireSnapshots(table, { olderThanMs: now, retainLast: 0 })).rejects.toMatchObject({
      name: 'FlussError(INVALID_REQUEST)',
    })
  })

  it('never expires the newest Fluss snapshot nor the current one', async () => {
    const info = tableInfoOf(LOG_TABLE)
    const table = lake.table(info)
    let state = await table.createIfAbsent(info)
    state = (await tierLogRound(table, state, 0, 0, 2, logRow)).state
    now += 10_000
    state = await table.commitMetadata(state, {
      ...state.metadata,
      properties: { ...state.metadata.properties, x: '1' },
    })
    const r = await expireSnapshots(table, { olderThanMs: now + 1, retainLast: 1 })
    expect(r.expiredSnapshotIds).toEqual([])
    expect(ids(await scanSnapshot(lake.io, r.state.metadata))).toEqual([0, 1])
  })

  it('deletes old unreferenced files only, sparing live, recent and foreign ones', async () => {
    const info = tableInfoOf(LOG_TABLE)
    const table = lake.table(info)
    let state = await table.createIfAbsent(info)
    state = (await tierLogRound(table, state, 0, 0, 3, logRow)).state
    state = (await tierLogRound(table, state, 1, 0, 2, logRow)).state
    const location = state.metadata.location
    const oldWriter = table.newDataFileWriter(0)
    now -= 3 * 86_400_000
    await oldWriter.write([{ row: logRow(99), offset: 99, timestampMs: 0 }])
    const [oldOrphan] = await oldWriter.finish()
    const oldMetadata = `${location}/metadata/00009-${uuidV7(now)}.metadata.json`
    await lake.io.write(oldMetadata, Buffer.from('{}'))
    now += 3 * 86_400_000
    const recentOrphan = `${location}/data/__bucket=0/${uuidV7(now)}.parquet`
    await lake.io.write(recentOrphan, Buffer.from('x'))
    const foreign = `${location}/data/__bucket=0/00000-1-foreign.parquet`
    await lake.io.write(foreign, Buffer.from('x'))
    const before = await scanSnapshot(lake.io, state.metadata)

    const r = await deleteOrphanFiles(table, { olderThanMs: now - 86_400_000, maxListedFiles: 10_000 })
    expect([...r.deletedFiles].sort()).toEqual([oldMetadata, oldOrphan.filePath].sort())
    for (const kept of [
      recentOrphan,
      foreign,
      state.pointer.metadataLocation,
      `${location}/metadata/version-hint.text`,
    ]) {
      expect(await lake.io.size(kept)).toBeDefined()
    }
    expect(await scanSnapshot(lake.io, (await table.load()).metadata)).toEqual(before)
    await expect(deleteOrphanFiles(table, { olderThanMs: now, maxListedFiles: 0 })).rejects.toMatchObject({
      name: 'FlussError(INVALID_REQUEST)',
    })
  })
})
