package logparse

import (
	"testing"
)

func TestTemplate(t *testing.T) {
	cases := []struct{ in, want string }{
		{"timeout after 3000 ms on 10.0.0.12:6379 order=8812", "timeout after <num> ms on <ip>:<num> order=<num>"},
		{"took 150ms then 3.2s", "took <dur> then <dur>"},
		{"req 123e4567-e89b-12d3-a456-426614174000 id 0x7f3a hash deadbeef12cafe word facade", "req <uuid> id <hex> hash <hex> word facade"},
		{`user "bob" mail bob@example.com`, `user "<str>" mail <email>`},
		{`unmatched "quote 12`, `unmatched "quote <num>`},
		{"GET /api/orders/8812 v2", "GET /api/orders/<num> <id>"},
		{"first line 1\nstack 2", "first line <num>"},
	}
	for _, c := range cases {
		if got := Template(c.in); got != c.want {
			t.Errorf("template(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
