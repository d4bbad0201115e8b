/** One wording of anything thrown: the message of an Error, the string form of anything else. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
