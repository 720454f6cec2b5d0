import { FlussError } from '@sluice/core/errors'

/**
 * Bounds of the lake writer. Every buffer and retry has a maximum; the tiering function maps its
 * configuration onto these (defaults follow Iceberg's Java defaults where one exists).
 */
export interface LakeTableOptions {
  /** A data file is closed once its buffered Arrow data reaches this many bytes. */
  readonly targetFileBytes: number
  /** Rows per Arrow record batch while a file is being buffered. */
  readonly arrowBatchRows: number
  /** Rows per Parquet row group. */
  readonly rowGroupRows: number
  /** Commit attempts after losing the pointer swap to a commit that was not a Fluss tiering commit. */
  readonly commitRetries: number
  /** Manifests of one kind merged into one once a snapshot would carry more than this many. */
  readonly manifestMergeMinCount: number
  /** Entries kept in `metadata-log` (`write.metadata.previous-versions-max`). */
  readonly previousVersionsMax: number
}

export const DEFAULT_LAKE_TABLE_OPTIONS: LakeTableOptions = {
  targetFileBytes: 64 * 1024 * 1024,
  arrowBatchRows: 16_384,
  rowGroupRows: 1_048_576,
  commitRetries: 3,
  manifestMergeMinCount: 100,
  previousVersionsMax: 100,
}

const RANGES: Record<keyof LakeTableOptions, readonly [number, number]> = {
  targetFileBytes: [64 * 1024, 1024 * 1024 * 1024],
  arrowBatchRows: [1, 1_048_576],
  rowGroupRows: [1, 16 * 1_048_576],
  commitRetries: [0, 10],
  manifestMergeMinCount: [2, 10_000],
  previousVersionsMax: [1, 10_000],
}

/** The defaults overridden by `overrides`; INVALID_CONFIG_EXCEPTION for a value out of range. */
export function lakeTableOptions(overrides: Partial<LakeTableOptions> = {}): LakeTableOptions {
  const out = { ...DEFAULT_LAKE_TABLE_OPTIONS, ...overrides }
  for (const [key, [min, max]] of Object.entries(RANGES) as [
    keyof LakeTableOptions,
    readonly [number, number],
  ][]) {
    const v = out[key]
    if (!Number.isSafeInteger(v) || v < min || v > max) {
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `lake option ${key} must be an integer in [${min}, ${max}], got ${v}`,
      )
    }
  }
  return out
}
