import { FlussError } from '../errors/index.js'

/**
 * Server endpoints in Fluss's listener notation: `NAME://host:port`, comma-separated
 * (`bind.listeners`, `advertised.listeners`, PbServerNode.listeners). IPv6 hosts are bracketed.
 */
export interface Endpoint {
  readonly listenerName: string
  readonly host: string
  readonly port: number
}

const ENTRY = /^([A-Za-z0-9_-]+):\/\/(\[[0-9A-Fa-f:.]+\]|[^\s:,[\]]+):(\d{1,5})$/

/** Parses a listener list; names must be unique. Throws INVALID_CONFIG_EXCEPTION naming the entry. */
export function parseListeners(text: string, what = 'listeners'): Endpoint[] {
  const entries = text.split(',').map(s => s.trim())
  if (text.trim() === '') throw new FlussError('INVALID_CONFIG_EXCEPTION', `${what} is empty`)
  const endpoints = entries.map(entry => {
    const m = ENTRY.exec(entry)
    const port = m === null ? -1 : Number(m[3])
    if (m === null || port > 65535) {
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `${what}: '${entry}' is not a 'NAME://host:port' entry`,
      )
    }
    const host = m[2].startsWith('[') ? m[2].slice(1, -1) : m[2]
    return { listenerName: m[1], host, port }
  })
  const names = endpoints.map(e => e.listenerName)
  const duplicate = names.find((n, i) => names.indexOf(n) !== i)
  if (duplicate !== undefined) {
    throw new FlussError('INVALID_CONFIG_EXCEPTION', `${what}: listener name '${duplicate}' is used twice`)
  }
  return endpoints
}

export function listenersToString(endpoints: readonly Endpoint[]): string {
  return endpoints
    .map(e => `${e.listenerName}://${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`)
    .join(',')
}

/** The endpoint of a listener, or undefined when the list has no such listener. */
export function endpointOf(endpoints: readonly Endpoint[], listenerName: string): Endpoint | undefined {
  return endpoints.find(e => e.listenerName === listenerName)
}
