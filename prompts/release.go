package prompts

import (
	_ "embed"
)

// SemanticGuardEN is the system prompt of the release SemanticGuard: one
// no-tool call that checks each FINDING against the observations it cites.
//
//go:embed semantic_guard.en.md
var SemanticGuardEN string

// SemanticGuardZH is the Chinese SemanticGuard prompt with the same rules as
// SemanticGuardEN, used when the prompt language resolves to zh.
//
//go:embed semantic_guard.zh.md
var SemanticGuardZH string
