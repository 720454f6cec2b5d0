import { FlussError } from '@sluice/core/errors'
import type { ItemValue, JsonValue } from '@sluice/core/metastore'

/** Shared: an SST file, possibly used by several snapshots. Private: MANIFEST, CURRENT, OPTIONS. */
export type KvSnapshotFileRole = 'shared' | 'private'

/** One file of a snapshot: where it is in the BlobStore and what it is called in RocksDB's directory. */
export interface KvSnapshotFile {
  readonly key: string
  readonly name: string
  readonly size: number
  readonly crc32c: number
  readonly role: KvSnapshotFileRole
}

/** A committed (or about to be committed) snapshot of one bucket's RocksDB. */
export interface KvSnapshot {
  readonly snapshotId: number
  /** The next changelog offset not in the snapshot: RocksDB holds exactly the records below it. */
  readonly logOffset: number
  /** Rows in the snapshot (-1 when not maintained: the WAL changelog image). */
  readonly rowCount: number
  /** The leader epoch of the server that took it. */
  readonly leaderEpoch: number
  readonly createdAtMs: number
  readonly files: readonly KvSnapshotFile[]
}

/**
 * The head of a bucket's snapshots: the committed snapshots (ids ascending, newest last), the id
 * the next one takes, and the leader epoch of the last writer. Items of other ids are leftovers.
 */
export interface KvSnapshotHead {
  readonly leaderEpoch: number
  readonly nextSnapshotId: number
  readonly retained: readonly number[]
}

/** DynamoDB items hold at most 400 KB; a snapshot item stays well below. */
export const KV_SNAPSHOT_ITEM_BYTES_MAX = 350_000

function corrupt(where: string, what: string): FlussError {
  return new FlussError('KV_STORAGE_EXCEPTION', `KV snapshot item ${where} is unreadable: ${what}`)
}

function count(value: JsonValue | undefined, field: string, where: string, min = 0): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min)
    throw corrupt(where, `${field} must be an integer >= ${min}, got ${JSON.stringify(value)}`)
  return value
}

function text(value: JsonValue | undefined, field: string, where: string): string {
  if (typeof value !== 'string' || value.length === 0)
    throw corrupt(where, `${field} must be a non-empty string, got ${JSON.stringify(value)}`)
  return value
}

export function encodeKvSnapshot(snapshot: KvSnapshot): ItemValue {
  const value: ItemValue = {
    snapshotId: snapshot.snapshotId,
    logOffset: snapshot.logOffset,
    rowCount: snapshot.rowCount,
    leaderEpoch: snapshot.leaderEpoch,
    createdAtMs: snapshot.createdAtMs,
    files: snapshot.files.map(f => ({
      key: f.key,
      name: f.name,
      size: f.size,
      crc32c: f.crc32c,
      role: f.role,
    })),
  }
  const bytes = Buffer.byteLength(JSON.stringify(value))
  if (bytes > KV_SNAPSHOT_ITEM_BYTES_MAX) {
    throw new FlussError(
      'KV_STORAGE_EXCEPTION',
      `KV snapshot ${snapshot.snapshotId} lists ${snapshot.files.length} files (${bytes} bytes), more than an item holds (${KV_SNAPSHOT_ITEM_BYTES_MAX} bytes)`,
    )
  }
  return value
}

export function decodeKvSnapshot(value: ItemValue, where: string): KvSnapshot {
  const files = value.files
  if (!Array.isArray(files)) throw corrupt(where, 'files is not a list')
  return {
    snapshotId: count(value.snapshotId, 'snapshotId', where),
    logOffset: count(value.logOffset, 'logOffset', where),
    rowCount: count(value.rowCount, 'rowCount', where, -1),
    leaderEpoch: count(value.leaderEpoch, 'leaderEpoch', where),
    createdAtMs: count(value.createdAtMs, 'createdAtMs', where),
    files: (files as readonly JsonValue[]).map((f, i) => decodeFile(f, `${where} file ${i}`)),
  }
}

function decodeFile(value: JsonValue, where: string): KvSnapshotFile {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw corrupt(where, 'not an object')
  const f = value as { readonly [k: string]: JsonValue }
  const role = f.role
  if (role !== 'shared' && role !== 'private') throw corrupt(where, `bad role ${JSON.stringify(role)}`)
  const name = text(f.name, 'name', where)
  if (name.includes('/') || name === '.' || name === '..') throw corrupt(where, `bad file name '${name}'`)
  return {
    key: text(f.key, 'key', where),
    name,
    size: count(f.size, 'size', where),
    crc32c: count(f.crc32c, 'crc32c', where),
    role,
  }
}

export function encodeKvSnapshotHead(head: KvSnapshotHead): ItemValue {
  return { leaderEpoch: head.leaderEpoch, nextSnapshotId: head.nextSnapshotId, retained: [...head.retained] }
}

export function decodeKvSnapshotHead(value: ItemValue, where: string): KvSnapshotHead {
  const retained = value.retained
  if (!Array.isArray(retained)) throw corrupt(where, 'retained is not a list')
  const ids = (retained as readonly JsonValue[]).map(id => count(id, 'retained id', where))
  const nextSnapshotId = count(value.nextSnapshotId, 'nextSnapshotId', where)
  if (ids.some((id, i) => id >= nextSnapshotId || (i > 0 && id <= ids[i - 1])))
    throw corrupt(where, `retained ids ${JSON.stringify(ids)} must ascend below ${nextSnapshotId}`)
  return { leaderEpoch: count(value.leaderEpoch, 'leaderEpoch', where), nextSnapshotId, retained: ids }
}
