import type { TableBucket } from '../metadata/index.js'
import {
  INDEX_FILE_SUFFIX,
  LOG_FILE_SUFFIX,
  offsetFileName,
  TIME_INDEX_FILE_SUFFIX,
  WRITER_SNAPSHOT_FILE_SUFFIX,
} from '../record/index.js'
import { isRemoteId } from './remote-id.js'

/**
 * Object keys of the remote log. Under one bucket's tablet prefix
 *
 *   remote-log/<tableId>/<partitionId|_>/<bucket>/<segmentId>/<baseOffset>.log
 *                                                  .../<baseOffset>.index
 *                                                  .../<baseOffset>.timeindex
 *                                                  .../<endOffset>.writer_snapshot
 *   remote-log/<tableId>/<partitionId|_>/<bucket>/metadata/<manifestId>.manifest
 *
 * Offsets are 20-digit zero-padded. The part below the tablet prefix is what Fluss's clients compute
 * themselves (`<remote_log_tablet_dir>/<segmentId>/<baseOffset>.log`, FlussPaths.remoteLogSegmentFile)
 * from the tablet dir the server sends in FetchLog, so it must stay exactly this; the tablet prefix
 * itself is ours (ARCHITECTURE §5). A segment id is new for every upload attempt, so a retried
 * upload never overwrites an object a manifest refers to.
 */
export const REMOTE_LOG_ROOT = 'remote-log'
export const REMOTE_LOG_METADATA_DIR = 'metadata'
export const REMOTE_LOG_MANIFEST_SUFFIX = '.manifest'
const NO_PARTITION = '_'

export interface RemoteSegmentKeys {
  readonly log: string
  readonly index: string
  readonly timeIndex: string
  readonly writerSnapshot: string
}

/** `remote-log/<tableId>/<partitionId|_>/<bucket>` */
export function remoteLogTabletPrefix(bucket: TableBucket): string {
  const partition = bucket.partitionId === undefined ? NO_PARTITION : String(bucket.partitionId)
  return `${REMOTE_LOG_ROOT}/${bucket.tableId}/${partition}/${bucket.bucket}`
}

export function remoteSegmentKeys(
  tabletPrefix: string,
  segmentId: string,
  baseOffset: number,
  endOffset: number,
): RemoteSegmentKeys {
  const dir = `${tabletPrefix}/${segmentId}`
  return {
    log: `${dir}/${offsetFileName(baseOffset, LOG_FILE_SUFFIX)}`,
    index: `${dir}/${offsetFileName(baseOffset, INDEX_FILE_SUFFIX)}`,
    timeIndex: `${dir}/${offsetFileName(baseOffset, TIME_INDEX_FILE_SUFFIX)}`,
    writerSnapshot: `${dir}/${offsetFileName(endOffset, WRITER_SNAPSHOT_FILE_SUFFIX)}`,
  }
}

export function remoteManifestKey(tabletPrefix: string, manifestId: string): string {
  return `${tabletPrefix}/${REMOTE_LOG_METADATA_DIR}/${manifestId}${REMOTE_LOG_MANIFEST_SUFFIX}`
}

/** What a key under a tablet prefix is: an object of a segment, a manifest body, or unknown (null). */
export type RemoteLogObject =
  | { readonly kind: 'segment'; readonly id: string }
  | { readonly kind: 'manifest'; readonly id: string }

export function parseRemoteLogKey(tabletPrefix: string, key: string): RemoteLogObject | null {
  if (!key.startsWith(`${tabletPrefix}/`)) return null
  const parts = key.slice(tabletPrefix.length + 1).split('/')
  if (parts.length !== 2) return null
  const [dir, file] = parts as [string, string]
  if (dir === REMOTE_LOG_METADATA_DIR && file.endsWith(REMOTE_LOG_MANIFEST_SUFFIX)) {
    const id = file.slice(0, -REMOTE_LOG_MANIFEST_SUFFIX.length)
    return isRemoteId(id) ? { kind: 'manifest', id } : null
  }
  return isRemoteId(dir) ? { kind: 'segment', id: dir } : null
}

/**
 * The `remote_log_tablet_dir` of FetchLog's remote-log info: the remote data dir as clients reach it
 * (`s3://bucket/prefix`, `file:///abs/path`) joined with the tablet prefix.
 */
export function remoteLogTabletDir(remoteDataDir: string, bucket: TableBucket): string {
  return `${remoteDataDir.replace(/\/+$/, '')}/${remoteLogTabletPrefix(bucket)}`
}
