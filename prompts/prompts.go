// Package prompts embeds the text the engine sends to the model, so the
// binary carries its prompts and built-in playbooks with no files to install.
package prompts

import "embed"

// Skills holds the built-in diagnosis playbooks as skills/<name>/SKILL.md;
// pkg/tools/skills loads them into the playbook catalog.
//
//go:embed skills
var Skills embed.FS
