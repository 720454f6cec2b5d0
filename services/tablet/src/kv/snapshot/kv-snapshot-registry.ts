import { FlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import {
  type ItemKey,
  isMetaStoreConflict,
  kvSnapshotHeadKey,
  kvSnapshotKey,
  kvSnapshotSkPrefix,
  type MetaStore,
  parseKvSnapshotSk,
  type WriteCondition,
} from '@sluice/core/metastore'
import {
  decodeKvSnapshot,
  decodeKvSnapshotHead,
  encodeKvSnapshot,
  encodeKvSnapshotHead,
  type KvSnapshot,
  type KvSnapshotHead,
} from './kv-snapshot-types.js'

/** The head as read, with the version a conditional write names. */
export interface StoredKvSnapshotHead {
  readonly head: KvSnapshotHead
  readonly version: number
}

/** Bound on the snapshot items of one bucket that a listing looks at. */
export const KV_SNAPSHOT_LIST_ITEMS_MAX = 10_000
const DELETE_ATTEMPTS_MAX = 8

function where(bucket: TableBucket, what: string): string {
  return `${what} of bucket ${bucket.bucket} (table ${bucket.tableId}, partition ${bucket.partitionId ?? '-'})`
}

/**
 * The KV snapshot registry in the MetaStore: one item per snapshot (`kvSnapshotKey`, written once,
 * on absence) and one head per bucket (`kvSnapshotHeadKey`) that says which of them are committed.
 * A snapshot counts only once the head lists it; the head is written on the version read and only
 * while no newer leader epoch wrote it, so a deposed leader can never commit.
 */
export class KvSnapshotRegistry {
  constructor(readonly metaStore: MetaStore) {}

  async loadHead(bucket: TableBucket): Promise<StoredKvSnapshotHead | null> {
    const { pk, sk } = kvSnapshotHeadKey(bucket)
    const item = await this.metaStore.get(pk, sk)
    if (item === undefined) return null
    return {
      head: decodeKvSnapshotHead(item.value, where(bucket, 'the snapshot head')),
      version: item.version,
    }
  }

  /**
   * Writes the head when the stored one is still `expected` (null: none stored) and was written by
   * this leader epoch or an older one; throws METASTORE_CONFLICT otherwise.
   */
  async putHead(
    bucket: TableBucket,
    head: KvSnapshotHead,
    expected: StoredKvSnapshotHead | null,
  ): Promise<StoredKvSnapshotHead> {
    const { pk, sk } = kvSnapshotHeadKey(bucket)
    const condition: WriteCondition =
      expected === null
        ? { version: 'absent' }
        : {
            version: expected.version,
            attributes: [{ field: 'leaderEpoch', op: '<=', value: head.leaderEpoch }],
          }
    const version = await this.metaStore.put(pk, sk, encodeKvSnapshotHead(head), condition)
    return { head, version }
  }

  /** Deletes the head whatever its version (a dropped bucket); a missing head is fine. */
  async deleteHead(bucket: TableBucket): Promise<void> {
    await this.#deleteAnyVersion(kvSnapshotHeadKey(bucket))
  }

  async get(bucket: TableBucket, snapshotId: number): Promise<KvSnapshot | null> {
    const { pk, sk } = kvSnapshotKey(bucket, snapshotId)
    const item = await this.metaStore.get(pk, sk)
    if (item === undefined) return null
    const snapshot = decodeKvSnapshot(item.value, where(bucket, `snapshot ${snapshotId}`))
    if (snapshot.snapshotId !== snapshotId) {
      throw new FlussError(
        'KV_STORAGE_EXCEPTION',
        `${where(bucket, `snapshot item ${snapshotId}`)} holds snapshot ${snapshot.snapshotId}`,
      )
    }
    return snapshot
  }

  /** Writes a snapshot item; METASTORE_CONFLICT when an item with its id exists. */
  async put(bucket: TableBucket, snapshot: KvSnapshot): Promise<void> {
    const { pk, sk } = kvSnapshotKey(bucket, snapshot.snapshotId)
    await this.metaStore.put(pk, sk, encodeKvSnapshot(snapshot), { version: 'absent' })
  }

  /** Deletes a snapshot item whatever its version; a missing item is fine. */
  async delete(bucket: TableBucket, snapshotId: number): Promise<void> {
    await this.#deleteAnyVersion(kvSnapshotKey(bucket, snapshotId))
  }

  async #deleteAnyVersion({ pk, sk }: ItemKey): Promise<void> {
    let current = await this.metaStore.get(pk, sk)
    for (let attempt = 0; attempt < DELETE_ATTEMPTS_MAX && current !== undefined; attempt++) {
      try {
        await this.metaStore.delete(pk, sk, { version: current.version })
        return
      } catch (e) {
        if (!isMetaStoreConflict(e)) throw e
        current = e.current
      }
    }
    if (current !== undefined)
      throw new FlussError('METASTORE_CONFLICT', `deleting ${pk}/${sk} lost ${DELETE_ATTEMPTS_MAX} races`)
  }

  /** Ids of every snapshot item of the bucket, committed or not, ascending (at most `maxItems`). */
  async listIds(bucket: TableBucket, maxItems = KV_SNAPSHOT_LIST_ITEMS_MAX): Promise<number[]> {
    const { pk } = kvSnapshotKey(bucket, 0)
    const ids: number[] = []
    let cursor: string | undefined
    do {
      const page = await this.metaStore.query(pk, {
        skPrefix: kvSnapshotSkPrefix(bucket),
        limit: 1000,
        ...(cursor === undefined ? {} : { cursor }),
      })
      for (const item of page.items) {
        if (ids.length >= maxItems) return ids
        ids.push(parseKvSnapshotSk(item.sk).snapshotId)
      }
      cursor = page.cursor
    } while (cursor !== undefined)
    return ids
  }

  /** The committed snapshots, oldest first. */
  async retained(bucket: TableBucket, head: KvSnapshotHead): Promise<KvSnapshot[]> {
    const snapshots: KvSnapshot[] = []
    for (const id of head.retained) {
      const snapshot = await this.get(bucket, id)
      if (snapshot === null) {
        throw new FlussError(
          'KV_STORAGE_EXCEPTION',
          `${where(bucket, 'the snapshot head')} lists snapshot ${id}, which has no item`,
        )
      }
      snapshots.push(snapshot)
    }
    return snapshots
  }

  /** The newest committed snapshot; null when the bucket has none. */
  async latest(bucket: TableBucket): Promise<KvSnapshot | null> {
    const stored = await this.loadHead(bucket)
    const id = stored?.head.retained.at(-1)
    if (id === undefined) return null
    const snapshot = await this.get(bucket, id)
    if (snapshot === null) {
      throw new FlussError(
        'KV_STORAGE_EXCEPTION',
        `${where(bucket, 'the snapshot head')} lists snapshot ${id}, which has no item`,
      )
    }
    return snapshot
  }
}
