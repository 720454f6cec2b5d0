import { buildLogBatch } from '@sluice/core/record'
import type { Clock } from '@sluice/core/util'
import { type FileIO, type LogFileHandle, nodeFileIO, type OpenOptions } from '../log/file-io.js'

/** A clock tests move by hand (also backwards). */
export class TestingClock implements Clock {
  constructor(public ms = 1_700_000_000_000) {}
  nowMs(): number {
    return this.ms
  }
  advance(deltaMs: number): void {
    this.ms += deltaMs
  }
}

/** A write failure to inject: the next matching write stores `afterBytes` bytes, then fails with `code`. */
export interface WriteFault {
  readonly code: string
  readonly afterBytes: number
  /** Only paths containing this string fail (default: every path). */
  readonly pathIncludes?: string
  /** Keep failing until cleared (default: fail once). */
  readonly sticky?: boolean
}

function errnoError(code: string, path: string): NodeJS.ErrnoException {
  const e: NodeJS.ErrnoException = new Error(`${code}: injected failure, write '${path}'`)
  e.code = code
  return e
}

/** Wraps a FileIO and fails writes on demand, to exercise disk-full and I/O-error handling. */
export class FaultInjectingFileIO implements FileIO {
  writeFault: WriteFault | null = null
  /** When set, every truncate fails with this errno code. */
  truncateFaultCode: string | null = null

  constructor(private readonly inner: FileIO = nodeFileIO) {}

  async open(path: string, options?: OpenOptions): Promise<LogFileHandle> {
    return this.#wrap(await this.inner.open(path, options))
  }
  list(dir: string): Promise<string[]> {
    return this.inner.list(dir)
  }
  mkdirs(dir: string): Promise<void> {
    return this.inner.mkdirs(dir)
  }
  remove(path: string): Promise<void> {
    return this.inner.remove(path)
  }
  rename(from: string, to: string): Promise<void> {
    return this.inner.rename(from, to)
  }
  readFileOrNull(path: string): Promise<Buffer | null> {
    return this.inner.readFileOrNull(path)
  }
  syncDir(dir: string): Promise<void> {
    return this.inner.syncDir(dir)
  }
  removeTree(dir: string): Promise<void> {
    return this.inner.removeTree(dir)
  }

  #wrap(handle: LogFileHandle): LogFileHandle {
    const write = async (
      buffer: Buffer,
      offset: number,
      length: number,
      position: number,
    ): Promise<number> => {
      const fault = this.writeFault
      if (!fault || (fault.pathIncludes && !handle.path.includes(fault.pathIncludes))) {
        return handle.write(buffer, offset, length, position)
      }
      if (!fault.sticky) this.writeFault = null
      const partial = Math.min(fault.afterBytes, length)
      if (partial > 0) await handle.write(buffer, offset, partial, position)
      throw errnoError(fault.code, handle.path)
    }
    return {
      path: handle.path,
      read: (b, o, l, p) => handle.read(b, o, l, p),
      write,
      truncate: async l => {
        if (this.truncateFaultCode) throw errnoError(this.truncateFaultCode, handle.path)
        return handle.truncate(l)
      },
      sync: () => handle.sync(),
      size: () => handle.size(),
      close: () => handle.close(),
    }
  }
}

export interface TestBatchSpec {
  readonly recordCount?: number
  readonly payload?: string | Uint8Array
  readonly writerId?: number
  readonly batchSequence?: number
  readonly schemaId?: number
}

/** An append-only batch with an opaque payload, as a client would send it (offset and time 0). */
export function testBatch(spec: TestBatchSpec = {}): Buffer {
  const payload =
    typeof spec.payload === 'string' ? Buffer.from(spec.payload) : (spec.payload ?? Buffer.from('row'))
  return buildLogBatch({
    schemaId: spec.schemaId ?? 1,
    appendOnly: true,
    recordCount: spec.recordCount ?? 1,
    records: payload,
    writerId: spec.writerId ?? -1,
    batchSequence: spec.batchSequence ?? -1,
  })
}
