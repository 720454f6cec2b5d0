import { FlussError } from '@sluice/core/errors'

/** A listener endpoint as bound or advertised. */
export interface ListenerEndpoint {
  readonly listenerName: string
  readonly host: string
  readonly port: number
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', ''])

/**
 * What the coordinator advertises when `advertised.listeners` is unset: its bound endpoints, with a
 * wildcard bind address replaced by `wildcardHost` (the task's private address in ECS). Advertising
 * a wildcard address would send every client and server to their own loopback interface, so a
 * wildcard bind without a host to advertise is refused at start.
 */
export function advertisedFromBound(
  bound: readonly ListenerEndpoint[],
  wildcardHost: string | undefined,
): ListenerEndpoint[] {
  return bound.map(endpoint => {
    if (!WILDCARD_HOSTS.has(endpoint.host)) return endpoint
    if (wildcardHost === undefined)
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `listener ${endpoint.listenerName} binds the wildcard address ${endpoint.host || '(any)'}: ` +
          "set 'advertised.listeners' to the address clients and servers reach it at",
      )
    return { ...endpoint, host: wildcardHost }
  })
}

/**
 * The private IPv4 address of this ECS task, from the task metadata endpoint (`metadataUri` is
 * `$ECS_CONTAINER_METADATA_URI_V4`): the address of the task's first network interface.
 */
export async function ecsTaskPrivateAddress(
  metadataUri: string,
  fetchJson: (url: string) => Promise<unknown> = defaultFetchJson,
): Promise<string> {
  const task = (await fetchJson(`${metadataUri}/task`)) as {
    Containers?: { Networks?: { IPv4Addresses?: string[] }[] }[]
  }
  for (const container of task.Containers ?? []) {
    for (const network of container.Networks ?? []) {
      const address = network.IPv4Addresses?.[0]
      if (address !== undefined && address !== '') return address
    }
  }
  throw new FlussError(
    'INVALID_CONFIG_EXCEPTION',
    `the ECS task metadata at ${metadataUri} names no IPv4 address`,
  )
}

async function defaultFetchJson(url: string): Promise<unknown> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) })
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`)
  return response.json()
}
