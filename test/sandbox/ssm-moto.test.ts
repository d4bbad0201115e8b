/**
 * The Parameter Store cases chaos-gate's claims rely on (ssm-cases.ts), run against moto_server (moto
 * 5.2.1) through the same client as against the stand-in (ssm.test.ts): both must answer them alike.
 * Expiry is not compared: moto keeps a parameter past its Expiration timestamp (AWS deletes it), so the
 * stand-in's expiry is covered by ssm.test.ts alone.
 */
import { afterAll, describe, it } from 'vitest';
import { startMotoForContract } from '../helpers/contract.js';
import { SSM_CASES } from './ssm-cases.js';
import { ssmClient } from './ssm-harness.js';

const moto = await startMotoForContract('ssm-moto');
const client = moto.ok ? ssmClient(moto.server.url) : undefined;

afterAll(async () => {
  client?.destroy();
  if (moto.ok) await moto.server.stop();
}, 30_000);

describe.skipIf(!moto.ok)(
  `moto_server answers the shared Parameter Store cases${moto.ok ? '' : ` (skipped: ${moto.ok === false ? moto.skipReason : ''})`}`,
  () => {
    SSM_CASES.forEach(([name, run], i) => it(name, () => run(client!, `/moto-cases/${i}`), 30_000));
  },
);
