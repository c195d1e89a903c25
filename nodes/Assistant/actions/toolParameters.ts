import type { INodeProperties } from 'n8n-workflow';

/**
 * What the AI Agent's tool variant (Assistant Tool) has that the node has not, shown only there
 * (`@tool`): the text the agent reads about the tool, for each operation, and Ask's Input and
 * Conversation ID filled by the model by default.
 *
 * Declaring `toolDescription` keeps n8n from adding its own "Tool Description: Set Automatically"
 * pair, whose automatic text is the node's one-line description (n8n's makeDescription uses an
 * operation's `action` only for nodes with a `resource`): the agent gets the text shown here,
 * which the user can read and edit.
 */

/** The agent-facing text of each operation. */
export const toolDescriptions = {
	ask: "Ask the user's personal AI assistant, which can use their files, integrations and tools, and get its answer. Send a complete, self-contained question or instruction. Each answer includes a conversation_id: to ask a follow-up in the same conversation, pass it back as the conversation ID; otherwise leave the conversation ID empty to start a new one. Never make up a conversation ID.",
	listModels:
		"List the language models the user's personal AI assistant can answer with: each with its model_name, label, vendor, type and context window.",
	listPersonas:
		"List the personas of the user's personal AI assistant: each with its id, name and system prompt.",
	getCatalog:
		"Get the public catalog of the models the user's personal AI assistant offers: each with its id, label, vendor and what it can do.",
} as const;

const inTool = (operation: keyof typeof toolDescriptions) => ({
	show: { operation: [operation], '@tool': [true] },
});

/** Tool only: one Description per operation, each starting from that operation's text. */
export const toolDescriptionProperties: INodeProperties[] = Object.entries(toolDescriptions).map(
	([operation, text]) => ({
		displayName: 'Description',
		name: 'toolDescription',
		type: 'string',
		required: true,
		default: text,
		typeOptions: { rows: 3 },
		description:
			'What the AI Agent reads about this tool: when to use it and what to send. A good, specific description makes the agent call it the right way more often.',
		displayOptions: inTool(operation as keyof typeof toolDescriptions),
	}),
);

/** The description of the key the model fills Conversation ID with. */
export const CONVERSATION_ID_FOR_MODEL =
	'Only a conversation_id that an earlier answer of this tool returned, to ask a follow-up in that conversation. Leave empty to start a new conversation; never make one up.';

/**
 * Ask's Input and Conversation ID as the tool variant starts them: filled by the model through
 * `$fromAI`, the conversation optional for it (an empty default), each key described. n8n's
 * "let the model define this" button would give them no description and make both required, so
 * that a model invents conversation IDs.
 */
export const toolMessageDefaults = {
	input:
		"={{ $fromAI('question', 'The complete, self-contained question or instruction for the personal assistant', 'string') }}",
	conversationId: `={{ $fromAI('conversationId', '${CONVERSATION_ID_FOR_MODEL}', 'string', '') }}`,
};
