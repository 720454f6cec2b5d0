import type { AutoPartitionTimeUnit } from '@sluice/core/config'
import { describe, expect, it } from 'vitest'
import { autoPartitionTime } from './partition-time.js'
import { compileTimeFormat, DEFAULT_TIME_FORMATS } from './time-format.js'
import { fixedOffsetZone, resolveTimeZone, type TimeZoneRules } from './time-zone.js'

const H = 3_600_000
const at = (iso: string) => Date.parse(iso)

function names(
  zone: TimeZoneRules,
  nowMs: number,
  unit: AutoPartitionTimeUnit,
  offsets: number[],
  pattern?: string,
) {
  const format = compileTimeFormat(unit, pattern ?? DEFAULT_TIME_FORMATS[unit])
  return offsets.map(o => autoPartitionTime(zone, nowMs, o, unit, format))
}

describe('autoPartitionTime', () => {
  // Fluss PartitionUtilsTest.testGenerateAutoPartitionName: 2024-11-11T11:11 in UTC-8.
  const utcMinus8 = fixedOffsetZone(-8 * H)
  const now = at('2024-11-11T19:11:00Z')

  it("matches Fluss's vectors for every unit", () => {
    expect(names(utcMinus8, now, 'YEAR', [-1, 0, 1, 2, 3])).toEqual(['2023', '2024', '2025', '2026', '2027'])
    expect(names(utcMinus8, now, 'QUARTER', [-1, 0, 1, 2, 3])).toEqual([
      '20243',
      '20244',
      '20251',
      '20252',
      '20253',
    ])
    expect(names(utcMinus8, now, 'MONTH', [-1, 0, 1, 2, 3])).toEqual([
      '202410',
      '202411',
      '202412',
      '202501',
      '202502',
    ])
    expect(names(utcMinus8, now, 'DAY', [-1, 0, 1, 2, 3, 20])).toEqual([
      '20241110',
      '20241111',
      '20241112',
      '20241113',
      '20241114',
      '20241201',
    ])
    expect(names(utcMinus8, now, 'DAY', [-1, 0, 20], 'yyyy-MM-dd')).toEqual([
      '2024-11-10',
      '2024-11-11',
      '2024-12-01',
    ])
    expect(names(utcMinus8, now, 'HOUR', [-2, -1, 0, 1, 2, 3, 13])).toEqual([
      '2024111109',
      '2024111110',
      '2024111111',
      '2024111112',
      '2024111113',
      '2024111114',
      '2024111200',
    ])
  })

  it('renders in the table zone, not UTC', () => {
    const shanghai = resolveTimeZone('Asia/Shanghai', 'UTC')
    const instant = at('2024-12-31T16:30:00Z') // 2025-01-01 00:30 in Shanghai
    expect(names(shanghai, instant, 'DAY', [0])).toEqual(['20250101'])
    expect(names(fixedOffsetZone(0), instant, 'DAY', [0])).toEqual(['20241231'])
    expect(names(shanghai, instant, 'QUARTER', [-1, 0])).toEqual(['20244', '20251'])
    expect(names(shanghai, instant, 'YEAR', [0])).toEqual(['2025'])
    expect(names(shanghai, instant, 'HOUR', [-1, 0])).toEqual(['2024123123', '2025010100'])
  })

  it('clamps the day when adding months and years (Java plusMonths/plusYears)', () => {
    const utc = fixedOffsetZone(0)
    expect(names(utc, at('2024-01-31T12:00:00Z'), 'MONTH', [1, 2, -2])).toEqual([
      '202402',
      '202403',
      '202311',
    ])
    expect(names(utc, at('2024-02-29T12:00:00Z'), 'YEAR', [-1, 0, 1, 4])).toEqual([
      '2023',
      '2024',
      '2025',
      '2028',
    ])
    expect(names(utc, at('2024-03-31T12:00:00Z'), 'QUARTER', [-4, -1, 1, 3])).toEqual([
      '20231',
      '20234',
      '20242',
      '20244',
    ])
  })

  it('adds exact hours across DST: skips the missing hour and repeats the doubled one', () => {
    const ny = resolveTimeZone('America/New_York', 'UTC')
    // 2024-03-10 01:30 EST; 02:00 does not exist.
    expect(names(ny, at('2024-03-10T06:30:00Z'), 'HOUR', [-1, 0, 1, 2])).toEqual([
      '2024031000',
      '2024031001',
      '2024031003',
      '2024031004',
    ])
    // 2024-11-03 00:30 EDT; 01:00-02:00 happens twice.
    expect(names(ny, at('2024-11-03T04:30:00Z'), 'HOUR', [0, 1, 2, 3])).toEqual([
      '2024110300',
      '2024110301',
      '2024110301',
      '2024110302',
    ])
    // Retention from 03:30 EDT, 2 hours back on the time-line, lands on 00:30 EST.
    expect(names(ny, at('2024-03-10T07:30:00Z'), 'HOUR', [-2])).toEqual(['2024031000'])
  })

  it('moves a calendar step that lands in a gap later, like ZonedDateTime.plusDays', () => {
    const apia = resolveTimeZone('Pacific/Apia', 'UTC')
    // 2011-12-29 10:00 local (-10:00); 2011-12-30 does not exist there.
    expect(names(apia, at('2011-12-29T20:00:00Z'), 'DAY', [0, 1, 2])).toEqual([
      '20111229',
      '20111231',
      '20111231',
    ])
  })
})
