// Package wirebook is the bookkeeping that the wire-faithful model test
// servers (ollamatest, openaitest) share, so neither keeps its own copy: the
// scripted turns served in order and then a handler, the record of every
// request, the script misuse noticed, and the faults queued for the next
// embedding requests. Every method is safe for concurrent use.
package wirebook

import (
	"fmt"
	"slices"
	"sync"
)

// Book holds one server's script and record; its zero value is ready.
// Turn is the server's scripted answer, Req its decoded chat request, Rec
// its record of one request and Fault its fault type.
type Book[Turn, Req, Rec, Fault any] struct {
	mu       sync.Mutex
	script   []Turn
	handle   func(Req) Turn
	recorded []Rec
	problems []string
	faults   []Fault
}

// Script appends turns to the FIFO that successive chat requests consume.
func (b *Book[Turn, Req, Rec, Fault]) Script(turns ...Turn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.script = append(b.script, turns...)
}

// Handle sets the function that computes a turn once the script is empty.
func (b *Book[Turn, Req, Rec, Fault]) Handle(fn func(req Req) Turn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.handle = fn
}

// Pending is the number of scripted turns not consumed yet.
func (b *Book[Turn, Req, Rec, Fault]) Pending() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.script)
}

// Next pops the script, falls back to the handler, or says there is no
// turn for req (the script is exhausted and no handler is set).
func (b *Book[Turn, Req, Rec, Fault]) Next(req Req) (Turn, bool) {
	b.mu.Lock()
	if len(b.script) > 0 {
		t := b.script[0]
		b.script = b.script[1:]
		b.mu.Unlock()
		return t, true
	}
	h := b.handle
	b.mu.Unlock()
	if h != nil {
		return h(req), true
	}
	var none Turn
	return none, false
}

// Record appends one request's record and returns its index for Update.
func (b *Book[Turn, Req, Rec, Fault]) Record(r Rec) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.recorded = append(b.recorded, r)
	return len(b.recorded) - 1
}

// Update changes the record at index i (its answer's status and fault).
func (b *Book[Turn, Req, Rec, Fault]) Update(i int, fn func(*Rec)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fn(&b.recorded[i])
}

// Requests returns a copy of every record, in arrival order.
func (b *Book[Turn, Req, Rec, Fault]) Requests() []Rec {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.recorded)
}

// Problem notes a script misuse and returns its message (for the answer).
func (b *Book[Turn, Req, Rec, Fault]) Problem(format string, args ...any) string {
	msg := fmt.Sprintf(format, args...)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, msg)
	return msg
}

// Problems lists the script misuse noticed; a server's New reports them
// as test errors.
func (b *Book[Turn, Req, Rec, Fault]) Problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.problems)
}

// QueueFaults queues faults that the next embedding requests answer with,
// one per request.
func (b *Book[Turn, Req, Rec, Fault]) QueueFaults(faults ...Fault) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.faults = append(b.faults, faults...)
}

// NextFault pops the queued fault of the next embedding request; ok is
// false when none is queued.
func (b *Book[Turn, Req, Rec, Fault]) NextFault() (f Fault, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.faults) == 0 {
		return f, false
	}
	f, b.faults = b.faults[0], b.faults[1:]
	return f, true
}
