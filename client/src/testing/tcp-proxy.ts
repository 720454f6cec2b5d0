import { connect, createServer, type Server, type Socket } from 'node:net'

type Pair = readonly [Socket, Socket]

/** Taps on the relayed bytes. */
export interface TcpProxyOptions {
  /** Called with the first length-prefixed frame (prefix excluded) each client sends. */
  readonly onFirstFrame?: (frame: Buffer) => void
}

/** Collects a client's first bytes until its first length-prefixed frame is complete. */
function firstFrameTap(onFrame: (frame: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer | undefined = Buffer.alloc(0)
  return chunk => {
    if (pending === undefined) return
    pending = Buffer.concat([pending, chunk])
    if (pending.length < 4 || pending.length < 4 + pending.readInt32BE(0)) return
    const frame = pending.subarray(4, 4 + pending.readInt32BE(0))
    pending = undefined
    onFrame(frame)
  }
}

/**
 * A TCP relay on 127.0.0.1 in front of a test server, so tests can cut connections mid-flight
 * (`dropConnections`) while the server itself keeps running and accepting new ones.
 */
export class TcpProxy {
  readonly #server: Server
  readonly #pairs: Set<Pair>
  readonly port: number

  private constructor(server: Server, pairs: Set<Pair>, port: number) {
    this.#server = server
    this.#pairs = pairs
    this.port = port
  }

  static start(
    targetPort: number,
    targetHost = '127.0.0.1',
    options: TcpProxyOptions = {},
  ): Promise<TcpProxy> {
    const pairs = new Set<Pair>()
    const server = createServer(client => {
      const onFirstFrame = options.onFirstFrame
      if (onFirstFrame !== undefined) client.on('data', firstFrameTap(onFirstFrame))
      const upstream = connect({ host: targetHost, port: targetPort })
      const pair: Pair = [client, upstream]
      pairs.add(pair)
      const close = () => {
        pairs.delete(pair)
        client.destroy()
        upstream.destroy()
      }
      client.on('error', close).on('close', close)
      upstream.on('error', close).on('close', close)
      client.pipe(upstream)
      upstream.pipe(client)
    })
    return new Promise((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => {
        const address = server.address()
        const port = typeof address === 'object' && address !== null ? address.port : 0
        resolve(new TcpProxy(server, pairs, port))
      })
    })
  }

  /** Open relayed connections. */
  get connectionCount(): number {
    return this.#pairs.size
  }

  /** Cuts every relayed connection at once. */
  dropConnections(): void {
    for (const [client, upstream] of [...this.#pairs]) {
      client.destroy()
      upstream.destroy()
    }
  }

  close(): Promise<void> {
    this.dropConnections()
    return new Promise(resolve => this.#server.close(() => resolve()))
  }
}
