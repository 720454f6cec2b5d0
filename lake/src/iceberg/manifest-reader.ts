import { FlussError } from '@sluice/core/errors'
import {
  byId,
  type FieldIndex,
  fieldIndex,
  recordFields,
  requiredById,
  toBigInt,
  toBytes,
  toSafeNumber,
} from './avro/by-id.js'
import { readAvroFile } from './avro/container.js'
import type { DataFile, EntryStatus, FileContent, ManifestEntry, PartitionValue } from './types.js'

/**
 * Reading manifest files (Avro `manifest_entry` records) of any v1/v2 writer, resolving fields by
 * their Iceberg field ids.
 */

export interface ManifestContents {
  readonly metadata: Readonly<Record<string, string>>
  readonly entries: readonly ManifestEntry[]
}

/** Decodes a manifest written by any v1/v2 writer, resolving fields by id. */
export function readManifest(bytes: Uint8Array, specId: number): ManifestContents {
  const file = readAvroFile(bytes)
  const entry = fieldIndex(file.schema, 'manifest_entry')
  const dataFileType = entry.get(2)?.type
  if (dataFileType === undefined)
    throw new FlussError('CORRUPT_MESSAGE', 'manifest entries lack data_file (field id 2)')
  const df = fieldIndex(dataFileType, 'data_file')
  const partitionType = df.get(102)?.type
  const partitionNames =
    partitionType === undefined ? [] : recordFields(partitionType, 'partition').map(f => String(f.name))
  const entries = file.records.map(r => {
    const status = toSafeNumber(requiredById(r, entry, 0, 'status'), 'status')
    if (status !== 0 && status !== 1 && status !== 2)
      throw new FlussError('CORRUPT_MESSAGE', `manifest entry status ${status}`)
    const optionalLong = (id: number) => {
      const v = byId(r, entry, id)
      return v === null || v === undefined ? null : v
    }
    const seq = optionalLong(3)
    const fileSeq = optionalLong(4)
    const snapshotId = optionalLong(1)
    return {
      status: status as EntryStatus,
      snapshotId: snapshotId === null ? null : toBigInt(snapshotId, 'snapshot_id'),
      sequenceNumber: seq === null ? null : toSafeNumber(seq, 'sequence_number'),
      fileSequenceNumber: fileSeq === null ? null : toSafeNumber(fileSeq, 'file_sequence_number'),
      dataFile: decodeDataFile(requiredById(r, entry, 2, 'data_file'), df, partitionNames, specId),
    }
  })
  return { metadata: file.metadata, entries }
}

function decodeMap<V>(v: unknown, value: (x: unknown) => V): Map<number, V> | undefined {
  if (v === null || v === undefined) return undefined
  if (!Array.isArray(v)) throw new FlussError('CORRUPT_MESSAGE', 'expected an int-keyed map array')
  return new Map(v.map((kv: { key: number; value: unknown }) => [kv.key, value(kv.value)]))
}

function decodeDataFile(
  r: unknown,
  df: FieldIndex,
  partitionNames: readonly string[],
  specId: number,
): DataFile {
  const get = (id: number) => byId(r, df, id)
  const partitionRecord = (get(102) ?? {}) as Record<string, unknown>
  const content = toSafeNumber(get(134) ?? 0, 'content')
  const asCount = (x: unknown) => toSafeNumber(x, 'metric')
  const asBytes = (x: unknown) => toBytes(x) as Uint8Array
  const optional = <T>(key: string, v: T | undefined | null) =>
    v === undefined || v === null ? {} : { [key]: v }
  const eq = get(135) as number[] | null | undefined
  const splits = get(132) as unknown[] | null | undefined
  return {
    content: content as FileContent,
    filePath: String(requiredById(r, df, 100, 'file_path')),
    fileFormat: String(requiredById(r, df, 101, 'file_format')),
    specId,
    partition: partitionNames.map(n => normalizePartitionValue(partitionRecord[n])),
    recordCount: toSafeNumber(requiredById(r, df, 103, 'record_count'), 'record_count'),
    fileSizeInBytes: toSafeNumber(requiredById(r, df, 104, 'file_size_in_bytes'), 'file_size_in_bytes'),
    ...optional('columnSizes', decodeMap(get(108), asCount)),
    ...optional('valueCounts', decodeMap(get(109), asCount)),
    ...optional('nullValueCounts', decodeMap(get(110), asCount)),
    ...optional('nanValueCounts', decodeMap(get(137), asCount)),
    ...optional('lowerBounds', decodeMap(get(125), asBytes)),
    ...optional('upperBounds', decodeMap(get(128), asBytes)),
    ...optional('keyMetadata', toBytes(get(131))),
    ...optional(
      'splitOffsets',
      splits?.map(s => toSafeNumber(s, 'split offset')),
    ),
    ...optional('equalityIds', eq === null || eq === undefined ? undefined : [...eq]),
    ...optional('sortOrderId', get(140) as number | null | undefined),
    ...optional('referencedDataFile', get(143) as string | null | undefined),
  } as DataFile
}

function normalizePartitionValue(v: unknown): PartitionValue {
  if (v === undefined || v === null) return null
  if (v instanceof Uint8Array) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength)
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean')
    return v
  throw new FlussError('CORRUPT_MESSAGE', `unsupported partition value ${String(v)}`)
}
