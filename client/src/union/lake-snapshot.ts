import { FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import { type Row, Timestamp, type Value } from '@sluice/core/row'
import type { FlussBucketOffset, Snapshot, TableMetadata } from '@sluice/lake/iceberg'
import {
  ancestors,
  currentSnapshot,
  flussOffsetsOf,
  isFlussSnapshot,
  lakeFieldIdOf,
  parseTableMetadata,
} from '@sluice/lake/iceberg'
import { type LakeSource, readLakeFile } from '@sluice/lake/io'
import { scanLakeSnapshot } from '@sluice/lake/scan'
import type { UnionRecord } from './union-merge.js'

/** The lake side of a union read: one snapshot and the log offsets it covers. */
export interface LakeSnapshotView {
  readonly metadataLocation: string
  readonly metadata: TableMetadata
  /** The snapshot read (the table's current one); undefined for a table without snapshots. */
  readonly snapshot: Snapshot | undefined
  /**
   * `fluss-offsets` of the newest Fluss tiering snapshot at or before it: per bucket, the first
   * offset the lake does not hold. A later commit of another writer (a compaction) changes files,
   * not content, so these offsets still describe the current snapshot.
   */
  readonly flussOffsets: readonly FlussBucketOffset[]
}

export async function loadLakeSnapshot(
  source: LakeSource,
  metadataLocation: string,
): Promise<LakeSnapshotView> {
  const metadata = parseTableMetadata(
    Buffer.from(await readLakeFile(source, metadataLocation)).toString('utf8'),
  )
  return {
    metadataLocation,
    metadata,
    snapshot: currentSnapshot(metadata),
    flussOffsets: flussOffsetsOf(ancestors(metadata).find(isFlussSnapshot)),
  }
}

const SYSTEM = { bucket: '__bucket', offset: '__offset', timestamp: '__timestamp' } as const

/**
 * Positions of the table's columns (by field id: a renamed column is found, one the lake table does
 * not have yet reads NULL) and of the system columns in the lake schema.
 */
function columnMap(md: TableMetadata, info: TableInfo) {
  const schema = md.schemas.find(s => s['schema-id'] === md['current-schema-id'])
  const fields = schema?.fields ?? []
  const names = fields.map(f => f.name)
  const at = (name: string) => names.indexOf(name)
  const system = { bucket: at(SYSTEM.bucket), offset: at(SYSTEM.offset), timestamp: at(SYSTEM.timestamp) }
  if (system.bucket < 0 || system.offset < 0 || system.timestamp < 0) {
    throw new FlussError(
      'INVALID_TABLE_EXCEPTION',
      'the lake table lacks the __bucket/__offset/__timestamp columns',
    )
  }
  const ids = fields.map(f => f.id)
  return { columns: info.schema.columns.map(c => ids.indexOf(lakeFieldIdOf(c.columnId))), system }
}

/**
 * Per column, the conversion of lake values into the column's current type: a column promoted to
 * BIGINT reads numbers from files written while it was an int.
 */
function lakeValueConverters(info: TableInfo): ((v: Value) => Value)[] {
  return info.schema.columns.map(c =>
    c.type.type === 'BIGINT' ? (v: Value) => (typeof v === 'number' ? BigInt(v) : v) : (v: Value) => v,
  )
}

function timestampMs(v: Value): number {
  return v instanceof Timestamp ? v.millis : Number(v)
}

/** The lake snapshot's rows as union records, one array per data file (none without a lake). */
export async function* lakeRecords(
  source: LakeSource,
  lake: LakeSnapshotView | undefined,
  info: TableInfo,
): AsyncGenerator<UnionRecord[]> {
  if (lake?.snapshot === undefined) return
  const { columns, system } = columnMap(lake.metadata, info)
  const convert = lakeValueConverters(info)
  const toRecord = (r: Row): UnionRecord => ({
    row: columns.map((i, c) => (i < 0 ? null : convert[c](r[i]))),
    bucket: Number(r[system.bucket]),
    offset: Number(r[system.offset]),
    timestamp: timestampMs(r[system.timestamp]),
    source: 'lake',
  })
  for await (const rows of scanLakeSnapshot(source, lake.metadata, lake.snapshot['snapshot-id'])) {
    yield rows.map(toRecord)
  }
}
