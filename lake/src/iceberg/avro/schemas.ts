import { avroFieldName, type LakePartitionField } from '../partition.js'

/**
 * The Avro schemas of Iceberg v2 manifests and manifest lists, field for field as Iceberg's Java
 * writer produces them (record names, docs, defaults, `field-id` and `element-id` attributes).
 * Readers resolve fields by id, so ids and types must be exact; names follow Java for tools that
 * resolve by name.
 */

type Schema = Record<string, unknown>

const optional = (name: string, type: unknown, fieldId: number, doc?: string): Schema => ({
  name,
  type: ['null', type],
  ...(doc === undefined ? {} : { doc }),
  default: null,
  'field-id': fieldId,
})
const required = (name: string, type: unknown, fieldId: number, doc?: string): Schema => ({
  name,
  type,
  ...(doc === undefined ? {} : { doc }),
  'field-id': fieldId,
})

/** Field ids of the int-keyed maps of `data_file` (map field, key, value). */
const MAPS = [
  ['column_sizes', 108, 117, 118, 'long', 'Map of column id to total size on disk'],
  ['value_counts', 109, 119, 120, 'long', 'Map of column id to total count, including null and NaN'],
  ['null_value_counts', 110, 121, 122, 'long', 'Map of column id to null value count'],
  ['nan_value_counts', 137, 138, 139, 'long', 'Map of column id to number of NaN values in the column'],
  ['lower_bounds', 125, 126, 127, 'bytes', 'Map of column id to lower bound'],
  ['upper_bounds', 128, 129, 130, 'bytes', 'Map of column id to upper bound'],
] as const

/** An int-keyed map in Iceberg's Avro form: an array of key/value records, logical type `map`. */
function mapField([name, fieldId, keyId, valueId, valueType, doc]: (typeof MAPS)[number]): Schema {
  const items = {
    type: 'record',
    name: `k${keyId}_v${valueId}`,
    fields: [required('key', 'int', keyId), required('value', valueType, valueId)],
  }
  return optional(name, { type: 'array', items, logicalType: 'map' }, fieldId, doc)
}

/** Avro type of an identity partition value of the given Iceberg type. */
export function partitionAvroType(icebergType: string): unknown {
  switch (icebergType) {
    case 'int':
    case 'boolean':
    case 'long':
    case 'string':
      return icebergType
    case 'date':
      return { type: 'int', logicalType: 'date' }
    default:
      throw new Error(`no Avro partition type for ${icebergType}`)
  }
}

/** The `r102` partition record of a spec: one optional field per partition field. */
export function partitionRecordSchema(fields: readonly LakePartitionField[]): Schema {
  return {
    type: 'record',
    name: 'r102',
    fields: fields.map(f =>
      optional(avroFieldName(f.field.name), partitionAvroType(f.icebergType), f.field['field-id']),
    ),
  }
}

/** The `manifest_entry` schema of format v2 for a partition spec. */
export function manifestEntrySchema(partition: Schema): Schema {
  const dataFile = {
    type: 'record',
    name: 'r2',
    fields: [
      required('content', 'int', 134, 'Contents of the file: 0=data, 1=position deletes, 2=equality deletes'),
      required('file_path', 'string', 100, 'Location URI with FS scheme'),
      required('file_format', 'string', 101, 'File format name: avro, orc, or parquet'),
      required('partition', partition, 102, 'Partition data tuple, schema based on the partition spec'),
      required('record_count', 'long', 103, 'Number of records in the file'),
      required('file_size_in_bytes', 'long', 104, 'Total file size in bytes'),
      ...MAPS.map(mapField),
      optional('key_metadata', 'bytes', 131, 'Encryption key metadata blob'),
      optional(
        'split_offsets',
        { type: 'array', items: 'long', 'element-id': 133 },
        132,
        'Splittable offsets',
      ),
      optional(
        'equality_ids',
        { type: 'array', items: 'int', 'element-id': 136 },
        135,
        'Equality comparison field IDs',
      ),
      optional('sort_order_id', 'int', 140, 'Sort order ID'),
      optional(
        'referenced_data_file',
        'string',
        143,
        'Fully qualified location (URI with FS scheme) of a data file that all deletes reference',
      ),
    ],
  }
  return {
    type: 'record',
    name: 'manifest_entry',
    fields: [
      required('status', 'int', 0),
      optional('snapshot_id', 'long', 1),
      optional('sequence_number', 'long', 3),
      optional('file_sequence_number', 'long', 4),
      required('data_file', dataFile, 2),
    ],
  }
}

/** The `manifest_file` schema of format v2 manifest lists. */
export const MANIFEST_FILE_SCHEMA: Schema = {
  type: 'record',
  name: 'manifest_file',
  fields: [
    required('manifest_path', 'string', 500, 'Location URI with FS scheme'),
    required('manifest_length', 'long', 501, 'Total file size in bytes'),
    required('partition_spec_id', 'int', 502, 'Spec ID used to write'),
    required('content', 'int', 517, 'Contents of the manifest: 0=data, 1=deletes'),
    required('sequence_number', 'long', 515, 'Sequence number when the manifest was added'),
    required('min_sequence_number', 'long', 516, 'Lowest sequence number in the manifest'),
    required('added_snapshot_id', 'long', 503, 'Snapshot ID that added the manifest'),
    required('added_files_count', 'int', 504, 'Added entry count'),
    required('existing_files_count', 'int', 505, 'Existing entry count'),
    required('deleted_files_count', 'int', 506, 'Deleted entry count'),
    required('added_rows_count', 'long', 512, 'Added rows count'),
    required('existing_rows_count', 'long', 513, 'Existing rows count'),
    required('deleted_rows_count', 'long', 514, 'Deleted rows count'),
    optional(
      'partitions',
      {
        type: 'array',
        items: {
          type: 'record',
          name: 'r508',
          fields: [
            required('contains_null', 'boolean', 509, 'True if any file has a null partition value'),
            optional('contains_nan', 'boolean', 518, 'True if any file has a nan partition value'),
            optional('lower_bound', 'bytes', 510, 'Partition lower bound for all files'),
            optional('upper_bound', 'bytes', 511, 'Partition upper bound for all files'),
          ],
        },
        'element-id': 508,
      },
      507,
      'Summary for each partition',
    ),
    optional('key_metadata', 'bytes', 519, 'Encryption key metadata blob'),
  ],
}
