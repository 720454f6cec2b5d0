import { connect, type Socket } from 'node:net'
import type { FlussError } from '../errors/index.js'
import { parseResponseFrame, type ResponseFrame } from '../rpc/frame.js'
import { FrameDecoder } from '../rpc/frame-decoder.js'

/**
 * A bare TCP client for tests: sends arbitrary bytes to an RPC server and collects the response
 * frames it gets back. Every wait is bounded by `timeoutMs`.
 */
export class TestingRawClient {
  readonly #socket: Socket
  readonly #frames: ResponseFrame[] = []
  readonly #waiters: (() => void)[] = []
  #closed = false
  #decodeError: Error | undefined

  private constructor(socket: Socket) {
    this.#socket = socket
    const decoder = new FrameDecoder({ maxFrameBytes: 2 ** 31 - 1, minFrameBytes: 1 })
    socket.on('data', chunk => {
      try {
        decoder.push(chunk as Buffer, frame => this.#frames.push(parseResponseFrame(Buffer.from(frame))))
      } catch (e) {
        this.#decodeError = e as Error
      }
      this.#wake()
    })
    socket.on('error', () => {})
    // The server ending its side is what "closed" means here; finish ours too.
    socket.on('end', () => socket.end())
    socket.on('close', () => {
      this.#closed = true
      this.#wake()
    })
  }

  static connect(port: number, host = '127.0.0.1'): Promise<TestingRawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port, allowHalfOpen: true })
      socket.once('connect', () => resolve(new TestingRawClient(socket)))
      socket.once('error', reject)
    })
  }

  /** Whether the server has closed the connection. */
  get isClosed(): boolean {
    return this.#closed
  }

  send(...chunks: Buffer[]): void {
    for (const chunk of chunks) this.#socket.write(chunk)
  }

  /** Half-closes: the server sees end of input but can still answer. */
  end(): void {
    this.#socket.end()
  }

  destroy(): void {
    this.#socket.destroy()
  }

  /** The next response frame; rejects if the connection closes first or nothing comes in time. */
  async nextFrame(timeoutMs = 5000): Promise<ResponseFrame> {
    await this.#until(() => this.#frames.length > 0 || this.#closed, timeoutMs)
    const frame = this.#frames.shift()
    if (frame === undefined) throw new Error('connection closed before a response frame arrived')
    return frame
  }

  /** Waits until the server closes the connection; returns every frame not yet taken. */
  async untilClosed(timeoutMs = 5000): Promise<ResponseFrame[]> {
    await this.#until(() => this.#closed, timeoutMs)
    if (this.#decodeError) throw this.#decodeError
    return this.#frames.splice(0)
  }

  #until(condition: () => boolean, timeoutMs: number): Promise<void> {
    if (condition()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no progress within ${timeoutMs} ms`)), timeoutMs)
      const check = () => {
        if (!condition()) return this.#waiters.push(check)
        clearTimeout(timer)
        resolve()
      }
      this.#waiters.push(check)
    })
  }

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter()
  }
}

/** The error a promise rejects with; fails the test when it resolves. */
export function rejection(p: Promise<unknown>): Promise<FlussError> {
  return p.then(
    () => {
      throw new Error('expected a rejection')
    },
    e => e as FlussError,
  )
}
