import { type BlobStore, remoteLogTabletDir } from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'
import { type PhysicalTablePath, type TableBucket, tableBucketToString } from '@sluice/core/metadata'
import type { RemoteLogManifest, RemoteLogSegmentEntry } from '@sluice/core/remotelog'
import { readRemoteBatches } from '@sluice/core/remotelog'
import type { PbRemoteLogFetchInfoInit } from '@sluice/core/rpc'
import { withTimeout } from '@sluice/core/util'
import { OffsetIndex } from '../log/index.js'
import type { RemoteIndexCache } from './remote-index-cache.js'
import type { RemoteLogStats } from './remote-log-stats.js'

export interface RemoteLogReaderDeps {
  readonly blobStore: BlobStore
  readonly indexCache: RemoteIndexCache
  readonly stats: RemoteLogStats
  /** The remote data dir as clients reach it (`s3://bucket/prefix`, `file:///abs/path`). */
  readonly remoteDataDir: string
  /** Smallest ranged GET of a log object. */
  readonly readChunkBytes: number
  /** A GET still pending after this long fails with REQUEST_TIME_OUT. */
  readonly operationTimeoutMs: number
}

export interface RemoteLogReadParams {
  readonly fetchOffset: number
  readonly maxBytes: number
  readonly minOneMessage: boolean
}

export interface RemoteLogReadResult {
  /** Whole batches from one remote segment (possibly empty when the first exceeds maxBytes). */
  readonly records: Buffer
  readonly segment: RemoteLogSegmentEntry
}

/**
 * Serves fetches below the local log start from the bucket's remote segments, in the two ways
 * FETCH_LOG needs: the batch bytes themselves (Sluice's SDK, transparently), or the remote-log
 * fetch info that Fluss's clients use to download the segment files themselves. Reads only the
 * manifest committed last (`manifest()`); before the first load there is no remote data.
 *
 * These reads are the one place where a fetch touches object storage: only offsets that are no
 * longer on local disk get here.
 */
export class RemoteLogReader {
  constructor(
    readonly tableBucket: TableBucket,
    readonly physicalTablePath: PhysicalTablePath,
    private readonly manifest: () => RemoteLogManifest | null,
    private readonly deps: RemoteLogReaderDeps,
  ) {}

  /** Base offset of the oldest remote segment; -1 when there is no remote data. */
  get remoteLogStartOffset(): number {
    return this.manifest()?.remoteLogStartOffset ?? -1
  }

  /** Exclusive end of the newest remote segment; -1 when there is no remote data. */
  get remoteLogEndOffset(): number {
    return this.manifest()?.remoteLogEndOffset ?? -1
  }

  /** Fluss's `canFetchFromRemoteLog`: remote start <= offset < remote end. */
  canFetch(offset: number): boolean {
    return this.manifest()?.canFetch(offset) ?? false
  }

  /** LIST_OFFSETS earliest: the remote log start when remote data begins earlier, else the local one. */
  earliestOffset(localLogStartOffset: number): number {
    const remoteStart = this.remoteLogStartOffset
    return remoteStart >= 0 && remoteStart < localLogStartOffset ? remoteStart : localLogStartOffset
  }

  /** Batch bytes for our SDK: whole batches from the remote segment holding `fetchOffset`. */
  async read(params: RemoteLogReadParams): Promise<RemoteLogReadResult> {
    const { fetchOffset, maxBytes } = params
    if (!Number.isSafeInteger(fetchOffset) || !Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      throw new FlussError('INVALID_REQUEST', `bad remote read: offset ${fetchOffset}, max bytes ${maxBytes}`)
    }
    const manifest = this.#manifestFor(fetchOffset)
    const segment = manifest.segmentFor(fetchOffset) as RemoteLogSegmentEntry
    const key = manifest.keysOf(segment).log
    try {
      const startPosition = await this.lookupPosition(manifest, segment, fetchOffset)
      const records = await readRemoteBatches((start, end) => this.#getRange(key, start, end), {
        segmentBytes: segment.sizeInBytes,
        startPosition,
        fetchOffset,
        maxBytes,
        minOneMessage: params.minOneMessage,
        chunkBytes: this.deps.readChunkBytes,
        where: key,
      })
      this.deps.stats.add('remoteReads')
      this.deps.stats.add('remoteReadBytes', records.length)
      return { records, segment }
    } catch (e) {
      this.deps.stats.error('remoteReadErrors', e)
      throw e
    }
  }

  /**
   * The remote-log fetch info of FETCH_LOG for Fluss's clients, filled as Fluss's ReplicaManager
   * does: the tablet dir, the partition name, every relevant segment (the one holding the offset and
   * all later ones) and the byte position to start from in the first.
   */
  async fetchInfo(fetchOffset: number): Promise<PbRemoteLogFetchInfoInit> {
    const manifest = this.#manifestFor(fetchOffset)
    const segments = manifest.relevantSegments(fetchOffset)
    const first = segments[0] as RemoteLogSegmentEntry
    const firstStartPos = await this.lookupPosition(manifest, first, fetchOffset)
    return {
      remoteLogTabletDir: remoteLogTabletDir(this.deps.remoteDataDir, this.tableBucket),
      partitionName: this.physicalTablePath.partitionName ?? null,
      remoteLogSegments: segments.map(s => ({
        remoteLogSegmentId: s.segmentId,
        remoteLogStartOffset: s.baseOffset,
        remoteLogEndOffset: s.endOffset,
        segmentSizeInBytes: s.sizeInBytes,
        maxTimestamp: s.maxTimestamp,
      })),
      firstStartPos,
    }
  }

  /**
   * Byte position in `segment` of the greatest offset-index entry at or below `offset` (0 when
   * there is none, the offset precedes the segment, or the index object is unusable).
   */
  async lookupPosition(
    manifest: RemoteLogManifest,
    segment: RemoteLogSegmentEntry,
    offset: number,
  ): Promise<number> {
    if (offset <= segment.baseOffset) return 0
    const key = manifest.keysOf(segment).index
    const bytes = await this.deps.indexCache.get(segment.segmentId, async () => {
      const got = await withTimeout(`get ${key}`, this.deps.operationTimeoutMs, () =>
        this.deps.blobStore.get(key),
      )
      return got === undefined ? Buffer.alloc(0) : Buffer.from(got.buffer, got.byteOffset, got.byteLength)
    })
    const entries = Math.max(1, Math.floor(bytes.length / 8))
    const index = OffsetIndex.fromBytes(segment.baseOffset, entries, bytes, segment.sizeInBytes)
    return index?.lookup(offset).position ?? 0
  }

  #manifestFor(fetchOffset: number): RemoteLogManifest {
    const manifest = this.manifest()
    if (!manifest?.canFetch(fetchOffset)) {
      throw new FlussError(
        'LOG_OFFSET_OUT_OF_RANGE_EXCEPTION',
        `The fetch offset ${fetchOffset} is out of range for table bucket ${tableBucketToString(this.tableBucket)}`,
      )
    }
    return manifest
  }

  async #getRange(key: string, start: number, end: number): Promise<Buffer> {
    const got = await withTimeout(`get ${key}`, this.deps.operationTimeoutMs, () =>
      this.deps.blobStore.get(key, { range: { start, end } }),
    )
    if (got === undefined) {
      // Deleted by TTL after the manifest was read: the client starts over from the new start.
      throw new FlussError('LOG_OFFSET_OUT_OF_RANGE_EXCEPTION', `remote segment ${key} no longer exists`)
    }
    return Buffer.from(got.buffer, got.byteOffset, got.byteLength)
  }
}
