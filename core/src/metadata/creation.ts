import {
  Configuration,
  CURRENT_KV_FORMAT_VERSION,
  type DataLakeFormat,
  TABLE_AUTO_PARTITION_ENABLED,
  TABLE_AUTO_PARTITION_NUM_PRECREATE,
  TABLE_DATALAKE_ENABLED,
  TABLE_DATALAKE_FORMAT,
  TABLE_DELETE_BEHAVIOR,
  TABLE_KV_FORMAT_VERSION,
  TABLE_MERGE_ENGINE,
  TABLE_REPLICATION_FACTOR,
} from '../config/index.js'
import { FlussError } from '../errors/index.js'
import type { TableDescriptor } from './table-descriptor.js'
import { type TableValidationContext, validateTableDescriptor } from './validation.js'

/**
 * The coordinator's CreateTable steps (Fluss's `CoordinatorService.createTable`): creation
 * switches, then system defaults, then validation.
 */

export interface SystemDefaults {
  /** `default.bucket.number` */
  readonly defaultBucketNumber: number
  /** `default.replication.factor` */
  readonly defaultReplicationFactor: number
  /** `datalake.format` of the cluster, if the lakehouse is configured. */
  readonly dataLakeFormat?: DataLakeFormat
}

export interface TableCreationContext extends SystemDefaults, TableValidationContext {
  /** `allow.create.log.tables` (default true) */
  readonly allowCreateLogTables?: boolean
  /** `allow.create.kv.tables` (default true) */
  readonly allowCreateKvTables?: boolean
}

/** Refuses table kinds the cluster forbids (INVALID_TABLE_EXCEPTION). */
export function checkTableCreationPermission(d: TableDescriptor, ctx: TableCreationContext): void {
  if (d.hasPrimaryKey && ctx.allowCreateKvTables === false) {
    throw new FlussError(
      'INVALID_TABLE_EXCEPTION',
      'Creation of Primary Key Tables is disallowed in the cluster.',
    )
  }
  if (!d.hasPrimaryKey && ctx.allowCreateLogTables === false) {
    throw new FlussError('INVALID_TABLE_EXCEPTION', 'Creation of Log Tables is disallowed in the cluster.')
  }
}

/**
 * Fills what the table left to the cluster: bucket count, replication factor, no pre-creation for
 * multi-key auto-partitioned tables, the lake format, IGNORE deletes for merge-engine tables and
 * the kv format version of primary-key tables. Returns a new descriptor.
 */
export function applySystemDefaults(d: TableDescriptor, defaults: SystemDefaults): TableDescriptor {
  const original = new Configuration(d.properties)
  const props: Record<string, string> = Object.fromEntries(Object.entries(d.properties))
  const setDefault = (key: string, value: string) => {
    if (!Object.hasOwn(props, key)) props[key] = value
  }
  setDefault(TABLE_REPLICATION_FACTOR.key, String(defaults.defaultReplicationFactor))
  if (d.partitionKeys.length > 1 && original.get(TABLE_AUTO_PARTITION_ENABLED)) {
    setDefault(TABLE_AUTO_PARTITION_NUM_PRECREATE.key, '0')
  }
  // The lake format decides how keys are encoded and bucketed (the lake's encoders for bucket keys),
  // so it is bound only to tables that enable the lake; other tables keep Fluss's own encoding.
  if (defaults.dataLakeFormat !== undefined && original.get(TABLE_DATALAKE_ENABLED)) {
    setDefault(TABLE_DATALAKE_FORMAT.key, defaults.dataLakeFormat)
  }
  if (original.get(TABLE_DATALAKE_ENABLED) && defaults.dataLakeFormat === undefined) {
    throw new FlussError(
      'INVALID_TABLE_EXCEPTION',
      `'${TABLE_DATALAKE_ENABLED.key}' is enabled for the table, but the Fluss cluster doesn't enable datalake tables.`,
    )
  }
  const mergeEngine = original.getOptional(TABLE_MERGE_ENGINE)
  if (mergeEngine !== undefined && d.hasPrimaryKey) setDefault(TABLE_DELETE_BEHAVIOR.key, 'IGNORE')
  if (d.hasPrimaryKey) {
    const version = original.getOptional(TABLE_KV_FORMAT_VERSION)
    if (version !== undefined && version > CURRENT_KV_FORMAT_VERSION) {
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `Unsupported kv format version ${version}. The maximum supported version is ${CURRENT_KV_FORMAT_VERSION}.`,
      )
    }
    setDefault(TABLE_KV_FORMAT_VERSION.key, String(CURRENT_KV_FORMAT_VERSION))
  }
  const withProps = d.withProperties(props)
  return withProps.bucketCount === undefined
    ? withProps.withBucketCount(defaults.defaultBucketNumber)
    : withProps
}

/** Permission check, system defaults, then full validation; returns the descriptor to store. */
export function prepareTableForCreation(d: TableDescriptor, ctx: TableCreationContext): TableDescriptor {
  checkTableCreationPermission(d, ctx)
  const withDefaults = applySystemDefaults(d, ctx)
  validateTableDescriptor(withDefaults, ctx)
  return withDefaults
}
