import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { formatDuration, formatMemorySize, parseDuration, parseMemorySize } from './units.js'

function configError(fn: () => unknown): FlussError {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(FlussError)
    expect((e as FlussError).code).toBe(39)
    return e as FlussError
  }
  throw new Error('expected INVALID_CONFIG_EXCEPTION')
}

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['30 s', 30_000],
    ['3min', 180_000],
    ['3m', 180_000],
    ['2 minutes', 120_000],
    ['1h', 3_600_000],
    ['2 hours', 7_200_000],
    ['7d', 604_800_000],
    ['7 DAYS', 604_800_000],
    ['1 millisecond', 1],
    ['1500us', 2],
    ['1500µs', 2],
    ['2000000ns', 2],
    ['1.5s', 1500],
    ['250', 250],
    ['  10 sec  ', 10_000],
  ])('parses %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms)
  })

  it('takes numbers as milliseconds', () => {
    expect(parseDuration(42)).toBe(42)
  })

  it.each(['', 'abc', '3 fortnights', '-1s', '1e3s', 's', '3min30s', 'constructor', 'toString'])(
    'rejects %j with the key in the message',
    text => {
      const e = configError(() => parseDuration(text, 'table.log.ttl'))
      expect(e.message).toContain("'table.log.ttl'")
      expect(e.message).toContain('duration')
    },
  )

  it('rejects negative, infinite and overflowing numbers', () => {
    configError(() => parseDuration(-1, 'k'))
    configError(() => parseDuration(Number.POSITIVE_INFINITY, 'k'))
    configError(() => parseDuration('99999999999999999999d', 'k'))
  })
})

describe('parseMemorySize', () => {
  it.each([
    ['4k', 4096],
    ['4kb', 4096],
    ['4 KiB', 4096],
    ['16mb', 16 * 1024 ** 2],
    ['16 mebibytes', 16 * 1024 ** 2],
    ['1gb', 1024 ** 3],
    ['1g', 1024 ** 3],
    ['2tb', 2 * 1024 ** 4],
    ['1b', 1],
    ['100 bytes', 100],
    ['1024m', 1024 ** 3],
    ['0.5kb', 512],
    ['12345', 12_345],
  ])('parses %s', (text, bytes) => {
    expect(parseMemorySize(text)).toBe(bytes)
  })

  it.each(['', 'mb', '16 megs', '-1mb', '1,5mb', 'valueOf'])(
    'rejects %j with the key in the message',
    text => {
      const e = configError(() => parseMemorySize(text, 'log.segment.file-size'))
      expect(e.message).toContain("'log.segment.file-size'")
    },
  )

  it('rejects fractional and negative numbers of bytes', () => {
    configError(() => parseMemorySize(1.5, 'k'))
    configError(() => parseMemorySize(-2, 'k'))
    configError(() => parseMemorySize('9999999tb', 'k'))
  })
})

describe('formatting', () => {
  it('uses the largest whole unit', () => {
    expect(formatDuration(180_000)).toBe('3 min')
    expect(formatDuration(604_800_000)).toBe('7 d')
    expect(formatDuration(1500)).toBe('1500 ms')
    expect(formatMemorySize(2 * 1024 ** 2)).toBe('2 mb')
    expect(formatMemorySize(1000)).toBe('1000 bytes')
  })

  it('round-trips through the parsers', () => {
    for (const ms of [0, 1, 999, 1000, 61_000, 3_600_000, 86_400_000 * 3]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms)
    }
    for (const bytes of [0, 1, 4096, 3 * 1024 ** 3, 1025])
      expect(parseMemorySize(formatMemorySize(bytes))).toBe(bytes)
  })
})
