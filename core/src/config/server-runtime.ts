import { KV_ROCKSDB_WRITEBUFFER_SIZE } from './options-kv.js'
/**
 * How the server processes are started, wherever they run (LocalCluster children, the container
 * image's commands in the CDK app): the Node (V8) flags of each role.
 *
 * Tablet servers allocate short-lived objects at a high rate (request and response frames, row
 * buffers, promises of in-flight reads and writes), most of which die within a request. With V8's
 * default young generation (16 MiB semi-spaces) a busy server scavenges every few milliseconds and
 * promotes what is merely in flight, which then fills the old generation and costs full
 * collections: tail latencies of several milliseconds. 64 MiB semi-spaces let those objects die
 * young (measured by the pk-lookup benchmark: p99 5.5 ms with the defaults, 1.4 ms with this).
 */
export const TABLET_SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64']

/** The coordinator is not on the data path: V8's defaults. */
export const COORDINATOR_NODE_FLAGS: readonly string[] = []

/**
 * The local gateway server (functions/gateway/dist/main.js): requests hold their objects for tens
 * of milliseconds while the cluster acknowledges their rows, and bodies of hundreds of KiB arrive
 * all the time. With V8's small initial old generation such a server settles into back-to-back
 * full collections (about 13 a second, each freeing ~1 MiB, their concurrent marking taking half a
 * core, measured by the gateway-append benchmarks); a 256 MiB initial old generation lets the heap
 * grow to its working size instead. (A Lambda function cannot pass this flag: NODE_OPTIONS refuses
 * it.)
 */
export const GATEWAY_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=256']

/**
 * Environment of a local cluster's processes (its servers, and the process running the in-process
 * local AWS endpoints). On Node 20 the AWS SDK for JavaScript v3 prints, in every process, a notice
 * that its releases published after January 2027 will require Node 22. The SDK version this
 * repository pins supports Node 20 (which local mode and CI run; the deployed images and functions
 * run Node 22), so local mode turns the notice off with the SDK's own switch.
 */
export const LOCAL_PROCESS_ENV: Readonly<Record<string, string>> = {
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
}

/**
 * Server options of `sluice local` (`npm start`): the small tables of a
 * laptop need no 64 MB memtables, and RocksDB preallocates each bucket's write-ahead log at 1.1
 * times the memtable size (4mb: about 4.4 MB per bucket instead of 71 MB).
 */
export const LOCAL_MODE_SERVER_CONFIG: Readonly<Record<string, string>> = {
  [KV_ROCKSDB_WRITEBUFFER_SIZE.key]: '4mb',
}
