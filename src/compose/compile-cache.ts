/**
 * Keeps V8's compiled code of the bundle on disk between starts (Node 22.1 and later; `enableCompileCache`
 * does not exist on Node 20, where this does nothing). Every entry calls it before it imports its chunks:
 * compiling them is most of a start (the CLI's `validate`, the action's way to its first AWS call), and a
 * second start — the post step after the main step, the next `chaos-gate` command — reads the compiled
 * code instead. Node keeps the cache in the OS temp directory, checks it against each file's content and
 * its own version, and `NODE_DISABLE_COMPILE_CACHE=1` turns it off. A cache that cannot be written only
 * costs the time it would have saved.
 */
import module from 'node:module';

export function enableCompileCache(): void {
  try {
    (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  } catch {
    // Start without it.
  }
}
