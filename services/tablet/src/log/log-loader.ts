import { join } from 'node:path'
import { FlussError } from '@sluice/core/errors'
import { type Clock, SYSTEM_CLOCK } from '@sluice/core/util'
import { type FileIO, nodeFileIO, storageError } from './file-io.js'
import { HighWatermarkCheckpoint } from './high-watermark-checkpoint.js'
import { LocalLog, type LocalLogConfig } from './local-log.js'
import { CLEAN_SHUTDOWN_FILE, LOG_FILE_SUFFIX, parseOffsetFileName, TEMP_FILE_SUFFIX } from './log-paths.js'
import { LogSegment } from './log-segment.js'
import { LOG_TABLET_DEFAULTS, type LogTabletOptions } from './log-tablet-types.js'
import { WriterStateManager } from './writer-state-manager.js'

const MAX_SEGMENT_BYTES = 0x7fffffff
const OFFSET_INDEX_ENTRY_BYTES = 8

export interface ResolvedLogTabletOptions extends LogTabletOptions {
  readonly io: FileIO
  readonly clock: Clock
  readonly scanChunkBytes: number
  readonly name: string
}

function requireRange(name: string, value: number, min: number, max: number): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `log option ${name} = ${value} must be an integer in [${min}, ${max}]`,
    )
  }
}

export function resolveOptions(dir: string, options: LogTabletOptions): ResolvedLogTabletOptions {
  requireRange('segmentBytes', options.segmentBytes, 1, MAX_SEGMENT_BYTES)
  requireRange('indexIntervalBytes', options.indexIntervalBytes, 0, MAX_SEGMENT_BYTES)
  requireRange('indexBytes', options.indexBytes, OFFSET_INDEX_ENTRY_BYTES, MAX_SEGMENT_BYTES)
  requireRange('writerExpirationMs', options.writerExpirationMs, 1, Number.MAX_SAFE_INTEGER)
  requireRange('highWatermarkCheckpointIntervalMs', options.highWatermarkCheckpointIntervalMs, 0, 2 ** 31 - 1)
  requireRange('maxQueuedOperations', options.maxQueuedOperations, 1, 1_000_000)
  const scanChunkBytes = options.scanChunkBytes ?? LOG_TABLET_DEFAULTS.scanChunkBytes
  requireRange('scanChunkBytes', scanChunkBytes, 64, 64 * 1024 * 1024)
  return {
    ...options,
    io: options.io ?? nodeFileIO,
    clock: options.clock ?? SYSTEM_CLOCK,
    scanChunkBytes,
    name: options.name ?? dir,
  }
}

export function localLogConfig(options: ResolvedLogTabletOptions): LocalLogConfig {
  return {
    segmentBytes: options.segmentBytes,
    indexIntervalBytes: options.indexIntervalBytes,
    indexMaxEntries: Math.floor(options.indexBytes / OFFSET_INDEX_ENTRY_BYTES),
    scanChunkBytes: options.scanChunkBytes,
  }
}

export interface LoadedLog {
  readonly localLog: LocalLog
  readonly writers: WriterStateManager
  readonly highWatermark: number
  /** Bytes cut from the active segment's tail (torn or corrupt); 0 after a clean shutdown. */
  readonly truncatedBytes: number
  readonly cleanShutdown: boolean
}

/**
 * Opens a bucket's log directory. After a clean close the indexes and the writer snapshot at the log
 * end are trusted; otherwise the active segment is recovered (every batch CRC-checked, a torn or
 * corrupt tail cut, indexes rebuilt). Sealed segments were fsynced when they rolled and are only
 * sanity-checked lazily. Writer state = latest snapshot + replay of the batch headers after it.
 */
export async function loadLog(dir: string, options: ResolvedLogTabletOptions): Promise<LoadedLog> {
  const { io } = options
  await io.mkdirs(dir)
  const names = await io.list(dir)
  for (const name of names) if (name.endsWith(TEMP_FILE_SUFFIX)) await io.remove(join(dir, name))
  const cleanShutdown = names.includes(CLEAN_SHUTDOWN_FILE)
  if (cleanShutdown) {
    await io.remove(join(dir, CLEAN_SHUTDOWN_FILE))
    await io.syncDir(dir)
  }
  const config = localLogConfig(options)
  const segments = await openSegments(io, dir, names, config)
  try {
    const active = segments[segments.length - 1]
    let truncatedBytes = 0
    if (cleanShutdown) await active.loadEnd()
    else truncatedBytes = await active.recover()
    const localLog = new LocalLog(io, dir, config, segments, await active.nextOffset(), -1)
    localLog.localMaxTimestamp = await localLog.computeMaxTimestamp()
    const writers = new WriterStateManager(io, dir, options.writerExpirationMs, options.name)
    await rebuildWriterState(localLog, writers, localLog.logEndOffset, options.clock.nowMs())
    await writers.takeSnapshot()
    await writers.snapshots.deleteStray(segments.map(s => s.baseOffset))
    await writers.snapshots.deleteBelow(localLog.logStartOffset)
    const checkpointed = await new HighWatermarkCheckpoint(io, dir).read()
    const highWatermark = Math.min(
      Math.max(checkpointed ?? 0, localLog.logStartOffset),
      localLog.logEndOffset,
    )
    return { localLog, writers, highWatermark, truncatedBytes, cleanShutdown }
  } catch (e) {
    for (const s of segments) await s.closeQuietly()
    throw storageError(e, `loading log ${dir}`)
  }
}

async function openSegments(
  io: FileIO,
  dir: string,
  names: readonly string[],
  config: LocalLogConfig,
): Promise<LogSegment[]> {
  const baseOffsets = names
    .map(n => parseOffsetFileName(n, LOG_FILE_SUFFIX))
    .filter((o): o is number => o !== null)
    .sort((a, b) => a - b)
  if (baseOffsets.length === 0) return [await LogSegment.create(io, dir, 0, config)]
  const segments: LogSegment[] = []
  try {
    for (const base of baseOffsets) segments.push(await LogSegment.open(io, dir, base, config))
  } catch (e) {
    for (const s of segments) await s.closeQuietly()
    throw e
  }
  return segments
}

/**
 * Resets writer state to cover exactly the batches below `upToOffset`: the latest snapshot at or
 * below it, then the headers of the batches after the snapshot.
 */
export async function rebuildWriterState(
  log: LocalLog,
  writers: WriterStateManager,
  upToOffset: number,
  nowMs: number,
): Promise<void> {
  const snapshotOffset = await writers.loadLatestSnapshot(upToOffset, nowMs)
  const from = Math.max(snapshotOffset ?? log.logStartOffset, log.logStartOffset)
  const segments = log.segments
  for (let i = Math.max(0, log.floorIndex(from)); i < segments.length; i++) {
    const segment = segments[i]
    if (segment.baseOffset >= upToOffset) break
    await segment.forEachBatch(Math.max(from, segment.baseOffset), upToOffset, batch =>
      writers.loadBatch(batch),
    )
  }
  writers.removeExpiredWriters(nowMs)
  writers.mapEndOffset = upToOffset
}
