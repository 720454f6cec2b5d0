import { queryAll } from '../control-plane/query-all.js'
import { isFlussError } from '../errors/index.js'
import {
  ACL_BINDING_SK_PREFIX,
  ACL_PK,
  aclBindingKey,
  aclVersionKey,
  type MetaStore,
  parseAclBindingSk,
} from '../metastore/index.js'
import { type AclBinding, bindingFromParts, bindingParts, validateBinding } from './acl.js'

/** Every stored binding and the change counter they were read at. */
export interface AclSnapshot {
  readonly bindings: readonly AclBinding[]
  readonly version: number
}

const MAX_VERSION_ATTEMPTS = 20

/**
 * ACL bindings in the MetaStore (DynamoDB): one item per binding under `ACL` / `BINDING#...`,
 * created only if absent and deleted only at the version read, plus a change counter `ACL` /
 * `VERSION` bumped (conditionally) after every change so caches know when to reload. Concurrent
 * writers of the same binding converge: a create that finds the binding present is a no-op.
 */
export class AclStore {
  constructor(private readonly store: MetaStore) {}

  async load(): Promise<AclSnapshot> {
    const version = await this.version()
    const items = await queryAll(this.store, ACL_PK, ACL_BINDING_SK_PREFIX)
    return { bindings: items.map(i => bindingFromParts(parseAclBindingSk(i.sk))), version }
  }

  /** The change counter (0 before the first change); one consistent GetItem. */
  async version(): Promise<number> {
    const item = await this.store.get(aclVersionKey().pk, aclVersionKey().sk)
    return typeof item?.value.changes === 'number' ? item.value.changes : 0
  }

  /** Stores a binding; true when it was new. */
  async create(binding: AclBinding): Promise<boolean> {
    validateBinding(binding)
    const key = aclBindingKey(bindingParts(binding))
    try {
      await this.store.put(key.pk, key.sk, { createdAtMs: Date.now() }, { version: 'absent' })
    } catch (e) {
      if (isFlussError(e, 'METASTORE_CONFLICT')) return false
      throw e
    }
    await this.#bumpVersion()
    return true
  }

  /** Removes a binding; true when it was there. */
  async delete(binding: AclBinding): Promise<boolean> {
    const key = aclBindingKey(bindingParts(binding))
    const item = await this.store.get(key.pk, key.sk)
    if (item === undefined) return false
    try {
      await this.store.delete(key.pk, key.sk, { version: item.version })
    } catch (e) {
      if (isFlussError(e, 'METASTORE_CONFLICT')) return false
      throw e
    }
    await this.#bumpVersion()
    return true
  }

  async #bumpVersion(): Promise<void> {
    const { pk, sk } = aclVersionKey()
    for (let attempt = 0; attempt < MAX_VERSION_ATTEMPTS; attempt++) {
      const item = await this.store.get(pk, sk)
      const changes = typeof item?.value.changes === 'number' ? item.value.changes : 0
      try {
        await this.store.put(pk, sk, { changes: changes + 1 }, { version: item?.version ?? 'absent' })
        return
      } catch (e) {
        if (!isFlussError(e, 'METASTORE_CONFLICT')) throw e
      }
    }
    // Caches still converge: they reload everything at least every acl.notification.expiration-time.
  }
}
