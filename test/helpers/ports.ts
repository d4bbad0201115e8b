/**
 * Loopback ports for the servers tests start as child processes (moto_server, Prometheus), which must be
 * told their port up front: the demo's own finder, so there is one.
 */
export { freePort } from '../../src/cli/demo/prometheus.js';
