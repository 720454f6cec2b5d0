import type { BlobStore } from '@sluice/core/blobstore'
import { tableBucket } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import { MANIFEST_INLINE_BYTES_DEFAULT, RemoteLogManifestStore } from '@sluice/core/remotelog'
import { readLakeItem } from '@sluice/tiering/round'

/** One observation of how far the lake and the remote log trail the writes. */
export interface LagSample {
  readonly atMs: number
  /** now − newest commit timestamp of any row in the lake (undefined before the first snapshot). */
  readonly lakeLagMs: number | undefined
  /** The same for the bucket whose lake data is oldest. */
  readonly worstBucketLakeLagMs: number | undefined
  /** now − newest commit timestamp of any uploaded remote log segment (the tiering input). */
  readonly remoteLagMs: number | undefined
  readonly tieredRecords: number
  readonly lastError: string | null
}

/**
 * Reads the lake's progress as tiering records it: the LAKE item's tiered offsets (the lake
 * snapshot's `fluss-offsets`), and from each bucket's remote log manifest the newest batch commit
 * timestamp of the segments below that offset. Timestamps seen once are kept, so segments that
 * expire later do not change the answer.
 */
export class LakeLagProbe {
  readonly #manifests: RemoteLogManifestStore
  /** Per bucket: segment end offset → greatest commit timestamp in the segment. */
  readonly #segments = new Map<number, Map<number, number>>()

  constructor(
    private readonly metaStore: MetaStore,
    blobStore: BlobStore,
    private readonly tableId: number,
    private readonly buckets: number,
  ) {
    this.#manifests = new RemoteLogManifestStore(metaStore, blobStore, {
      inlineBytesMax: MANIFEST_INLINE_BYTES_DEFAULT,
      nowMs: Date.now,
    })
  }

  async sample(): Promise<LagSample> {
    const { item } = await readLakeItem(this.metaStore, this.tableId)
    const tiered = new Map(item.tieredOffsets.map(o => [o.bucket, o.offset]))
    const bucketNewest: (number | undefined)[] = []
    let newestRemote: number | undefined
    let tieredRecords = 0
    for (let b = 0; b < this.buckets; b++) {
      const tieredOffset = tiered.get(b) ?? 0
      tieredRecords += tieredOffset
      let newest: number | undefined
      for (const [end, ts] of await this.#segmentsOf(b)) {
        newestRemote = Math.max(newestRemote ?? ts, ts)
        if (end <= tieredOffset) newest = Math.max(newest ?? ts, ts)
      }
      bucketNewest.push(newest)
    }
    const known = bucketNewest.filter((ts): ts is number => ts !== undefined)
    const newestLake = known.length === 0 ? undefined : Math.max(...known)
    // Undefined until every bucket has data in the lake.
    const oldestBucket = known.length < this.buckets ? undefined : Math.min(...known)
    const now = Date.now()
    const lag = (ts: number | undefined) => (ts === undefined ? undefined : now - ts)
    return {
      atMs: now,
      lakeLagMs: lag(newestLake),
      worstBucketLakeLagMs: lag(oldestBucket),
      remoteLagMs: lag(newestRemote),
      tieredRecords,
      lastError: item.lastError,
    }
  }

  async #segmentsOf(bucket: number): Promise<Map<number, number>> {
    let known = this.#segments.get(bucket)
    if (known === undefined) {
      known = new Map()
      this.#segments.set(bucket, known)
    }
    const stored = await this.#manifests.load(tableBucket(this.tableId, bucket))
    for (const s of stored.manifest.segments) known.set(s.endOffset, s.maxTimestamp)
    return known
  }
}
