/**
 * The BlobStore contract, written once and run against every backend (memory, filesystem, s3rver,
 * moto, LocalStack): `blobStoreContract('S3BlobStore on s3rver', () => store)`.
 * Test support only: imports vitest, and is never re-exported from the production index.
 */
import { afterAll, beforeAll, describe } from 'vitest'
import { type BlobStore, PART_BYTES_MIN } from '../blob-store.js'
import { conditionalCases } from './conditional-cases.js'
import { listCases } from './list-cases.js'
import { objectCases } from './object-cases.js'
import { rangeCases } from './range-cases.js'

export type MakeBlobStore = () => BlobStore | Promise<BlobStore>

/** Cases a backend is known to get wrong; each is skipped with its reason in the test title. */
export type BlobStoreGap = 'listOrderBelowSlash' | 'rangeOnEmptyObject'

export interface BlobStoreContractOptions {
  /** Part size for the multipart cases; default PART_BYTES_MIN (S3's minimum). */
  readonly partBytes?: number
  /** Why conditional puts cannot be checked on this backend (required when it lacks them). */
  readonly conditionalPutSkipReason?: string
  readonly gaps?: Partial<Record<BlobStoreGap, string>>
}

export interface BlobStoreRef {
  readonly store: BlobStore
  readonly partBytes: number
  readonly conditionalPutSkipReason?: string
  readonly gaps: Partial<Record<BlobStoreGap, string>>
}

export function blobStoreContract(
  name: string,
  makeStore: MakeBlobStore,
  options: BlobStoreContractOptions = {},
): void {
  describe(`BlobStore contract: ${name}`, () => {
    let store: BlobStore | undefined
    const ref: BlobStoreRef = {
      get store() {
        if (store === undefined) throw new Error('store not created yet')
        return store
      },
      partBytes: options.partBytes ?? PART_BYTES_MIN,
      conditionalPutSkipReason: options.conditionalPutSkipReason,
      gaps: options.gaps ?? {},
    }
    beforeAll(async () => {
      store = await makeStore()
    })
    afterAll(async () => {
      await store?.close()
    })
    objectCases(ref)
    rangeCases(ref)
    listCases(ref)
    conditionalCases(ref)
  })
}
