import type { RemoteLogManifest } from '@sluice/core/remotelog'
import type { SealedSegment } from '../log/index.js'

/**
 * Which local segments to upload: sealed ones that lie entirely below the high watermark (only
 * acknowledged, replicated data goes to remote storage) and end after what remote storage already
 * holds, oldest first, at most `maxSegments` (`remote.log.task-max-upload-segments`).
 */
export function uploadCandidates(
  sealed: readonly SealedSegment[],
  highWatermark: number,
  manifest: RemoteLogManifest,
  maxSegments: number,
): SealedSegment[] {
  const remoteEnd = manifest.remoteLogEndOffset
  return sealed
    .filter(s => s.endOffset <= highWatermark && s.endOffset > remoteEnd && s.sizeInBytes > 0)
    .slice(0, maxSegments)
}

/**
 * How many of the oldest sealed segments may be deleted locally: only segments whose every offset
 * is in committed remote segments, never one holding `minRetainOffset` or above, and never so
 * many that fewer than `localSegments` segments (the active one counted, as Fluss counts) stay,
 * unless the segment's newest record is older than `localTtlMs` (`table.log.local-ttl`; 0: no age
 * rule), which frees an uploaded segment whatever the count.
 */
export function deletableLocalCount(
  sealed: readonly SealedSegment[],
  manifest: RemoteLogManifest,
  retention: { readonly localSegments: number; readonly localTtlMs: number; readonly nowMs: number },
  minRetainOffset: number,
): number {
  const { localSegments, localTtlMs, nowMs } = retention
  const maxByCount = sealed.length + 1 - Math.max(1, localSegments)
  let count = 0
  while (count < sealed.length) {
    const s = sealed[count] as SealedSegment
    if (s.endOffset > minRetainOffset || !manifest.covers(s.baseOffset, s.endOffset)) break
    const expired = localTtlMs > 0 && nowMs - s.maxTimestamp > localTtlMs
    if (count >= maxByCount && !expired) break
    count++
  }
  return count
}
