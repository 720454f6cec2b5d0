import { FlussError } from '../errors/index.js'
import { Configuration } from './configuration.js'
import { optionByKey, TABLE_PROPERTY_PREFIX } from './options.js'
import {
  TABLE_AUTO_PARTITION_ENABLED,
  TABLE_CHANGELOG_IMAGE,
  TABLE_DATALAKE_ENABLED,
  TABLE_DATALAKE_FORMAT,
  TABLE_DELETE_BEHAVIOR,
  TABLE_KV_FORMAT,
  TABLE_LOG_FORMAT,
  TABLE_MERGE_ENGINE,
  TABLE_MERGE_ENGINE_VERSIONED_VER_COLUMN,
} from './options-table.js'
import { unknownKeyMessage } from './unknown-key.js'

/** What the caller knows about the table; checks that depend on it run only when it is given. */
export interface TableShape {
  readonly hasPrimaryKey?: boolean
  readonly partitioned?: boolean
}

/**
 * Validates the properties of a table to create (Fluss's TableDescriptorValidation, the parts that
 * do not need the schema): every key must be a registered `table.*` option, every value must parse,
 * and the options must agree with each other. Returns the table's configuration view.
 */
export function validateTableProperties(
  properties: Readonly<Record<string, string>>,
  shape: TableShape = {},
): Configuration {
  for (const [key, value] of Object.entries(properties)) {
    const opt = optionByKey(key)
    if (opt === undefined || opt.scope !== 'table') throw invalid(notTablePropertyMessage(key))
    opt.checkSupported(opt.parse(value))
  }
  const conf = new Configuration(properties)
  checkLogFormat(conf, shape)
  checkMergeEngine(conf, shape)
  checkDeleteBehavior(conf, shape)
  if (shape.partitioned === false && conf.get(TABLE_AUTO_PARTITION_ENABLED)) {
    throw invalid(
      `Currently, auto partition is only supported for partitioned table, please set table property '${TABLE_AUTO_PARTITION_ENABLED.key}' to false.`,
    )
  }
  return conf
}

/**
 * Validates an ALTER TABLE property change (value null = reset) against the stored properties and
 * returns the table's configuration after it. Only alterable `table.*` options may change; keys
 * outside `table.` are custom properties and are left to the caller.
 */
export function validateAlterTableProperties(
  changes: Readonly<Record<string, string | null>>,
  current?: Readonly<Record<string, string>>,
  shape: TableShape = {},
): Configuration {
  const next: Record<string, string> = { ...current }
  for (const [key, value] of Object.entries(changes)) {
    if (!key.startsWith(TABLE_PROPERTY_PREFIX)) {
      checkCustomPropertyChange(key, current)
      continue
    }
    const opt = optionByKey(key)
    if (opt === undefined) throw invalid(notTablePropertyMessage(key))
    if (!opt.alterable)
      throw new FlussError(
        'INVALID_ALTER_TABLE_EXCEPTION',
        `The option '${key}' is not supported to alter yet.`,
      )
    // Enabling the lake on a table without a lake format is decided by the coordinator, which knows
    // the cluster's format and the table's bucket keys (services/coordinator alter-table.ts).
    if (value === null) delete next[key]
    else {
      opt.parse(value)
      next[key] = value
    }
  }
  return validateTableProperties(next, shape)
}

/** Fluss's wording for a property that is not a table option. */
export function notTablePropertyMessage(key: string): string {
  return key.startsWith(TABLE_PROPERTY_PREFIX)
    ? `${unknownKeyMessage(key)} You may be using an older Fluss cluster that does not support this property.`
    : `'${key}' is not a Fluss table property. Please use '.customProperty(..)' to set custom properties.`
}

/** Once a table is in the lake, its lake-format properties (`iceberg.*`, ...) are fixed. */
function checkCustomPropertyChange(key: string, current: Readonly<Record<string, string>> | undefined): void {
  if (current === undefined) return
  const conf = new Configuration(current)
  const format = conf.getOptional(TABLE_DATALAKE_FORMAT)
  if (conf.get(TABLE_DATALAKE_ENABLED) && format !== undefined && key.startsWith(`${format}.`)) {
    throw invalid(`Property '${key}' is not supported to alter which is for datalake table.`)
  }
}

function checkLogFormat(conf: Configuration, shape: TableShape): void {
  const logFormat = conf.get(TABLE_LOG_FORMAT)
  // Fluss also serves INDEXED values; here the tablet servers store and merge COMPACTED rows only.
  if (shape.hasPrimaryKey && conf.get(TABLE_KV_FORMAT) === 'INDEXED') {
    throw invalid("The kv format 'INDEXED' is not supported by Sluice; primary-key tables use 'COMPACTED'.")
  }
  if (shape.hasPrimaryKey && conf.get(TABLE_KV_FORMAT) === 'COMPACTED' && logFormat === 'INDEXED') {
    throw invalid(
      'Currently, Primary Key Table supports ARROW or COMPACTED log format when kv format is COMPACTED.',
    )
  }
}

function checkMergeEngine(conf: Configuration, shape: TableShape): void {
  const engine = conf.getOptional(TABLE_MERGE_ENGINE)
  if (engine === undefined) return
  if (shape.hasPrimaryKey === false) throw invalid('Merge engine is only supported in primary key table.')
  if (engine === 'VERSIONED' && !conf.has(TABLE_MERGE_ENGINE_VERSIONED_VER_COLUMN)) {
    throw invalid(`'${TABLE_MERGE_ENGINE_VERSIONED_VER_COLUMN.key}' must be set for versioned merge engine.`)
  }
  if (engine === 'AGGREGATION' && conf.get(TABLE_CHANGELOG_IMAGE) === 'WAL') {
    throw invalid(
      `Table with 'AGGREGATION' merge engine does not support 'WAL' changelog image mode. Aggregation merge engine tables require FULL changelog image mode for correct UNDO recovery. Please set '${TABLE_CHANGELOG_IMAGE.key}' to 'FULL' or remove the setting.`,
    )
  }
}

function checkDeleteBehavior(conf: Configuration, shape: TableShape): void {
  const behavior = conf.has(TABLE_DELETE_BEHAVIOR) ? conf.get(TABLE_DELETE_BEHAVIOR) : undefined
  if (behavior === undefined) return
  if (shape.hasPrimaryKey === false) {
    throw invalid(
      `The '${TABLE_DELETE_BEHAVIOR.key}' configuration is only supported for primary key tables.`,
    )
  }
  const engine = conf.getOptional(TABLE_MERGE_ENGINE)
  if (behavior === 'ALLOW' && (engine === 'FIRST_ROW' || engine === 'VERSIONED')) {
    throw invalid(
      `Table with '${engine}' merge engine does not support delete operations. The '${TABLE_DELETE_BEHAVIOR.key}' config must be set to 'ignore' or 'disable', but got 'allow'.`,
    )
  }
}

function invalid(message: string): FlussError {
  return new FlussError('INVALID_CONFIG_EXCEPTION', message)
}
