/**
 * A long run's plan and world (issue 29): many SLIs judged through a long fault at a 1 s interval, for
 * `chaos-gate simulate`. bench/long-run.ts runs 12 h × 60 SLIs; test/journal/long-run.test.ts 30 min × 60.
 */
/** A plan with `slis` SLIs judged during a fault of `faultMs`. */
export function longPlan(slis: number, faultMs: number): string {
  const seconds = Math.round(faultMs / 1000);
  const lines = [
    'version: 1',
    'id: long-run',
    'title: A long fault with many SLIs',
    'service: checkout',
    'environment: staging',
    'owner: team-payments',
    'hypothesis:',
    '  interval: 1s',
    '  minRequests: 100',
    '  requests:',
    '    prometheus: sum(increase(http_requests_total[1s]))',
    '  slis:',
  ];
  for (let i = 0; i < slis; i++) {
    lines.push(
      `    - name: sli_${i}`,
      `      prometheus: max(sli_${i}_ratio)`,
      '      min: 0.99',
      '      steady: { min: 0.995 }',
    );
  }
  lines.push(
    '  steadyState: { duration: 5s }',
    '  recovery: { within: 10s }',
    'abort:',
    '  rules:',
    '    - { sli: sli_0, below: 0.9, for: 5s }',
    'blastRadius:',
    '  maxTargets: 1',
    `  maxActionDuration: ${seconds}s`,
    `  maxRunDuration: ${seconds + 3600}s`,
    'fis:',
    '  roleArn: arn:aws:iam::111122223333:role/chaos-gate-fis',
    '  targets:',
    '    primary:',
    '      resourceType: aws:ec2:subnet',
    '      resourceTags: { Environment: staging-chaos }',
    '      selectionMode: COUNT(1)',
    '  actions:',
    '    partition:',
    '      actionId: aws:network:disrupt-connectivity',
    `      parameters: { duration: PT${seconds}S, scope: all }`,
    '      targets: { Subnets: primary }',
  );
  return lines.join('\n') + '\n';
}

/** The matching world: every SLI steady near 0.9995, a dip to 0.997 during the fault, recovery in 2 s. */
/** `breach`: SLIs (by index) that dip below their 0.99 fault bound (no abort rule watches them). */
export function longScenario(slis: number, faultMs: number, o: { breach?: readonly number[] } = {}): string {
  const lines = ['version: 1', 'description: long run', 'seed: 7', 'metrics:'];
  for (let i = 0; i < slis; i++) {
    lines.push(
      `  sli_${i}:`,
      '    baseline: 0.9995',
      '    noise: 0.0003',
      '    max: 1',
      `    effect: {to: ${o.breach?.includes(i) ? 0.9899 : 0.997}, delay: 1s, recoveryLag: 2s}`,
    );
  }
  lines.push(
    'requests: {baseline: 800, noise: 20}',
    `injector: {actionDuration: ${Math.round(faultMs / 1000)}s, stopLatency: 1s}`,
    `outcome: {verdict: ${o.breach?.length ? 'deviated' : 'held'}}`,
  );
  return lines.join('\n') + '\n';
}
