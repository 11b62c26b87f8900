package runstore

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"sync"
	"time"
)

// idEncoding is ULID's Crockford base32 alphabet in lower case: its digits
// are in ASCII order, so encoded IDs of one length sort as their bytes do
// (the standard alphabet, A–Z then 2–7, does not).
var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// idRandomBits is the random part of an ID, after 48 bits of milliseconds.
const idRandomBits = 40

// IDs makes the run and session IDs of docs/SPEC.md: the prefix ("r_",
// "s_"), then 18 characters encoding 48 bits of Unix milliseconds and 40
// random bits. IDs from one IDs sort as strings in the order they were made:
// in a millisecond already used, or when the clock steps back, the previous
// ID's random part is incremented instead (ULID's monotonic mode). The zero
// value is ready; it is safe for concurrent use and must not be copied.
type IDs struct {
	mu sync.Mutex
	// now and random replace the clock and crypto/rand in tests; nil uses them.
	now    func() time.Time
	random func() uint64
	lastMS uint64
	lastR  uint64
}

// New returns the next ID with prefix.
func (g *IDs) New(prefix string) string {
	g.mu.Lock()
	ms, r := g.next()
	g.mu.Unlock()
	var b [11]byte
	binary.BigEndian.PutUint64(b[:8], ms<<16)
	var rb [8]byte
	binary.BigEndian.PutUint64(rb[:], r)
	copy(b[6:], rb[8-idRandomBits/8:])
	return prefix + idEncoding.EncodeToString(b[:])
}

// next is the milliseconds and random part of the next ID; g.mu is held.
func (g *IDs) next() (ms, r uint64) {
	now := time.Now
	if g.now != nil {
		now = g.now
	}
	ms = uint64(now().UnixMilli()) & (1<<48 - 1)
	if ms > g.lastMS {
		g.lastMS, g.lastR = ms, g.randomPart()
		return g.lastMS, g.lastR
	}
	// Same millisecond, or the clock went back: stay after the last ID.
	g.lastR++
	if g.lastR == 1<<idRandomBits {
		g.lastMS, g.lastR = g.lastMS+1, 0
	}
	return g.lastMS, g.lastR
}

func (g *IDs) randomPart() uint64 {
	if g.random != nil {
		return g.random() & (1<<idRandomBits - 1)
	}
	var b [8]byte
	_, _ = rand.Read(b[8-idRandomBits/8:]) // crypto/rand.Read never fails (Go 1.24+)
	return binary.BigEndian.Uint64(b[:])
}

// NewID returns a new ID with prefix from this store's generator, so the
// IDs one process stores sort in the order it made them.
func (s *Store) NewID(prefix string) string { return s.ids.New(prefix) }
