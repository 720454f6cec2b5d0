import {
  TABLE_DATALAKE_ENABLED,
  TABLE_DATALAKE_FORMAT,
  TABLE_PROPERTY_PREFIX,
  validateAlterTableProperties,
} from '@sluice/core/config'
import type { TableRecord } from '@sluice/core/control-plane'
import { FlussError } from '@sluice/core/errors'
import { type TableDescriptor, validateTableDescriptor } from '@sluice/core/metadata'
import type { AlterTableRequest } from '@sluice/core/rpc'

/** PbAlterConfig.op_type values (Fluss's AlterConfigOpType). */
const OP_SET = 0
const OP_DELETE = 1

const invalidAlter = (message: string) => new FlussError('INVALID_ALTER_TABLE_EXCEPTION', message)

/**
 * The descriptor an ALTER TABLE produces (Fluss's alterTableProperties): SET/RESET of properties,
 * where `table.*` keys are table options (only the alterable ones) and every other key a custom
 * property. Schema changes are refused for now. Returns undefined when nothing changes.
 */
export function alteredDescriptor(
  table: TableRecord,
  request: AlterTableRequest,
  maxBucketNum: number,
  dataLakeFormat?: string,
): TableDescriptor | undefined {
  const schemaChanges =
    request.addColumns.length +
    request.dropColumns.length +
    request.renameColumns.length +
    request.modifyColumns.length
  if (schemaChanges > 0 && request.configChanges.length > 0) {
    throw invalidAlter(
      'Table alteration can only be applied to one of the following: table properties or table schema.',
    )
  }
  if (schemaChanges > 0) {
    throw invalidAlter(
      'Schema changes (add, drop, rename or modify columns) are not supported by this server yet.',
    )
  }
  const changes: Record<string, string | null> = {}
  for (const c of request.configChanges) {
    if (c.opType === OP_SET) {
      if (c.configValue === null) throw invalidAlter(`Setting '${c.configKey}' requires a value.`)
      changes[c.configKey] = c.configValue
    } else if (c.opType === OP_DELETE) changes[c.configKey] = null
    else throw invalidAlter(`Unsupported alter configs op type ${c.opType}`)
  }
  const d = table.descriptor
  validateAlterTableProperties(changes, d.properties, {
    hasPrimaryKey: d.hasPrimaryKey,
    partitioned: d.isPartitioned,
  })
  const properties = apply(d.properties, changes, key => key.startsWith(TABLE_PROPERTY_PREFIX))
  bindLakeFormat(d, properties, dataLakeFormat)
  const customProperties = apply(d.customProperties, changes, key => !key.startsWith(TABLE_PROPERTY_PREFIX))
  if (sameEntries(properties, d.properties) && sameEntries(customProperties, d.customProperties))
    return undefined
  const next = d.withProperties(properties, customProperties)
  validateTableDescriptor(next, { maxBucketNum })
  return next
}

/**
 * Enabling the lake later binds the cluster's lake format. Tables with bucket keys were created with
 * Fluss's key encoding and bucketing, which the lake format would change, so they may enable the lake
 * only at creation (Fluss has the same rule for tables created before the cluster had a lake format).
 */
function bindLakeFormat(d: TableDescriptor, properties: Record<string, string>, format?: string): void {
  if (properties[TABLE_DATALAKE_ENABLED.key]?.toLowerCase() !== 'true') return
  if (properties[TABLE_DATALAKE_FORMAT.key] !== undefined) return
  if (format === undefined) {
    throw invalidAlter(
      `'${TABLE_DATALAKE_ENABLED.key}' is enabled for the table, but the Fluss cluster doesn't enable datalake tables.`,
    )
  }
  if (d.bucketKeys.length > 0) {
    throw invalidAlter(
      `The table has bucket keys and was created without a lake format; enable '${TABLE_DATALAKE_ENABLED.key}' when creating such tables.`,
    )
  }
  properties[TABLE_DATALAKE_FORMAT.key] = format
}

function apply(
  current: Readonly<Record<string, string>>,
  changes: Readonly<Record<string, string | null>>,
  applies: (key: string) => boolean,
): Record<string, string> {
  const next: Record<string, string> = { ...current }
  for (const [key, value] of Object.entries(changes)) {
    if (!applies(key)) continue
    if (value === null) delete next[key]
    else next[key] = value
  }
  return next
}

function sameEntries(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every(k => Object.hasOwn(b, k) && a[k] === b[k])
}
