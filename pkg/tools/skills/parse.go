package skills

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Limits of a playbook file, so one playbook cannot flood the model's context.
const (
	MaxSize           = 16 << 10 // bytes of the whole SKILL.md
	MaxNameLen        = 64
	MaxDescriptionLen = 200
)

// Parse reads one SKILL.md: front matter between two `---` lines holding
// exactly the keys `name` and `description` (values optionally quoted), then
// a non-empty Markdown body. Source is left empty for the caller.
func Parse(data []byte) (tools.Playbook, error) {
	if len(data) > MaxSize {
		return tools.Playbook{}, fmt.Errorf("larger than %d bytes; shorten it", MaxSize)
	}
	if !utf8.Valid(data) {
		return tools.Playbook{}, errors.New("not valid UTF-8; save it as UTF-8")
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return tools.Playbook{}, errors.New("contains a NUL byte; it must be a text file")
	}
	text := strings.TrimPrefix(string(data), "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimRight(first, " \t") != "---" {
		return tools.Playbook{}, errors.New("no front matter; the file must start with a '---' line, then name: and description:, then '---'")
	}
	var head string
	if strings.HasPrefix(rest, "---\n") || rest == "---" {
		head, rest = "", strings.TrimPrefix(strings.TrimPrefix(rest, "---"), "\n")
	} else {
		i := strings.Index(rest, "\n---\n")
		switch {
		case i >= 0:
			head, rest = rest[:i], rest[i+len("\n---\n"):]
		case strings.HasSuffix(rest, "\n---"):
			head, rest = strings.TrimSuffix(rest, "\n---"), ""
		default:
			return tools.Playbook{}, errors.New("front matter is not closed: add a '---' line after the description line")
		}
	}
	var pb tools.Playbook
	seen := map[string]bool{}
	for n, line := range strings.Split(head, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return tools.Playbook{}, fmt.Errorf("front matter line %d is not 'key: value'", n+2)
		}
		key = strings.TrimSpace(key)
		value, err := unquote(strings.TrimSpace(value))
		if err != nil {
			return tools.Playbook{}, fmt.Errorf("front matter %s: %w", key, err)
		}
		if seen[key] {
			return tools.Playbook{}, fmt.Errorf("front matter key %q appears twice", key)
		}
		seen[key] = true
		switch key {
		case "name":
			pb.Name = value
		case "description":
			pb.Description = value
		default:
			return tools.Playbook{}, fmt.Errorf("unknown front matter key %q; only name and description are allowed", key)
		}
	}
	if err := validName(pb.Name); err != nil {
		return tools.Playbook{}, err
	}
	switch {
	case pb.Description == "":
		return tools.Playbook{}, errors.New("missing description: add a one-line description to the front matter")
	case len(pb.Description) > MaxDescriptionLen:
		return tools.Playbook{}, fmt.Errorf("description is %d bytes, more than %d; shorten it", len(pb.Description), MaxDescriptionLen)
	}
	pb.Body = strings.TrimSpace(rest)
	if pb.Body == "" {
		return tools.Playbook{}, errors.New("empty body: write the playbook's instructions after the front matter")
	}
	// Masked once, here, so every path a playbook takes (read_skill's
	// observation, the catalog in the system prompt, tools call, MCP,
	// skills show, the store) carries the same text and none carries a
	// secret a team wrote into its SKILL.md, as runbooks are masked.
	pb.Description, pb.Body = egress.Mask(pb.Description).String(), egress.Mask(pb.Body).String()
	return pb, nil
}

func unquote(v string) (string, error) {
	if len(v) >= 1 && (v[0] == '"' || v[0] == '\'') {
		if len(v) < 2 || v[len(v)-1] != v[0] {
			return "", errors.New("unterminated quote")
		}
		v = v[1 : len(v)-1]
	}
	return strings.TrimSpace(v), nil
}

// validName accepts lower-case ASCII words joined by single hyphens, the
// form read_skill's argument and directory names share.
func validName(name string) error {
	if name == "" {
		return errors.New("missing name: add 'name: <directory name>' to the front matter")
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("name is longer than %d bytes", MaxNameLen)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			(c == '-' && i > 0 && i < len(name)-1 && name[i-1] != '-')
		if !ok {
			return fmt.Errorf("invalid name %q: use lower-case letters, digits and single hyphens", name)
		}
	}
	return nil
}
