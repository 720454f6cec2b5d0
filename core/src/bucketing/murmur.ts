/**
 * The 32-bit Murmur3 variants Fluss buckets with. All arithmetic is on signed 32-bit integers
 * (`Math.imul`, `| 0`), matching Java `int` overflow.
 */

const C1 = 0xcc9e2d51 | 0
const C2 = 0x1b873593 | 0

/** Fluss's `MurmurHashUtils.DEFAULT_SEED`. */
export const FLUSS_MURMUR_SEED = 42

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r))
}

function mixK1(k: number): number {
  return Math.imul(rotl(Math.imul(k, C1), 15), C2)
}

function mixH1(h: number, k: number): number {
  return (Math.imul(rotl(h ^ k, 13), 5) + 0xe6546b64) | 0
}

/** Murmur3's 32-bit finalizer (`fmix32`, also Fluss's `MathUtils.bitMix`). */
export function fmix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return h ^ (h >>> 16)
}

function bodyHash(bytes: Uint8Array, start: number, alignedEnd: number, seed: number): number {
  let h = seed | 0
  for (let i = start; i < alignedEnd; i += 4) {
    const k = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24)
    h = mixH1(h, mixK1(k))
  }
  return h
}

/**
 * Fluss's `MurmurHashUtils.hashBytes` / `hashUnsafeBytes`: the Murmur3 x86_32 body over 4-byte
 * little-endian blocks, but **each tail byte is mixed as its own block, sign-extended**, then
 * `fmix32(h ^ length)`. Returns a signed int32. Hashes `bytes[start, end)` (default all of it),
 * so that a key inside a larger buffer needs no view of its own.
 */
export function flussMurmurHash(
  bytes: Uint8Array,
  seed = FLUSS_MURMUR_SEED,
  start = 0,
  end = bytes.length,
): number {
  const n = end - start
  const alignedEnd = end - (n & 3)
  let h = bodyHash(bytes, start, alignedEnd, seed)
  for (let i = alignedEnd; i < end; i++) h = mixH1(h, mixK1((bytes[i] << 24) >> 24))
  return fmix32(h ^ n)
}

/** Fluss's `MathUtils.murmurHash(int)`: one more Murmur round on an int, made non-negative. */
export function murmurHashInt(code: number): number {
  let h = mixH1(0, mixK1(code)) ^ 4
  h = fmix32(h)
  if (h >= 0) return h
  return h === -2147483648 ? 0 : -h
}

/**
 * Standard MurmurHash3 x86_32 (Guava's `murmur3_32_fixed`, used by Iceberg's bucket transform):
 * the tail bytes are combined, unsigned, into one block. Returns a signed int32. Hashes
 * `bytes[start, end)` (default all of it).
 */
export function murmur3x86_32(bytes: Uint8Array, seed = 0, start = 0, end = bytes.length): number {
  const n = end - start
  const alignedEnd = end - (n & 3)
  let h = bodyHash(bytes, start, alignedEnd, seed)
  const tail = n & 3
  if (tail > 0) {
    let k = 0
    if (tail === 3) k ^= bytes[alignedEnd + 2] << 16
    if (tail >= 2) k ^= bytes[alignedEnd + 1] << 8
    k ^= bytes[alignedEnd]
    h ^= mixK1(k)
  }
  return fmix32(h ^ n)
}
