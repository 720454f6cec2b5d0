import { describe, expect, it } from 'vitest'
import { compareUtf8 } from '../parquet/column-stats.js'
import { compareIcebergValues, decimalBytes, fromBoundBytes, toBoundBytes } from './conversions.js'

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')

describe('single-value serialization', () => {
  it('encodes as the spec appendix D says', () => {
    expect(hex(toBoundBytes('int', 1))).toBe('01000000')
    expect(hex(toBoundBytes('date', -1))).toBe('ffffffff')
    expect(hex(toBoundBytes('long', 1n))).toBe('0100000000000000')
    expect(hex(toBoundBytes('timestamptz', 1_700_000_000_000_000n))).toBe(
      Buffer.from(new BigInt64Array([1_700_000_000_000_000n]).buffer).toString('hex'),
    )
    expect(hex(toBoundBytes('string', 'é'))).toBe('c3a9')
    expect(hex(toBoundBytes('boolean', true))).toBe('01')
    expect(hex(decimalBytes(1420n))).toBe('058c')
    expect(hex(decimalBytes(-1n))).toBe('ff')
    expect(hex(decimalBytes(128n))).toBe('0080')
    expect(hex(decimalBytes(-129n))).toBe('ff7f')
    expect(hex(decimalBytes(0n))).toBe('00')
  })

  it('decodes what it encodes and refuses wrong sizes', () => {
    for (const [type, v] of [
      ['int', -5],
      ['long', -(2n ** 63n)],
      ['decimal(38, 0)', 10n ** 37n],
      ['string', 'abc'],
      ['time', 5n],
    ] as const) {
      expect(fromBoundBytes(type, toBoundBytes(type, v))).toEqual(v)
    }
    expect(() => fromBoundBytes('int', new Uint8Array(3))).toThrow(
      expect.objectContaining({ name: 'FlussError(CORRUPT_MESSAGE)' }),
    )
    expect(() => fromBoundBytes('string', new Uint8Array([0xff]))).toThrow(/UTF-8/)
    expect(() => toBoundBytes('struct<>', 1)).toThrow(
      expect.objectContaining({ name: 'FlussError(INVALID_REQUEST)' }),
    )
  })

  it('orders strings by UTF-8 bytes, also beyond the BMP', () => {
    const pairs: [string, string][] = [
      ['a', 'b'],
      ['ab', 'abc'],
      ['\uffff', '😀'],
      ['z', 'é'],
    ]
    for (const [a, b] of pairs) {
      expect(compareUtf8(a, b)).toBeLessThan(0)
      expect(compareIcebergValues(a, b)).toBeLessThan(0)
      expect(Math.sign(compareUtf8(b, a))).toBe(1)
    }
  })
})
