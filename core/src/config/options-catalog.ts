import { type ConfigOption, option } from './option.js'

/**
 * Options of catalog readers (tablet servers, gateway).
 */

export const SLUICE_CATALOG_CACHE_TTL: ConfigOption<number> = option('sluice.catalog.cache-ttl')
  .duration()
  .default('500ms')
  .range(0, '1min')
  .inScope('server')
  .description(
    'How long a tablet server reuses catalog reads (tables, buckets, leases) when answering metadata requests; 0 reads through.',
  )

export const SLUICE_CATALOG_CACHE_MAX_ENTRIES: ConfigOption<number> = option(
  'sluice.catalog.cache-max-entries',
)
  .int()
  .default(10_000)
  .range(1, 10_000_000)
  .inScope('server')
  .description('Most catalog read results a tablet server keeps cached.')

export const CATALOG_OPTIONS: readonly ConfigOption<number>[] = [
  SLUICE_CATALOG_CACHE_TTL,
  SLUICE_CATALOG_CACHE_MAX_ENTRIES,
]
