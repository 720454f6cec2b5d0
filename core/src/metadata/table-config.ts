import {
  type AutoPartitionTimeUnit,
  type Configuration,
  TABLE_AUTO_PARTITION_ENABLED,
  TABLE_AUTO_PARTITION_KEY,
  TABLE_AUTO_PARTITION_NUM_PRECREATE,
  TABLE_AUTO_PARTITION_NUM_RETENTION,
  TABLE_AUTO_PARTITION_TIME_UNIT,
  TABLE_AUTO_PARTITION_TIME_ZONE,
} from '../config/index.js'

/** Fluss's `AutoPartitionStrategy`: the auto-partition options of one table. */
export interface AutoPartitionStrategy {
  readonly enabled: boolean
  /** `table.auto-partition.key`; undefined when unset or blank. */
  readonly key: string | undefined
  readonly timeUnit: AutoPartitionTimeUnit
  readonly numPreCreate: number
  readonly numToRetain: number
  readonly timeZone: string
}

/** Reads the auto-partition options of a table configuration (defaults where unset). */
export function autoPartitionStrategy(conf: Configuration): AutoPartitionStrategy {
  const key = conf.getOptional(TABLE_AUTO_PARTITION_KEY)
  return {
    enabled: conf.get(TABLE_AUTO_PARTITION_ENABLED),
    key: key === undefined || key.trim() === '' ? undefined : key,
    timeUnit: conf.get(TABLE_AUTO_PARTITION_TIME_UNIT),
    numPreCreate: conf.get(TABLE_AUTO_PARTITION_NUM_PRECREATE),
    numToRetain: conf.get(TABLE_AUTO_PARTITION_NUM_RETENTION),
    timeZone: conf.get(TABLE_AUTO_PARTITION_TIME_ZONE),
  }
}
