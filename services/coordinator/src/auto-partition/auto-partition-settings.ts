import { TABLE_AUTO_PARTITION_KEY, TABLE_AUTO_PARTITION_TIME_UNIT } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { autoPartitionStrategy, type TableInfo, tablePathToString } from '@sluice/core/metadata'
import type { AutoPartitionSettings } from './auto-partition-plan.js'
import {
  compileTimeFormat,
  DATE_KEY_TIME_FORMAT,
  DEFAULT_TIME_FORMATS,
  TABLE_AUTO_PARTITION_TIME_FORMAT_KEY,
} from './time-format.js'
import { resolveTimeZone } from './time-zone.js'

/** The zone of the machine running the coordinator (`table.auto-partition.time-zone=system`). */
export const MACHINE_TIME_ZONE_ID = Intl.DateTimeFormat().resolvedOptions().timeZone

const invalidTable = (message: string) => new FlussError('INVALID_TABLE_EXCEPTION', message)

/**
 * Reads the auto-partition settings of a table from its current properties. The time format is
 * `table.auto-partition.time-format` when set, `yyyy-MM-dd` for a DATE time key, else the unit's
 * default. Throws INVALID_TABLE_EXCEPTION / INVALID_CONFIG_EXCEPTION for settings that table
 * creation should have rejected; the manager then skips the table.
 */
export function autoPartitionSettings(
  table: TableInfo,
  systemTimeZoneId: string = MACHINE_TIME_ZONE_ID,
): AutoPartitionSettings {
  const strategy = autoPartitionStrategy(table.tableConfig)
  const keys = table.partitionKeys
  const path = tablePathToString(table.tablePath)
  if (keys.length === 0) {
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `Table ${path} is auto-partitioned but has no partition keys.`,
    )
  }
  if (keys.length > 1 && strategy.key === undefined) {
    throw invalidTable(
      `Auto-partitioned table ${path} has partition keys [${keys.join(', ')}] but no '${TABLE_AUTO_PARTITION_KEY.key}'.`,
    )
  }
  const timeKey = strategy.key ?? keys[0]
  const timeKeyIndex = keys.indexOf(timeKey)
  if (timeKeyIndex < 0) {
    throw invalidTable(
      `The auto partition key '${timeKey}' of table ${path} is not in its partition keys [${keys.join(', ')}].`,
    )
  }
  const isDateKey = table.schema.column(timeKey)?.type.type === 'DATE'
  const explicitFormat = table.properties[TABLE_AUTO_PARTITION_TIME_FORMAT_KEY]
  if (isDateKey && strategy.timeUnit !== 'DAY') {
    throw invalidTable(
      `Table property '${TABLE_AUTO_PARTITION_TIME_UNIT.key}' must be 'DAY' when auto partition key '${timeKey}' has DATE type.`,
    )
  }
  if (isDateKey && explicitFormat !== undefined && explicitFormat !== DATE_KEY_TIME_FORMAT) {
    throw invalidTable(
      `Table property '${TABLE_AUTO_PARTITION_TIME_FORMAT_KEY}' must be '${DATE_KEY_TIME_FORMAT}' when auto partition key '${timeKey}' has DATE type.`,
    )
  }
  const pattern =
    explicitFormat ?? (isDateKey ? DATE_KEY_TIME_FORMAT : DEFAULT_TIME_FORMATS[strategy.timeUnit])
  return {
    partitionKeys: keys,
    timeKeyIndex,
    timeUnit: strategy.timeUnit,
    timeFormat: compileTimeFormat(strategy.timeUnit, pattern),
    zone: resolveTimeZone(strategy.timeZone, systemTimeZoneId),
    numPreCreate: keys.length > 1 ? 0 : strategy.numPreCreate,
    numToRetain: strategy.numToRetain,
  }
}
