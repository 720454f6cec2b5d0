/** Deterministic pseudo-random numbers (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A seeded generator with helpers: numbers in [0, 1), integers in [min, max], bytes, picks. */
export function prng(seed: number) {
  const next = seededRandom(seed)
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => int(0, 255)))
  const pick = <T>(items: readonly T[]) => items[int(0, items.length - 1)]
  return { next, int, bytes, pick }
}
