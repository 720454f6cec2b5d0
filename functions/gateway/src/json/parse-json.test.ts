import { describe, expect, it } from 'vitest'
import { GatewayError } from '../errors/gateway-error.js'
import { LongNumber } from './long-number.js'
import { parseJsonBody } from './parse-json.js'

const bytes = (s: string) => new TextEncoder().encode(s)

function rejection(body: Uint8Array | string, depth = 16): GatewayError {
  try {
    parseJsonBody(typeof body === 'string' ? bytes(body) : body, depth)
  } catch (e) {
    expect(e).toBeInstanceOf(GatewayError)
    return e as GatewayError
  }
  throw new Error('expected a rejection')
}

describe('parseJsonBody', () => {
  it('parses plain documents with the native parser result', () => {
    expect(parseJsonBody(bytes('{"a":[1,"x",{"b":null}],"c":true}'), 8)).toEqual({
      a: [1, 'x', { b: null }],
      c: true,
    })
  })

  it('refuses empty, whitespace-only and non-JSON bodies with invalid_argument', () => {
    expect(rejection('').message).toMatch(/empty/)
    expect(rejection('  \n').message).toMatch(/empty/)
    const e = rejection('{"a":')
    expect(e.code).toBe('invalid_argument')
    expect(e.status).toBe(400)
  })

  it('refuses invalid UTF-8 (bad bytes, lone surrogates, overlong forms), ignores a leading BOM', () => {
    for (const bad of [
      [0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d],
      [0x22, 0xed, 0xa0, 0x80, 0x22],
      [0x22, 0xc0, 0xaf, 0x22],
      [0x22, 0xe2, 0x82],
    ]) {
      expect(rejection(new Uint8Array(bad)).message).toMatch(/UTF-8/)
    }
    expect(parseJsonBody(bytes('\ufeff{"a":"é€😀"}'), 4)).toEqual({ a: 'é€😀' })
  })

  it('refuses duplicate keys, also when written with escapes, but not in sibling objects', () => {
    expect(rejection('{"a":1,"a":2}').message).toMatch(/"a" twice/)
    expect(rejection('{"rows":[{"id":1,"\\u0069d":2}]}').message).toMatch(/"id" twice/)
    expect(parseJsonBody(bytes('[{"a":1},{"a":2}]'), 8)).toEqual([{ a: 1 }, { a: 2 }])
    expect(parseJsonBody(bytes('{"a":{"a":1},"b":"a"}'), 8)).toEqual({ a: { a: 1 }, b: 'a' })
    expect(rejection('{"x":{"a":1,"b":2},"y":[{"k":0,"k":{"z":1}}]}').message).toMatch(/"k" twice/)
    expect(rejection('{"a":{"p":1,"q":2},"a":{"p":1,"q":2,"r":3}}').message).toMatch(/"a" twice/)
    expect(rejection('{"__proto__":1,"__proto__":2}').message).toMatch(/"__proto__" twice/)
    expect(parseJsonBody(bytes('{"__proto__":{"a":1},"2":{"b":1},"1":[{"c":{}}]}'), 8)).toEqual(
      JSON.parse('{"__proto__":{"a":1},"2":{"b":1},"1":[{"c":{}}]}'),
    )
  })

  it('refuses nesting beyond the limit, even 10k levels deep', () => {
    expect(rejection('[[[[1]]]]', 3).message).toMatch(/deeper than 3/)
    expect(parseJsonBody(bytes('[[[1]]]'), 3)).toEqual([[[1]]])
    const deep = `${'{"a":['.repeat(10_000)}1${']}'.repeat(10_000)}`
    expect(rejection(deep).message).toMatch(/deeper than 16/)
  })

  it('keeps number literals a double cannot hold as LongNumber', () => {
    const v = parseJsonBody(
      bytes('{"d":12345678901234567.5,"big":123456789012345678901,"safe":9007199254740991,"f":0.1,"s":"9"}'),
      8,
    ) as Record<string, unknown>
    expect(v.d).toEqual(new LongNumber('12345678901234567.5'))
    expect(v.big).toEqual(new LongNumber('123456789012345678901'))
    expect(v.safe).toBe(9007199254740991)
    expect(v.f).toBe(0.1)
    expect(v.s).toBe('9')
  })

  it('treats 17-digit doubles as long but gives them the same double value', () => {
    const v = parseJsonBody(bytes('[0.30000000000000004, 1e400, -0.0]'), 8) as unknown[]
    expect((v[0] as LongNumber).toNumber()).toBe(0.30000000000000004)
    expect(v[1]).toBe(Infinity)
    expect(Object.is(v[2], -0)).toBe(true)
  })

  it('keeps a "__proto__" key as an own property in both parsers', () => {
    const fast = parseJsonBody(bytes('{"__proto__":{"x":1}}'), 8) as Record<string, unknown>
    expect(Object.hasOwn(fast, '__proto__')).toBe(true)
    const slow = parseJsonBody(bytes('{"__proto__":{"x":1},"n":12345678901234567890.5}'), 8) as Record<
      string,
      unknown
    >
    expect(Object.hasOwn(slow, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).x).toBeUndefined()
  })

  it('parses strings with escaped quotes and backslashes in the exact parser', () => {
    const v = parseJsonBody(bytes('{"k\\"\\\\":"v\\\\\\"x","n":1.0000000000000000001}'), 8) as Record<
      string,
      unknown
    >
    expect(v['k"\\']).toBe('v\\"x')
    expect(v.n).toEqual(new LongNumber('1.0000000000000000001'))
  })
})
