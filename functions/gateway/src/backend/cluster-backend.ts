import { AUTHORIZER_ENABLED, type Configuration } from '@sluice/core/config'
import { metaStoreFromConfig } from '@sluice/core/metastore/dynamo'
import { createAuthorizer } from '@sluice/core/security'
import { authorizingBackend } from './authorizing-backend.js'
import type { GatewayBackend } from './gateway-backend.js'
import { SdkBackend } from './sdk-backend.js'

/** The gateway's backend and how to release it. */
export interface ClusterBackend {
  readonly backend: GatewayBackend
  close(): Promise<void>
}

/**
 * Connects the gateway to its cluster (the SDK, with the `client.security.*` credentials of the
 * gateway's own principal). With `authorizer.enabled` every caller is checked against the cluster's
 * ACLs, read from the metadata store at `sluice.metastore.*`.
 */
export async function connectClusterBackend(config: Configuration): Promise<ClusterBackend> {
  const sdk = await SdkBackend.connect(config)
  const logger = {
    warn: (message: string, fields?: Record<string, unknown>) =>
      console.warn(JSON.stringify({ level: 'warn', message, ...fields })),
  }
  const metaStore = config.get(AUTHORIZER_ENABLED) ? metaStoreFromConfig(config) : undefined
  const authorizer = metaStore === undefined ? undefined : createAuthorizer(config, metaStore, logger)
  try {
    await authorizer?.start()
  } catch (e) {
    await sdk.close()
    throw e
  }
  return {
    backend: authorizer === undefined ? sdk : authorizingBackend(sdk, authorizer),
    async close() {
      authorizer?.stop()
      await sdk.close()
      await metaStore?.close()
    },
  }
}
