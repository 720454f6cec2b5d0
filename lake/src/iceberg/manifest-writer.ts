import { FlussError } from '@sluice/core/errors'
import { recordFields, toBuffer } from './avro/by-id.js'
import { writeAvroFile } from './avro/container.js'
import { manifestEntrySchema, partitionRecordSchema } from './avro/schemas.js'
import { stringifyJson } from './json.js'
import type { LakePartitionField } from './partition.js'
import {
  type DataFile,
  EntryStatus,
  FORMAT_VERSION,
  type IcebergSchema,
  type ManifestContent,
  type ManifestEntry,
  type PartitionSpec,
  type PartitionValue,
} from './types.js'

/**
 * Manifest files: Avro `manifest_entry` records plus the header the spec requires (`schema`,
 * `schema-id`, `partition-spec`, `partition-spec-id`, `format-version`, `content`). A manifest
 * holds data files or delete files, never both.
 */

export interface ManifestContext {
  readonly schema: IcebergSchema
  readonly spec: PartitionSpec
  /** The spec's fields with their result types, in spec order. */
  readonly partitionFields: readonly LakePartitionField[]
  readonly content: ManifestContent
}

const mapOf = <V>(m: ReadonlyMap<number, V> | undefined, value: (v: V) => unknown) =>
  m === undefined ? null : [...m].map(([key, v]) => ({ key, value: value(v) }))

function dataFileRecord(f: DataFile, ctx: ManifestContext): Record<string, unknown> {
  const partition: Record<string, unknown> = {}
  const fields = recordFields(partitionRecordSchema(ctx.partitionFields), 'partition')
  fields.forEach((field, i) => {
    partition[String(field.name)] = partitionAvroValue(f.partition[i])
  })
  return {
    content: f.content,
    file_path: f.filePath,
    file_format: f.fileFormat,
    partition,
    record_count: f.recordCount,
    file_size_in_bytes: f.fileSizeInBytes,
    column_sizes: mapOf(f.columnSizes, v => v),
    value_counts: mapOf(f.valueCounts, v => v),
    null_value_counts: mapOf(f.nullValueCounts, v => v),
    nan_value_counts: mapOf(f.nanValueCounts, v => v),
    lower_bounds: mapOf(f.lowerBounds, toBuffer),
    upper_bounds: mapOf(f.upperBounds, toBuffer),
    key_metadata: toBuffer(f.keyMetadata),
    split_offsets: f.splitOffsets === undefined ? null : [...f.splitOffsets],
    equality_ids: f.equalityIds === undefined ? null : [...f.equalityIds],
    sort_order_id: f.sortOrderId ?? null,
    referenced_data_file: f.referencedDataFile ?? null,
  }
}

function partitionAvroValue(v: PartitionValue | undefined): unknown {
  if (v === undefined) throw new FlussError('INVALID_REQUEST', 'partition tuple is shorter than the spec')
  return v instanceof Uint8Array ? toBuffer(v) : v
}

/** Encodes a manifest of `entries` (all data files, or all delete files, per `ctx.content`). */
export function writeManifest(entries: readonly ManifestEntry[], ctx: ManifestContext): Uint8Array {
  for (const e of entries) {
    const isData = e.dataFile.content === 0
    if (isData !== (ctx.content === 0)) {
      throw new FlussError(
        'INVALID_REQUEST',
        `a ${ctx.content === 0 ? 'data' : 'delete'} manifest cannot hold content ${e.dataFile.content}`,
      )
    }
    if (e.status !== EntryStatus.ADDED && (e.sequenceNumber === null || e.fileSequenceNumber === null)) {
      throw new FlussError(
        'INVALID_REQUEST',
        `${e.dataFile.filePath}: existing and deleted entries need explicit sequence numbers`,
      )
    }
  }
  const schema = manifestEntrySchema(partitionRecordSchema(ctx.partitionFields))
  const records = entries.map(e => ({
    status: e.status,
    snapshot_id: e.snapshotId,
    sequence_number: e.sequenceNumber,
    file_sequence_number: e.fileSequenceNumber,
    data_file: dataFileRecord(e.dataFile, ctx),
  }))
  return writeAvroFile(schema as never, records, {
    metadata: {
      schema: stringifyJson(ctx.schema),
      'schema-id': String(ctx.schema['schema-id']),
      'partition-spec': stringifyJson(ctx.spec.fields),
      'partition-spec-id': String(ctx.spec['spec-id']),
      'format-version': String(FORMAT_VERSION),
      content: ctx.content === 0 ? 'data' : 'deletes',
    },
  })
}
