package prompts

import (
	_ "embed"
)

// DiagnosisZH is the reference system prompt of the diagnosis agent (Chinese).
//
//go:embed diagnosis.zh.md
var DiagnosisZH string

// DiagnosisEN is the English system prompt with the same rules as DiagnosisZH.
//
//go:embed diagnosis.en.md
var DiagnosisEN string
