import type { TableInfo } from '@sluice/core/metadata'
import { newTableUuid } from './ids.js'
import type { LakePartitioning } from './partition.js'
import { type LakeSchema, OFFSET_FIELD_ID } from './schema.js'
import {
  FORMAT_VERSION,
  type IcebergSchema,
  type Snapshot,
  type SnapshotLogEntry,
  type TableMetadata,
} from './types.js'

/**
 * Pure construction of table metadata: a new table, and the metadata after a commit. Nothing here
 * does I/O; the committer (tiering's IcebergTable) writes the results and swaps the catalog pointer.
 */

/** Sort order 1: `__offset` ascending, the order in which a bucket's log is tiered. */
export const OFFSET_SORT_ORDER_ID = 1
export const DEFAULT_PREVIOUS_VERSIONS_MAX = 100

/** Iceberg properties of a Fluss table: Fluss's choices plus its table options as `fluss.<key>`. */
export function tableProperties(tableInfo: TableInfo): Record<string, string> {
  const props: Record<string, string> = {
    'write.format.default': 'parquet',
    'write.parquet.compression-codec': 'zstd',
  }
  if (tableInfo.hasPrimaryKey) {
    props['write.delete.mode'] = 'merge-on-read'
    props['write.update.mode'] = 'merge-on-read'
    props['write.merge.mode'] = 'merge-on-read'
  }
  const copy = (entries: Readonly<Record<string, string>>) => {
    for (const [k, v] of Object.entries(entries)) {
      if (k.startsWith('iceberg.')) props[k.slice('iceberg.'.length)] = v
      else props[`fluss.${k}`] = v
    }
  }
  copy(tableInfo.properties)
  copy(tableInfo.customProperties)
  return props
}

export interface NewTableInput {
  readonly tableInfo: TableInfo
  readonly location: string
  readonly schema: LakeSchema
  readonly partitioning: LakePartitioning
  readonly nowMs: number
}

export function newTableMetadata(input: NewTableInput): TableMetadata {
  const { partitioning, schema } = input
  return {
    'format-version': FORMAT_VERSION,
    'table-uuid': newTableUuid(),
    location: input.location,
    'last-sequence-number': 0,
    'last-updated-ms': input.nowMs,
    'last-column-id': schema.lastColumnId,
    'current-schema-id': schema.iceberg['schema-id'],
    schemas: [schema.iceberg],
    'default-spec-id': partitioning.spec['spec-id'],
    'partition-specs': [partitioning.spec],
    'last-partition-id': Math.max(...partitioning.spec.fields.map(f => f['field-id'])),
    'default-sort-order-id': OFFSET_SORT_ORDER_ID,
    'sort-orders': [
      { 'order-id': 0, fields: [] },
      {
        'order-id': OFFSET_SORT_ORDER_ID,
        fields: [
          {
            transform: 'identity',
            'source-id': OFFSET_FIELD_ID,
            direction: 'asc',
            'null-order': 'nulls-first',
          },
        ],
      },
    ],
    properties: tableProperties(input.tableInfo),
    refs: {},
    snapshots: [],
    'snapshot-log': [],
    'metadata-log': [],
  }
}

export interface SnapshotInput {
  readonly snapshotId: bigint
  readonly manifestList: string
  readonly summary: Snapshot['summary']
  readonly nowMs: number
}

/** The previous metadata file appended to the metadata log, trimmed to `previousVersionsMax`. */
function metadataLogAfter(base: TableMetadata, baseLocation: string, previousVersionsMax: number) {
  const log = [
    ...base['metadata-log'],
    { 'timestamp-ms': base['last-updated-ms'], 'metadata-file': baseLocation },
  ]
  return log.slice(Math.max(0, log.length - previousVersionsMax))
}

/** `base` with `snapshot` added as the new current snapshot of branch main. */
export function withNewSnapshot(
  base: TableMetadata,
  baseLocation: string,
  input: SnapshotInput,
  previousVersionsMax = DEFAULT_PREVIOUS_VERSIONS_MAX,
): TableMetadata {
  const parent = base['current-snapshot-id']
  const timestampMs = Math.max(input.nowMs, base['last-updated-ms'])
  const sequenceNumber = base['last-sequence-number'] + 1
  const snapshot: Snapshot = {
    'sequence-number': sequenceNumber,
    'snapshot-id': input.snapshotId,
    ...(parent === undefined ? {} : { 'parent-snapshot-id': parent }),
    'timestamp-ms': timestampMs,
    summary: input.summary,
    'manifest-list': input.manifestList,
    'schema-id': base['current-schema-id'],
  }
  const main = base.refs.main ?? { type: 'branch' as const }
  return {
    ...base,
    'last-sequence-number': sequenceNumber,
    'last-updated-ms': timestampMs,
    'current-snapshot-id': input.snapshotId,
    refs: { ...base.refs, main: { ...main, 'snapshot-id': input.snapshotId, type: 'branch' } },
    snapshots: [...base.snapshots, snapshot],
    'snapshot-log': [
      ...base['snapshot-log'],
      { 'timestamp-ms': timestampMs, 'snapshot-id': input.snapshotId },
    ],
    'metadata-log': metadataLogAfter(base, baseLocation, previousVersionsMax),
  }
}

/**
 * `base` without the snapshots in `expired`. The snapshot log keeps only the entries after the
 * last one naming a removed snapshot (the history before a gap is no longer usable), as Java does.
 */
export function withoutSnapshots(
  base: TableMetadata,
  baseLocation: string,
  expired: ReadonlySet<bigint>,
  nowMs: number,
  previousVersionsMax = DEFAULT_PREVIOUS_VERSIONS_MAX,
): TableMetadata {
  const snapshots = base.snapshots.filter(s => !expired.has(s['snapshot-id']))
  const live = new Set(snapshots.map(s => s['snapshot-id']))
  let log: SnapshotLogEntry[] = []
  for (const e of base['snapshot-log']) log = live.has(e['snapshot-id']) ? [...log, e] : []
  return {
    ...base,
    'last-updated-ms': Math.max(nowMs, base['last-updated-ms']),
    snapshots,
    'snapshot-log': log,
    'metadata-log': metadataLogAfter(base, baseLocation, previousVersionsMax),
  }
}

/**
 * `base` with `schema` added as its current schema (schema evolution; no new snapshot);
 * `lastColumnId` is the highest field id `schema` uses, nested ones included.
 */
export function withCurrentSchema(
  base: TableMetadata,
  baseLocation: string,
  schema: IcebergSchema,
  lastColumnId: number,
  nowMs: number,
  previousVersionsMax = DEFAULT_PREVIOUS_VERSIONS_MAX,
): TableMetadata {
  return {
    ...base,
    'last-updated-ms': Math.max(nowMs, base['last-updated-ms']),
    'last-column-id': Math.max(base['last-column-id'], lastColumnId),
    'current-schema-id': schema['schema-id'],
    schemas: [...base.schemas, schema],
    'metadata-log': metadataLogAfter(base, baseLocation, previousVersionsMax),
  }
}
