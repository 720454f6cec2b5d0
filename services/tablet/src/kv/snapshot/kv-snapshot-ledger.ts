import type { BlobStore } from '@sluice/core/blobstore'
import { FlussError, toFlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import { isMetaStoreConflict } from '@sluice/core/metastore'
import { deleteKeys } from '../../remote/orphan-sweep.js'
import type { KvSnapshotRegistry, StoredKvSnapshotHead } from './kv-snapshot-registry.js'
import type { KvSnapshotLogger, KvSnapshotStats } from './kv-snapshot-stats.js'
import type { KvSnapshot, KvSnapshotFile } from './kv-snapshot-types.js'
import type { SnapshotCall } from './snapshot-retry.js'

export interface KvSnapshotLedgerDeps {
  readonly tableBucket: TableBucket
  readonly leaderEpoch: number
  readonly numRetained: number
  readonly tabletPrefix: string
  readonly registry: KvSnapshotRegistry
  readonly blobStore: BlobStore
  readonly call: SnapshotCall
  /** One attempt, no retries: for deletes of this leader's own uncommitted uploads. */
  readonly callOnce: SnapshotCall
  readonly stats: KvSnapshotStats
  readonly logger: KvSnapshotLogger
  readonly name: string
  readonly onFenced: (error: FlussError) => void
}

/**
 * One leader's view of a bucket's snapshot registry (Fluss's `CompletedSnapshotStore` plus
 * `SharedKvFileRegistry` and `SnapshotsCleaner`). Claiming writes the head with this leader's epoch
 * (so older leaders can no longer commit) and deletes leftovers: items the head does not list. A
 * commit writes the snapshot item (on absence), then the head (on the version read, and only if no
 * newer epoch wrote it), then deletes the snapshots beyond `numRetained` and the files that no
 * retained snapshot lists. Files are deleted before their item, so a crash leaves an unlisted item
 * whose files are found and deleted at the next claim; uploads no item lists are swept by age.
 */
export class KvSnapshotLedger {
  #stored: StoredKvSnapshotHead | null = null
  #retained: KvSnapshot[] = []
  #garbagePending = true
  #fenced = false

  constructor(private readonly deps: KvSnapshotLedgerDeps) {}

  get isFenced(): boolean {
    return this.#fenced
  }

  /** The committed snapshots, oldest first (empty before the claim). */
  get retained(): readonly KvSnapshot[] {
    return this.#retained
  }

  get latest(): KvSnapshot | null {
    return this.#retained.at(-1) ?? null
  }

  /** Files of the committed snapshots (for incremental uploads). */
  committedFiles(): KvSnapshotFile[] {
    return this.#retained.flatMap(s => s.files)
  }

  /** The id the next snapshot takes (after `ensureClaimed`). */
  get nextSnapshotId(): number {
    if (this.#stored === null) throw new FlussError('KV_STORAGE_EXCEPTION', `${this.deps.name}: not claimed`)
    return this.#stored.head.nextSnapshotId
  }

  /** Loads (and, for a new epoch, claims) the head; then deletes leftovers if some may exist. */
  async ensureClaimed(): Promise<void> {
    if (this.#stored === null) await this.#claim()
    if (this.#garbagePending) await this.#deleteGarbage()
  }

  async #claim(): Promise<void> {
    const { registry, tableBucket: b, call, leaderEpoch } = this.deps
    let stored = await call('load kv snapshot head', () => registry.loadHead(b))
    if (stored !== null) this.#checkEpoch(stored.head.leaderEpoch)
    const ids = await call('list kv snapshot items', () => registry.listIds(b))
    const next = Math.max(stored?.head.nextSnapshotId ?? 0, (ids.at(-1) ?? -1) + 1)
    if (stored === null || stored.head.leaderEpoch !== leaderEpoch || stored.head.nextSnapshotId !== next) {
      const head = { leaderEpoch, nextSnapshotId: next, retained: stored?.head.retained ?? [] }
      const expected = stored
      try {
        stored = await call('claim kv snapshot head', () => registry.putHead(b, head, expected))
      } catch (e) {
        if (isMetaStoreConflict(e)) this.#checkEpochOf(e.current?.value.leaderEpoch)
        throw e
      }
    }
    const claimed = stored
    this.#retained = await call('load kv snapshots', () => registry.retained(b, claimed.head))
    this.#stored = claimed
    this.#garbagePending = true
  }

  /**
   * Commits an uploaded snapshot whose id is `nextSnapshotId`. `discard` deletes its uploads; it is
   * called when the snapshot is certainly not committed. When the outcome is unknown (a timeout),
   * nothing is deleted and the next claim sorts it out.
   */
  async commit(snapshot: KvSnapshot, discard: () => Promise<void>): Promise<void> {
    const { registry, tableBucket: b, call, leaderEpoch, numRetained } = this.deps
    const stored = this.#stored
    if (stored === null || snapshot.snapshotId !== stored.head.nextSnapshotId) {
      throw new FlussError(
        'KV_STORAGE_EXCEPTION',
        `${this.deps.name}: snapshot ${snapshot.snapshotId} out of turn`,
      )
    }
    await this.#putItem(snapshot, discard)
    const retained = [...stored.head.retained, snapshot.snapshotId].slice(-numRetained)
    const head = { leaderEpoch, nextSnapshotId: snapshot.snapshotId + 1, retained }
    try {
      this.#stored = await call('commit kv snapshot head', () => registry.putHead(b, head, stored))
    } catch (e) {
      this.#stored = null
      if (!isMetaStoreConflict(e)) throw e
      if (!(await this.#appliedDespite(snapshot, discard))) throw e
    }
    const dropped = this.#retained.filter(s => !retained.includes(s.snapshotId))
    this.#retained = [...this.#retained.filter(s => retained.includes(s.snapshotId)), snapshot]
    await this.#deleteSnapshots(dropped)
  }

  async #putItem(snapshot: KvSnapshot, discard: () => Promise<void>): Promise<void> {
    const { registry, tableBucket: b, call } = this.deps
    const stored = this.#stored
    try {
      await call('put kv snapshot item', () => registry.put(b, snapshot))
    } catch (e) {
      this.#stored = null
      if (!isMetaStoreConflict(e)) throw e
      // An earlier attempt of this very write may have landed (timeout): the item holds our files.
      const ours =
        e.current?.value.leaderEpoch === snapshot.leaderEpoch &&
        JSON.stringify(e.current?.value.files) === JSON.stringify(snapshot.files)
      if (ours) {
        this.#stored = stored
        return
      }
      await discard()
      this.#checkEpochOf(e.current?.value.leaderEpoch)
      throw e
    }
  }

  /**
   * After a lost head write: whether it applied after all (an earlier attempt landed). Fences when a
   * newer leader wrote the head; deletes the item and the uploads when it certainly did not apply.
   */
  async #appliedDespite(snapshot: KvSnapshot, discard: () => Promise<void>): Promise<boolean> {
    const { registry, tableBucket: b, call } = this.deps
    const reloaded = await call('load kv snapshot head', () => registry.loadHead(b))
    if (reloaded?.head.retained.includes(snapshot.snapshotId)) {
      this.#checkEpoch(reloaded.head.leaderEpoch)
      this.#stored = reloaded
      return true
    }
    await call('delete kv snapshot item', () => registry.delete(b, snapshot.snapshotId)).catch(() => {})
    await discard()
    if (reloaded !== null) this.#checkEpoch(reloaded.head.leaderEpoch)
    return false
  }

  #checkEpochOf(epoch: unknown): void {
    if (typeof epoch === 'number') this.#checkEpoch(epoch)
  }

  /** Fences this leader when a newer epoch wrote the registry. */
  #checkEpoch(storedEpoch: number): void {
    if (storedEpoch <= this.deps.leaderEpoch) return
    this.#fenced = true
    this.deps.stats.fenced = true
    const error = new FlussError(
      'FENCED_LEADER_EPOCH_EXCEPTION',
      `KV snapshots of ${this.deps.name} were committed by leader epoch ${storedEpoch}, this leader has epoch ${this.deps.leaderEpoch}`,
    )
    this.deps.logger.warn('kv snapshots fenced', { bucket: this.deps.name, error: error.message })
    this.deps.onFenced(error)
    throw error
  }

  /** Deletes items the head does not list (below its next id): leftovers of crashes and races. */
  async #deleteGarbage(): Promise<void> {
    const { registry, tableBucket: b, call } = this.deps
    const stored = this.#stored
    if (stored === null) return
    const ids = await call('list kv snapshot items', () => registry.listIds(b))
    const garbage: KvSnapshot[] = []
    for (const id of ids) {
      if (id >= stored.head.nextSnapshotId || stored.head.retained.includes(id)) continue
      const item = await call('load kv snapshot', () => registry.get(b, id)).catch(() => null)
      garbage.push(
        item ?? { snapshotId: id, logOffset: 0, rowCount: 0, leaderEpoch: 0, createdAtMs: 0, files: [] },
      )
    }
    this.#garbagePending = false
    await this.#deleteSnapshots(garbage)
  }

  /** Deletes the files of `snapshots` that no retained snapshot lists, then their items. */
  async #deleteSnapshots(snapshots: readonly KvSnapshot[]): Promise<void> {
    if (snapshots.length === 0) return
    const { registry, tableBucket: b, call, blobStore } = this.deps
    const kept = new Set(this.committedFiles().map(f => f.key))
    const keys = [...new Set(snapshots.flatMap(s => s.files.map(f => f.key)))].filter(k => !kept.has(k))
    try {
      this.deps.stats.objectsDeleted += await deleteKeys(blobStore, keys, call)
      for (const s of snapshots) await call('delete kv snapshot item', () => registry.delete(b, s.snapshotId))
    } catch (e) {
      this.#garbagePending = true
      this.deps.stats.deleteErrors++
      this.deps.stats.lastError = toFlussError(e).message
      this.deps.logger.warn('deleting old kv snapshots failed', {
        bucket: this.deps.name,
        error: toFlussError(e).message,
      })
    }
  }

  /** Deletes this leader's uncommitted uploads: one attempt each; the orphan sweep is the backstop. */
  async discardKeys(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return
    try {
      this.deps.stats.objectsDeleted += await deleteKeys(this.deps.blobStore, keys, this.deps.callOnce)
    } catch (e) {
      this.deps.stats.deleteErrors++
      this.deps.logger.warn('discarding kv snapshot uploads failed', {
        bucket: this.deps.name,
        error: toFlussError(e).message,
      })
    }
  }
}
