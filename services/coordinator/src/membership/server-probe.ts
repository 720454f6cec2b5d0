import { connect } from 'node:net'

/** What a connection attempt to a tablet server's listener says about the process behind it. */
export type ProbeResult = 'alive' | 'refused' | 'unknown'

export type ServerProbe = (host: string, port: number) => Promise<ProbeResult>

/**
 * A TCP connect to a tablet server's internal listener, closed at once. A refused connection means
 * nothing listens there any more: the process died (kill -9) or closed its listeners to stop, so
 * the coordinator need not wait for its lease to run out. Anything else (connected, timed out, no
 * route) proves nothing and leaves the decision to the lease: a paused process still accepts
 * connections. Safety never depends on this: epochs fence whatever a wrongly presumed-dead server
 * does.
 */
export function tcpProbe(timeoutMs: number): ServerProbe {
  return (host, port) =>
    new Promise<ProbeResult>(resolve => {
      const socket = connect({ host, port })
      const done = (result: ProbeResult) => {
        clearTimeout(timer)
        socket.destroy()
        resolve(result)
      }
      const timer = setTimeout(() => done('unknown'), timeoutMs)
      socket.once('connect', () => done('alive'))
      socket.once('error', (e: NodeJS.ErrnoException) =>
        done(e.code === 'ECONNREFUSED' ? 'refused' : 'unknown'),
      )
    })
}
