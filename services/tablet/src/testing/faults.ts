import type { Readable } from 'node:stream'
import type {
  BlobBody,
  BlobInfo,
  BlobStore,
  GetOptions,
  ListOptions,
  ListPage,
  PutOptions,
  UploadOptions,
} from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'
import type {
  ItemValue,
  GetOptions as MetaGetOptions,
  MetaStore,
  QueryOptions,
  QueryPage,
  VersionedItem,
  WriteCondition,
} from '@sluice/core/metastore'

/** A failure to inject into matching calls of a FaultInjecting store. */
export interface InjectedFault {
  /** Method names that match (default: all). */
  readonly ops?: readonly string[]
  /** Only calls whose key (or first key, or prefix) contains this match. */
  readonly keyIncludes?: string
  /** Matching calls that still succeed before the fault starts (default 0). */
  readonly skip?: number
  /** Matching calls that fail (default: all from then on, as after a crash). */
  readonly times?: number
  /**
   * fail: throw without doing anything; apply-then-fail: do the call, then throw (a timeout after
   * the write landed); hang: never settle (for timeouts).
   */
  readonly mode?: 'fail' | 'apply-then-fail' | 'hang'
  /** Default: a retriable STORAGE_EXCEPTION. */
  readonly error?: () => Error
}

interface ActiveFault {
  readonly fault: InjectedFault
  skipped: number
  failed: number
}

/** Counts calls and applies injected faults; shared by the BlobStore and MetaStore wrappers. */
export class FaultInjector {
  readonly #faults: ActiveFault[] = []
  readonly calls = new Map<string, number>()

  inject(fault: InjectedFault): void {
    this.#faults.push({ fault, skipped: 0, failed: 0 })
  }

  clear(): void {
    this.#faults.length = 0
  }

  count(op: string): number {
    return this.calls.get(op) ?? 0
  }

  async run<T>(op: string, key: string, call: () => Promise<T>): Promise<T> {
    this.calls.set(op, this.count(op) + 1)
    const active = this.#faults.find(a => this.#matches(a, op, key))
    if (active === undefined) return call()
    active.failed++
    const { mode = 'fail', error } = active.fault
    const thrown = error?.() ?? new FlussError('STORAGE_EXCEPTION', `injected failure of ${op} ${key}`)
    if (mode === 'hang') return new Promise<T>(() => {})
    if (mode === 'apply-then-fail') await call()
    throw thrown
  }

  #matches(a: ActiveFault, op: string, key: string): boolean {
    const { ops, keyIncludes, skip = 0, times = Number.POSITIVE_INFINITY } = a.fault
    if (ops !== undefined && !ops.includes(op)) return false
    if (keyIncludes !== undefined && !key.includes(keyIncludes)) return false
    if (a.failed >= times) return false
    if (a.skipped < skip) {
      a.skipped++
      return false
    }
    return true
  }
}

/** A BlobStore wrapper that fails, half-applies or hangs chosen calls. */
export class FaultInjectingBlobStore implements BlobStore {
  readonly faults = new FaultInjector()
  constructor(readonly inner: BlobStore) {}
  get capabilities() {
    return this.inner.capabilities
  }
  put(key: string, body: BlobBody, options?: PutOptions): Promise<BlobInfo> {
    return this.faults.run('put', key, () => this.inner.put(key, body, options))
  }
  get(key: string, options?: GetOptions): Promise<Uint8Array | undefined> {
    return this.faults.run('get', key, () => this.inner.get(key, options))
  }
  getStream(key: string, options?: GetOptions): Promise<Readable | undefined> {
    return this.faults.run('getStream', key, () => this.inner.getStream(key, options))
  }
  head(key: string): Promise<BlobInfo | undefined> {
    return this.faults.run('head', key, () => this.inner.head(key))
  }
  list(prefix: string, options?: ListOptions): Promise<ListPage> {
    return this.faults.run('list', prefix, () => this.inner.list(prefix, options))
  }
  delete(keys: readonly string[]): Promise<void> {
    return this.faults.run('delete', keys[0] ?? '', () => this.inner.delete(keys))
  }
  upload(key: string, source: string | Readable, options?: UploadOptions): Promise<BlobInfo> {
    return this.faults.run('upload', key, () => this.inner.upload(key, source, options))
  }
  close(): Promise<void> {
    return this.inner.close()
  }
}

/** A MetaStore wrapper that fails, half-applies or hangs chosen calls (key = `pk/sk`). */
export class FaultInjectingMetaStore implements MetaStore {
  readonly faults = new FaultInjector()
  constructor(readonly inner: MetaStore) {}
  get(pk: string, sk: string, options?: MetaGetOptions): Promise<VersionedItem | undefined> {
    return this.faults.run('get', `${pk}/${sk}`, () => this.inner.get(pk, sk, options))
  }
  query(pk: string, options?: QueryOptions): Promise<QueryPage> {
    return this.faults.run('query', pk, () => this.inner.query(pk, options))
  }
  put(pk: string, sk: string, value: ItemValue, condition: WriteCondition): Promise<number> {
    return this.faults.run('put', `${pk}/${sk}`, () => this.inner.put(pk, sk, value, condition))
  }
  delete(pk: string, sk: string, condition: WriteCondition): Promise<void> {
    return this.faults.run('delete', `${pk}/${sk}`, () => this.inner.delete(pk, sk, condition))
  }
  close(): Promise<void> {
    return this.inner.close()
  }
}
