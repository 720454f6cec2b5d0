import { describe, expect, it } from 'vitest'
import { parseJson, stringifyJson } from './json.js'

describe('lossless JSON', () => {
  it('keeps 63-bit integers exact and round-trips compact text byte for byte', () => {
    const text =
      '{"format-version":2,"current-snapshot-id":6838723292707092922,"snapshots":[{"snapshot-id":6838723292707092922,"sequence-number":1,"summary":{"operation":"append"}}],"ratio":0.5,"neg":-9223372036854775808,"s":"a\\"bé"}'
    const v = parseJson(text) as Record<string, unknown>
    expect(v['current-snapshot-id']).toBe(6838723292707092922n)
    expect(v.neg).toBe(-9223372036854775808n)
    expect(v.ratio).toBe(0.5)
    expect(v.s).toBe('a"bé')
    expect(stringifyJson(v)).toBe(text)
  })

  it('keeps safe integers as numbers and writes bigints as literals', () => {
    expect(parseJson('[1,9007199254740991,9007199254740992]')).toEqual([
      1,
      9007199254740991,
      9007199254740992n,
    ])
    expect(stringifyJson({ a: 2n ** 62n, b: [1n], c: undefined })).toBe('{"a":4611686018427387904,"b":[1]}')
  })

  it('preserves member order and keys like __proto__', () => {
    const v = parseJson('{"b":1,"__proto__":2,"a":3}') as Record<string, unknown>
    expect(Object.keys(v)).toEqual(['b', '__proto__', 'a'])
    expect(stringifyJson(v)).toBe('{"b":1,"__proto__":2,"a":3}')
  })

  it.each([
    ['{"a":1', 'expected'],
    ['{"a" 1}', "expected ':'"],
    ['[1,]', 'unexpected character'],
    ['"abc', 'unterminated string'],
    ['"a\\x"', 'malformed string escape'],
    ['{} x', 'trailing characters'],
    ['', 'unexpected end'],
    ['"tab\there"', 'control character'],
  ])('refuses %j with CORRUPT_MESSAGE', (text, what) => {
    expect(() => parseJson(text)).toThrow(
      expect.objectContaining({
        name: 'FlussError(CORRUPT_MESSAGE)',
        message: expect.stringContaining(what),
      }),
    )
  })
})
