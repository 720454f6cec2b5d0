import type { TableBucket, TablePath } from '../metadata/index.js'
import {
  INDEX_FILE_SUFFIX,
  LOG_FILE_SUFFIX,
  offsetFileName,
  TIME_INDEX_FILE_SUFFIX,
  WRITER_SNAPSHOT_FILE_SUFFIX,
} from '../record/log-file-names.js'
import { isRemoteId } from '../remotelog/remote-id.js'

/**
 * The one place that knows object keys of the blob store (`sluice.blobstore.uri`: S3 in the cloud,
 * a directory locally). Keys are relative to the store's root; the absolute location of a key, as
 * clients and Iceberg metadata record it, is the root URI, `/`, and the key (`blobLocation`).
 *
 * | prefix                                           | below it                                | holds                     |
 * |--------------------------------------------------|-----------------------------------------|---------------------------|
 * | remote-log/<tableId>/<partitionId\|_>/<bucket>   | <segmentId>/<baseOffset>.log            | a tiered log segment      |
 * |                                                  | <segmentId>/<baseOffset>.index          | its offset index          |
 * |                                                  | <segmentId>/<baseOffset>.timeindex      | its time index            |
 * |                                                  | <segmentId>/<endOffset>.writer_snapshot | its writer state          |
 * |                                                  | metadata/<manifestId>.manifest          | a remote log manifest     |
 * | kv-snapshots/<tableId>/<partitionId\|_>/<bucket> | shared/<uploadId>-<sstName>             | an SST file of snapshots  |
 * |                                                  | <snapshotId>/<uploadId>-<fileName>      | a file of one snapshot    |
 * | lake/<database>/<table>                          | metadata/<NNNNN>-<uuid>.metadata.json   | Iceberg table metadata    |
 * |                                                  | metadata/v<N>.metadata.json             | its copy for file readers |
 * |                                                  | metadata/version-hint.text              | N of that copy            |
 * |                                                  | metadata/snap-<snapshotId>-<attempt>-<uuid>.avro | a manifest list  |
 * |                                                  | metadata/<uuid>-m<content>.avro         | a manifest                |
 * |                                                  | data/<partition path>/<uuid>.parquet    | a data file               |
 * |                                                  | data/<partition path>/<uuid>-deletes.parquet | an equality delete file |
 *
 * Offsets are 20-digit zero-padded; segment, manifest and upload ids are UUID v7 (`newRemoteId`).
 * The part of a remote log key below its tablet prefix is what Fluss's clients compute themselves
 * (`<remote_log_tablet_dir>/<segmentId>/<baseOffset>.log`, FlussPaths.remoteLogSegmentFile) from the
 * tablet dir the server sends in FetchLog, so it must stay exactly this; the prefixes are ours. A
 * segment or upload id is new for every attempt, so a retry never overwrites an object in use.
 *
 * The functions below a lake table take the table's key or its absolute location (Iceberg's
 * `location`, which a catalog may place elsewhere) and return a key or a location alike.
 */

export const REMOTE_LOG_ROOT = 'remote-log'
export const KV_SNAPSHOT_ROOT = 'kv-snapshots'
export const LAKE_ROOT = 'lake'
/** The top-level prefixes, one per kind of cold data (the CDK scopes its grants to them). */
export const BLOB_KEY_ROOTS = {
  remoteLog: REMOTE_LOG_ROOT,
  kvSnapshots: KV_SNAPSHOT_ROOT,
  lake: LAKE_ROOT,
} as const

const NO_PARTITION = '_'

/** The absolute location of `key` in the store whose root is `rootUri` (a trailing `/` is dropped). */
export function blobLocation(rootUri: string, key: string): string {
  return `${rootUri.replace(/\/+$/, '')}/${key}`
}

function bucketPath(root: string, bucket: TableBucket): string {
  const partition = bucket.partitionId === undefined ? NO_PARTITION : String(bucket.partitionId)
  return `${root}/${bucket.tableId}/${partition}/${bucket.bucket}`
}

// Remote log.

export const REMOTE_LOG_METADATA_DIR = 'metadata'
export const REMOTE_LOG_MANIFEST_SUFFIX = '.manifest'

export interface RemoteSegmentKeys {
  readonly log: string
  readonly index: string
  readonly timeIndex: string
  readonly writerSnapshot: string
}

/** `remote-log/<tableId>/<partitionId|_>/<bucket>` */
export function remoteLogTabletPrefix(bucket: TableBucket): string {
  return bucketPath(REMOTE_LOG_ROOT, bucket)
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
  return blobLocation(remoteDataDir, remoteLogTabletPrefix(bucket))
}

// KV snapshots. SST files are immutable and shared between the snapshots that use them; MANIFEST,
// CURRENT and OPTIONS belong to one snapshot.

export const KV_SNAPSHOT_SHARED_DIR = 'shared'
const UPLOAD_ID_LENGTH = 36

