import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import {
  bitmap64Of,
  bitmap64Values,
  deserializeBitmap64,
  orSerializedBitmap64,
  serializeBitmap64,
} from './roaring-bitmap64.js'

/**
 * Golden vectors from RoaringBitmap 1.3.0 (test/compat/java/rbm64-golden/Rbm64Golden.java):
 * bitmaps serialized as Fluss 0.9.1 serializes them and the bytes its rbm64 aggregation returns.
 */
interface Golden {
  readonly size: number
  readonly sha256: string
  readonly hex?: string
}
interface BitmapCase extends Golden {
  readonly kind: 'bitmap'
  readonly name: string
  readonly spec: string | null
}
interface AggCase extends Golden {
  readonly kind: 'agg'
  readonly acc: string
  readonly input: string
}
const fixture = JSON.parse(
  readFileSync(new URL('./test-fixtures/rbm64-golden.json', import.meta.url), 'utf8'),
) as { cases: (BitmapCase | AggCase)[] }
const bitmapCases = fixture.cases.filter((c): c is BitmapCase => c.kind === 'bitmap')
const aggCases = fixture.cases.filter((c): c is AggCase => c.kind === 'agg')
const byName = new Map(bitmapCases.map(c => [c.name, c]))

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')

/** The values of a spec in insertion order: `v` or `from..to/step` terms (to exclusive). */
function specValues(spec: string): bigint[] {
  const parse = (s: string) => (s.startsWith('-') ? -BigInt(s.slice(1)) : BigInt(s))
  const values: bigint[] = []
  for (const term of spec === '' ? [] : spec.split(',')) {
    const [from, rest] = term.split('..')
    if (rest === undefined) {
      values.push(parse(from))
      continue
    }
    const [to, step = '1'] = rest.split('/')
    const [end, by] = [parse(to), parse(step)]
    for (let v = parse(from); by > 0n ? v < end : v > end; v += by) values.push(v)
  }
  return values
}

function expectGolden(actual: Uint8Array, golden: Golden): void {
  if (golden.hex !== undefined) expect(hex(actual)).toBe(golden.hex)
  expect([actual.length, sha256(actual)]).toEqual([golden.size, golden.sha256])
}

function goldenBytes(name: string): Buffer {
  const c = byName.get(name) as BitmapCase
  if (c.hex !== undefined) return Buffer.from(c.hex, 'hex')
  return serializeBitmap64(bitmap64Of(specValues(c.spec as string)))
}

