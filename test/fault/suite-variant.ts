import type { LocalClusterOptions } from '@sluice/cli/cluster'

/**
 * Where a fault suite runs: by default on the in-process emulators (dynalite, fs blobs); a variant
 * can move the metadata to another DynamoDB (moto's server in the fidelity suite).
 */
export interface SuiteVariant {
  /** Appended to the suite's title, e.g. 'with metadata on moto_server'. */
  readonly title?: string
  /** More cluster options, read when the suite's cluster starts (after the emulator is up). */
  readonly cluster?: () => Partial<Omit<LocalClusterOptions, 'dataDir'>>
}

/** Timeout of each scenario and of starting or stopping a cluster, under any vitest config. */
export const SUITE_TIMEOUT_MS = 120_000

export function suiteTitle(title: string, variant: SuiteVariant): string {
  return variant.title === undefined ? title : `${title} ${variant.title}`
}
