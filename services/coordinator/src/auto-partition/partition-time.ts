import type { AutoPartitionTimeUnit } from '@sluice/core/config'
import { formatTime, type TimeFormat } from './time-format.js'
import { type LocalDateTime, type TimeZoneRules, toInstant, toLocalDateTime } from './time-zone.js'

/**
 * The time value of the partition `offset` units away from `nowMs` (Fluss's
 * `PartitionUtils.generateAutoPartitionTime` on a `ZonedDateTime`):
 * - HOUR adds exact hours on the instant time-line, then reads the wall clock. Across a DST change
 *   this skips the missing local hour and repeats the doubled one.
 * - DAY, MONTH, QUARTER (3 months) and YEAR add calendar units to the local date-time (month
 *   and year steps clamp the day to the month's length), then resolve it in the zone: a local time
 *   inside a gap moves later by the gap's length, which can move it to the next date.
 */
export function autoPartitionTime(
  zone: TimeZoneRules,
  nowMs: number,
  offset: number,
  unit: AutoPartitionTimeUnit,
  format: TimeFormat,
): string {
  return formatTime(format, shiftedLocalDateTime(zone, nowMs, offset, unit))
}

export function shiftedLocalDateTime(
  zone: TimeZoneRules,
  nowMs: number,
  offset: number,
  unit: AutoPartitionTimeUnit,
): LocalDateTime {
  if (unit === 'HOUR') return toLocalDateTime(zone, nowMs + offset * 3_600_000)
  const local = toLocalDateTime(zone, nowMs)
  const shifted = plusCalendarUnits(local, offset, unit)
  return toLocalDateTime(zone, toInstant(zone, shifted))
}

function plusCalendarUnits(
  t: LocalDateTime,
  offset: number,
  unit: Exclude<AutoPartitionTimeUnit, 'HOUR'>,
): LocalDateTime {
  switch (unit) {
    case 'DAY':
      return plusDays(t, offset)
    case 'MONTH':
      return plusMonths(t, offset)
    case 'QUARTER':
      return plusMonths(t, offset * 3)
    case 'YEAR':
      return plusMonths(t, offset * 12)
  }
}

function plusDays(t: LocalDateTime, days: number): LocalDateTime {
  const d = new Date(0)
  d.setUTCFullYear(t.year, t.month - 1, t.day + days)
  return { ...t, year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() }
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
}

function lengthOfMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}

/** Java `LocalDateTime.plusMonths`: the day is clamped to the target month's length. */
function plusMonths(t: LocalDateTime, months: number): LocalDateTime {
  const total = t.year * 12 + (t.month - 1) + months
  const year = Math.floor(total / 12)
  const month = total - year * 12 + 1
  return { ...t, year, month, day: Math.min(t.day, lengthOfMonth(year, month)) }
}
