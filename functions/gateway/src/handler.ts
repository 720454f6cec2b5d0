import { FLUSS_CONF_ENV, loadServerConfig } from '@sluice/core/config'
import { SdkBackend } from './backend/sdk-backend.js'
import { createLambdaApp, lambdaHandler } from './lambda.js'

/**
 * Lambda entry point of the HTTP gateway (API Gateway HTTP API, payload format 2.0). The
 * configuration comes from FLUSS_CONF, read here and nowhere else; the SDK connection is made on
 * the first invocation and reused by every later one in the same container.
 */
export const handler = lambdaHandler(async () => {
  const { config } = loadServerConfig({ env: { [FLUSS_CONF_ENV]: process.env[FLUSS_CONF_ENV] } })
  const backend = await SdkBackend.connect(config)
  return createLambdaApp({ backend, config })
})
