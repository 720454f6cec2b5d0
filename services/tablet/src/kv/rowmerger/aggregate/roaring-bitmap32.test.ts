import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { explicitBitmap32, specValues } from '../../../testing/roaring-bitmaps.js'
import {
  bitmap32Of,
  bitmap32Values,
  deserializeBitmap32,
  orSerializedBitmap32,
  serializeBitmap32,
  writeBitmap32,
} from './roaring-bitmap32.js'

/**
 * Golden vectors from RoaringBitmap 1.3.0 (test/compat/java/rbm32-golden/Rbm32Golden.java):
 * bitmaps as Fluss 0.9.1 serializes them (form `fluss`), bitmaps whose container kinds another
 * writer chose (`explicit`, `hex`), and the bytes Fluss's rbm32 aggregation returns for pairs.
 */
interface Golden {
  readonly size: number
  readonly sha256: string
  readonly hex?: string
}
interface BitmapCase extends Golden {
  readonly kind: 'bitmap'
  readonly name: string
  readonly form: 'fluss' | 'explicit' | 'hex'
  readonly spec: string
}
interface AggCase extends Golden {
  readonly kind: 'agg'
  readonly acc: string
  readonly input: string
}
const fixture = JSON.parse(
  readFileSync(new URL('./test-fixtures/rbm32-golden.json', import.meta.url), 'utf8'),
) as { cases: (BitmapCase | AggCase | { kind: 'random' })[] }
const bitmapCases = fixture.cases.filter((c): c is BitmapCase => c.kind === 'bitmap')
const aggCases = fixture.cases.filter((c): c is AggCase => c.kind === 'agg')
const byName = new Map(bitmapCases.map(c => [c.name, c]))

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')
const range = (from: number, to: number, step = 1) => specValues(`${from}..${to}/${step}`)

function expectGolden(actual: Uint8Array, golden: Golden): void {
  if (golden.hex !== undefined) expect(hex(actual)).toBe(golden.hex)
  expect([actual.length, sha256(actual)]).toEqual([golden.size, golden.sha256])
}

/** Our bytes for a golden bitmap: built from its spec (checked against Java's below). */
function buildBytes(c: BitmapCase): Buffer {
  if (c.form === 'fluss') return serializeBitmap32(bitmap32Of(specValues(c.spec)))
  if (c.form === 'explicit') return writeBitmap32(explicitBitmap32(c.spec))
  return Buffer.from(c.spec, 'hex')
}

function goldenBytes(name: string): Buffer {
  const c = byName.get(name) as BitmapCase
  return c.hex !== undefined ? Buffer.from(c.hex, 'hex') : buildBytes(c)
}

const sortedUnique = (values: number[]) => [...new Set(values)].sort((a, b) => a - b)
/** Compares value lists as text: toEqual on 65536-element arrays is slow. */
const expectValues = (actual: number[], expected: number[]) => expect(actual.join()).toBe(expected.join())
const kindsOf = (bytes: Uint8Array) => deserializeBitmap32(bytes).containers.map(c => c.kind)
const runsOf = (bytes: Uint8Array) => {
  const c = deserializeBitmap32(bytes).containers[0]
  return c?.kind === 'run' ? [...c.runs] : null
}

describe('RoaringBitmap serialization (RoaringBitmap 1.3.0, as Fluss writes rbm32 values)', () => {
  it('writes the portable format byte for byte', () => {
    // cookie 12346 | 1 container | key 0, cardinality-1 = 1 | offset 16 | values 1, 2
    expect(hex(serializeBitmap32(bitmap32Of([1, 2])))).toBe(
      '3a300000' + '01000000' + '00000100' + '10000000' + '01000200',
    )
    // cookie 12347 | (1 - 1) << 16 | run bitset 0x01 | key 0, cardinality-1 = 99 | 1 run: 0, 99
    expect(hex(serializeBitmap32(bitmap32Of(range(0, 100))))).toBe(
      '3b300000' + '01' + '00006300' + '0100' + '00006300',
    )
    expect(hex(serializeBitmap32(bitmap32Of([])))).toBe('3a30000000000000')
  })

  it.each(bitmapCases.filter(c => c.form !== 'hex').map(c => [c.form, c.name, c] as const))(
    'builds the %s bitmap %s as Java does',
    (_form, _name, c) => {
      const bytes = buildBytes(c)
      expectGolden(bytes, c)
      const values = c.form === 'fluss' ? specValues(c.spec) : bitmap32Values(explicitBitmap32(c.spec))
      expectValues(bitmap32Values(deserializeBitmap32(bytes)), sortedUnique(values))
    },
  )

  it.each(bitmapCases.filter(c => c.form !== 'hex').map(c => [c.name] as const))(
    'reads %s and writes it back unchanged, container kinds and runs included',
    name => {
      const bytes = goldenBytes(name)
      expect(hex(writeBitmap32(deserializeBitmap32(bytes)))).toBe(hex(bytes))
    },
  )

  it('reads unsigned 32-bit values up to 2^32 - 1', () => {
    expect(bitmap32Values(deserializeBitmap32(goldenBytes('top_array')))).toEqual([
      0x7fffffff, 0x80000000, 0xfffffffe,
    ])
    expect(bitmap32Values(deserializeBitmap32(goldenBytes('max')))).toEqual([0xffffffff])
  })
})

