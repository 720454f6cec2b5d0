import type { Table } from '@sluice/client'
import type { BlobStore } from '@sluice/core/blobstore'
import type { TableBucket } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import { changeTypeShortString } from '@sluice/core/record'
import { expect } from 'vitest'
import {
  type KvSnapshotRecord,
  latestKvSnapshot,
  loadRemoteManifest,
  missingSegmentObjects,
  readKvSnapshotRegistry,
  snapshotFileProblems,
  unreferencedSegmentIds,
} from '../it/support/remote-state.js'
import type { BucketRecords } from '../it/support/scan.js'
import type { KeyLedger, KeyRecord } from './crash-ledgers.js'

/** Checks of the remote storage and of the data after the crashes of remote-crash.it.test.ts. */

/**
 * Every bucket's committed manifest names only segments whose objects exist (at the recorded size)
 * and covers [0, its end) without a gap. Returns how many unreferenced segments (leftovers of
 * killed uploads, which readers never see) lie beside them.
 */
export async function checkManifests(
  blobStore: BlobStore,
  metaStore: MetaStore,
  buckets: readonly TableBucket[],
): Promise<number> {
  let orphans = 0
  for (const bucket of buckets) {
    const { manifest } = await loadRemoteManifest(metaStore, blobStore, bucket)
    const where = `bucket ${bucket.tableId}/${bucket.bucket}`
    expect(manifest.segments.length, `${where}: uploaded segments`).toBeGreaterThan(0)
    expect(await missingSegmentObjects(blobStore, manifest), where).toEqual([])
    expect(manifest.remoteLogStartOffset, where).toBe(0)
    expect(manifest.covers(0, manifest.remoteLogEndOffset), `${where}: no gap`).toBe(true)
    orphans += (await unreferencedSegmentIds(blobStore, bucket, manifest)).length
  }
  return orphans
}

/** Every committed snapshot of the bucket has its item and all its files (size and CRC); returns the newest. */
export async function checkSnapshotRegistry(
  metaStore: MetaStore,
  blobStore: BlobStore,
  bucket: TableBucket,
): Promise<KvSnapshotRecord> {
  const registry = await readKvSnapshotRegistry(metaStore, bucket)
  expect(registry?.retained.length).toBeGreaterThan(0)
  for (const id of registry?.retained ?? []) {
    const snapshot = registry?.items.get(id)
    expect(snapshot, `committed snapshot ${id} has an item`).toBeDefined()
    if (snapshot !== undefined) expect(await snapshotFileProblems(blobStore, snapshot)).toEqual([])
  }
  const latest = await latestKvSnapshot(metaStore, bucket)
  if (latest === null) throw new Error('no committed KV snapshot')
  return latest
}

/** The looked-up seq of keys 0..keys-1 of a table with rows (id, seq) (null: absent). */
export async function lookupAll(table: Table, keys: number): Promise<(number | null)[]> {
  const lookuper = table.newLookup().createLookuper()
  const results = await Promise.all(Array.from({ length: keys }, (_, id) => lookuper.lookup([BigInt(id)])))
  return results.map(r => {
    const row = r.singletonRow()
    return row === null ? null : Number(row[1])
  })
}

/** Checks the changelog (read from the earliest offset: dense offsets) and the lookups of every key. */
export function checkKeys(
  ledger: KeyLedger,
  records: BucketRecords,
  lookedUp: readonly (number | null)[],
): string[] {
  const problems: string[] = []
  const changelog = new Map<number, KeyRecord[]>()
  for (const [bucket, list] of records) {
    list.forEach((r, k) => {
      if (r.offset !== k && problems.length < 5)
        problems.push(`bucket ${bucket}: record ${k} has offset ${r.offset}`)
      const id = Number(r.row[0])
      const changes = changelog.get(id) ?? []
      changelog.set(id, changes)
      const change = changeTypeShortString(r.changeType)
      changes.push({ change, seq: Number(r.row[1]), bucket, offset: r.offset })
    })
  }
  for (let id = 0; id < lookedUp.length && problems.length < 20; id++) {
    problems.push(...ledger.check(id, changelog.get(id) ?? [], lookedUp[id] ?? null))
  }
  for (const id of changelog.keys()) {
    if (id < 0 || id >= lookedUp.length) problems.push(`key ${id} was never written`)
  }
  return problems.slice(0, 20)
}
