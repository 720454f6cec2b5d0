import { FlussError } from '../errors/index.js'
import type {
  GetOptions,
  ItemValue,
  MetaStore,
  QueryOptions,
  QueryPage,
  VersionedItem,
  WriteCondition,
} from '../metastore/index.js'

/**
 * A MetaStore for crash tests: passes everything to `inner` until `writesBeforeCrash` writes have
 * succeeded, then fails every further write (and, with `failReads`, every read) as a process that
 * died there would never perform them. The surviving state is what `inner` holds.
 */
export class TestingCrashingMetaStore implements MetaStore {
  readonly #inner: MetaStore
  #writesLeft: number
  readonly #failReads: boolean
  /** Writes passed on before the crash, in order, as `put pk/sk` or `delete pk/sk`. */
  readonly writes: string[] = []

  constructor(inner: MetaStore, writesBeforeCrash: number, options: { failReads?: boolean } = {}) {
    this.#inner = inner
    this.#writesLeft = writesBeforeCrash
    this.#failReads = options.failReads ?? false
  }

  get crashed(): boolean {
    return this.#writesLeft < 0
  }

  #write(what: string): void {
    if (this.#writesLeft <= 0) {
      this.#writesLeft = -1
      throw new FlussError('STORAGE_EXCEPTION', `simulated crash before ${what}`)
    }
    this.#writesLeft--
    this.writes.push(what)
  }

  #read(): void {
    if (this.#failReads && this.crashed) throw new FlussError('STORAGE_EXCEPTION', 'simulated crash')
  }

  async get(pk: string, sk: string, options?: GetOptions): Promise<VersionedItem | undefined> {
    this.#read()
    return this.#inner.get(pk, sk, options)
  }

  async query(pk: string, options?: QueryOptions): Promise<QueryPage> {
    this.#read()
    return this.#inner.query(pk, options)
  }

  async put(pk: string, sk: string, value: ItemValue, condition: WriteCondition): Promise<number> {
    this.#write(`put ${pk}/${sk}`)
    return this.#inner.put(pk, sk, value, condition)
  }

  async delete(pk: string, sk: string, condition: WriteCondition): Promise<void> {
    this.#write(`delete ${pk}/${sk}`)
    return this.#inner.delete(pk, sk, condition)
  }

  async close(): Promise<void> {}
}