describe('rbm32 aggregation (RoaringBitmap.or, runOptimize, serialize as Fluss runs them)', () => {
  it.each(aggCases.map(c => [`${c.acc} | ${c.input}`, c] as const))(
    'merges %s into the bytes Java returns',
    (_name, c) => {
      const acc = goldenBytes(c.acc)
      const input = goldenBytes(c.input)
      const merged = orSerializedBitmap32(acc, input)
      expectGolden(merged, c)
      const union = [
        ...bitmap32Values(deserializeBitmap32(acc)),
        ...bitmap32Values(deserializeBitmap32(input)),
      ]
      expectValues(bitmap32Values(deserializeBitmap32(merged)), sortedUnique(union))
    },
  )

  it('keeps a run from a union with runs while it is no larger than the array plus 2 bytes', () => {
    const merge = (a: string, b: string) => orSerializedBitmap32(goldenBytes(a), goldenBytes(b))
    // {0..9} | 8 isolated values: 9 runs (38 bytes) against 18 values (36 + 2 bytes): run
    expect(kindsOf(merge('run_0_10', 'isolated_8'))).toEqual(['run'])
    expect(kindsOf(merge('isolated_8', 'run_0_10'))).toEqual(['run'])
    // 9 isolated values: 10 runs (42 bytes) against 19 values (38 + 2): array
    expect(kindsOf(merge('run_0_10', 'isolated_9'))).toEqual(['array'])
    // {1, 2, 3} | {7}: 2 runs (10 bytes) against 4 values (8 + 2): run
    expect(kindsOf(merge('run_1_3', 'one_7'))).toEqual(['run'])
    // the same set from two arrays: runOptimize wants strictly smaller runs, so an array
    expect(kindsOf(merge('array_1_2_3', 'empty'))).toEqual(['array'])
    expect(kindsOf(merge('run_1_3', 'empty'))).toEqual(['run'])
  })

  it('keeps runs as written when runOptimize leaves the container, and rebuilds them on a union', () => {
    const merge = (a: string, b: string) => orSerializedBitmap32(goldenBytes(a), goldenBytes(b))
    expect(runsOf(merge('run_adjacent', 'empty'))).toEqual([0, 4, 5, 4])
    expect(runsOf(merge('run_adjacent', 'one_7'))).toEqual([0, 9])
    expect(runsOf(merge('run_adjacent_full', 'empty'))).toEqual([0, 32767, 32768, 32767])
    expect(runsOf(merge('run_adjacent_full', 'of_1_2'))).toEqual([0, 65535])
    // 4 single-value runs (18 bytes) are larger than 4 values (8 + 2): runOptimize makes an array
    expect(kindsOf(merge('empty', 'run_inefficient'))).toEqual(['array'])
    expect(kindsOf(merge('run_singles_5000', 'empty'))).toEqual(['bitmap'])
  })

  it('turns two arrays above 4096 values into a bitmap, or back into an array when they overlap', () => {
    const merge = (a: string, b: string) => orSerializedBitmap32(goldenBytes(a), goldenBytes(b))
    expect(kindsOf(merge('by4_2048', 'by4_2048_b'))).toEqual(['array'])
    expect(kindsOf(merge('by4_2048', 'by4_2049_b'))).toEqual(['bitmap'])
    expect(kindsOf(merge('by4_3000', 'by8_1500'))).toEqual(['array'])
    expect(kindsOf(merge('evens_all', 'odds_all'))).toEqual(['run'])
  })
})
