/** The words health uses. One place, so tests and docs agree. */
export const words = {
  healed: "Reopened a task's browser as it was",
  crashed: "A task's browser crashed; it reopens as it was on next use",
  crashedAgain:
    "A task's browser crashed again soon after it was reopened; it waits a little longer before each new try",
  healGaveUp:
    "A task's browser kept crashing, so it is no longer reopened by itself; it was set aside as it was — resume it " +
    'to try again',
  parked: (cause: string) => `Set a task's browser aside (${cause})`,
  recordDropped: (reason: string) => `A set-aside task's browser could not be read (${reason}) and was dropped`,
  parkFailed: (reason: string) => `Could not set a task's browser aside (${reason}); it stays open`,
  filesLost: (why: string) => `A task's files could not be kept with its browser (${why}); download them again`,
  indexedDbLeftOut: (origin: string, reason: string) =>
    `A task's IndexedDB of ${origin} is not kept with its browser (${
      reason === 'over-cap'
        ? 'it is over the cap, ERRANDS_INDEXEDDB_MAX_ERRAND_BYTES'
        : reason === 'unsupported'
          ? 'it holds a value no script can read back'
          : 'it could not be read'
    }); the rest is kept`,
  sealFailed: (reason: string) =>
    `Could not seal a task's latest snapshot (${reason}); it stays open here, and another host would reopen it as ` +
    `last sealed`,
} as const