/** `kv-snapshots/<tableId>/<partitionId|_>/<bucket>` */
export function kvSnapshotTabletPrefix(bucket: TableBucket): string {
  return bucketPath(KV_SNAPSHOT_ROOT, bucket)
}

export function kvSnapshotSharedFileKey(tabletPrefix: string, uploadId: string, fileName: string): string {
  return `${tabletPrefix}/${KV_SNAPSHOT_SHARED_DIR}/${uploadId}-${fileName}`
}

export function kvSnapshotPrivateFileKey(
  tabletPrefix: string,
  snapshotId: number,
  uploadId: string,
  fileName: string,
): string {
  return `${tabletPrefix}/${snapshotId}/${uploadId}-${fileName}`
}

/** What a key under a bucket's snapshot prefix is; null for keys that are not ours. */
export interface KvSnapshotObject {
  readonly uploadId: string
  readonly fileName: string
  /** The snapshot a private file belongs to; null for shared files. */
  readonly snapshotId: number | null
}

export function parseKvSnapshotObjectKey(tabletPrefix: string, key: string): KvSnapshotObject | null {
  if (!key.startsWith(`${tabletPrefix}/`)) return null
  const parts = key.slice(tabletPrefix.length + 1).split('/')
  if (parts.length !== 2) return null
  const [dir, file] = parts as [string, string]
  const uploadId = file.slice(0, UPLOAD_ID_LENGTH)
  if (!isRemoteId(uploadId) || file[UPLOAD_ID_LENGTH] !== '-' || file.length <= UPLOAD_ID_LENGTH + 1)
    return null
  const fileName = file.slice(UPLOAD_ID_LENGTH + 1)
  if (dir === KV_SNAPSHOT_SHARED_DIR) return { uploadId, fileName, snapshotId: null }
  if (!/^\d+$/.test(dir) || !Number.isSafeInteger(Number(dir))) return null
  return { uploadId, fileName, snapshotId: Number(dir) }
}

// The lake: Iceberg tables. Metadata files are named as Iceberg's metastore catalogs name them;
// `v<N>.metadata.json` and `version-hint.text` are what file-based readers (HadoopTables, DuckDB,
// icebird) look for.

export const LAKE_METADATA_DIR = 'metadata'
export const LAKE_DATA_DIR = 'data'
export const VERSION_HINT_FILE = 'version-hint.text'
const METADATA_VERSION_DIGITS = 5

/** `lake/<database>/<table>`: where tiering puts a table's lake copy by default. */
export function lakeTableKey(path: TablePath): string {
  return `${LAKE_ROOT}/${path.databaseName}/${path.tableName}`
}

/** `<table>/metadata` */
export function lakeMetadataDir(table: string): string {
  return `${table}/${LAKE_METADATA_DIR}`
}

/** `<table>/metadata/<NNNNN>-<fileId>.metadata.json` */
export function lakeMetadataFileKey(table: string, version: number, fileId: string): string {
  const v = String(version).padStart(METADATA_VERSION_DIGITS, '0')
  return `${lakeMetadataDir(table)}/${v}-${fileId}.metadata.json`
}

/** The version of a metadata file named `<NNNNN>-<fileId>.metadata.json`; undefined for other names. */
export function lakeMetadataFileVersion(location: string): number | undefined {
  const name = location.slice(location.lastIndexOf('/') + 1)
  const m = /^(\d+)-.*\.metadata\.json$/.exec(name)
  return m === null ? undefined : Number(m[1])
}

/** `<table>/metadata/v<version>.metadata.json` */
export function lakeHintedMetadataKey(table: string, version: number): string {
  return `${lakeMetadataDir(table)}/v${version}.metadata.json`
}

/** `<table>/metadata/version-hint.text` */
export function lakeVersionHintKey(table: string): string {
  return `${lakeMetadataDir(table)}/${VERSION_HINT_FILE}`
}

/** `<table>/metadata/snap-<snapshotId>-<attempt>-<fileId>.avro` */
export function lakeManifestListKey(
  table: string,
  snapshotId: bigint,
  attempt: number,
  fileId: string,
): string {
  return `${lakeMetadataDir(table)}/snap-${snapshotId}-${attempt}-${fileId}.avro`
}

/** `<table>/metadata/<fileId>-m<content>.avro` (content: 0 data, 1 deletes) */
export function lakeManifestKey(table: string, fileId: string, content: number): string {
  return `${lakeMetadataDir(table)}/${fileId}-m${content}.avro`
}

/** `<table>/data/<partitionPath>/<fileId>.parquet` */
export function lakeDataFileKey(table: string, partitionPath: string, fileId: string): string {
  return `${table}/${LAKE_DATA_DIR}/${partitionPath}/${fileId}.parquet`
}

/** `<table>/data/<partitionPath>/<fileId>-deletes.parquet` */
export function lakeDeleteFileKey(table: string, partitionPath: string, fileId: string): string {
  return `${table}/${LAKE_DATA_DIR}/${partitionPath}/${fileId}-deletes.parquet`
}
