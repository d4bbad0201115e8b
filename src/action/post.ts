/** Entry of the post step: separate from main so its bundle carries only what cleanup needs. */
import { enableCompileCache } from '../compose/compile-cache.js';
import { unreadableEvent } from './event-guard.js';
import { errorMessage } from '../errors/message.js';

// Same reason as in index.ts: the SDK's Node-version notice is noise in the step's log.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// An unreadable event payload made the main step refuse before it touched anything: nothing to clean
// up, and the GitHub toolkit must not be loaded (it would parse the payload unguarded).
if (unreadableEvent(process.env) !== undefined) {
  process.stdout.write('chaos-gate post: the event payload cannot be read; the main step ran nothing\n');
} else {
  enableCompileCache();
  const core = await import('@actions/core');
  const { runPostStep } = await import('./post-step.js');
  const { defaultPostDeps } = await import('./post-wiring.js');
  // A cancel of the post step itself (SIGINT, SIGTERM 7.5 s later): the stop stops waiting and the
  // check run is completed with what is known, inside that grace.
  const controller = new AbortController();
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => controller.abort(sig));
  await runPostStep(defaultPostDeps(controller.signal)).catch((err: unknown) => {
    core.setFailed(`chaos-gate post: ${errorMessage(err)}`);
  });
}
