import { describe, expect, it } from 'vitest'
import { fixedOffsetZone, resolveTimeZone, toInstant, toLocalDateTime } from './time-zone.js'

const H = 3_600_000
const at = (iso: string) => Date.parse(iso)
const local = (year: number, month: number, day: number, hour = 0, minute = 0) => ({
  year,
  month,
  day,
  hour,
  minute,
  second: 0,
  millis: 0,
})

describe('resolveTimeZone', () => {
  it('resolves IANA regions through Intl', () => {
    const shanghai = resolveTimeZone('Asia/Shanghai', 'UTC')
    expect(shanghai.id).toBe('Asia/Shanghai')
    expect(shanghai.offsetMsAt(at('2024-09-10T00:00:00Z'))).toBe(8 * H)
    const ny = resolveTimeZone('America/New_York', 'UTC')
    expect(ny.offsetMsAt(at('2024-01-15T12:00:00Z'))).toBe(-5 * H)
    expect(ny.offsetMsAt(at('2024-07-15T12:00:00Z'))).toBe(-4 * H)
    expect(resolveTimeZone('UTC', 'Asia/Tokyo').offsetMsAt(0)).toBe(0)
    expect(resolveTimeZone('Etc/GMT+5', 'UTC').offsetMsAt(0)).toBe(-5 * H)
  })

  it("reads Java's custom GMT offsets", () => {
    expect(resolveTimeZone('GMT+8', 'UTC').offsetMsAt(0)).toBe(8 * H)
    expect(resolveTimeZone('GMT+08:00', 'UTC').id).toBe('GMT+08:00')
    expect(resolveTimeZone('GMT-0530', 'UTC').offsetMsAt(0)).toBe(-5.5 * H)
    expect(resolveTimeZone('GMT+930', 'UTC').offsetMsAt(0)).toBe(9.5 * H)
    expect(resolveTimeZone('GMT+0', 'UTC').id).toBe('GMT')
  })

  it("maps Java's three-letter short ids", () => {
    expect(resolveTimeZone('PST', 'UTC').id).toBe('America/Los_Angeles')
    expect(resolveTimeZone('CTT', 'UTC').offsetMsAt(0)).toBe(8 * H)
    expect(resolveTimeZone('EST', 'UTC').id).toBe('GMT-05:00')
    expect(resolveTimeZone('EST', 'UTC').offsetMsAt(at('2024-07-01T00:00:00Z'))).toBe(-5 * H)
  })

  it('falls back to GMT for ids Java does not understand, as TimeZone.getTimeZone does', () => {
    for (const id of ['Nowhere/City', 'UTC-8', '+08:00', 'GMT+24', 'GMT+8:5', '']) {
      expect(resolveTimeZone(id, 'Asia/Tokyo').id, id).toBe('GMT')
    }
  })

  it("reads 'system' as the coordinator's zone", () => {
    expect(resolveTimeZone('system', 'Asia/Tokyo').offsetMsAt(0)).toBe(9 * H)
  })
})

describe('toLocalDateTime / toInstant', () => {
  const ny = resolveTimeZone('America/New_York', 'UTC')

  it('reads the wall clock at an instant', () => {
    expect(toLocalDateTime(ny, at('2024-03-10T06:30:00Z'))).toEqual(local(2024, 3, 10, 1, 30))
    expect(toLocalDateTime(ny, at('2024-03-10T07:30:00Z'))).toEqual(local(2024, 3, 10, 3, 30))
    expect(toLocalDateTime(fixedOffsetZone(-8 * H), at('2024-11-11T19:11:00Z'))).toEqual(
      local(2024, 11, 11, 11, 11),
    )
  })

  it('moves a local time in a DST gap later by the gap (02:30 -> 03:30 EDT)', () => {
    expect(new Date(toInstant(ny, local(2024, 3, 10, 2, 30))).toISOString()).toBe('2024-03-10T07:30:00.000Z')
  })

  it('picks the earlier offset in a DST overlap (01:30 EDT, not EST)', () => {
    expect(new Date(toInstant(ny, local(2024, 11, 3, 1, 30))).toISOString()).toBe('2024-11-03T05:30:00.000Z')
  })

  it('handles a skipped calendar day (Pacific/Apia, 2011-12-30)', () => {
    const apia = resolveTimeZone('Pacific/Apia', 'UTC')
    const instant = toInstant(apia, local(2011, 12, 30, 10))
    expect(toLocalDateTime(apia, instant)).toEqual(local(2011, 12, 31, 10))
  })
})
