import { FlussError } from '../errors/index.js'
import { type MetaStore, QUERY_LIMIT_MAX, type VersionedItem } from '../metastore/index.js'

/** Most items one catalog listing reads (a guard against runaway loops, far above real sizes). */
export const LISTING_ITEMS_MAX = 1_000_000

/** Every item of a partition key under a sort-key prefix, following the query cursor page by page. */
export async function queryAll(store: MetaStore, pk: string, skPrefix: string): Promise<VersionedItem[]> {
  const items: VersionedItem[] = []
  let cursor: string | undefined
  do {
    const page = await store.query(pk, {
      skPrefix,
      limit: QUERY_LIMIT_MAX,
      ...(cursor === undefined ? {} : { cursor }),
    })
    items.push(...page.items)
    cursor = page.cursor
    if (items.length > LISTING_ITEMS_MAX) {
      throw new FlussError(
        'RESOURCE_EXHAUSTED',
        `listing ${pk}/${skPrefix}* exceeds ${LISTING_ITEMS_MAX} items`,
      )
    }
  } while (cursor !== undefined)
  return items
}

/** Runs `fn` over `inputs` with at most `concurrency` calls in flight; results keep input order. */
export async function mapBounded<I, O>(
  inputs: readonly I[],
  concurrency: number,
  fn: (input: I) => Promise<O>,
): Promise<O[]> {
  const results: O[] = new Array(inputs.length)
  let next = 0
  const worker = async () => {
    while (next < inputs.length) {
      const i = next++
      results[i] = await fn(inputs[i])
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, inputs.length)) }, worker))
  return results
}
