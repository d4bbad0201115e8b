/**
 * What a template's name becomes as a plan id (`chaos-gate import`): lower case, every run of characters
 * other than a-z and 0-9 turned into one dash, no dash at either end, and at most 63 characters with no
 * dash left at the cut. Every id made here must also be a slug the plan schema accepts.
 */
import { describe, expect, it } from 'vitest';
import { planIdFor } from '../../src/plan/import.js';

/** The plan id a template named `name` (its `Name` tag) gets. */
const idOf = (name: string): string => planIdFor({ tags: { Name: name } });
/** The plan schema's slug (src/plan/schema.ts). */
const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

describe('the plan id made from a template name', () => {
  it('lowers the case of ASCII letters and keeps digits', () => {
    expect(idOf('CheckoutAZ42')).toBe('checkoutaz42');
  });

  it('turns a run of separators into a single dash', () => {
    expect(idOf('checkout  --  partition')).toBe('checkout-partition');
    expect(idOf('checkout_/_partition.v2')).toBe('checkout-partition-v2');
  });

  it('treats letters outside a-z as separators', () => {
    expect(idOf('Café Straße')).toBe('caf-stra-e');
  });

  it('drops separators at either end', () => {
    expect(idOf('  --Checkout Partition!!  ')).toBe('checkout-partition');
    expect(idOf('[checkout]')).toBe('checkout');
  });

  it('keeps a name of exactly 63 characters and cuts a longer one to 63', () => {
    const exact = 'a'.repeat(63);
    expect(idOf(exact)).toBe(exact);
    expect(idOf(`${exact}bc`)).toBe(exact);
  });

  it('leaves no dash where the cut falls on a separator', () => {
    // The 63rd character is the dash between the two words.
    expect(idOf(`${'a'.repeat(62)} tail`)).toBe('a'.repeat(62));
  });

  it('passes to the next candidate when a name has nothing but separators', () => {
    expect(planIdFor({ tags: { Name: ' -- !! -- ' }, description: 'Checkout' })).toBe('checkout');
  });

  it.each([
    'Checkout',
    '  --Checkout Partition!!  ',
    `${'x'.repeat(40)} ${'y'.repeat(40)}`,
    '9 lives',
    'Café Straße',
  ])('%j becomes a slug the plan schema accepts', (name) => {
    expect(idOf(name)).toMatch(SLUG);
  });
});
