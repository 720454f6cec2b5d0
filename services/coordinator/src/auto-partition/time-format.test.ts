import { AUTO_PARTITION_TIME_UNITS } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import { compileTimeFormat, DEFAULT_TIME_FORMATS, formatTime, isValidPartitionTime } from './time-format.js'

const t = { year: 2024, month: 11, day: 11, hour: 9, minute: 0, second: 0, millis: 0 }

function rejection(fn: () => unknown): FlussError {
  try {
    fn()
  } catch (e) {
    if (e instanceof FlussError) return e
    throw e
  }
  throw new Error('expected a FlussError')
}

describe('compileTimeFormat', () => {
  it('renders the default format of each unit', () => {
    const rendered = AUTO_PARTITION_TIME_UNITS.map(u =>
      formatTime(compileTimeFormat(u, DEFAULT_TIME_FORMATS[u]), t),
    )
    expect(rendered).toEqual(['2024', '20244', '202411', '20241111', '2024111109'])
  })

  it("accepts Fluss's valid custom formats (YEAR..HOUR)", () => {
    const formats = ['yyyy', "yyyy-'Q'Q", 'yyyy-MM', 'yyyy-MM-dd', 'yyyy-MM-dd-HH']
    const rendered = AUTO_PARTITION_TIME_UNITS.map((u, i) => formatTime(compileTimeFormat(u, formats[i]), t))
    expect(rendered).toEqual(['2024', '2024-Q4', '2024-11', '2024-11-11', '2024-11-11-09'])
    expect(formatTime(compileTimeFormat('DAY', "uuuu'_'MM_dd"), t)).toBe('2024_11_11')
    expect(formatTime(compileTimeFormat('HOUR', "'d'yyyyMMdd'h'HH"), t)).toBe('d20241111h09')
  })

  it.each([
    ['MONTH', 'MM-yyyy', 'must contain fields [year, month] in this order'],
    ['HOUR', 'yyyy-MM-dd', '[year, month, day, hour]'],
    ['DAY', 'yyyy-M-dd', "Time field 'month' in format 'yyyy-M-dd' must have fixed width 2, but found 1."],
    ['DAY', 'yyyy[-MM[-dd]]', 'must not contain optional sections'],
    ['DAY', 'yyyy/MM/dd', "generates invalid partition value '2024/11/11'"],
    ['YEAR', '__yyyy', "generates invalid partition value '__2024'"],
    ['YEAR', `yyyy${'_'.repeat(197)}`, 'longer than the max allowed length 200'],
    ['DAY', 'yyyyMMddmm', "contains unsupported time field 'm'"],
    ['DAY', 'yyyyMMddb', "Invalid date-time format pattern 'yyyyMMddb'."],
    ['DAY', "yyyy'MMdd", 'Invalid date-time format pattern'],
  ] as const)('rejects %s format %s', (unit, pattern, message) => {
    const e = rejection(() => compileTimeFormat(unit, pattern))
    expect(e.errorName).toBe('INVALID_TABLE_EXCEPTION')
    expect(e.message).toContain("Invalid table property 'table.auto-partition.time-format': ")
    expect(e.message).toContain(message)
  })
})

describe('isValidPartitionTime', () => {
  it('accepts only names in the format with fields in range', () => {
    const day = compileTimeFormat('DAY', 'yyyyMMdd')
    expect(isValidPartitionTime(day, '20240910')).toBe(true)
    expect(isValidPartitionTime(day, '20240230')).toBe(true)
    for (const bad of [
      '2024091',
      '202409101',
      '2024-09-10',
      '20241310',
      '20240900',
      'abcdefgh',
      '00000101',
      '',
    ]) {
      expect(isValidPartitionTime(day, bad), bad).toBe(false)
    }
    const quarter = compileTimeFormat('QUARTER', 'yyyyQ')
    expect(['20241', '20244', '20245', '20240'].map(v => isValidPartitionTime(quarter, v))).toEqual([
      true,
      true,
      false,
      false,
    ])
    const hour = compileTimeFormat('HOUR', 'yyyyMMddHH')
    expect(isValidPartitionTime(hour, '2024091023')).toBe(true)
    expect(isValidPartitionTime(hour, '2024091025')).toBe(false)
    const dashed = compileTimeFormat('DAY', 'yyyy-MM-dd')
    expect(isValidPartitionTime(dashed, '2024-01-09')).toBe(true)
    expect(isValidPartitionTime(dashed, '20240109')).toBe(false)
  })
})
