import type { Benchmark } from '../harness.js'
import { arrowEncode } from './arrow-encode.js'
import { evolvedSchemaAppend, evolvedSchemaLookup } from './evolved-schema.js'
import { gatewayAppendArrow, gatewayAppendJson } from './gateway-append.js'
import { gatewayLookup } from './gateway-lookup.js'
import { keyCheckPkLookup, keyCheckPkUpsert } from './key-check.js'
import { kvRecovery } from './kv-recovery.js'
import { lakeLag } from './lake-lag.js'
import { logAppend } from './log-append.js'
import { logAppendCeiling } from './log-append-ceiling.js'
import { metricsPkLookup, metricsSdkAppend } from './metrics-overhead.js'
import { pkLookup } from './pk-lookup.js'
import { pkUpsert } from './pk-upsert.js'
import { projectedNestedScan } from './projected-nested-scan.js'
import { projectedScan } from './projected-scan.js'
import { replication } from './replication.js'
import { replicationFailover } from './replication-failover.js'
import { sdkAppend } from './sdk-append.js'
import { pkLookupSasl, pkLookupTls, sdkAppendSasl, sdkAppendTls } from './secure-transport.js'
import { tiering } from './tiering.js'

// biome-ignore lint/suspicious/noExplicitAny: benchmarks have heterogeneous contexts
export const BENCHMARKS: readonly Benchmark<any>[] = [
  arrowEncode,
  logAppend,
  logAppendCeiling,
  sdkAppend,
  projectedScan,
  projectedNestedScan,
  gatewayAppendJson,
  gatewayAppendArrow,
  gatewayLookup,
  pkUpsert,
  tiering,
  kvRecovery,
  pkLookup,
  replication,
  replicationFailover,
  lakeLag,
  metricsSdkAppend,
  metricsPkLookup,
  sdkAppendTls,
  sdkAppendSasl,
  pkLookupTls,
  pkLookupSasl,
  keyCheckPkUpsert,
  keyCheckPkLookup,
  evolvedSchemaAppend,
  evolvedSchemaLookup,
]
