/**
 * The Slack sink: one incoming-webhook message when the run ends (verdict, plan, service, environment,
 * reason, worst SLI, links), in Block Kit with a plain-text `text` fallback for notifications and
 * clients that show no blocks; a short message when the run starts too, when asked
 * (`CHAOS_GATE_SLACK_START=true`). The webhook URL is the credential: it is registered with the
 * redactor and never printed. Slack rejects a section whose text is over 3000 characters and a message
 * of more than 50 blocks, so every text is cut to fit and the message has a handful of blocks.
 */
import type { Journal, JournalHeader, Verdict } from '../journal/types.js';
import { faultWindow, runTitle, verdictOf, worstSliText } from './summary.js';
import type { RunLinks, Sink, SinkCall, SinkContext, SinkTarget } from './sink.js';

/** Slack's limits on what a message may carry. */
export const SLACK_LIMITS = { sectionText: 3000, blocks: 50, headerText: 150, fieldText: 2000 } as const;

const ICON: Record<Verdict, string> = {
  held: ':white_check_mark:',
  deviated: ':x:',
  aborted: ':octagonal_sign:',
  inconclusive: ':grey_question:',
  'not-run': ':fast_forward:',
  refused: ':no_entry:',
  failed: ':boom:',
};

/** `text` cut to `max` characters, marked with an ellipsis when cut. */
function fit(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Slack mrkdwn treats `&`, `<` and `>` as control characters: escaped, so untrusted text stays text. */
export function mrkdwnEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function section(text: string): Record<string, unknown> {
  return { type: 'section', text: { type: 'mrkdwn', text: fit(text, SLACK_LIMITS.sectionText) } };
}

function linkLine(links: RunLinks): string | undefined {
  const parts = [
    ...(links.run ? [`<${links.run}|CI run>`] : []),
    ...(links.checkRun ? [`<${links.checkRun}|check run>`] : []),
  ];
  return parts.length > 0 ? parts.join(' · ') : undefined;
}

export class SlackSink implements Sink {
  readonly kind = 'slack' as const;

  constructor(
    private readonly target: SinkTarget,
    private readonly ctx: SinkContext,
    private readonly onStart: boolean,
    readonly display: string,
  ) {}

  started(h: JournalHeader): SinkCall[] {
    if (!this.onStart) return [];
    const text = `chaos-gate: ${runTitle(h)} started`;
    const links = linkLine(this.ctx.links());
    const blocks = [
      section(
        `:hourglass_flowing_sand: *chaos-gate started* ${mrkdwnEscape(runTitle(h))}\n${mrkdwnEscape(h.title)}`,
      ),
      ...(links ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: links }] }] : []),
    ];
    return [this.post('start message', text, blocks)];
  }

  measurement(): SinkCall[] {
    return [];
  }

  event(): SinkCall[] {
    return [];
  }

  finished(j: Journal): SinkCall[] {
    const { verdict, reason } = verdictOf(j);
    const worst = worstSliText(j);
    const window = faultWindow(j);
    const links = this.ctx.links();
    const text = fit(
      `chaos-gate: ${verdict} — ${runTitle(j)}: ${reason}. Worst SLI: ${worst}.` +
        (links.run ? ` ${links.run}` : ''),
      SLACK_LIMITS.sectionText,
    );
    const fields = [
      `*Verdict*\n${verdict}`,
      `*Plan*\n${mrkdwnEscape(j.planId)}`,
      `*Service*\n${mrkdwnEscape(j.service)}`,
      `*Environment*\n${mrkdwnEscape(j.environment)}`,
    ].map((t) => ({ type: 'mrkdwn', text: fit(t, SLACK_LIMITS.fieldText) }));
    const linkText = linkLine(links);
    const blocks: Record<string, unknown>[] = [
      {
        type: 'header',
        text: { type: 'plain_text', text: fit(`${verdict}: ${j.title}`, SLACK_LIMITS.headerText) },
      },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: `${ICON[verdict]} *chaos-gate: ${verdict}*` },
        fields,
      },
      section(`*Reason*\n${mrkdwnEscape(reason)}`),
      section(`*Worst SLI*\n${mrkdwnEscape(worst)}`),
      ...(window
        ? [
            section(
              `*Fault window*\n${new Date(window.from).toISOString()} → ${new Date(window.to).toISOString()}`,
            ),
          ]
        : []),
      ...(linkText ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: linkText }] }] : []),
    ];
    return [this.post('verdict message', text, blocks.slice(0, SLACK_LIMITS.blocks))];
  }

  private post(label: string, text: string, blocks: Record<string, unknown>[]): SinkCall {
    return { label, request: () => ({ method: 'POST', url: this.target.url, body: { text, blocks } }) };
  }
}
