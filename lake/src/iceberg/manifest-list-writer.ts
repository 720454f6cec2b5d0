import { FlussError } from '@sluice/core/errors'
import { toBuffer } from './avro/by-id.js'
import { writeAvroFile } from './avro/container.js'
import { MANIFEST_FILE_SCHEMA } from './avro/schemas.js'
import { compareIcebergValues, type IcebergValue, toBoundBytes } from './conversions.js'
import type { LakePartitionField } from './partition.js'
import {
  EntryStatus,
  FORMAT_VERSION,
  type ManifestContent,
  type ManifestEntry,
  type ManifestFile,
  type PartitionFieldSummary,
} from './types.js'

/**
 * Manifest lists: one `manifest_file` record per live manifest of a snapshot, with the header keys
 * Java and pyiceberg write (`snapshot-id`, `parent-snapshot-id`, `sequence-number`,
 * `format-version`).
 */

export interface ManifestListHeader {
  readonly snapshotId: bigint
  readonly parentSnapshotId?: bigint
  readonly sequenceNumber: number
}

export function writeManifestList(
  manifests: readonly ManifestFile[],
  header: ManifestListHeader,
): Uint8Array {
  const records = manifests.map(m => ({
    manifest_path: m.manifestPath,
    manifest_length: m.manifestLength,
    partition_spec_id: m.partitionSpecId,
    content: m.content,
    sequence_number: m.sequenceNumber,
    min_sequence_number: m.minSequenceNumber,
    added_snapshot_id: m.addedSnapshotId,
    added_files_count: m.addedFilesCount,
    existing_files_count: m.existingFilesCount,
    deleted_files_count: m.deletedFilesCount,
    added_rows_count: m.addedRowsCount,
    existing_rows_count: m.existingRowsCount,
    deleted_rows_count: m.deletedRowsCount,
    partitions:
      m.partitions?.map(p => ({
        contains_null: p.containsNull,
        contains_nan: p.containsNan,
        lower_bound: toBuffer(p.lowerBound),
        upper_bound: toBuffer(p.upperBound),
      })) ?? null,
    key_metadata: toBuffer(m.keyMetadata),
  }))
  return writeAvroFile(MANIFEST_FILE_SCHEMA as never, records, {
    metadata: {
      'snapshot-id': String(header.snapshotId),
      'parent-snapshot-id': header.parentSnapshotId === undefined ? 'null' : String(header.parentSnapshotId),
      'sequence-number': String(header.sequenceNumber),
      'format-version': String(FORMAT_VERSION),
    },
  })
}

export interface ManifestSummaryInput {
  readonly manifestPath: string
  readonly manifestLength: number
  readonly specId: number
  readonly content: ManifestContent
  /** The snapshot adding the manifest and its sequence number (inherited by ADDED entries). */
  readonly snapshotId: bigint
  readonly sequenceNumber: number
}

/** The manifest-list record of a manifest written in this commit: counts, sequence range, partition bounds. */
export function summarizeManifest(
  entries: readonly ManifestEntry[],
  partitionFields: readonly LakePartitionField[],
  m: ManifestSummaryInput,
): ManifestFile {
  const count = (s: EntryStatus) => entries.filter(e => e.status === s)
  const rows = (es: readonly ManifestEntry[]) => es.reduce((n, e) => n + e.dataFile.recordCount, 0)
  const added = count(EntryStatus.ADDED)
  const existing = count(EntryStatus.EXISTING)
  const deleted = count(EntryStatus.DELETED)
  const live = [...added, ...existing]
  const seqs = live.map(e => e.sequenceNumber ?? m.sequenceNumber)
  return {
    manifestPath: m.manifestPath,
    manifestLength: m.manifestLength,
    partitionSpecId: m.specId,
    content: m.content,
    sequenceNumber: m.sequenceNumber,
    minSequenceNumber: seqs.length === 0 ? m.sequenceNumber : Math.min(...seqs),
    addedSnapshotId: m.snapshotId,
    addedFilesCount: added.length,
    existingFilesCount: existing.length,
    deletedFilesCount: deleted.length,
    addedRowsCount: rows(added),
    existingRowsCount: rows(existing),
    deletedRowsCount: rows(deleted),
    partitions: partitionFields.map((f, i) => fieldSummary(entries, f, i)),
    keyMetadata: null,
  }
}

function fieldSummary(
  entries: readonly ManifestEntry[],
  f: LakePartitionField,
  i: number,
): PartitionFieldSummary {
  let containsNull = false
  let min: IcebergValue | undefined
  let max: IcebergValue | undefined
  for (const e of entries) {
    const v = e.dataFile.partition[i]
    if (v === undefined)
      throw new FlussError('INVALID_REQUEST', `${e.dataFile.filePath}: partition tuple too short`)
    if (v === null) {
      containsNull = true
      continue
    }
    if (min === undefined || compareIcebergValues(v, min) < 0) min = v
    if (max === undefined || compareIcebergValues(v, max) > 0) max = v
  }
  return {
    containsNull,
    containsNan: false,
    lowerBound: min === undefined ? null : toBoundBytes(f.icebergType, min),
    upperBound: max === undefined ? null : toBoundBytes(f.icebergType, max),
  }
}
