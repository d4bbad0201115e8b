/**
 * docs/fis-actions.md is the FIS actions reference data rendered (scripts/fis-actions-doc.ts): the page
 * must be exactly what the data says, and name every action of the data with its target and parameters.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIS_ACTIONS_DOC, fisActionsDoc } from '../../scripts/fis-actions-doc.js';
import { FIS_REFERENCE } from '../../src/fis-reference/actions.js';

describe('docs/fis-actions.md', () => {
  const page = readFileSync(FIS_ACTIONS_DOC, 'utf8');

  it('is the page the reference data renders (regenerate with npm run -s fis-actions-doc)', () => {
    expect(page).toBe(fisActionsDoc());
  });

  it('has one row per action, with its target key and every parameter name', () => {
    const rows = page.split('\n').filter((l) => l.startsWith('| [`aws:'));
    expect(rows).toHaveLength(FIS_REFERENCE.length);
    for (const a of FIS_REFERENCE) {
      const row = rows.find((r) => r.startsWith(`| [\`${a.id}\`](${a.doc})`));
      expect(row, a.id).toBeDefined();
      if (a.target) expect(row).toContain(`\`${a.target.key}\`: \`${a.target.resourceType}\``);
      for (const name of Object.keys(a.parameters)) expect(row, `${a.id} ${name}`).toContain(`\`${name}\` (`);
    }
  });
});
