import { RunNotices } from '../../shared/runNotices';

/**
 * Requests that do not depend on the item (models, personas, catalog) are made once per node
 * run and shared by every item: N input items cost one request, not N.
 */
export class RunCache {
	private readonly entries = new Map<string, Promise<unknown>>();
	/** What this run has told once (runNotices.ts). */
	readonly notices = new RunNotices();

	once<T>(key: string, load: () => Promise<T>): Promise<T> {
		let entry = this.entries.get(key) as Promise<T> | undefined;
		if (!entry) {
			entry = load();
			this.entries.set(key, entry);
		}
		return entry;
	}
}
