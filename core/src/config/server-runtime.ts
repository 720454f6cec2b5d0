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
