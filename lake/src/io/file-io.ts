import { type BlobInfo, type BlobStore, blobLocation, lakeTableKey } from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'
import type { TablePath } from '@sluice/core/metadata'

/**
 * Absolute lake locations over a BlobStore. Iceberg metadata records absolute URIs with a scheme
 * (`s3://bucket/prefix/lake/db/t/data/….parquet`, `file:///data/lake/db/t/…`); the BlobStore
 * addresses the same objects by keys relative to its root. `rootUri` is the URI of that root, so
 * `location = rootUri + '/' + key`.
 *
 * Layout of a table: `lake/<database>/<table>/metadata/…` (metadata JSON, manifest lists,
 * manifests, `version-hint.text`) and `lake/<database>/<table>/data/<partition path>/….parquet`.
 */
export class LakeFileIO {
  readonly rootUri: string

  constructor(
    readonly blobStore: BlobStore,
    rootUri: string,
  ) {
    if (!/^[a-z][a-z0-9+.-]*:\/\/./i.test(rootUri)) {
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `lake root '${rootUri}' is not an absolute URI with a scheme`,
      )
    }
    this.rootUri = rootUri.replace(/\/+$/, '')
  }

  /** The default location of a table: `<root>/lake/<database>/<table>`. */
  tableLocation(path: TablePath): string {
    return this.locationOf(lakeTableKey(path))
  }

  locationOf(key: string): string {
    return blobLocation(this.rootUri, key)
  }

  /** The blob key of a location under the root; INVALID_REQUEST for anything else. */
  keyOf(location: string): string {
    const prefix = `${this.rootUri}/`
    if (!location.startsWith(prefix) || location.length === prefix.length) {
      throw new FlussError(
        'INVALID_REQUEST',
        `location '${location}' is not under the lake root '${this.rootUri}'`,
      )
    }
    return location.slice(prefix.length)
  }

  isUnderRoot(location: string): boolean {
    return location.startsWith(`${this.rootUri}/`)
  }

  async read(location: string): Promise<Uint8Array> {
    const bytes = await this.blobStore.get(this.keyOf(location))
    if (bytes === undefined)
      throw new FlussError('LAKE_SNAPSHOT_NOT_EXIST', `lake file ${location} does not exist`)
    return bytes
  }

  async readIfExists(location: string): Promise<Uint8Array | undefined> {
    return this.blobStore.get(this.keyOf(location))
  }

  /** Writes a new object; with `createOnly` an existing object makes it fail (LAKE_COMMIT_CONFLICT). */
  async write(location: string, bytes: Uint8Array, createOnly = false): Promise<BlobInfo> {
    const key = this.keyOf(location)
    if (createOnly && this.blobStore.capabilities.conditionalPut) {
      return this.blobStore.put(key, bytes, { ifNoneMatch: '*' })
    }
    return this.blobStore.put(key, bytes)
  }

  async size(location: string): Promise<number | undefined> {
    return (await this.blobStore.head(this.keyOf(location)))?.size
  }

  /** Deletes the locations (missing ones are ignored), in batches the store accepts. */
  async delete(locations: readonly string[]): Promise<void> {
    const keys = locations.filter(l => this.isUnderRoot(l)).map(l => this.keyOf(l))
    for (let i = 0; i < keys.length; i += 1000) await this.blobStore.delete(keys.slice(i, i + 1000))
  }

  /** Every object under a location prefix, page by page. */
  async *list(locationPrefix: string): AsyncGenerator<BlobInfo> {
    const prefix = `${this.keyOf(locationPrefix).replace(/\/+$/, '')}/`
    let cursor: string | undefined
    do {
      const page = await this.blobStore.list(prefix, cursor === undefined ? {} : { cursor })
      yield* page.items
      cursor = page.cursor
    } while (cursor !== undefined)
  }
}
