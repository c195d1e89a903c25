/**
 * What a run has already told the user or n8n's log, so that a notice repeated by every item (an
 * event the node does not know, say) is told once per run, not once per item. Made where a run
 * starts (the Assistant node's router, the chat model's supplyData) and passed down.
 */
export class RunNotices {
	private readonly told = new Set<string>();
	/** The unknown event names warned of in this run, and whether the last warning was given. */
	private readonly unknownNames = new Set<string>();
	private moreUnknownTold = false;

	/**
	 * What to warn of an event the node does not know, the one place that decides it: its name
	 * the first time it comes in this run, for the first MAX_UNKNOWN_EVENT_WARNINGS names; then,
	 * once, that more came (`more`); else nothing. Every item of a run may bring new names: a run
	 * of many items must not fill n8n's log with them.
	 */
	unknownEvent(name: string): 'name' | 'more' | undefined {
		if (this.unknownNames.has(name)) return undefined;
		if (this.unknownNames.size < MAX_UNKNOWN_EVENT_WARNINGS) {
			this.unknownNames.add(name);
			return 'name';
		}
		if (this.moreUnknownTold) return undefined;
		this.moreUnknownTold = true;
		return 'more';
	}

	/** True the first time `key` is asked about in this run, false after. */
	first(key: string): boolean {
		if (this.told.has(key)) return false;
		this.told.add(key);
		return true;
	}
}

/** How many distinct unknown event names one run warns of by name. */
export const MAX_UNKNOWN_EVENT_WARNINGS = 10;
