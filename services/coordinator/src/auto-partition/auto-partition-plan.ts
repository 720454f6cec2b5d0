import type { AutoPartitionTimeUnit } from '@sluice/core/config'
import {
  PARTITION_SPEC_SEPARATOR,
  type ResolvedPartitionSpec,
  resolvedPartitionSpec,
} from '@sluice/core/metadata'
import { autoPartitionTime } from './partition-time.js'
import { isValidPartitionTime, type TimeFormat } from './time-format.js'
import type { TimeZoneRules } from './time-zone.js'

/** Everything the partition plan of one table depends on, besides the clock and its partitions. */
export interface AutoPartitionSettings {
  readonly partitionKeys: readonly string[]
  /** Position of the time key (`table.auto-partition.key`, or the only key) in `partitionKeys`. */
  readonly timeKeyIndex: number
  readonly timeUnit: AutoPartitionTimeUnit
  readonly timeFormat: TimeFormat
  readonly zone: TimeZoneRules
  /** Partitions to create from the current time unit on; always 0 with several partition keys. */
  readonly numPreCreate: number
  /** Past time units to keep; negative keeps everything. */
  readonly numToRetain: number
}

export interface AutoPartitionPlan {
  /** Drop first, in ascending time order. */
  readonly toDrop: readonly string[]
  /** Then create, in ascending time order. */
  readonly toCreate: readonly ResolvedPartitionSpec[]
  /** The earliest time value kept; undefined when retention is off. */
  readonly earliestRetained: string | undefined
}

/** DAY creation is delayed by up to this many minutes into the day (Fluss: `nextInt(60 * 23)`). */
export const MAX_DAY_CREATE_DELAY_MINUTES = 60 * 23

/**
 * The per-table delay of DAY partition creation, in [0, 1380) minutes. Fluss draws it at random
 * when a table is registered; it is derived from the table id here so that every coordinator (and
 * every restart) spreads the tables over the day the same way.
 */
export function dayCreateDelayMinutes(tableId: number): number {
  const high = Math.floor(tableId / 2 ** 32) | 0
  let h = (tableId | 0) ^ Math.imul(high, 0x9e3779b1)
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b)
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b)
  h ^= h >>> 16
  return (h >>> 0) % MAX_DAY_CREATE_DELAY_MINUTES
}

/** The time value of a partition name, or undefined when the name has no usable time value. */
export function partitionTimeValue(
  settings: AutoPartitionSettings,
  partitionName: string,
): string | undefined {
  const values =
    settings.partitionKeys.length === 1 ? [partitionName] : partitionName.split(PARTITION_SPEC_SEPARATOR)
  if (values.length !== settings.partitionKeys.length) return undefined
  const time = values[settings.timeKeyIndex]
  return isValidPartitionTime(settings.timeFormat, time) ? time : undefined
}

/**
 * What one auto-partition check does for one table (Fluss's `AutoPartitionManager.doAutoPartition`):
 * - drop every partition whose time value is before `current − numToRetain` units, compared as
 *   strings (formats are fixed-width, largest unit first); with several partition keys the time
 *   key is one component of the name. Names without a valid time value are left alone.
 * - create `numPreCreate` partitions from the current unit on, skipping existing ones. The
 *   creation instant is `nowMs − createDelayMinutes` (the DAY jitter); drops use `nowMs`.
 *   Names before the retention boundary are not created (they would be dropped next check).
 */
export function planAutoPartitions(
  settings: AutoPartitionSettings,
  nowMs: number,
  existing: readonly string[],
  createDelayMinutes = 0,
): AutoPartitionPlan {
  const { zone, timeUnit, timeFormat } = settings
  const earliestRetained =
    settings.numToRetain < 0
      ? undefined
      : autoPartitionTime(zone, nowMs, -settings.numToRetain, timeUnit, timeFormat)
  const expired: { time: string; name: string }[] = []
  if (earliestRetained !== undefined) {
    for (const name of existing) {
      const time = partitionTimeValue(settings, name)
      if (time !== undefined && time < earliestRetained) expired.push({ time, name })
    }
  }
  expired.sort((a, b) => compare(a.time, b.time) || compare(a.name, b.name))
  const toDrop = expired.map(e => e.name)
  const remaining = new Set(existing)
  for (const name of toDrop) remaining.delete(name)
  const toCreate: ResolvedPartitionSpec[] = []
  if (settings.partitionKeys.length === 1) {
    const createMs = nowMs - createDelayMinutes * 60_000
    for (let idx = 0; idx < settings.numPreCreate; idx++) {
      const name = autoPartitionTime(zone, createMs, idx, timeUnit, timeFormat)
      if (remaining.has(name) || (earliestRetained !== undefined && name < earliestRetained)) continue
      remaining.add(name)
      toCreate.push(resolvedPartitionSpec(settings.partitionKeys, [name]))
    }
  }
  return { toDrop, toCreate, earliestRetained }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
