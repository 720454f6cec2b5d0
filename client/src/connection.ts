import { initArrowCodecs } from '@sluice/core/arrow'
import type { Configuration, RawValue } from '@sluice/core/config'
import { FlussError, toFlussError } from '@sluice/core/errors'
import type { TablePath } from '@sluice/core/metadata'
import { ConnectionPool } from '@sluice/core/rpc'
import { Admin } from './admin/admin.js'
import { type ClientOptions, clientOptions, toConfiguration } from './client-options.js'
import { LookupClient } from './lookup/lookup-client.js'
import { MetadataUpdater } from './metadata/metadata-updater.js'
import type { LogScanner } from './scanner/log-scanner.js'
import { Table, type TableContext } from './table/table.js'
import { WriterMemory } from './write/writer-memory.js'
import type { ClosableWriter } from './write/writer-pipeline.js'

/**
 * The name this client gives in its ApiVersions handshake (`client_software_name`). Sluice servers
 * recognise it and, for example, send tiered (remote) log data inline in fetch answers instead of
 * remote segment locations.
 */
export const CLIENT_SOFTWARE_NAME = 'sluice'

/**
 * The entry point of the client (Fluss's `Connection`). `Connection.create` reads the configuration
 * (a Configuration, or a plain object of Fluss keys such as `{ 'bootstrap.servers': '127.0.0.1:9123' }`),
 * learns the cluster from the bootstrap servers, and from then on talks to the coordinator and the
 * bucket leaders directly over pooled connections. One connection is meant to be shared.
 */
export class Connection {
  readonly #configuration: Configuration
  readonly #options: ClientOptions
  readonly #pool: ConnectionPool
  readonly #metadata: MetadataUpdater
  readonly #admin: Admin
  readonly #context: TableContext
  readonly #writers = new Set<ClosableWriter>()
  readonly #scanners = new Set<LogScanner>()
  #lookupClient: LookupClient | undefined
  #closing: Promise<void> | undefined

  private constructor(configuration: Configuration, options: ClientOptions) {
    this.#configuration = configuration
    this.#options = options
    this.#pool = new ConnectionPool({
      requestTimeoutMs: options.requestTimeoutMs,
      connectTimeoutMs: options.connectTimeoutMs,
      clientSoftwareName: CLIENT_SOFTWARE_NAME,
      security: options.security,
    })
    this.#metadata = new MetadataUpdater(this.#pool, {
      bootstrapServers: options.bootstrapServers,
      requestTimeoutMs: options.requestTimeoutMs,
    })
    this.#admin = new Admin(this.#metadata, options.requestTimeoutMs)
    this.#context = {
      options,
      metadata: this.#metadata,
      admin: this.#admin,
      writerMemory: new WriterMemory(options.writer.bufferMemoryBytes),
      trackWriter: writer => this.#track(this.#writers, writer),
      untrackWriter: writer => this.#writers.delete(writer),
      trackScanner: scanner => this.#track(this.#scanners, scanner),
      untrackScanner: scanner => this.#scanners.delete(scanner),
      lookupClient: () => {
        this.#checkOpen()
        this.#lookupClient ??= new LookupClient(this.#metadata, options.lookup)
        return this.#lookupClient
      },
    }
  }

  /** Connects: validates the configuration, then bootstraps the cluster metadata. */
  static async create(config: Configuration | Readonly<Record<string, RawValue>>): Promise<Connection> {
    const configuration = toConfiguration(config)
    const connection = new Connection(configuration, clientOptions(configuration))
    try {
      await initArrowCodecs()
      await connection.#metadata.initialize()
    } catch (e) {
      await connection.#pool.close()
      throw toFlussError(e)
    }
    return connection
  }

  getConfiguration(): Configuration {
    return this.#configuration
  }

  getAdmin(): Admin {
    this.#checkOpen()
    return this.#admin
  }

  /** The table at `path`, with its current info and bucket leaders loaded. */
  async getTable(path: TablePath): Promise<Table> {
    this.#checkOpen()
    const info = await this.#admin.getTableInfo(path)
    await this.#metadata.update({ tables: [path] })
    return new Table(this.#context, info)
  }

  /**
   * Closes the scanners, fails lookups not yet sent, flushes and closes the writers (rows still unsent after the request
   * timeout fail with NETWORK_EXCEPTION), then closes every server connection.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close()
    return this.#closing
  }

  async #close(): Promise<void> {
    for (const scanner of this.#scanners) scanner.close()
    this.#lookupClient?.close()
    const writers = [...this.#writers]
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<void>(resolve => {
      timer = setTimeout(resolve, this.#options.requestTimeoutMs)
    })
    await Promise.race([Promise.allSettled(writers.map(w => w.close())), deadline])
    clearTimeout(timer)
    const closed = new FlussError('NETWORK_EXCEPTION', 'The connection was closed before the rows were sent')
    for (const writer of writers) writer.abort(closed)
    await this.#pool.close()
  }

  #track<T>(set: Set<T>, item: T): void {
    this.#checkOpen()
    set.add(item)
  }

  #checkOpen(): void {
    if (this.#closing !== undefined) throw new FlussError('INVALID_REQUEST', 'The connection is closed')
  }
}
