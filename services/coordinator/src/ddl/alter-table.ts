import {
  TABLE_DATALAKE_ENABLED,
  TABLE_DATALAKE_FORMAT,
  TABLE_PROPERTY_PREFIX,
  validateAlterTableProperties,
} from '@sluice/core/config'
import { schemaChangesOf, type TableRecord } from '@sluice/core/control-plane'
import { FlussError } from '@sluice/core/errors'
import {
  applySchemaChanges,
  type TableDescriptor,
  tablePathToString,
  validateTableDescriptor,
} from '@sluice/core/metadata'
import type { AlterTableRequest } from '@sluice/core/rpc'

/** PbAlterConfig.op_type values (Fluss's AlterConfigOpType). */
const OP_SET = 0
const OP_DELETE = 1

const invalidAlter = (message: string) => new FlussError('INVALID_ALTER_TABLE_EXCEPTION', message)

/** What an ALTER TABLE changes: the properties, or the schema (then a new schema id), or nothing. */
export type TableAlteration =
  | { readonly kind: 'properties'; readonly descriptor: TableDescriptor }
  | { readonly kind: 'schema'; readonly descriptor: TableDescriptor }

/**
 * The table an ALTER TABLE produces (Fluss's CoordinatorService.alterTable): either property
 * changes or column changes, never both in one request (Fluss's rule, so that each is atomic).
 * Undefined when nothing changes.
 */
export function alterTable(
  table: TableRecord,
  request: AlterTableRequest,
  maxBucketNum: number,
  dataLakeFormat?: string,
): TableAlteration | undefined {
  const schemaChanges = schemaChangesOf(request)
  if (schemaChanges.length > 0 && request.configChanges.length > 0) {
    throw invalidAlter(
      'Table alteration can only be applied to one of the following: table properties or table schema.',
    )
  }
  if (schemaChanges.length > 0) {
    const lake = table.descriptor.properties[TABLE_DATALAKE_ENABLED.key]?.toLowerCase() === 'true'
    if (lake && dataLakeFormat === undefined) {
      throw invalidAlter(
        `Cannot alter schema for datalake enabled table ${tablePathToString(table.tablePath)}, because the Fluss cluster doesn't enable datalake tables.`,
      )
    }
    const descriptor = applySchemaChanges(table.descriptor, schemaChanges)
    return descriptor === undefined ? undefined : { kind: 'schema', descriptor }
  }
  const descriptor = alteredDescriptor(table, request, maxBucketNum, dataLakeFormat)
  return descriptor === undefined ? undefined : { kind: 'properties', descriptor }
}

/**
 * The descriptor an ALTER TABLE of properties produces (Fluss's alterTableProperties): SET/RESET,
 * where `table.*` keys are table options (only the alterable ones) and every other key a custom
 * property. Returns undefined when nothing changes.
 */
export function alteredDescriptor(
  table: TableRecord,
  request: AlterTableRequest,
  maxBucketNum: number,
  dataLakeFormat?: string,
): TableDescriptor | undefined {
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
