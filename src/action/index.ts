import { enableCompileCache } from '../compose/compile-cache.js';
import { eventRefusal, unreadableEvent } from './event-guard.js';

// The SDK warns on every process under Node 20 about its releases after January 2027; the action pins
// its clients and runs on Node 20 and 24, so the warning would only clutter the step's log.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// Before anything that loads the GitHub toolkit (see event-guard.ts): an unreadable payload refuses.
const problem = unreadableEvent(process.env);
if (problem !== undefined) {
  process.stdout.write(eventRefusal(problem));
  process.exitCode = 2;
} else {
  // Before the run's code is loaded: the post step (and a later step of the job) then starts from the
  // compiled code this step leaves behind, on Node 22.1 and later.
  enableCompileCache();
  const { run } = await import('./main.js');
  await run();
}
