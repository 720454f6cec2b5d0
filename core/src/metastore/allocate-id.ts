import { FlussError } from '../errors/index.js'
import { sleep } from '../util/sleep.js'
import { isMetaStoreConflict } from './conflict.js'
import { type CounterName, counterKey, type ItemKey } from './keys.js'
import type { MetaStore, VersionedItem } from './metastore.js'

export interface AllocateIdOptions {
  /** How many consecutive ids to take; the first is returned. Default 1. */
  readonly count?: number
  /** Conditional-write attempts before giving up with METASTORE_CONFLICT; default 16, at most 1000. */
  readonly maxAttempts?: number
  /** Upper bound of the random pause after a lost race, times the attempt number; default 5 ms. */
  readonly backoffMs?: number
}

const ATTEMPTS_MAX = 1000

/**
 * Takes the next id(s) of a cluster-wide counter (like Fluss's ZooKeeper sequence counters, ids
 * start at 0): read the counter item, write `next + count` conditioned on the version read, and
 * retry on a lost race. Ids are never handed out twice; an id may be skipped if its taker dies.
 */
export function allocateId(
  store: MetaStore,
  counter: CounterName,
  options: AllocateIdOptions = {},
): Promise<number> {
  return allocateIdAt(store, counterKey(counter), counter, options)
}

/**
 * Like allocateId, for a counter item anywhere (`what` names it in messages): the auto-increment
 * counters of tables (`autoIncrementKey`) take whole ranges of ids at once.
 */
export async function allocateIdAt(
  store: MetaStore,
  key: ItemKey,
  counter: string,
  options: AllocateIdOptions = {},
): Promise<number> {
  const count = options.count ?? 1
  const maxAttempts = options.maxAttempts ?? 16
  const backoffMs = options.backoffMs ?? 5
  if (!Number.isSafeInteger(count) || count < 1)
    throw new FlussError('INVALID_REQUEST', `id count must be >= 1, got ${count}`)
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > ATTEMPTS_MAX) {
    throw new FlussError('INVALID_REQUEST', `maxAttempts must be in [1, ${ATTEMPTS_MAX}], got ${maxAttempts}`)
  }
  const { pk, sk } = key
  let current = await store.get(pk, sk, { consistent: true })
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const next = nextOf(current, counter)
    if (!Number.isSafeInteger(next + count))
      throw new FlussError('INVALID_REQUEST', `counter ${counter} is exhausted at ${next}`)
    try {
      await store.put(pk, sk, { next: next + count }, { version: current?.version ?? 'absent' })
      return next
    } catch (e) {
      if (!isMetaStoreConflict(e)) throw e
      current = e.current
      await sleep(Math.random() * backoffMs * attempt)
    }
  }
  throw new FlussError(
    'METASTORE_CONFLICT',
    `allocating from counter ${counter} lost ${maxAttempts} races in a row`,
  )
}

function nextOf(item: VersionedItem | undefined, counter: string): number {
  if (item === undefined) return 0
  const next = item.value.next
  if (typeof next !== 'number' || !Number.isSafeInteger(next) || next < 0) {
    throw new FlussError(
      'CORRUPT_MESSAGE',
      `counter ${counter} holds ${JSON.stringify(item.value)}, expected {next: integer >= 0}`,
    )
  }
  return next
}
