import { FlussError } from '@sluice/core/errors'

/** Bounds of one tiering round. Every read, buffer and retry is limited by one of them. */
export interface TieringRoundOptions {
  /** Batch bytes one round reads from a table's tiered segments (over all buckets). */
  readonly maxRoundBytes: number
  /**
   * The same bound for primary-key tables, whose changelog is decoded and held (collapsed per key)
   * until the round writes its files: kept lower, since decoded rows take many times their bytes.
   */
  readonly maxChangelogRoundBytes: number
  /** Bytes per ranged GET of a segment object. */
  readonly readChunkBytes: number
  /** Attempts of a failed object-store read before the round fails. */
  readonly readAttempts: number
  /** First wait between attempts, doubled each time. */
  readonly retryBackoffMs: number
  /** How long a claim holds the table; must exceed the longest round. */
  readonly claimTtlMs: number
}

export const DEFAULT_TIERING_ROUND_OPTIONS: TieringRoundOptions = {
  maxRoundBytes: 256 * 1024 * 1024,
  maxChangelogRoundBytes: 16 * 1024 * 1024,
  readChunkBytes: 8 * 1024 * 1024,
  readAttempts: 3,
  retryBackoffMs: 200,
  claimTtlMs: 15 * 60_000,
}

const RANGES: Record<keyof TieringRoundOptions, readonly [number, number]> = {
  maxRoundBytes: [1024, 64 * 1024 * 1024 * 1024],
  maxChangelogRoundBytes: [1024, 64 * 1024 * 1024 * 1024],
  readChunkBytes: [1024, 1024 * 1024 * 1024],
  readAttempts: [1, 20],
  retryBackoffMs: [0, 60_000],
  claimTtlMs: [1000, 24 * 3_600_000],
}

/** The defaults overridden by `overrides`; INVALID_CONFIG_EXCEPTION for a value out of range. */
export function tieringRoundOptions(overrides: Partial<TieringRoundOptions> = {}): TieringRoundOptions {
  const out = { ...DEFAULT_TIERING_ROUND_OPTIONS, ...overrides }
  for (const [key, [min, max]] of Object.entries(RANGES) as [keyof TieringRoundOptions, [number, number]][]) {
    const v = out[key]
    if (!Number.isSafeInteger(v) || v < min || v > max) {
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `tiering option ${key} must be an integer in [${min}, ${max}], got ${v}`,
      )
    }
  }
  return out
}
