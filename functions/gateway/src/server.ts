import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import {
  type Configuration,
  GATEWAY_REST_HEADER_READ_TIMEOUT,
  GATEWAY_REST_LISTEN,
  GATEWAY_SHUTDOWN_DRAIN_TIMEOUT,
} from '@sluice/core/config'
import { createApp, type GatewayApp } from './app.js'
import type { GatewayBackend } from './backend/gateway-backend.js'
import type { GatewayDeps } from './types.js'

export interface GatewayServerOptions extends Omit<GatewayDeps, 'backend' | 'config'> {
  readonly config: Configuration
  readonly backend: GatewayBackend
  /** Default: the host of `gateway.rest.listen` (127.0.0.1). */
  readonly host?: string
  /** Default: the port of `gateway.rest.listen` (8080); 0 picks a free port. */
  readonly port?: number
}

export interface GatewayServer {
  /** `http://host:port` the server listens on. */
  readonly url: string
  readonly app: GatewayApp
  /** Drains (503 on /ready and new requests, waits for requests in flight up to `gateway.shutdown.drain-timeout`), then stops. */
  close(): Promise<void>
}

/** Splits `host:port` / `[v6]:port`. */
export function parseListen(listen: string): { host: string; port: number } {
  const at = listen.lastIndexOf(':')
  const host = listen.slice(0, at).replace(/^\[(.*)\]$/, '$1')
  return { host, port: Number(listen.slice(at + 1)) }
}

/** Serves the gateway app over HTTP/1.1 with @hono/node-server. */
export async function startGatewayServer(options: GatewayServerOptions): Promise<GatewayServer> {
  const { config, host: hostOption, port: portOption, ...deps } = options
  const listen = parseListen(config.get(GATEWAY_REST_LISTEN))
  const host = hostOption ?? listen.host
  const port = portOption ?? listen.port
  const app = createApp({ ...deps, config })
  const server = createAdaptorServer({ fetch: app.fetch, hostname: host }) as Server
  server.headersTimeout = config.get(GATEWAY_REST_HEADER_READ_TIMEOUT)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const responses = trackResponses(server)
  let closing: Promise<void> | undefined
  const close = async () => {
    const drainMs = config.get(GATEWAY_SHUTDOWN_DRAIN_TIMEOUT)
    const deadlineMs = Date.now() + drainMs
    app.lifecycle.startDraining()
    await app.lifecycle.waitIdle(drainMs)
    const stopped = new Promise<void>(resolve => server.close(() => resolve()))
    server.closeIdleConnections()
    await responses.waitNone(Math.max(0, deadlineMs - Date.now()))
    server.closeAllConnections()
    await stopped
  }
  return {
    url: `http://${shownHost}:${address.port}`,
    app,
    close: () => {
      closing ??= close()
      return closing
    },
  }
}

/** Counts responses not yet fully written, so shutdown closes sockets only after they are sent. */
function trackResponses(server: Server): { waitNone(timeoutMs: number): Promise<void> } {
  let open = 0
  const waiters: (() => void)[] = []
  server.on('request', (_req, res) => {
    open++
    res.once('close', () => {
      open--
      if (open === 0) for (const w of waiters.splice(0)) w()
    })
  })
  return {
    waitNone: timeoutMs =>
      open === 0
        ? Promise.resolve()
        : new Promise(resolve => {
            const timer = setTimeout(resolve, timeoutMs)
            timer.unref()
            waiters.push(() => {
              clearTimeout(timer)
              resolve()
            })
          }),
  }
}
