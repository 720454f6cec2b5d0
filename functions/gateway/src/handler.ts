import { type Configuration, FLUSS_CONF_ENV, loadServerConfig } from '@sluice/core/config'
import { connectClusterBackend } from './backend/cluster-backend.js'
import { createLambdaApp, lambdaHandler } from './lambda.js'

/** The configuration from FLUSS_CONF, the only environment variable the gateway reads. */
function loadConfig(): Configuration {
  return loadServerConfig({ env: { [FLUSS_CONF_ENV]: process.env[FLUSS_CONF_ENV] } }).config
}

/** The configuration for the handler's own settings; a bad FLUSS_CONF fails the boot instead. */
function handlerConfig(): Configuration | undefined {
  try {
    return loadConfig()
  } catch {
    return undefined
  }
}

/**
 * Lambda entry point of the HTTP gateway (API Gateway HTTP API, payload format 2.0). The SDK
 * connection is made on demand and reused by every later invocation in the same container;
 * `/health` and `/ready` answer while it is being made or cannot be made.
 */
export const handler = lambdaHandler(
  async () => {
    const config = loadConfig()
    const { backend } = await connectClusterBackend(config)
    return createLambdaApp({ backend, config })
  },
  { config: handlerConfig() },
)
