package prompts

import (
	_ "embed"
)

// RouterEN is the chat intent router's system prompt: it classifies one
// message as SYSTEM_CHAT, KNOWLEDGE_QUERY or DIAGNOSIS and nothing else.
//
//go:embed router.en.md
var RouterEN string

// RouterZH is the Chinese router prompt with the same rules as RouterEN,
// used when the prompt language resolves to zh.
//
//go:embed router.zh.md
var RouterZH string

// SystemChatEN is the SYSTEM_CHAT executor's system prompt: a brief answer
// about superbiz itself, with no tools and no claims about the user's systems.
//
//go:embed system_chat.en.md
var SystemChatEN string

// SystemChatZH is the Chinese SYSTEM_CHAT prompt with the same rules as SystemChatEN.
//
//go:embed system_chat.zh.md
var SystemChatZH string

// KnowledgeAnswerEN is the KNOWLEDGE_QUERY answer call's system prompt: answer
// only from the one lookup's documents, citing its Tool Call ID and doc_ids
// ({{SCHEMA}} is replaced by the answer's JSON Schema).
//
//go:embed knowledge_answer.en.md
var KnowledgeAnswerEN string

// KnowledgeAnswerZH is the Chinese knowledge answer prompt with the same
// rules as KnowledgeAnswerEN.
//
//go:embed knowledge_answer.zh.md
var KnowledgeAnswerZH string
