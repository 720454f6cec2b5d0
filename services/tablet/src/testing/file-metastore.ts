import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import {
  type GetOptions,
  type ItemValue,
  MemoryMetaStore,
  type MetaStore,
  type QueryOptions,
  type QueryPage,
  type VersionedItem,
  type WriteCondition,
} from '@sluice/core/metastore'

/**
 * A MetaStore kept in one JSON file, for crash tests across processes (one process at a time):
 * every successful write rewrites the file atomically (temporary file + rename) before it returns,
 * so a process killed at any point leaves either the old or the new state, as DynamoDB would.
 */
export class FileMetaStore implements MetaStore {
  readonly #inner = new MemoryMetaStore()
  readonly #keys = new Set<string>()

  private constructor(readonly path: string) {}

  static async open(path: string): Promise<FileMetaStore> {
    const store = new FileMetaStore(path)
    let items: VersionedItem[] = []
    try {
      items = JSON.parse(readFileSync(path, 'utf8')) as VersionedItem[]
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
    }
    for (const item of items) {
      // Replays the item's versions so that conditions on versions keep holding.
      await store.#inner.put(item.pk, item.sk, item.value, { version: 'absent' })
      for (let v = 1; v < item.version; v++)
        await store.#inner.put(item.pk, item.sk, item.value, { version: v })
      store.#keys.add(JSON.stringify([item.pk, item.sk]))
    }
    return store
  }

  get(pk: string, sk: string, options?: GetOptions): Promise<VersionedItem | undefined> {
    return this.#inner.get(pk, sk, options)
  }

  query(pk: string, options?: QueryOptions): Promise<QueryPage> {
    return this.#inner.query(pk, options)
  }

  async put(pk: string, sk: string, value: ItemValue, condition: WriteCondition): Promise<number> {
    const version = await this.#inner.put(pk, sk, value, condition)
    this.#keys.add(JSON.stringify([pk, sk]))
    await this.#persist()
    return version
  }

  async delete(pk: string, sk: string, condition: WriteCondition): Promise<void> {
    await this.#inner.delete(pk, sk, condition)
    await this.#persist()
  }

  close(): Promise<void> {
    return this.#inner.close()
  }

  async #persist(): Promise<void> {
    const items: VersionedItem[] = []
    for (const key of this.#keys) {
      const [pk, sk] = JSON.parse(key) as [string, string]
      const item = await this.#inner.get(pk, sk)
      if (item !== undefined) items.push(item)
    }
    writeFileSync(`${this.path}.tmp`, JSON.stringify(items))
    renameSync(`${this.path}.tmp`, this.path)
  }
}
