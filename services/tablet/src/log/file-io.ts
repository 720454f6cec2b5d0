import { constants, writeSync } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { dirname } from 'node:path'
import { FlussError } from '@sluice/core/errors'

/**
 * The file operations the log needs, behind a small interface so tests can inject failures at the
 * I/O boundary (a full disk, an I/O error) without touching the storage logic. All reads and writes
 * are positional on explicit file descriptors.
 */
export interface LogFileHandle {
  readonly path: string
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<number>
  write(buffer: Buffer, offset: number, length: number, position: number): Promise<number>
  truncate(length: number): Promise<void>
  sync(): Promise<void>
  size(): Promise<number>
  close(): Promise<void>
}

export interface OpenOptions {
  /** Create the file when missing (default false). */
  readonly create?: boolean
  /** Empty the file on open (default false). */
  readonly truncate?: boolean
}

export interface FileIO {
  open(path: string, options?: OpenOptions): Promise<LogFileHandle>
  /** Names (not paths) of the entries of `dir`. */
  list(dir: string): Promise<string[]>
  mkdirs(dir: string): Promise<void>
  /** Removes a file; a missing file is not an error. */
  remove(path: string): Promise<void>
  rename(from: string, to: string): Promise<void>
  /** The file's bytes, or null when it does not exist. */
  readFileOrNull(path: string): Promise<Buffer | null>
  /** Makes directory entries (created, renamed, removed files) durable. */
  syncDir(dir: string): Promise<void>
  /** Removes a directory and everything in it; a missing directory is not an error. */
  removeTree(dir: string): Promise<void>
}

class NodeFileHandle implements LogFileHandle {
  constructor(
    readonly path: string,
    private readonly fh: FileHandle,
  ) {}
  async read(buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    return (await this.fh.read(buffer, offset, length, position)).bytesRead
  }
  /**
   * Appends land in the page cache (acks=1 does not wait for fsync), which takes microseconds: a
   * synchronous write is several times faster than a round trip through libuv's thread pool.
   */
  async write(buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    return writeSync(this.fh.fd, buffer, offset, length, position)
  }
  truncate(length: number): Promise<void> {
    return this.fh.truncate(length)
  }
  sync(): Promise<void> {
    return this.fh.sync()
  }
  async size(): Promise<number> {
    return (await this.fh.stat()).size
  }
  close(): Promise<void> {
    return this.fh.close()
  }
}

function isNotFound(e: unknown): boolean {
  return (e as NodeJS.ErrnoException)?.code === 'ENOENT'
}

/** The real file system. */
export const nodeFileIO: FileIO = {
  async open(path, options = {}) {
    let flags = constants.O_RDWR
    if (options.create) flags |= constants.O_CREAT
    if (options.truncate) flags |= constants.O_TRUNC
    return new NodeFileHandle(path, await open(path, flags, 0o644))
  },
  list: dir => readdir(dir),
  mkdirs: async dir => {
    await mkdir(dir, { recursive: true })
  },
  remove: path => rm(path, { force: true }),
  removeTree: dir => rm(dir, { recursive: true, force: true }),
  rename: (from, to) => rename(from, to),
  async readFileOrNull(path) {
    try {
      return await readFile(path)
    } catch (e) {
      if (isNotFound(e)) return null
      throw e
    }
  },
  async syncDir(dir) {
    const fh = await open(dir, constants.O_RDONLY)
    try {
      await fh.sync()
    } finally {
      await fh.close()
    }
  },
}

/** Writes all of `buffer` at `position` (a file write may be short). */
export async function writeFully(file: LogFileHandle, buffer: Buffer, position: number): Promise<void> {
  let done = 0
  while (done < buffer.length) {
    const n = await file.write(buffer, done, buffer.length - done, position + done)
    if (n <= 0) throw new Error(`write to ${file.path} made no progress at position ${position + done}`)
    done += n
  }
}

/** Reads up to `length` bytes at `position`; fewer only at end of file. Returns the bytes read. */
export async function readFully(file: LogFileHandle, length: number, position: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length)
  let done = 0
  while (done < length) {
    const n = await file.read(buffer, done, length - done, position + done)
    if (n === 0) break
    done += n
  }
  return done === length ? buffer : buffer.subarray(0, done)
}

/**
 * Rewrites `path` in place and fsyncs it. For files whose readers validate them and can rebuild
 * them (segment indexes): a crash mid-write leaves a shorter or malformed file, never a wrong one.
 */
export async function writeFileSynced(io: FileIO, path: string, data: Buffer): Promise<void> {
  const file = await io.open(path, { create: true, truncate: true })
  try {
    await writeFully(file, data, 0)
    await file.sync()
  } finally {
    await file.close()
  }
}

/** Replaces `path` atomically: write a temp file, fsync it, rename over `path`, fsync the directory. */
export async function writeFileAtomic(io: FileIO, path: string, data: Buffer): Promise<void> {
  const tmp = `${path}.tmp`
  const file = await io.open(tmp, { create: true, truncate: true })
  try {
    await writeFully(file, data, 0)
    await file.sync()
  } finally {
    await file.close()
  }
  await io.rename(tmp, path)
  await io.syncDir(dirname(path))
}

/**
 * Turns a file-system failure into the typed error the produce/fetch paths return: a full disk is
 * DISK_FULL (retriable once space is freed), any other I/O error LOG_STORAGE_EXCEPTION. FlussErrors
 * and errors that are not I/O errors (broken invariants) pass through unchanged.
 */
export function storageError(e: unknown, context: string): Error {
  if (e instanceof FlussError) return e
  const code = (e as NodeJS.ErrnoException)?.code
  if (typeof code !== 'string') return e instanceof Error ? e : new Error(String(e))
  const detail = e instanceof Error ? e.message : String(e)
  const name = code === 'ENOSPC' || code === 'EDQUOT' ? 'DISK_FULL' : 'LOG_STORAGE_EXCEPTION'
  return new FlussError(name, `${context}: ${detail}`, { cause: e })
}
