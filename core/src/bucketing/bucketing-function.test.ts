import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import {
  bucketForKey,
  bucketingFunction,
  icebergBucketForKey,
  paimonBucketForKey,
} from './bucketing-function.js'
import { flussMurmurHash, murmur3x86_32, murmurHashInt } from './murmur.js'

const utf8 = (s: string) => new TextEncoder().encode(s)
const vectors: [Uint8Array, number][] = [
  [new Uint8Array([0, 10]), 7],
  [new Uint8Array([0, 10, 10, 10]), 12],
  [utf8('2bb87d68-baf9-4e64-90f9-f80910419fa6'), 16],
  [utf8('The quick brown fox jumps over the lazy dog'), 8],
]

describe('bucketing functions (BucketingFunctionTest vectors)', () => {
  it('Fluss default bucketing gives 1, 0, 6, 6', () => {
    expect(vectors.map(([k, n]) => bucketForKey(k, n))).toEqual([1, 0, 6, 6])
  })

  it('Lance tables use the Fluss function', () => {
    const lance = bucketingFunction('lance')
    expect(vectors.map(([k, n]) => lance(k, n))).toEqual([1, 0, 6, 6])
    expect(bucketingFunction(null)).toBe(bucketForKey)
  })

  it('Paimon bucketing gives 1, 11, 12, 0', () => {
    expect(vectors.map(([k, n]) => paimonBucketForKey(k, n))).toEqual([1, 11, 12, 0])
    expect(bucketingFunction('paimon')).toBe(paimonBucketForKey)
  })

  it('Iceberg bucketing gives 3, 4, 12, 3', () => {
    expect(vectors.map(([k, n]) => icebergBucketForKey(k, n))).toEqual([3, 4, 12, 3])
    expect(bucketingFunction('iceberg')).toBe(icebergBucketForKey)
  })

  it('rejects empty keys, bad bucket counts and unknown lake formats', () => {
    expect(() => bucketForKey(new Uint8Array(), 3)).toThrow('Assigned key must not be empty!')
    expect(() => bucketForKey(new Uint8Array([1]), 0)).toThrow(FlussError)
    expect(() => icebergBucketForKey(new Uint8Array([1]), 1.5)).toThrow(/positive int/)
    expect(() => bucketingFunction('hudi' as never)).toThrow(/Unsupported lake format: hudi/)
  })

  it('bucket a key inside a larger buffer by its range as they bucket the key alone', () => {
    for (const [key, n] of vectors) {
      for (const pad of [0, 1, 3]) {
        const framed = new Uint8Array(pad + key.length + 2).fill(0xa5)
        framed.set(key, pad)
        for (const f of [bucketForKey, paimonBucketForKey, icebergBucketForKey]) {
          expect(f(framed, n, pad, pad + key.length)).toBe(f(key, n))
        }
      }
    }
    expect(() => bucketForKey(new Uint8Array([1, 2]), 3, 1, 1)).toThrow('Assigned key must not be empty!')
  })

  it('always lands in [0, numBuckets)', () => {
    for (let i = 0; i < 2000; i++) {
      const key = utf8(`key-${i}`)
      const n = 1 + (i % 37)
      for (const f of [bucketForKey, paimonBucketForKey, icebergBucketForKey]) {
        const b = f(key, n)
        expect(b >= 0 && b < n && Number.isInteger(b)).toBe(true)
      }
    }
  })
})

describe('murmur variants', () => {
  it('standard MurmurHash3 x86_32 matches published vectors', () => {
    expect(murmur3x86_32(new Uint8Array(), 0)).toBe(0)
    expect(murmur3x86_32(new Uint8Array(), 1) >>> 0).toBe(0x514e28b7)
    expect(murmur3x86_32(new Uint8Array([0xff, 0xff, 0xff, 0xff]), 0) >>> 0).toBe(0x76293b50)
    expect(murmur3x86_32(new Uint8Array([0x21, 0x43, 0x65]), 0) >>> 0).toBe(0x7e4a8634)
    expect(murmur3x86_32(utf8('The quick brown fox jumps over the lazy dog'), 0) >>> 0).toBe(0x2e4ff723)
  })

  it('Fluss hash equals the standard one when there is no tail', () => {
    const key = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])
    expect(flussMurmurHash(key, 42)).toBe(murmur3x86_32(key, 42))
  })

  it('Fluss hash mixes each tail byte separately and sign-extended', () => {
    const key = new Uint8Array([0x80])
    expect(flussMurmurHash(key, 0)).not.toBe(murmur3x86_32(key, 0))
  })

  it('murmurHashInt is never negative, mapping MIN_VALUE results to 0', () => {
    for (const v of [0, 1, -1, 0x7fffffff, -0x80000000, 123456789]) {
      expect(murmurHashInt(v)).toBeGreaterThanOrEqual(0)
    }
  })
})
