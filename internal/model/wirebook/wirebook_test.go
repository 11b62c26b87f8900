package wirebook

import (
	"slices"
	"testing"
)

// The script is served in order, then the handler; without one, Next says
// there is no turn. Records update in place; faults pop in order.
func TestBook(t *testing.T) {
	var b Book[string, int, [2]int, string]
	if _, ok := b.Next(1); ok {
		t.Fatal("an empty book served a turn")
	}
	b.Script("a", "b")
	if b.Pending() != 2 {
		t.Fatalf("pending %d, want 2", b.Pending())
	}
	b.Handle(func(req int) string { return "h" + string(rune('0'+req)) })
	var got []string
	for req := range 4 {
		turn, ok := b.Next(req)
		if !ok {
			t.Fatalf("request %d: no turn", req)
		}
		got = append(got, turn)
	}
	if want := []string{"a", "b", "h2", "h3"}; !slices.Equal(got, want) {
		t.Fatalf("turns %q, want %q", got, want)
	}
	i := b.Record([2]int{7, 0})
	b.Record([2]int{8, 0})
	b.Update(i, func(r *[2]int) { r[1] = 500 })
	if rs := b.Requests(); len(rs) != 2 || rs[0] != [2]int{7, 500} || rs[1] != [2]int{8, 0} {
		t.Fatalf("records %v", rs)
	}
	b.QueueFaults("f1", "f2")
	for _, want := range []string{"f1", "f2"} {
		if f, ok := b.NextFault(); !ok || f != want {
			t.Fatalf("fault %q %v, want %q", f, ok, want)
		}
	}
	if _, ok := b.NextFault(); ok {
		t.Fatal("a fault after the queue emptied")
	}
	if msg := b.Problem("script exhausted at %d", 3); msg != "script exhausted at 3" || !slices.Equal(b.Problems(), []string{msg}) {
		t.Fatalf("problem %q, problems %q", msg, b.Problems())
	}
}
