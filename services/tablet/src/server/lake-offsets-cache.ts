import { type LakeOffsets, NO_LAKE_OFFSETS, readLakeOffsets } from '@sluice/core/control-plane'
import type { TableBucket } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'

interface Entry {
  offsets: LakeOffsets
  loadedAtMs: number
  loading: Promise<void> | null
}

/** Tables whose tiering offsets are kept, at most (then the cache starts over). */
const TABLES_MAX = 10_000

/**
 * The tiered offsets of lake tables, for remote-log retention: a remote segment of a lake table
 * may expire only once the lake holds it. Answers synchronously from what was read last and
 * refreshes in the background when that is older than `refreshMs`; before the first read a
 * bucket counts as not tiered at all (nothing expires), which is the safe side.
 */
export class LakeOffsetsCache {
  readonly #entries = new Map<number, Entry>()

  constructor(
    private readonly store: MetaStore,
    private readonly refreshMs: number,
    private readonly nowMs: () => number,
    private readonly warn: (message: string, error: unknown) => void,
  ) {}

  /** The first offset of `bucket` the lake does not hold yet (0 when unknown). */
  tieredOffset(bucket: TableBucket): number {
    const entry = this.#entry(bucket.tableId)
    if (entry.loading === null && this.nowMs() - entry.loadedAtMs >= this.refreshMs)
      this.#refresh(bucket.tableId, entry)
    const found = entry.offsets.tieredOffsets.find(
      o => o.bucket === bucket.bucket && (o.partitionId ?? undefined) === bucket.partitionId,
    )
    return found?.offset ?? 0
  }

  /** Resolves when the refresh in flight for the table (if any) is done. */
  async settled(tableId: number): Promise<void> {
    await this.#entries.get(tableId)?.loading
  }

  #entry(tableId: number): Entry {
    let entry = this.#entries.get(tableId)
    if (entry === undefined) {
      if (this.#entries.size >= TABLES_MAX) this.#entries.clear()
      entry = { offsets: NO_LAKE_OFFSETS, loadedAtMs: Number.NEGATIVE_INFINITY, loading: null }
      this.#entries.set(tableId, entry)
    }
    return entry
  }

  #refresh(tableId: number, entry: Entry): void {
    entry.loading = readLakeOffsets(this.store, tableId).then(
      offsets => {
        entry.offsets = offsets
        entry.loadedAtMs = this.nowMs()
        entry.loading = null
      },
      e => {
        entry.loadedAtMs = this.nowMs()
        entry.loading = null
        this.warn(`reading the lake offsets of table ${tableId} failed`, e)
      },
    )
  }
}
