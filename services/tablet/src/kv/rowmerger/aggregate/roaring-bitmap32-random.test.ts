import { createHash, type Hash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { randomCase } from '../../../testing/roaring-bitmaps.js'
import { orSerializedBitmap32, writeBitmap32 } from './roaring-bitmap32.js'

/**
 * Seeded random pairs of the rbm32 golden vectors (Rbm32Golden.java): bitmaps of explicit
 * container kinds (arrays, bitmaps, runs, runs split into adjacent ones) at keys 0, 1, 2 and 65535,
 * in shapes around the 4096-value, 2047-run and run/array-tie limits. The fixture holds the size
 * of every merged value and, per batch, the SHA-256 of the inputs and of the merged bytes.
 * `java -cp <classes>:<RoaringBitmap jar> Rbm32Golden --case N` prints one case in hex.
 */
interface RandomCases {
  readonly kind: 'random'
  readonly seed: number
  readonly count: number
  readonly batch: number
  readonly sizes: number[]
  readonly inputsSha256: string[]
  readonly resultsSha256: string[]
}
const fixture = JSON.parse(
  readFileSync(new URL('./test-fixtures/rbm32-golden.json', import.meta.url), 'utf8'),
) as { cases: { kind: string }[] }
const random = fixture.cases.find((c): c is RandomCases => c.kind === 'random') as RandomCases

function digest(hash: Hash, bytes: Uint8Array): void {
  const length = Buffer.alloc(4)
  length.writeInt32LE(bytes.length)
  hash.update(length).update(bytes)
}

describe('rbm32 aggregation on seeded random bitmaps', () => {
  it(`merges all ${random.count} pairs into the bytes Java returns`, () => {
    const sizes: number[] = []
    const inputDigests: string[] = []
    const resultDigests: string[] = []
    let inputs = createHash('sha256')
    let results = createHash('sha256')
    for (let i = 0; i < random.count; i++) {
      const [acc, input] = randomCase(random.seed, i).map(writeBitmap32)
      const merged = orSerializedBitmap32(acc, input)
      sizes.push(merged.length)
      digest(inputs, acc)
      digest(inputs, input)
      digest(results, merged)
      if ((i + 1) % random.batch === 0 || i + 1 === random.count) {
        inputDigests.push(inputs.digest('hex'))
        resultDigests.push(results.digest('hex'))
        inputs = createHash('sha256')
        results = createHash('sha256')
      }
    }
    expect(inputDigests).toEqual(random.inputsSha256)
    const wrongSizes = sizes.flatMap((size, i) => (size === random.sizes[i] ? [] : [`case ${i}: ${size}`]))
    expect(wrongSizes).toEqual([])
    expect(resultDigests).toEqual(random.resultsSha256)
  })
})