const sortedUnsigned = (values: bigint[]) =>
  [...new Set(values.map(v => BigInt.asUintN(64, v)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))

describe('Roaring64Bitmap serialization (RoaringBitmap 1.3.0, as Fluss writes rbm64 values)', () => {
  it('writes the bitmaps of the Fluss documentation byte for byte', () => {
    // not empty | 1 key | leaf: type 4, count 0, no prefix, key 0, container 0 |
    // 1 container array, not trimmed, length 1 | slot: present, array, 2 values 10, 20 |
    // 1 container, array 0, last slot 0
    expect(hex(serializeBitmap64(bitmap64Of([10, 20])))).toBe(
      '01' +
        '0100000000000000' +
        '04000000' +
        '000000000000' +
        '0000000000000000' +
        '01000000fe01000000' +
        '010202000000' +
        '0a001400' +
        '0100000000000000' +
        '00000000' +
        '00000000',
    )
    expect(hex(serializeBitmap64(bitmap64Of([])))).toBe('00')
  })

  it.each(bitmapCases.filter(c => c.spec !== null).map(c => [c.name, c] as const))(
    'serializes %s as Java does',
    (_name, c) => {
      const bitmap = bitmap64Of(specValues(c.spec as string))
      const bytes = serializeBitmap64(bitmap)
      expectGolden(bytes, c)
      expect(bitmap64Values(deserializeBitmap64(bytes))).toEqual(sortedUnsigned(specValues(c.spec as string)))
    },
  )

  it.each(bitmapCases.map(c => [c.name, c] as const))('reads %s and writes it back unchanged', (_name, c) => {
    const bytes = goldenBytes(c.name)
    expect(hex(serializeBitmap64(deserializeBitmap64(bytes)))).toBe(hex(bytes))
  })

  it('reads values above 2^32 and negative longs as unsigned 64-bit values', () => {
    expect(bitmap64Values(deserializeBitmap64(goldenBytes('signed')))).toEqual([
      0n,
      (1n << 63n) - 1n,
      1n << 63n,
      (1n << 64n) - 65536n,
      (1n << 64n) - 1n,
    ])
    expect(bitmap64Values(deserializeBitmap64(goldenBytes('after_removals')))).toEqual([
      18n << 16n,
      19n << 16n,
      (1n << 40n) + (1n << 16n),
    ])
  })
})

describe('rbm64 aggregation (Roaring64Bitmap.or as Fluss runs it)', () => {
  it.each(aggCases.map(c => [`${c.acc} | ${c.input}`, c] as const))(
    'merges %s into the bytes Java returns',
    (_name, c) => {
      const acc = goldenBytes(c.acc)
      const input = goldenBytes(c.input)
      const merged = orSerializedBitmap64(acc, input)
      expectGolden(merged, c)
      const union = [
        ...bitmap64Values(deserializeBitmap64(acc)),
        ...bitmap64Values(deserializeBitmap64(input)),
      ]
      expect(bitmap64Values(deserializeBitmap64(merged))).toEqual(sortedUnsigned(union))
    },
  )

  it('keeps the container kind Java keeps when a run is not smaller than the array', () => {
    // {0..9} as a run ORed with 8 isolated values: 9 runs (38 bytes) against 18 values (36 bytes).
    // Java's run union keeps the run although the array would be smaller; with 9 isolated values
    // (10 runs, 42 bytes, 19 values) it switches to the array.
    const kindAfter = (isolated: string) =>
      deserializeBitmap64(orSerializedBitmap64(goldenBytes('run_0_10'), goldenBytes(isolated))).slots[0]?.kind
    expect(kindAfter('isolated_8')).toBe('run')
    expect(kindAfter('isolated_9')).toBe('array')
    expect(deserializeBitmap64(goldenBytes('array_1_2_3')).slots[0]?.kind).toBe('array')
  })
})

describe('malformed Roaring64Bitmap bytes', () => {
  // of_10_20: tag | key count | leaf header (type, count, prefix length) | key | container index |
  // array count, trim mark, length | slot tag, type, cardinality | values | container count,
  // current array, last slot
  const good =
    '01' +
    '0100000000000000' +
    '04000000' +
    '000000000000' +
    '0000000000000000' +
    '01000000fe01000000' +
    '010202000000' +
    '0a001400' +
    '0100000000000000' +
    '00000000' +
    '00000000'
  const patch = (offset: number, bytes: string) =>
    Buffer.from(good.slice(0, 2 * offset) + bytes + good.slice(2 * offset + bytes.length), 'hex')

  const expectCorrupt = (bytes: Uint8Array, reason: RegExp) => {
    let error: unknown
    try {
      deserializeBitmap64(bytes)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(FlussError)
    expect(error).toMatchObject({ errorName: 'INVALID_REQUEST' })
    expect((error as Error).message).toMatch(/^Unable to deserialize 64-bit roaring bitmap: /)
    expect((error as Error).message).toMatch(reason)
  }

  it('names what is wrong', () => {
    expect(hex(serializeBitmap64(deserializeBitmap64(Buffer.from(good, 'hex'))))).toBe(good)
    expectCorrupt(patch(0, '02'), /unknown tag 2/)
    expectCorrupt(Buffer.from('0000', 'hex'), /bytes follow the empty tag/)
    expectCorrupt(patch(1, '02'), /key count 2 but 1 keys/)
    expectCorrupt(patch(9, '09'), /unknown node type 9/)
    expectCorrupt(patch(10, '01'), /leaf with child count 1/)
    expectCorrupt(patch(12, '80'), /negative prefix length -128/)
    expectCorrupt(patch(19, 'ffffffffffffffff'), /container index -1 is outside/)
    expectCorrupt(patch(19, '05'), /container index 5 is empty or shared/)
    expectCorrupt(patch(27, '02'), /2 container arrays/)
    expectCorrupt(patch(32, '00'), /container array length 0/)
    expectCorrupt(patch(36, '07'), /container tag 7/)
    expectCorrupt(patch(37, '03'), /unknown container type 3/)
    expectCorrupt(patch(38, '03'), /array container values are not increasing/)
    expectCorrupt(patch(42, '14000a00'), /array container values are not increasing/)
    expectCorrupt(patch(37, '01'), /bitmap container runs past the end/)
    expectCorrupt(patch(46, '02'), /container count 2/)
    expectCorrupt(patch(54, '01'), /container array position 1\/0/)
    expectCorrupt(patch(58, '01'), /container array position 0\/1/)
    expectCorrupt(Buffer.concat([Buffer.from(good, 'hex'), Buffer.alloc(1)]), /1 bytes follow the bitmap/)
  })

  it('checks the tree against its keys and the containers against their cardinality', () => {
    // node4_full: a Node4 with the 5-byte prefix 0 0 0 0 0 and keys 0..3 over 4 leaves
    const node4 = goldenBytes('node4_full')
    const keysAt = 9 + 4 + 5
    expect(hex(node4.subarray(keysAt, keysAt + 4))).toBe('03020100')
    const unsorted = Buffer.from(node4)
    unsorted.write('00010203', keysAt, 'hex')
    expectCorrupt(unsorted, /node4 keys are not increasing/)
    const leafKey = node4.indexOf(Buffer.from('0400000000000000000000', 'hex'))
    const wrongPath = Buffer.from(node4)
    wrongPath[leafKey + 4] = 9
    expectCorrupt(wrongPath, /a leaf key does not match its tree path/)
    const run = goldenBytes('run_0_10')
    const card = run.length - 16 - 4 - 2 - 4
    const wrongCardinality = Buffer.from(run)
    wrongCardinality[card] = 11
    expectCorrupt(wrongCardinality, /run container is not of cardinality 11/)
  })

  it('refuses every truncation and never fails with anything but INVALID_REQUEST', () => {
    for (const name of ['high', 'after_removals', 'node16_full', 'run_0_10']) {
      const bytes = goldenBytes(name)
      for (let n = 0; n < bytes.length; n++) expectCorrupt(bytes.subarray(0, n), /./)
      for (let i = 0; i < bytes.length; i++) {
        for (const flip of [0x01, 0x80, 0xff]) {
          const changed = Buffer.from(bytes)
          changed[i] ^= flip
          try {
            serializeBitmap64(deserializeBitmap64(changed))
            orSerializedBitmap64(changed, bytes)
          } catch (e) {
            expect(e).toMatchObject({ errorName: 'INVALID_REQUEST' })
          }
        }
      }
    }
  })
})
