/**
 * What a run has already told the user or n8n's log, so that a notice repeated by every item (an
 * event the node does not know, say) is told once per run, not once per item. Made where a run
 * starts (the Assistant node's router, the chat model's supplyData) and passed down.
 */
export class RunNotices {
	private readonly told = new Set<string>();

	/** True the first time `key` is asked about in this run, false after. */
	first(key: string): boolean {
		if (this.told.has(key)) return false;
		this.told.add(key);
		return true;
	}
}
