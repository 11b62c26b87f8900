package mcpservice

import "testing"

// A runbook's resource name is its path inside the one configured root;
// with several roots (no sole root) the source keeps the root's id.
func TestRunbookName(t *testing.T) {
	for _, tt := range []struct{ root, source, want string }{
		{"runbooks", "runbooks/en/disk-full.md", "en/disk-full.md"},
		{"runbooks", "runbooks/a.md", "a.md"},
		{"runbooks", "runbooks-2/a.md", "runbooks-2/a.md"},
		{"", "runbooks/a.md", "runbooks/a.md"},
		{"docs", "docsx/a.md", "docsx/a.md"},
	} {
		if got := RunbookName(tt.root, tt.source); got != tt.want {
			t.Errorf("RunbookName(%q, %q) = %q, want %q", tt.root, tt.source, got, tt.want)
		}
	}
}
