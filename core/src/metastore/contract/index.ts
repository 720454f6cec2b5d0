/**
 * The MetaStore contract, written once and run against every backend (the in-memory twin, dynalite,
 * moto, LocalStack): `metaStoreContract('DynamoMetaStore on dynalite', () => store)`.
 * Test support only: imports vitest, and is never re-exported from the production index.
 */
import { afterAll, beforeAll, describe } from 'vitest'
import type { MetaStore } from '../metastore.js'
import { conditionCases } from './condition-cases.js'
import { queryCases } from './query-cases.js'
import { raceCases } from './race-cases.js'
import { versionCases } from './version-cases.js'

export type MakeMetaStore = () => MetaStore | Promise<MetaStore>

/** Gives each case the store, created once per suite and closed after it. */
export interface MetaStoreRef {
  readonly store: MetaStore
}

export function metaStoreContract(name: string, makeStore: MakeMetaStore): void {
  describe(`MetaStore contract: ${name}`, () => {
    let store: MetaStore | undefined
    const ref: MetaStoreRef = {
      get store() {
        if (store === undefined) throw new Error('store not created yet')
        return store
      },
    }
    beforeAll(async () => {
      store = await makeStore()
    })
    afterAll(async () => {
      await store?.close()
    })
    versionCases(ref)
    conditionCases(ref)
    queryCases(ref)
    raceCases(ref)
  })
}
