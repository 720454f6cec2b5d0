import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { option } from './option.js'

function expectFlussError(fn: () => unknown): FlussError {
  const e = captureError(fn)
  expect(e).toBeInstanceOf(FlussError)
  expect((e as FlussError).errorName).toBe('INVALID_CONFIG_EXCEPTION')
  return e as FlussError
}

function captureError(fn: () => unknown): unknown {
  try {
    fn()
  } catch (e) {
    return e
  }
  throw new Error('expected an error')
}

describe('option kinds', () => {
  it('parses each kind from strings and JSON values', () => {
    expect(option('a.s').string().parse('x')).toBe('x')
    expect(option('a.i').int().parse(' 42 ')).toBe(42)
    expect(option('a.i').int().parse(-7)).toBe(-7)
    expect(option('a.l').long().parse('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER)
    expect(option('a.d').double().parse('0.75')).toBe(0.75)
    expect(option('a.b').boolean().parse('TRUE')).toBe(true)
    expect(option('a.b').boolean().parse(false)).toBe(false)
    expect(option('a.t').duration().parse('3min')).toBe(180_000)
    expect(option('a.m').memory().parse('2mb')).toBe(2 * 1024 * 1024)
    expect(option('a.li').list().parse(' x, y ,,z ')).toEqual(['x', 'y', 'z'])
    expect(option('a.li').list().parse(['x', 'y'])).toEqual(['x', 'y'])
  })

  it('takes JSON numbers and booleans as text for strings and enums', () => {
    expect(option('a.s').string().parse(12)).toBe('12')
    expect(option('a.acks').enum(['all', '-1', '0', '1']).parse(-1)).toBe('-1')
  })

  it('matches enums case-insensitively and returns the registered spelling', () => {
    const opt = option('a.e').enum(['FIRST_ROW', 'VERSIONED'] as const)
    expect(opt.parse('first_row')).toBe('FIRST_ROW')
    expect(opt.parse(' Versioned ')).toBe('VERSIONED')
  })

  it('checks every element of an enum list', () => {
    const opt = option('a.el').enumList(['LZ4', 'ZSTD'] as const)
    expect(opt.parse('lz4,ZSTD')).toEqual(['LZ4', 'ZSTD'])
    const e = expectFlussError(() => opt.parse('LZ4,GZIP'))
    expect(e.message).toContain("'a.el'")
    expect(e.message).toContain('LZ4, ZSTD')
  })

  it.each([
    ['string', option('k.string').string(), { a: 1 }],
    ['int', option('k.int').int(), '4.5'],
    ['int over 32 bits', option('k.int').int(), '2147483648'],
    ['long', option('k.long').long(), 'ten'],
    ['double', option('k.double').double(), 'NaN'],
    ['boolean', option('k.boolean').boolean(), 'yes'],
    ['duration', option('k.duration').duration(), '5 weeks'],
    ['duration object', option('k.duration').duration(), { s: 1 }],
    ['memory', option('k.memory').memory(), '5 zb'],
    ['list', option('k.list').list(), 7],
    ['enum', option('k.enum').enum(['A', 'B']), 'C'],
    ['enum non-string', option('k.enum').enum(['A', 'B']), [1]],
  ] as const)('rejects a bad %s with INVALID_CONFIG_EXCEPTION naming the key', (_, opt, raw) => {
    const e = expectFlussError(() => opt.parse(raw))
    expect(e.code).toBe(39)
    expect(e.message).toContain(`'${opt.key}'`)
    expect(e.message).toMatch(/expected /)
  })
})

describe('ranges', () => {
  const zstd = option('z.level').int().default(3).range(1, 22)
  const size = option('z.size').memory().default('1gb').range(1, '2gb')
  const wait = option('z.wait').duration().default('500ms').range(0, '1min')

  it('accepts the bounds themselves', () => {
    expect(zstd.parse('1')).toBe(1)
    expect(zstd.parse('22')).toBe(22)
    expect(size.parse('2gb')).toBe(2 * 1024 ** 3)
    expect(wait.parse('1min')).toBe(60_000)
  })

  it('rejects values outside, showing the bound in the option notation', () => {
    expect(expectFlussError(() => zstd.parse('23')).message).toContain('at most 22')
    expect(expectFlussError(() => zstd.parse(0)).message).toContain('at least 1')
    expect(expectFlussError(() => size.parse('3gb')).message).toContain('at most 2 gb')
    expect(expectFlussError(() => wait.parse('2min')).message).toContain('at most 1 min')
  })
})

describe('builder', () => {
  it('parses defaults given in the option notation', () => {
    expect(option('d.t').duration().default('7d').defaultValue).toBe(604_800_000)
    expect(option('d.e').enum(['ZSTD', 'NONE']).default('zstd').defaultValue).toBe('ZSTD')
    expect(option('d.l').list().default('a,b').defaultValue).toEqual(['a', 'b'])
    expect(option('d.n').int().noDefault().defaultValue).toBeUndefined()
  })

  it('formats values the way Fluss stores properties', () => {
    expect(option('f.t').duration().format(180_000)).toBe('3min')
    expect(option('f.m').memory().format(4096)).toBe('4kb')
    expect(option('f.l').list().format(['a', 'b'])).toBe('a,b')
    expect(option('f.b').boolean().format(true)).toBe('true')
  })

  it('checks string patterns', () => {
    const opt = option('p.uri')
      .string()
      .matching(/^s3:\/\//, "'s3://bucket'")
    expect(opt.parse('s3://b')).toBe('s3://b')
    expect(expectFlussError(() => opt.parse('http://b')).message).toContain("'s3://bucket'")
  })

  it('keeps secrets out of error messages', () => {
    const opt = option('p.secret')
      .string()
      .isSecret()
      .matching(/^[a-z]+$/, 'lower-case letters')
    const e = expectFlussError(() => opt.parse('Hunter2'))
    expect(e.message).not.toContain('Hunter2')
  })

  it('records scope, alterability and fallback keys', () => {
    const opt = option('t.x').boolean().inScope('table').canAlter().withFallbackKeys('t.old-x')
    expect(opt.scope).toBe('table')
    expect(opt.alterable).toBe(true)
    expect(opt.fallbackKeys).toEqual(['t.old-x'])
  })
})
