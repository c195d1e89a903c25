// @ts-check
'use strict';

/**
 * Every end-to-end check, in the order they run: one module per area, each exporting a list of
 * checks (`{ id, name, run(env) }`, see run.js). A new area is one file here plus one line below.
 * The owner setup comes first (the other checks sign in as that owner) and the editor's node
 * checks last (they change the workflow the others run).
 */

/** @type {import('../env').Check[]} */
module.exports = [
	...require('./owner'),
	...require('./workflows'),
	...require('./exactly-once'),
	...require('./steps'),
	...require('./webhook'),
	...require('./tool'),
	...require('./chat-model'),
	...require('./chat-model-conversations'),
	...require('./transcript'),
	...require('./images'),
	...require('./backend'),
	...require('./usability'),
	...require('./power-user'),
	...require('./editor'),
];
