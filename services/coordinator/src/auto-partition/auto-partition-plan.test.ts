import type { AutoPartitionTimeUnit } from '@sluice/core/config'
import { partitionName } from '@sluice/core/metadata'
import { describe, expect, it } from 'vitest'
import {
  type AutoPartitionSettings,
  dayCreateDelayMinutes,
  MAX_DAY_CREATE_DELAY_MINUTES,
  partitionTimeValue,
  planAutoPartitions,
} from './auto-partition-plan.js'
import { compileTimeFormat, DEFAULT_TIME_FORMATS } from './time-format.js'
import { GMT, resolveTimeZone } from './time-zone.js'

const at = (iso: string) => Date.parse(iso)

function settings(
  unit: AutoPartitionTimeUnit,
  over: Partial<AutoPartitionSettings> = {},
): AutoPartitionSettings {
  return {
    partitionKeys: ['dt'],
    timeKeyIndex: 0,
    timeUnit: unit,
    timeFormat: compileTimeFormat(unit, DEFAULT_TIME_FORMATS[unit]),
    zone: GMT,
    numPreCreate: 4,
    numToRetain: 2,
    ...over,
  }
}

function plan(s: AutoPartitionSettings, nowIso: string, existing: string[], delayMinutes = 0) {
  const p = planAutoPartitions(s, at(nowIso), existing, delayMinutes)
  return { drop: p.toDrop, create: p.toCreate.map(partitionName), earliest: p.earliestRetained }
}

describe('planAutoPartitions', () => {
  it('pre-creates from the current unit and drops what is older than current - retention', () => {
    expect(
      plan(settings('DAY'), '2024-09-13T05:00:00Z', ['20240909', '20240910', '20240911', '20240913']),
    ).toEqual({
      drop: ['20240909', '20240910'],
      create: ['20240914', '20240915', '20240916'],
      earliest: '20240911',
    })
  })

  it('keeps everything with a negative retention and creates nothing with numPreCreate 0', () => {
    const s = settings('MONTH', { numToRetain: -1, numPreCreate: 0 })
    expect(plan(s, '2030-01-01T00:00:00Z', ['202001', '202409'])).toEqual({
      drop: [],
      create: [],
      earliest: undefined,
    })
  })

  it('leaves names without a valid time value alone, whatever they sort like', () => {
    const existing = ['abc', '1999', '2024-09-01', '20240901', '20241301', '__historical__', '2024090']
    expect(plan(settings('DAY', { numPreCreate: 0 }), '2024-09-10T00:00:00Z', existing).drop).toEqual([
      '20240901',
    ])
  })

  it('compares the time key of multi-key names and never pre-creates for them', () => {
    const s = settings('HOUR', { partitionKeys: ['a', 'dt', 'b'], timeKeyIndex: 1, numPreCreate: 4 })
    const existing = ['x$2024091001$1', 'y$2024091002$1', 'x$2024091003$2', 'x$2024091003', 'x$abc$1', 'x$$1']
    expect(plan(s, '2024-09-10T05:30:00Z', existing)).toEqual({
      drop: ['x$2024091001$1', 'y$2024091002$1'],
      create: [],
      earliest: '2024091003',
    })
    expect(partitionTimeValue(s, 'x$2024091003$2')).toBe('2024091003')
    expect(partitionTimeValue(s, 'x$2024091003')).toBeUndefined()
  })

  it('delays DAY creation by the jitter but drops on the real clock', () => {
    const s = settings('DAY')
    const existing = ['20250419', '20250420', '20250421', '20250422']
    expect(plan(s, '2025-04-22T00:00:00Z', existing, 600)).toEqual({
      drop: ['20250419'],
      create: ['20250423', '20250424'],
      earliest: '20250420',
    })
    expect(plan(s, '2025-04-22T09:59:00Z', existing, 600).create).toEqual(['20250423', '20250424'])
    expect(plan(s, '2025-04-22T10:00:00Z', existing, 600).create).toEqual([
      '20250423',
      '20250424',
      '20250425',
    ])
  })

  it('does not create a jittered partition that retention would drop (retention 0)', () => {
    const s = settings('DAY', { numToRetain: 0, numPreCreate: 2 })
    expect(plan(s, '2025-04-22T01:00:00Z', ['20250421', '20250422'], 600)).toEqual({
      drop: ['20250421'],
      create: [],
      earliest: '20250422',
    })
  })

  it('creates each name once when DST repeats an hour', () => {
    const s = settings('HOUR', { zone: resolveTimeZone('America/New_York', 'UTC'), numToRetain: 1 })
    expect(plan(s, '2024-11-03T04:30:00Z', ['2024110222', '2024110223'])).toEqual({
      drop: ['2024110222'],
      create: ['2024110300', '2024110301', '2024110302'],
      earliest: '2024110223',
    })
  })

  it('uses the configured format for names and retention', () => {
    const s = settings('DAY', { timeFormat: compileTimeFormat('DAY', 'yyyy-MM-dd'), numPreCreate: 2 })
    expect(plan(s, '2024-09-10T12:00:00Z', ['2024-09-07', '2024-09-08', '20240901'])).toEqual({
      drop: ['2024-09-07'],
      create: ['2024-09-10', '2024-09-11'],
      earliest: '2024-09-08',
    })
  })
})

describe('dayCreateDelayMinutes', () => {
  it('is a stable per-table value in [0, 1380)', () => {
    const delays = Array.from({ length: 2000 }, (_, i) => dayCreateDelayMinutes(i))
    expect(delays.every(d => Number.isInteger(d) && d >= 0 && d < MAX_DAY_CREATE_DELAY_MINUTES)).toBe(true)
    expect(new Set(delays).size).toBeGreaterThan(700)
    expect(dayCreateDelayMinutes(42)).toBe(dayCreateDelayMinutes(42))
    expect(dayCreateDelayMinutes(2 ** 40 + 7)).not.toBe(dayCreateDelayMinutes(7))
  })
})
