import { existsSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import {
  type AppendBodyRequest,
  type AppendBodyResult,
  DECLINED,
  encodeAppendBody,
} from './append-body-encoding.js'

/**
 * Encodes append bodies into Arrow log batches (see `encodeAppendBody`) on `threads` worker
 * threads (`gateway.rest.write.encoder-threads`), so that reading, validating, encoding and
 * compressing the rows of concurrent requests uses more than the event loop's core; with 0 threads,
 * or where the worker script is not shipped (a bundled Lambda function), on the event loop.
 *
 * A request goes to the worker with the fewest requests in progress; its body is copied into a
 * buffer of its own and transferred, and the encoded messages are transferred back. A worker that
 * fails is replaced; its requests in progress are declined (the gateway then writes their rows on
 * its general path), so a failure costs speed, never a write.
 */
export class AppendBodyEncoder {
  readonly #workers: EncoderWorker[] = []
  #script: URL | undefined
  #closed = false

  constructor(readonly threads: number) {
    this.#script = threads > 0 ? workerScript() : undefined
  }

  /** Whether requests run in worker threads (else on the event loop). */
  get offloaded(): boolean {
    return this.#script !== undefined && !this.#closed
  }

  encode(request: AppendBodyRequest): Promise<AppendBodyResult> {
    if (this.offloaded) {
      try {
        return this.#pick().run(request)
      } catch {
        // A worker that cannot start (no threads left, a broken install): work on the event loop.
        this.#script = undefined
      }
    }
    return Promise.resolve(encodeAppendBody(request))
  }

  async close(): Promise<void> {
    this.#closed = true
    await Promise.all(this.#workers.splice(0).map(w => w.terminate()))
  }

  #pick(): EncoderWorker {
    let best: EncoderWorker | undefined
    for (let i = 0; i < this.#workers.length; i++) {
      const w = this.#workers[i]
      if (w.failed) {
        this.#workers.splice(i--, 1)
        continue
      }
      if (best === undefined || w.inProgress < best.inProgress) best = w
    }
    if ((best === undefined || best.inProgress > 0) && this.#workers.length < this.threads) {
      best = new EncoderWorker(this.#script as URL)
      this.#workers.push(best)
    }
    return best as EncoderWorker
  }
}

/**
 * The compiled worker next to this module; from sources (the test runner), the compiled one in the
 * package's dist (`npm test` builds first); undefined when neither exists.
 */
function workerScript(): URL | undefined {
  const here = new URL('./codec-worker.js', import.meta.url)
  if (existsSync(here)) return here
  const compiled = new URL('../../dist/codec/codec-worker.js', import.meta.url)
  return existsSync(compiled) ? compiled : undefined
}

interface Pending {
  readonly resolve: (result: AppendBodyResult) => void
}

class EncoderWorker {
  readonly #worker: Worker
  readonly #pending = new Map<number, Pending>()
  #nextId = 0
  failed = false

  constructor(script: URL) {
    // None of the parent's node flags: the worker runs compiled modules, and an export condition
    // such as a test runner's `sluice-src` (TypeScript sources) would send its imports to files it
    // cannot load; V8 flags are refused in a worker's execArgv anyway.
    this.#worker = new Worker(script, { execArgv: [] })
    // Idle workers do not keep the process alive.
    this.#worker.unref()
    this.#worker.on('message', (m: { id: number; result: AppendBodyResult }) => {
      const pending = this.#pending.get(m.id)
      if (pending === undefined) return
      this.#pending.delete(m.id)
      if (this.#pending.size === 0) this.#worker.unref()
      pending.resolve(m.result)
    })
    const fail = () => this.#fail()
    this.#worker.on('error', fail)
    this.#worker.on('exit', fail)
  }

  get inProgress(): number {
    return this.#pending.size
  }

  run(request: AppendBodyRequest): Promise<AppendBodyResult> {
    if (this.failed) return Promise.resolve(DECLINED)
    return new Promise(resolve => {
      const id = this.#nextId++
      const bytes = new Uint8Array(request.bytes)
      this.#pending.set(id, { resolve })
      this.#worker.ref()
      try {
        this.#worker.postMessage({ id, request: { ...request, bytes } }, [bytes.buffer])
      } catch {
        // Not sent (a value that cannot be cloned, a worker going away): the row path writes it.
        this.#pending.delete(id)
        if (this.#pending.size === 0) this.#worker.unref()
        resolve(DECLINED)
      }
    })
  }

  #fail(): void {
    this.failed = true
    for (const p of this.#pending.values()) p.resolve(DECLINED)
    this.#pending.clear()
  }

  async terminate(): Promise<void> {
    this.#fail()
    await this.#worker.terminate()
  }
}
