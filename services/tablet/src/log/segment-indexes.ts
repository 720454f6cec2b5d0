import { type FileIO, writeFileSynced } from './file-io.js'
import { OffsetIndex } from './offset-index.js'
import { TimeIndex } from './time-index.js'

export interface SegmentIndexes {
  readonly offsetIndex: OffsetIndex
  readonly timeIndex: TimeIndex
}

export function emptyIndexes(baseOffset: number, maxEntries: number): SegmentIndexes {
  return {
    offsetIndex: new OffsetIndex(baseOffset, maxEntries),
    timeIndex: new TimeIndex(baseOffset, maxEntries),
  }
}

/**
 * Reads a segment's `.index` and `.timeindex` files. Returns null when either is missing or fails
 * its sanity check; the caller then rebuilds both from the log.
 */
export async function loadIndexes(
  io: FileIO,
  paths: { readonly indexPath: string; readonly timeIndexPath: string },
  baseOffset: number,
  maxEntries: number,
  logBytes: number,
): Promise<SegmentIndexes | null> {
  const offsetBytes = await io.readFileOrNull(paths.indexPath)
  const timeBytes = await io.readFileOrNull(paths.timeIndexPath)
  if (!offsetBytes || !timeBytes) return null
  const offsetIndex = OffsetIndex.fromBytes(baseOffset, maxEntries, offsetBytes, logBytes)
  const timeIndex = TimeIndex.fromBytes(baseOffset, maxEntries, timeBytes)
  if (!offsetIndex || !timeIndex) return null
  return { offsetIndex, timeIndex }
}

/** Rewrites both index files in place (fsynced); `loadIndexes` rejects a half-written one. */
export async function persistIndexes(
  io: FileIO,
  paths: { readonly indexPath: string; readonly timeIndexPath: string },
  indexes: SegmentIndexes,
): Promise<void> {
  await writeFileSynced(io, paths.indexPath, indexes.offsetIndex.toBytes())
  await writeFileSynced(io, paths.timeIndexPath, indexes.timeIndex.toBytes())
}
