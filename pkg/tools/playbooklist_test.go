package tools

import "testing"

// A PlaybookList lists its playbooks in order and gets one by its exact
// name, the first of two with the same name.
func TestPlaybookList(t *testing.T) {
	l := PlaybookList{{Name: "b", Body: "first"}, {Name: "a"}, {Name: "b", Body: "second"}}
	var _ Playbooks = l
	if got := l.List(); len(got) != 3 || got[0].Name != "b" || got[1].Name != "a" {
		t.Errorf("List = %+v", got)
	}
	for _, tc := range []struct {
		name, body string
		ok         bool
	}{{"b", "first", true}, {"a", "", true}, {"B", "", false}, {"", "", false}} {
		p, ok := l.Get(tc.name)
		if ok != tc.ok || p.Body != tc.body || (ok && p.Name != tc.name) {
			t.Errorf("Get(%q) = %+v, %t; want body %q, %t", tc.name, p, ok, tc.body, tc.ok)
		}
	}
}
