import {
  type Configuration,
  TABLE_AUTO_PARTITION_ENABLED,
  TABLE_AUTO_PARTITION_KEY,
  TABLE_AUTO_PARTITION_TIME_UNIT,
} from '../config/index.js'
import { FlussError } from '../errors/index.js'
import { typeToString } from '../types/data-type.js'
import { PARTITION_KEY_SUPPORTED_TYPES } from './partition-value.js'
import type { Schema } from './schema.js'
import { autoPartitionStrategy } from './table-config.js'

const invalidTable = (message: string) => new FlussError('INVALID_TABLE_EXCEPTION', message)

/**
 * Partition rules at table creation (Fluss's `checkPartition`): auto-partitioning only on
 * partitioned tables; partition key types; with several partition keys an auto-partition key that
 * is one of them and no pre-creation; a DATE auto-partition key only with the DAY unit (Fluss 1.0).
 */
export function checkPartitioning(
  conf: Configuration,
  partitionKeys: readonly string[],
  schema: Schema,
): void {
  const auto = autoPartitionStrategy(conf)
  if (partitionKeys.length === 0) {
    if (auto.enabled) {
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        'Currently, auto partition is only supported for partitioned table, ' +
          `please set table property '${TABLE_AUTO_PARTITION_ENABLED.key}' to false.`,
      )
    }
    return
  }
  for (const key of partitionKeys) {
    const type = schema.column(key)?.type
    if (type !== undefined && !PARTITION_KEY_SUPPORTED_TYPES.includes(type.type)) {
      throw invalidTable(
        `Currently, partitioned table supported partition key type are [${PARTITION_KEY_SUPPORTED_TYPES.join(', ')}], ` +
          `but got partition key '${key}' with data type ${typeToString(type)}.`,
      )
    }
  }
  if (!auto.enabled) return
  const autoKey = auto.key
  if (partitionKeys.length > 1 && autoKey === undefined) {
    throw invalidTable(
      'Currently, auto partitioned table must set one auto partition key when it has multiple partition keys. ' +
        `Please set table property '${TABLE_AUTO_PARTITION_KEY.key}'.`,
    )
  }
  if (autoKey !== undefined && !partitionKeys.includes(autoKey)) {
    throw invalidTable(
      'The specified key for auto partitioned table is not a partition key. ' +
        `Your key '${autoKey}' is not in key list [${partitionKeys.join(', ')}]`,
    )
  }
  if (partitionKeys.length > 1 && auto.numPreCreate > 0) {
    throw invalidTable(
      'For a partitioned table with multiple partition keys, auto pre-create is unsupported and this value must be set to 0, but is ' +
        auto.numPreCreate,
    )
  }
  const timeKey = autoKey ?? partitionKeys[0]
  if (schema.column(timeKey)?.type.type === 'DATE' && auto.timeUnit !== 'DAY') {
    throw invalidTable(
      `Table property '${TABLE_AUTO_PARTITION_TIME_UNIT.key}' must be 'DAY' when auto partition key '${timeKey}' has DATE type.`,
    )
  }
}
