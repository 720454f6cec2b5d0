import {
  byId,
  fieldIndex,
  requiredById,
  toBigInt,
  toBytes,
  toSafeNumber,
  unwrapOptional,
} from './avro/by-id.js'
import { readAvroFile } from './avro/container.js'
import type { ManifestContent, ManifestFile } from './types.js'

/** Reading manifest lists: one `manifest_file` record per live manifest of a snapshot. */

/** Decodes a manifest list, resolving fields by id (v1 lists get sequence numbers 0). */
export function readManifestList(bytes: Uint8Array): ManifestFile[] {
  const file = readAvroFile(bytes)
  const mf = fieldIndex(file.schema, 'manifest_file')
  const summaryType = unwrapOptional(mf.get(507)?.type) as { items?: unknown } | undefined
  const ps = summaryType?.items === undefined ? undefined : fieldIndex(summaryType.items, 'field_summary')
  return file.records.map(r => {
    const num = (id: number, what: string, fallback?: number) => {
      const v = byId(r, mf, id)
      if ((v === undefined || v === null) && fallback !== undefined) return fallback
      return toSafeNumber(v, what)
    }
    const partitions = byId(r, mf, 507) as unknown[] | null | undefined
    return {
      manifestPath: String(requiredById(r, mf, 500, 'manifest_path')),
      manifestLength: num(501, 'manifest_length'),
      partitionSpecId: num(502, 'partition_spec_id'),
      content: num(517, 'content', 0) as ManifestContent,
      sequenceNumber: num(515, 'sequence_number', 0),
      minSequenceNumber: num(516, 'min_sequence_number', 0),
      addedSnapshotId: toBigInt(requiredById(r, mf, 503, 'added_snapshot_id'), 'added_snapshot_id'),
      addedFilesCount: num(504, 'added_files_count', 0),
      existingFilesCount: num(505, 'existing_files_count', 0),
      deletedFilesCount: num(506, 'deleted_files_count', 0),
      addedRowsCount: num(512, 'added_rows_count', 0),
      existingRowsCount: num(513, 'existing_rows_count', 0),
      deletedRowsCount: num(514, 'deleted_rows_count', 0),
      partitions:
        partitions === null || partitions === undefined || ps === undefined
          ? null
          : partitions.map(p => ({
              containsNull: Boolean(byId(p, ps, 509)),
              containsNan: (byId(p, ps, 518) ?? null) as boolean | null,
              lowerBound: toBytes(byId(p, ps, 510)),
              upperBound: toBytes(byId(p, ps, 511)),
            })),
      keyMetadata: toBytes(byId(r, mf, 519)),
    }
  })
}
