import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { kvSnapshotTabletPrefix } from '@sluice/core/blobstore'
import { afterEach, describe, expect, it } from 'vitest'
import { readChangelog } from '../../testing/kv.js'
import {
  rowsOfRocksDb,
  SNAPSHOT_TEST_BUCKET,
  SNAPSHOT_TEST_SCHEMA,
  SnapshotTestBed,
} from '../../testing/kv-snapshot.js'
import { fixedSchemaSource } from '../table-schemas.js'
import type { SnapshotScheduler } from './kv-snapshotter-options.js'

let bed: SnapshotTestBed
let scratch: string | undefined

afterEach(async () => {
  await bed?.close()
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true })
  scratch = undefined
})

async function restoreDir(): Promise<string> {
  scratch = await mkdtemp(join(tmpdir(), 'sluice-kv-restore-'))
  return join(scratch, 'kv')
}

describe('KvSnapshotter', () => {
  it('commits a snapshot that holds exactly the acknowledged state at its log offset', async () => {
    bed = await SnapshotTestBed.open()
    await bed.upsert(0, 300, 1n)
    await bed.delete([5, 6])
    await bed.acknowledge()
    const acknowledgedOffset = bed.bucket.log.highWatermark
    await bed.upsert(0, 50, 2n) // above the high watermark: not in the snapshot
    const result = await bed.snapshotter().snapshotNow()
    expect(result.status).toBe('committed')
    expect(result.snapshot?.snapshotId).toBe(0)
    expect(result.snapshot?.logOffset).toBe(acknowledgedOffset)
    expect(result.snapshot?.rowCount).toBe(298)
    const dir = await restoreDir()
    const restored = await bed.store.restoreLatest(SNAPSHOT_TEST_BUCKET, dir)
    expect(restored?.snapshotId).toBe(0)
    const { rows, flushedOffset } = await rowsOfRocksDb(dir)
    expect(flushedOffset).toBe(acknowledgedOffset)
    expect(rows).toEqual(bed.expectedRows())
  })

  it('lays files out under the bucket prefix: SST files shared, the rest private to the snapshot', async () => {
    bed = await SnapshotTestBed.open()
    await bed.upsert(0, 100, 1n)
    await bed.acknowledge()
    const { snapshot } = await bed.snapshotter().snapshotNow()
    const prefix = kvSnapshotTabletPrefix(SNAPSHOT_TEST_BUCKET)
    expect(prefix).toBe('kv-snapshots/7/_/0')
    const names = snapshot?.files.map(f => f.name) ?? []
    expect(names).toContain('CURRENT')
    expect(names.some(n => /^MANIFEST-\d+$/.test(n))).toBe(true)
    for (const f of snapshot?.files ?? []) {
      if (f.name.endsWith('.sst')) {
        expect(f.role).toBe('shared')
        expect(f.key).toMatch(new RegExp(`^${prefix}/shared/[0-9a-f-]{36}-${f.name}$`))
      } else {
        expect(f.role).toBe('private')
        expect(f.key).toMatch(new RegExp(`^${prefix}/0/[0-9a-f-]{36}-${f.name}$`))
      }
    }
    expect(await bed.blobKeys()).toEqual(snapshot?.files.map(f => f.key).sort())
  })

  it('skips a run when nothing was flushed since the last snapshot', async () => {
    bed = await SnapshotTestBed.open()
    const snapshotter = bed.snapshotter()
    expect((await snapshotter.snapshotNow()).status).toBe('skipped')
    await bed.upsert(0, 10, 1n)
    await bed.acknowledge()
    expect((await snapshotter.snapshotNow()).status).toBe('committed')
    await bed.upsert(10, 20, 1n) // not acknowledged: not flushed
    expect((await snapshotter.snapshotNow()).status).toBe('skipped')
    expect(snapshotter.stats()).toMatchObject({ committed: 1, skipped: 2, lastSnapshotId: 0 })
  })

  it('uploads only new SST files in the next snapshot and refers to the others', async () => {
    bed = await SnapshotTestBed.open()
    const snapshotter = bed.snapshotter()
    await bed.upsert(0, 500, 1n)
    await bed.acknowledge()
    const first = (await snapshotter.snapshotNow()).snapshot
    await bed.upsert(500, 600, 2n)
    await bed.acknowledge()
    const uploadsBefore = bed.blobStore.faults.count('upload')
    const second = (await snapshotter.snapshotNow()).snapshot
    const firstShared = new Set(first?.files.filter(f => f.role === 'shared').map(f => f.key))
    const secondShared = second?.files.filter(f => f.role === 'shared') ?? []
    const reused = secondShared.filter(f => firstShared.has(f.key))
    const fresh = secondShared.filter(f => !firstShared.has(f.key))
    expect(reused.length).toBeGreaterThan(0)
    expect(fresh.length).toBeGreaterThan(0)
    const privateCount = second?.files.filter(f => f.role === 'private').length ?? 0
    expect(bed.blobStore.faults.count('upload') - uploadsBefore).toBe(fresh.length + privateCount)
    expect(snapshotter.stats().bytesReused).toBe(reused.reduce((n, f) => n + f.size, 0))
    const dir = await restoreDir()
    await bed.store.restoreLatest(SNAPSHOT_TEST_BUCKET, dir)
    expect((await rowsOfRocksDb(dir)).rows).toEqual(bed.expectedRows())
  })

  it('keeps num-retained snapshots and deletes only the files none of them lists', async () => {
    bed = await SnapshotTestBed.open()
    const snapshotter = bed.snapshotter({ numRetained: 2 })
    for (let round = 0; round < 7; round++) {
      await bed.upsert(round * 50, round * 50 + 80, BigInt(round))
      if (round % 3 === 2) await bed.delete([round * 50])
      await bed.acknowledge()
      expect((await snapshotter.snapshotNow()).status).toBe('committed')
      const committed = await bed.committed()
      expect(committed.map(s => s.snapshotId)).toEqual(round === 0 ? [0] : [round - 1, round])
      const listed = new Set(committed.flatMap(s => s.files.map(f => f.key)))
      expect(new Set(await bed.blobKeys())).toEqual(listed)
      expect(await bed.registry.listIds(SNAPSHOT_TEST_BUCKET)).toEqual(committed.map(s => s.snapshotId))
    }
    const dir = await restoreDir()
    await bed.store.restoreLatest(SNAPSHOT_TEST_BUCKET, dir)
    expect((await rowsOfRocksDb(dir)).rows).toEqual(bed.expectedRows())
  })

  it('a snapshot taken while puts and flushes run equals the changelog state at its log offset', async () => {
    bed = await SnapshotTestBed.open()
    await bed.upsert(0, 300, 0n)
    await bed.acknowledge()
    const snapshotter = bed.snapshotter()
    let stop = false
    let round = 1
    const writer = (async () => {
      while (!stop) {
        const from = (round * 37) % 300
        await bed.upsert(from, from + 25, BigInt(round))
        if (round % 3 === 0) await bed.delete([from + 1])
        if (round % 2 === 0) await bed.acknowledge()
        round++
      }
    })()
    const dir = await restoreDir()
    const schemas = fixedSchemaSource(1, SNAPSHOT_TEST_SCHEMA)
    let checked = 0
    for (let i = 0; i < 4; i++) {
      await new Promise(resolve => setTimeout(resolve, 20))
      const { status, snapshot } = await snapshotter.snapshotNow()
      if (status !== 'committed' || snapshot === undefined) continue
      await bed.store.download(snapshot, join(dir, String(i)))
      const restored = await rowsOfRocksDb(join(dir, String(i)))
      expect(restored.flushedOffset).toBe(snapshot.logOffset)
      const changelog = await readChangelog(bed.bucket.log, schemas)
      expect(restored.rows).toEqual(stateAt(changelog, snapshot.logOffset))
      checked++
    }
    stop = true
    await writer
    expect(checked).toBeGreaterThanOrEqual(2)
    expect(round).toBeGreaterThan(3)
  })

  it('runs every interval on its scheduler, and stops', async () => {
    bed = await SnapshotTestBed.open()
    const timers: { task: () => void; delayMs: number; cancelled: boolean }[] = []
    const scheduler: SnapshotScheduler = {
      schedule(task, delayMs) {
        const timer = { task, delayMs, cancelled: false }
        timers.push(timer)
        return { cancel: () => (timer.cancelled = true) }
      },
    }
    const snapshotter = bed.snapshotter({ scheduler, intervalMs: 60_000, random: () => 0.25 })
    snapshotter.start()
    expect(timers.map(t => t.delayMs)).toEqual([15_000])
    await bed.upsert(0, 10, 1n)
    await bed.acknowledge()
    timers[0].task()
    await until(() => timers.length === 2)
    expect(snapshotter.stats().committed).toBe(1)
    expect(timers[1].delayMs).toBe(60_000)
    await snapshotter.stop()
    expect(timers[1].cancelled).toBe(true)
    expect((await snapshotter.snapshotNow()).status).toBe('skipped')
  })
})

/** Rows (`key=value`) after applying the changelog records below `offset`. */
function stateAt(
  changelog: readonly (readonly [number, string, readonly unknown[]])[],
  offset: number,
): string[] {
  const state = new Map<string, string>()
  for (const [at, type, row] of changelog) {
    if (at >= offset || type === '-U') continue
    if (type === '-D') state.delete(String(row[0]))
    else state.set(String(row[0]), `${row[0]}=${row[1]}`)
  }
  return [...state.values()].sort()
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise(resolve => setTimeout(resolve, 10))
  expect(condition()).toBe(true)
}
