/**
 * The tags chaos-gate writes on its templates and experiments for its own bookkeeping. Kept apart from
 * the template (template.ts) so what reads them — the kill switch, the probes a run makes before its plan
 * is loaded — does not load the plan's schema.
 */
export const CHAOS_GATE_TAG_PREFIX = 'chaos-gate:';
export const TAG_PLAN = 'chaos-gate:plan';
export const TAG_DIGEST = 'chaos-gate:digest';
export const TAG_PLAN_DIGEST = 'chaos-gate:plan-digest';
export const TAG_SERVICE = 'chaos-gate:service';
export const TAG_RUN = 'chaos-gate:run';
export const TAG_ATTEMPT = 'chaos-gate:attempt';
export const TAG_REPO = 'chaos-gate:repo';
export const TAG_SHA = 'chaos-gate:sha';
