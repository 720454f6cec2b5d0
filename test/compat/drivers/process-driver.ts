import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Canonical, TableSpec } from '../canonical.js'
import type {
  DatasetRange,
  Driver,
  KvOp,
  LogRecordOut,
  PartitionOut,
  ScanFromResult,
  VerifyResult,
} from './driver.js'
import { DriverError, type ProcessCommand, runDriver } from './process-runner.js'

/** A Driver backed by the Java or Python command line (see Main.java / compat.py). */
export class ProcessDriver implements Driver {
  #files = 0

  constructor(
    readonly name: string,
    private readonly command: ProcessCommand,
    private readonly bootstrap: string,
    private readonly scratchDir: string,
    /** Extra client options of every run (SASL credentials). */
    readonly clientConf: Readonly<Record<string, string>> = {},
  ) {}

  /** The same driver with other client options (another user). */
  withClientConf(clientConf: Readonly<Record<string, string>>): ProcessDriver {
    return new ProcessDriver(this.name, this.command, this.bootstrap, this.scratchDir, clientConf)
  }

  /** Runs a command and returns its JSON result; a non-zero exit (mismatch included) throws DriverError. */
  async call(args: readonly string[]): Promise<Record<string, unknown>> {
    const run = await runDriver(this.command, [this.bootstrap, ...args], this.clientConf)
    if (run.code !== 0 || run.result === undefined) throw new DriverError(this.name, args, run)
    return run.result
  }

  /** Like call, but returns mismatch results (exit code 1) instead of throwing. */
  async check(args: readonly string[]): Promise<Record<string, unknown>> {
    const run = await runDriver(this.command, [this.bootstrap, ...args], this.clientConf)
    if ((run.code !== 0 && run.code !== 1) || run.result === undefined)
      throw new DriverError(this.name, args, run)
    return run.result
  }

  /** Writes a JSON input file for a command and returns its path. */
  file(kind: string, content: unknown): string {
    const path = join(this.scratchDir, `${this.name}-${kind}-${++this.#files}.json`)
    writeFileSync(path, JSON.stringify(content))
    return path
  }

  async createDatabase(db: string): Promise<void> {
    await this.call(['create-database', db])
  }

  async createTable(db: string, table: string, spec: TableSpec): Promise<void> {
    await this.call(['create-table', db, table, this.file('spec', spec)])
  }

  async write(db: string, table: string, n: number, range: DatasetRange = {}): Promise<void> {
    await this.call(['write', db, table, String(n), ...rangeFlags(range)])
  }

  async verify(
    db: string,
    table: string,
    n: number,
    range: DatasetRange & { project?: readonly string[] } = {},
  ): Promise<VerifyResult> {
    const project = range.project ? ['--project', range.project.join(',')] : []
    return (await this.check([
      'verify',
      db,
      table,
      String(n),
      ...rangeFlags(range),
      ...project,
    ])) as unknown as VerifyResult
  }

  async append(db: string, table: string, rows: readonly (readonly Canonical[])[]): Promise<void> {
    await this.call(['append', db, table, this.file('rows', rows)])
  }

  async upsert(db: string, table: string, ops: readonly KvOp[]): Promise<void> {
    await this.call(['upsert', db, table, this.file('ops', ops)])
  }

  /**
   * Like `upsert`, returning for every upsert and delete (flushes left out) the log end offset its
   * PutKv batch was acknowledged with (Java only: `UpsertResult#getLogEndOffset`).
   */
  async upsertWithOffsets(db: string, table: string, ops: readonly KvOp[]): Promise<number[]> {
    const result = await this.call(['upsert', db, table, this.file('ops', ops)])
    const offsets = result.logEndOffsets
    if (!Array.isArray(offsets)) throw new Error(`${this.name} upsert reported no logEndOffsets`)
    return offsets as number[]
  }

  async lookup(
    db: string,
    table: string,
    keys: readonly (readonly Canonical[])[],
    by?: readonly string[],
  ): Promise<unknown[]> {
    const byFlag = by ? ['--by', by.join(',')] : []
    const result = await this.call(['lookup', db, table, this.file('keys', keys), ...byFlag])
    return result.results as unknown[]
  }

  /** A lookup with insert-if-not-exists: missing keys are inserted and their new rows returned. */
  async lookupInserting(
    db: string,
    table: string,
    keys: readonly (readonly Canonical[])[],
  ): Promise<unknown[]> {
    const result = await this.call(['lookup', db, table, this.file('keys', keys), '--insert', 'true'])
    return result.results as unknown[]
  }

  /** The row count of `Admin#getTableStats` (Java only). */
  async stats(db: string, table: string): Promise<number> {
    return (await this.call(['stats', db, table])).rowCount as number
  }

  async scanFrom(db: string, table: string, bucket: number, offset: number): Promise<ScanFromResult> {
    return (await this.call([
      'scan-from',
      db,
      table,
      String(bucket),
      String(offset),
    ])) as unknown as ScanFromResult
  }

  async listTables(db: string): Promise<string[]> {
    return (await this.call(['list-tables', db])).tables as string[]
  }

  /** Runs a command that must fail (exit code 2) and returns its JSON result (`error`, `errorCode`). */
  async failure(args: readonly string[]): Promise<{ error: string; errorCode?: number }> {
    const run = await runDriver(this.command, [this.bootstrap, ...args], this.clientConf)
    if (run.code !== 2 || typeof run.result?.error !== 'string') throw new DriverError(this.name, args, run)
    return run.result as { error: string; errorCode?: number }
  }

  /** Runs a command that must fail (exit code 2) and returns its error text. */
  async error(args: readonly string[]): Promise<string> {
    const run = await runDriver(this.command, [this.bootstrap, ...args], this.clientConf)
    if (run.code !== 2 || typeof run.result?.error !== 'string') throw new DriverError(this.name, args, run)
    return run.result.error
  }

  async changelog(
    db: string,
    table: string,
    expected: number,
    project?: readonly string[],
  ): Promise<LogRecordOut[]> {
    const projectFlag = project ? ['--project', project.join(',')] : []
    const result = await this.call(['changelog', db, table, String(expected), ...projectFlag])
    return result.records as LogRecordOut[]
  }

  async partitions(db: string, table: string): Promise<PartitionOut[]> {
    return (await this.call(['partitions', db, table])).partitions as PartitionOut[]
  }

  async offsets(
    db: string,
    table: string,
    spec: 'earliest' | 'latest' | number,
  ): Promise<Record<string, number>> {
    return (await this.call(['offsets', db, table, String(spec)])).offsets as Record<string, number>
  }

  async createPartition(db: string, table: string, spec: Readonly<Record<string, string>>): Promise<void> {
    const text = Object.entries(spec)
      .map(([k, v]) => `${k}=${v}`)
      .join(',')
    await this.call(['create-partition', db, table, text])
  }
}

function rangeFlags(range: DatasetRange): string[] {
  return [
    ...(range.start === undefined ? [] : ['--start', String(range.start)]),
    ...(range.salt === undefined ? [] : ['--salt', String(range.salt)]),
  ]
}
